#!/usr/bin/env python3
"""Checks the geometry of a drawing (an SVG of tools/trace_picture.py) as a reader at 1280 px sees it.

A picture teaches at a glance only if it can be read: every text is at least 11 px, nothing
runs off the page, no text lies on another, no text straddles the edge of a box (a value is
inside its cell or away from it), no line or arrow crosses a text (lines, paths of straight
segments and Bezier curves, polylines, polygons such as arrowheads), and where a bank conflict
is drawn the banks are numbered. Text extents are estimated for the monospace font the
drawings use (0.6 em a character, 0.8 em above the baseline and 0.25 em below), which is what
DejaVu Sans Mono measures.

--shown-at PX: the drawing is shown PX wide (the docs' pages show a stage's picture as wide as
their text column, 1004 px in a 1280 px window): a text must be at least 11 px as shown, so its
size times PX / width.

Usage: trace_geometry.py [--shown-at PX] FILE.svg...   (exit 1 and one line per problem when any)
       trace_geometry.py --self-test    each rule on a drawing made to break it: proof it can fail
Standard library only.
"""
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
MIN_FONT = 11
PAGE_WIDTH = 1280


def _num(value, default=0.0):
    try:
        return float(str(value).replace("px", ""))
    except (TypeError, ValueError):
        return default


def _text_of(el):
    parts = [el.text or ""]
    for child in el:
        if child.tag != SVG + "title":
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return "".join(parts)


def _path_segments(d):
    """The segments of a path (absolute M, L, H, V, Q, C, Z), curves as 24 chords each; None
    when the path has a command this check does not follow."""
    tokens = re.findall(r"[A-Za-z]|-?[0-9]*\.?[0-9]+(?:e-?[0-9]+)?", d or "")
    segs, k, cmd = [], 0, None
    x = y = sx = sy = 0.0

    def take(n):
        nonlocal k
        vals = [float(v) for v in tokens[k:k + n]]
        k += n
        return vals
    while k < len(tokens):
        if tokens[k].isalpha():
            cmd = tokens[k]
            k += 1
            if cmd in "Zz":
                segs.append((x, y, sx, sy))
                x, y = sx, sy
                continue
        if cmd == "M":
            x, y = take(2)
            sx, sy = x, y
            cmd = "L"
        elif cmd == "L":
            nx, ny = take(2)
            segs.append((x, y, nx, ny))
            x, y = nx, ny
        elif cmd == "H":
            nx, = take(1)
            segs.append((x, y, nx, y))
            x = nx
        elif cmd == "V":
            ny, = take(1)
            segs.append((x, y, x, ny))
            y = ny
        elif cmd in ("Q", "C"):
            pts = take(4 if cmd == "Q" else 6)
            px, py = x, y
            for i in range(1, 25):
                u = i / 24.0
                if cmd == "Q":
                    qx = (1 - u) ** 2 * x + 2 * (1 - u) * u * pts[0] + u * u * pts[2]
                    qy = (1 - u) ** 2 * y + 2 * (1 - u) * u * pts[1] + u * u * pts[3]
                else:
                    qx = ((1 - u) ** 3 * x + 3 * (1 - u) ** 2 * u * pts[0] + 3 * (1 - u) * u * u * pts[2]
                          + u ** 3 * pts[4])
                    qy = ((1 - u) ** 3 * y + 3 * (1 - u) ** 2 * u * pts[1] + 3 * (1 - u) * u * u * pts[3]
                          + u ** 3 * pts[5])
                segs.append((px, py, qx, qy))
                px, py = qx, qy
            x, y = pts[-2], pts[-1]
        else:
            return None
    return segs


def _points_segments(points, closed):
    vals = [float(v) for v in re.findall(r"-?[0-9]*\.?[0-9]+", points or "")]
    pts = list(zip(vals[0::2], vals[1::2]))
    segs = [(a[0], a[1], b[0], b[1]) for a, b in zip(pts, pts[1:])]
    if closed and len(pts) > 2:
        segs.append((pts[-1][0], pts[-1][1], pts[0][0], pts[0][1]))
    return segs


def boxes(svg_text):
    """(width, height, texts, rects, lines, classes): texts as (x0, y0, x1, y1, size, text);
    lines as segments (None: a path this check cannot follow); classes: every class named."""
    root = ET.fromstring(svg_text)
    width, height = _num(root.get("width")), _num(root.get("height"))
    texts, rects, lines, classes = [], [], [], set()
    hidden = set()
    for el in root.iter():
        if el.tag.replace(SVG, "") in ("defs", "marker", "symbol", "clipPath", "mask", "pattern"):
            hidden.update(id(x) for x in el.iter())
    for el in root.iter():
        if id(el) in hidden:
            continue
        classes.update((el.get("class") or "").split())
        tag = el.tag.replace(SVG, "")
        if tag == "text":
            s = _text_of(el)
            if not s.strip():
                continue
            size = _num(el.get("font-size"), 16)
            x, y = _num(el.get("x")), _num(el.get("y"))
            w = len(s) * size * 0.6
            anchor = el.get("text-anchor", "start")
            x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
            texts.append((x0, y - 0.8 * size, x0 + w, y + 0.25 * size, size, s))
        elif tag == "rect":
            x, y = _num(el.get("x")), _num(el.get("y"))
            rects.append((x, y, x + _num(el.get("width")), y + _num(el.get("height"))))
        elif tag == "line":
            lines.append((_num(el.get("x1")), _num(el.get("y1")), _num(el.get("x2")), _num(el.get("y2"))))
        elif tag == "path":
            segs = _path_segments(el.get("d"))
            lines.extend(segs if segs is not None else [None])
        elif tag in ("polyline", "polygon"):
            lines.extend(_points_segments(el.get("points"), tag == "polygon"))
    return width, height, texts, rects, lines, classes


def _overlap(a, b, slack=0.5):
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def _inside(a, r, slack=0.5):
    return a[0] >= r[0] - slack and a[2] <= r[2] + slack and a[1] >= r[1] - slack and a[3] <= r[3] + slack


def _segment_hits_box(seg, box):
    """Whether the segment passes through the inside of the box (Liang-Barsky clipping)."""
    x1, y1, x2, y2 = seg
    dx, dy = x2 - x1, y2 - y1
    lo, hi = 0.0, 1.0
    for p, q in ((-dx, x1 - box[0]), (dx, box[2] - x1), (-dy, y1 - box[1]), (dy, box[3] - y1)):
        if p == 0:
            if q <= 0:
                return False
            continue
        r = q / p
        if p < 0:
            lo = max(lo, r)
        else:
            hi = min(hi, r)
        if lo >= hi:
            return False
    return True


class _Grid:
    """Boxes by the 32 px squares they cover: what may meet a box or a segment is looked up, not
    searched (a picture has thousands of texts, cells and arrows)."""

    SIZE = 32.0

    def __init__(self, items):
        self.cells = {}
        for k, b in enumerate(items):
            for key in self._keys(b[0], b[1], b[2], b[3]):
                self.cells.setdefault(key, []).append(k)

    def _keys(self, x0, y0, x1, y1):
        for i in range(int(x0 // self.SIZE), int(x1 // self.SIZE) + 1):
            for j in range(int(y0 // self.SIZE), int(y1 // self.SIZE) + 1):
                yield (i, j)

    def near(self, x0, y0, x1, y1):
        found = set()
        for key in self._keys(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)):
            found.update(self.cells.get(key, ()))
        return sorted(found)


def problems(svg_text, name="drawing", shown_at=None):
    """Every geometry problem of one SVG, as lines of text (empty: it passes). shown_at: the
    width in px the drawing is shown at (default: its own width)."""
    width, height, texts, rects, lines, classes = boxes(svg_text)
    out = []
    if width > PAGE_WIDTH:
        out.append("%s: %g px wide, wider than a %d px page: it would be scaled down" % (name, width, PAGE_WIDTH))
    scale = shown_at / width if shown_at and width else 1.0
    for t in texts:
        if t[4] * scale < MIN_FONT - 1e-9:
            out.append("%s: text %r is %g px%s, below %d px" % (
                name, t[5], t[4] * scale, " as shown %g px wide" % shown_at if shown_at else "", MIN_FONT))
        if t[0] < 0 or t[1] < 0 or t[2] > width or t[3] > height:
            out.append("%s: text %r runs off the page (%.0f..%.0f x %.0f..%.0f of %g x %g)" % (
                name, t[5], t[0], t[2], t[1], t[3], width, height))
    order = sorted(texts, key=lambda t: t[1])
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            if b[1] >= a[3]:
                break
            if _overlap(a, b):
                out.append("%s: text %r lies on text %r" % (name, a[5], b[5]))
    grid = _Grid(texts)
    for r in rects:
        if r[0] <= 0 and r[1] <= 0 and r[2] >= width and r[3] >= height:
            continue  # the page's background
        for k in grid.near(*r[:4]):
            t = texts[k]
            if _overlap(t, r) and not _inside(t, r):
                out.append("%s: text %r straddles the edge of a box at (%.0f, %.0f)" % (name, t[5], r[0], r[1]))
    crossed = set()
    for seg in lines:
        if seg is None:
            out.append("%s: a path the check cannot follow" % name)
            continue
        for k in grid.near(*seg):
            t = texts[k]
            if k not in crossed and _segment_hits_box(seg, t):
                crossed.add(k)
                out.append("%s: a line crosses text %r" % (name, t[5]))
    if "conflict" in classes and "bank" not in classes:
        out.append("%s: bank conflicts are drawn, but no bank is numbered" % name)
    return out


SELF_TESTS = {
    # name: (body, width, shown_at, the words the problem must contain; None: no problem)
    "clean": ('<text x="10" y="20" font-size="11">ok</text><line x1="0" y1="40" x2="200" y2="40" stroke="#000"/>',
              400, None, None),
    "small": ('<text x="10" y="20" font-size="10">tiny</text>', 400, None, "below 11 px"),
    "small as shown": ('<text x="10" y="20" font-size="11">wide</text>', 1280, 1004, "as shown 1004 px wide"),
    "off the page": ('<text x="390" y="20" font-size="11">far right</text>', 400, None, "runs off the page"),
    "on another": ('<text x="10" y="20" font-size="11">one</text><text x="20" y="22" font-size="11">two</text>',
                   400, None, "lies on text"),
    "across a box": ('<rect x="15" y="0" width="50" height="30"/><text x="10" y="20" font-size="11">edge</text>',
                     400, None, "straddles the edge"),
    "line": ('<text x="10" y="20" font-size="11">label</text><line x1="0" y1="16" x2="100" y2="16"/>', 400, None,
             "a line crosses text 'label'"),
    "curve": ('<text x="50" y="20" font-size="11">label</text><path d="M 10 40 Q 70 -10 130 40"/>', 400, None,
              "a line crosses text 'label'"),
    "arrowhead": ('<text x="10" y="20" font-size="11">label</text><polygon points="20,10 30,18 20,26"/>', 400, None,
                  "a line crosses text 'label'"),
    "banks": ('<rect x="10" y="10" width="20" height="20" class="word conflict"/>', 400, None,
              "no bank is numbered"),
}


def self_test():
    failed = 0
    for name, (body, width, shown_at, expected) in SELF_TESTS.items():
        svg = '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="100">%s</svg>' % (width, body)
        found = problems(svg, name, shown_at)
        ok = not found if expected is None else any(expected in line for line in found)
        if not ok:
            failed += 1
            print("FAIL: %s: expected %s, found %s" % (name, expected or "no problem", found or "none"))
    print("%d of %d rules %s" % (len(SELF_TESTS) - failed, len(SELF_TESTS), "hold" if not failed else "hold: see above"))
    return 1 if failed else 0


def main(argv):
    bad = []
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    shown_at = None
    if args[:1] == ["--shown-at"]:
        shown_at = float(args[1])
        args = args[2:]
    if not args:
        print("usage: trace_geometry.py [--shown-at PX] FILE.svg...")
        return 2
    for path in args:
        with open(path) as f:
            bad += problems(f.read(), path, shown_at)
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

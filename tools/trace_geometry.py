#!/usr/bin/env python3
"""Checks the geometry of a drawing (an SVG of tools/trace_picture.py) as a reader at 1280 px sees it.

A picture teaches at a glance only if it can be read: every text is at least 11 px, nothing
runs off the page, no text lies on another, no text straddles the edge of a box (a value is
inside its cell or away from it), a text in a box keeps 2 px clear of its left and right edges
(a 4-digit number that fills its cell reads as one with its neighbour's), every box or bar is
at least 12 px tall (a lane or a sector drawn 8 or 10 px tall cannot be told from a rule) and
8 px wide (a 2.4 px sliver for the bytes a lane asked for, a 6 px lane, did not read),
no line or arrow crosses a text (lines, paths of straight segments and Bezier curves,
polylines, polygons such as arrowheads), and where a bank conflict is drawn the banks are
numbered above the very words in conflict (a text of class "bank" over each such word). Text
extents are estimated for the monospace font the drawings use (0.6 em a character, 0.8 em
above the baseline and 0.25 em below), which is what DejaVu Sans Mono measures. No text may be
squeezed (a textLength or lengthAdjust: condensed glyphs read badly, and a 4-digit number squeezed
into a 27 px cell read as one with its neighbour's); its extent is its natural width.

--shown-at PX: the drawing is shown PX wide: a text must be at least 11 px as shown, so its
size times PX / width (and a box 12 px tall as shown).

--page PAGE.html: each SVG picture the page embeds (<object data=...> or <img src=...>), as
the page shows it in a window 1024 and 1280 px wide: a width in px is that width in both; a
width in % is that share of doxygen's text column; no width, the picture's own. The column, as
Chromium lays out the docs' pages (measured): beside doxygen's side tree it is the window less
291 px (the tree's 256 px, a scroll bar of 15 px and the contents' 12 and 8 px margins: 989 px
at 1280); where the page's stylesheets hide the tree (kit.css's media query, below 1280 px) it
is the window less 35 px (989 px at 1024). A page whose stylesheets keep the tree has a 733 px
column at 1024. Every rule above holds at both windows, and the picture fits the column at both.

Usage: trace_geometry.py [--shown-at PX] FILE.svg...   (exit 1 and one line per problem when any)
       trace_geometry.py --page PAGE.html...
       trace_geometry.py --self-test    each rule on a drawing made to break it: proof it can fail
Standard library only.
"""
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
MIN_FONT = 11
MIN_BOX = 12       # a box's or a bar's height as shown
MIN_MARK = 8       # a box's or a bar's width as shown: a 2.4 px sliver (a sector's asked part) or a 6 px lane did not read
TEXT_MARGIN = 2    # what a text in a box keeps clear of its left and right edges
PAGE_WIDTH = 1280
WINDOWS = (1024, 1280)   # the windows the docs' pages are read in
COLUMN_MARGIN = 291      # beside doxygen's tree view (256 px), the contents' margins and a 15 px scroll bar: the column is the window less this
PLAIN_MARGIN = 35        # without the tree: the contents' margins (12 and 8 px) and a 15 px scroll bar


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
    """(width, height, texts, rects, lines, classes): texts as (x0, y0, x1, y1, size, text, class);
    rects as (x0, y0, x1, y1, class); lines as segments (None: a path this check cannot follow);
    classes: every class named."""
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
            w = len(s) * size * 0.6   # its natural width: a textLength (a squeeze) is a problem of its own
            if el.get("textLength") is not None or el.get("lengthAdjust") is not None:
                classes.add("squeezed-text:%d:%s" % (len(texts), s))
            anchor = el.get("text-anchor", "start")
            x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
            texts.append((x0, y - 0.8 * size, x0 + w, y + 0.25 * size, size, s, el.get("class") or ""))
        elif tag == "rect":
            x, y = _num(el.get("x")), _num(el.get("y"))
            rects.append((x, y, x + _num(el.get("width")), y + _num(el.get("height")), el.get("class") or ""))
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
    shown = " as shown %g px wide" % shown_at if shown_at else ""
    squeezed = [c.split(":", 2)[2] for c in sorted(classes) if c.startswith("squeezed-text:")]
    if squeezed:
        out.append("%s: %d text%s squeezed to fit (textLength/lengthAdjust), the first %r: give %s room instead" % (
            name, len(squeezed), "" if len(squeezed) == 1 else "s", squeezed[0], "it" if len(squeezed) == 1 else "them"))
    tiny = sorted((t for t in texts if t[4] * scale < MIN_FONT - 1e-9), key=lambda t: t[4])
    for t in tiny[:3]:
        out.append("%s: text %r is %g px%s, below %d px" % (name, t[5], t[4] * scale, shown, MIN_FONT))
    if len(tiny) > 3:
        out.append("%s: and %d more texts below %d px%s" % (name, len(tiny) - 3, MIN_FONT, shown))
    small = {}
    for r in rects:
        h = (r[3] - r[1]) * scale
        if h < MIN_BOX - 1e-9 and not (r[0] <= 0 and r[1] <= 0 and r[2] >= width and r[3] >= height):
            small.setdefault((round(h, 1), r[4]), []).append(r)
    narrow = {}
    for r in rects:
        w = (r[2] - r[0]) * scale
        if w < MIN_MARK - 1e-9:
            narrow.setdefault((round(w, 1), r[4]), []).append(r)
    for (w, cls), rs in sorted(narrow.items()):
        out.append("%s: %d box%s%s %g px wide%s, narrower than %d px (the first at %.0f, %.0f)" % (
            name, len(rs), "" if len(rs) == 1 else "es", " of class %r" % cls if cls else "", w, shown, MIN_MARK,
            rs[0][0], rs[0][1]))
    for (h, cls), rs in sorted(small.items()):
        out.append("%s: %d box%s%s %g px tall%s, below %d px (the first at %.0f, %.0f)" % (
            name, len(rs), "" if len(rs) == 1 else "es", " of class %r" % cls if cls else "", h, shown, MIN_BOX,
            rs[0][0], rs[0][1]))
    for t in texts:
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
            elif _overlap(t, r) and min(t[0] - r[0], r[2] - t[2]) * scale < TEXT_MARGIN - 1e-9:
                out.append("%s: text %r fills its box at (%.0f, %.0f): %.1f px clear of its edge%s, below %d px" % (
                    name, t[5], r[0], r[1], min(t[0] - r[0], r[2] - t[2]) * scale, shown, TEXT_MARGIN))
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
    elif "conflict" in classes:
        # each word in conflict has its bank's number above it, in its column (a row of numbers
        # at the top of the step, or over the row)
        banks = [t for t in texts if "bank" in t[6].split()]
        unnumbered = []
        for r in rects:
            if "conflict" not in r[4].split():
                continue
            if not any(r[0] <= (b[0] + b[2]) / 2.0 <= r[2] and r[1] - 320 <= b[3] <= r[1] + 0.5 for b in banks):
                unnumbered.append(r)
        if unnumbered:
            out.append("%s: %d word%s drawn in a bank conflict with no bank number above (the first at %.0f, %.0f)" % (
                name, len(unnumbered), "" if len(unnumbered) == 1 else "s", unnumbered[0][0], unnumbered[0][1]))
    return out


def _attributes(tag):
    return dict((m.group(1).lower(), m.group(3)) for m in re.finditer(r'([A-Za-z:-]+)\s*=\s*(["\'])(.*?)\2', tag))


def _px(value):
    m = re.match(r"\s*([0-9.]+)\s*(px)?\s*$", value or "")
    return float(m.group(1)) if m else None


def tree_hidden_below(css):
    """The window width below which a stylesheet hides doxygen's side tree and starts the
    contents at the left (an @media (max-width: W) block with #side-nav's display: none and
    #doc-content's margin-left: 0): W, the widest window that query matches (1279.98 for
    kit.css's: a 1279 px window has no tree, a 1280 px one has it); 0 where none does."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    for m in re.finditer(r"@media[^{]*max-width\s*:\s*([0-9.]+)px[^{]*\{((?:[^{}]*\{[^{}]*\})*)[^{}]*\}", css):
        body = m.group(2)
        if (re.search(r"#side-nav\s*\{[^}]*display\s*:\s*none", body)
                and re.search(r"#doc-content\s*\{[^}]*margin-left\s*:\s*0(px)?\s*(!important)?\s*(;|\})", body)):
            return float(m.group(1))
    return 0


def column_width(window, hidden_below=0):
    """doxygen's text column in a window this wide: beside the tree, or without it where the
    page's stylesheets hide it up to hidden_below px (see tree_hidden_below)."""
    return window - (PLAIN_MARGIN if window <= hidden_below else COLUMN_MARGIN)


def page_hidden_below(page, html):
    """tree_hidden_below over the stylesheets the page links to (those beside it)."""
    import os
    below = 0
    for m in re.finditer(r"<link\b[^>]*>", html, re.I):
        attrs = _attributes(m.group(0))
        href = attrs.get("href") or ""
        if "stylesheet" not in (attrs.get("rel") or "").lower() or "://" in href:
            continue
        try:
            with open(os.path.join(os.path.dirname(page), href.split("?")[0]), encoding="utf-8") as f:
                below = max(below, tree_hidden_below(f.read()))
        except OSError:
            continue
    return below


def shown_widths(attrs, own_width, hidden_below=0):
    """{window: px} the page shows a picture at, from its tag's width and style (min-width,
    max-width in px), in each window of WINDOWS."""
    style = dict((k.strip().lower(), v.strip()) for k, _, v in
                 (d.partition(":") for d in (attrs.get("style") or "").split(";") if ":" in d))
    width = style.get("width") or attrs.get("width")
    out = {}
    for window in WINDOWS:
        column = column_width(window, hidden_below)
        if width and width.strip().endswith("%"):
            w = column * float(width.strip()[:-1]) / 100.0
        else:
            w = _px(width) if _px(width) is not None else own_width
        if _px(style.get("max-width")) is not None:
            w = min(w, _px(style["max-width"]))
        elif (style.get("max-width") or "").endswith("%"):
            w = min(w, column * float(style["max-width"][:-1]) / 100.0)
        if _px(style.get("min-width")) is not None:
            w = max(w, _px(style["min-width"]))
        out[window] = w
    return out


def page_problems(page):
    """Every problem of the SVG pictures an HTML page embeds, as the page shows them at 1024 and
    1280 px (see the module's comment)."""
    import os
    with open(page, encoding="utf-8") as f:
        html = f.read()
    out, found = [], 0
    hidden_below = page_hidden_below(page, html)
    for m in re.finditer(r"<(object|img)\b[^>]*>", html, re.I):
        attrs = _attributes(m.group(0))
        ref = attrs.get("data") if m.group(1).lower() == "object" else attrs.get("src")
        if not ref or not ref.split("?")[0].endswith(".svg") or "://" in ref or ref.startswith("doxygen"):
            continue
        path = os.path.join(os.path.dirname(page), ref.split("?")[0])
        try:
            with open(path, encoding="utf-8") as f:
                svg = f.read()
        except OSError as exc:
            out.append("%s: the picture %s cannot be read: %s" % (page, ref, exc))
            continue
        found += 1
        own = _num(ET.fromstring(svg).get("width"))
        widths = shown_widths(attrs, own, hidden_below)
        for window in WINDOWS:   # wider than the column, the page scrolls it sideways
            column = column_width(window, hidden_below)
            if widths[window] > column + 0.5:
                out.append("%s: %s is shown %g px wide, wider than the text column (%d px) of a %d px window%s" % (
                    page, ref, widths[window], column, window,
                    "" if window <= hidden_below else " beside the side tree"))
        seen = set()
        for window in WINDOWS:
            for line in problems(svg, "%s in %s at %d px" % (ref, os.path.basename(page), window), widths[window]):
                key = line.split(" at %d px" % window, 1)[-1]
                if key not in seen:   # a problem of both windows once, with the first window's name
                    seen.add(key)
                    out.append(line)
    if not found:
        out.append("%s: no SVG picture in the page" % page)
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
    "bank elsewhere": ('<text x="100" y="10" font-size="11" class="bank">3</text>'
                       '<rect x="10" y="20" width="20" height="20" class="word conflict"/>', 400, None,
                       "no bank number above"),
    "bank above": ('<text x="20" y="14" font-size="11" text-anchor="middle" class="bank">0</text>'
                   '<rect x="10" y="20" width="20" height="20" class="word conflict"/>', 400, None, None),
    "thin bar": ('<rect x="10" y="10" width="200" height="9" class="lane"/>', 400, None, "9 px tall, below 12 px"),
    "sliver": ('<rect x="10" y="10" width="2.4" height="14" class="asked"/>', 400, None,
               "2.4 px wide, narrower than 8 px"),
    "narrow lane": ('<rect x="10" y="10" width="6" height="12" class="lane"/>', 400, None, "narrower than 8 px"),
    "8 px lane": ('<rect x="10" y="10" width="8" height="12" class="lane"/>', 400, None, None),
    "thin as shown": ('<rect x="10" y="10" width="200" height="12" class="lane"/>', 1000, 748, "below 12 px"),
    "full box": ('<rect x="10" y="10" width="27" height="18"/>'
                 '<text x="23.5" y="23" font-size="11" text-anchor="middle">1025</text>', 400, None, "fills its box"),
    "condensed": ('<rect x="10" y="10" width="27" height="18"/><text x="23.5" y="23" font-size="11" '
                  'text-anchor="middle" textLength="22" lengthAdjust="spacingAndGlyphs">1025</text>', 400, None,
                  "squeezed to fit"),
    "condensed in a wide box": ('<rect x="10" y="10" width="60" height="18"/><text x="40" y="23" font-size="11" '
                                'text-anchor="middle" textLength="20">1025</text>', 400, None, "squeezed to fit"),
    "room for 4 digits": ('<rect x="10" y="10" width="51" height="18"/>'
                          '<text x="35.5" y="23" font-size="11" text-anchor="middle">1025</text>', 400, None, None),
}

# kit.css's rule: below 1280 px no side tree, the contents at the left
HIDE_TREE_CSS = ("/* the tree */\n@media (max-width: 1279.98px) {\n  #side-nav { display: none; }\n"
                 "  #doc-content { margin-left: 0 !important; }\n}\n")
# pages: (the tag that embeds a 980 px picture with an 11 px text in a 30 px cell, the page's
# stylesheet (None: none, doxygen's tree everywhere), the words the problem must contain; None: no problem)
PAGE_TESTS = {
    "page at 1024": ('<object data="p.svg" width="75%"></object>', HIDE_TREE_CSS, "at 1024 px"),
    "page too wide": ('<object data="p.svg" width="1000"></object>', HIDE_TREE_CSS,
                      "wider than the text column (989 px) of a 1024 px window"),
    "page fixed": ('<object data="p.svg" width="980"></object>', HIDE_TREE_CSS, None),
    "page own size": ('<object data="p.svg"></object>', HIDE_TREE_CSS, None),
    "page min-width": ('<object data="p.svg" width="100%" style="min-width: 980px"></object>', HIDE_TREE_CSS, None),
    "page beside the tree": ('<object data="p.svg"></object>', None,
                             "wider than the text column (733 px) of a 1024 px window beside the side tree"),
    "page 100% beside the tree": ('<object data="p.svg" width="100%"></object>', None, "as shown 733 px wide"),
}
# stylesheets: (text, the widest window without the tree it gives)
CSS_TESTS = {
    "hides the tree": (HIDE_TREE_CSS, 1279.98),
    "keeps the margin": ("@media (max-width: 1279.98px) { #side-nav { display: none; } }", 0),
    "other rules": ("@media (max-width: 1280px) { div.fragment div.line { font-size: 12px; } }", 0),
    "commented out": ("/* " + HIDE_TREE_CSS.replace("/* the tree */", "") + " */", 0),
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
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "p.svg"), "w") as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="980" height="100"><rect x="10" y="10" '
                    'width="30" height="20"/><text x="25" y="24" font-size="11" text-anchor="middle">12</text></svg>')
        for name, (tag, css, expected) in PAGE_TESTS.items():
            page = os.path.join(tmp, "p.html")
            with open(os.path.join(tmp, "kit.css"), "w") as f:
                f.write(css or "")
            with open(page, "w") as f:
                f.write("<html><head>%s</head><body><div class=\"image\">%s</div></body></html>" % (
                    '<link href="kit.css" rel="stylesheet" type="text/css"/>' if css else "", tag))
            found = page_problems(page)
            ok = not found if expected is None else any(expected in line for line in found)
            if not ok:
                failed += 1
                print("FAIL: %s: expected %s, found %s" % (name, expected or "no problem", found or "none"))
    for name, (css, expected) in CSS_TESTS.items():
        if tree_hidden_below(css) != expected:
            failed += 1
            print("FAIL: %s: expected no tree up to %g px, found %g" % (name, expected, tree_hidden_below(css)))
    for window, expected in ((1024, 989), (1279, 1244), (1280, 989), (1440, 1149)):   # as Chromium lays them out
        if column_width(window, tree_hidden_below(HIDE_TREE_CSS)) != expected:
            failed += 1
            print("FAIL: the column of a %d px window: expected %d px, found %g" % (
                window, expected, column_width(window, tree_hidden_below(HIDE_TREE_CSS))))
    total = len(SELF_TESTS) + len(PAGE_TESTS) + len(CSS_TESTS) + 4
    print("%d of %d rules %s" % (total - failed, total, "hold" if not failed else "hold: see above"))
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
    pages = args[:1] == ["--page"]
    if pages:
        args = args[1:]
    if not args:
        print("usage: trace_geometry.py [--shown-at PX] FILE.svg... | --page PAGE.html...")
        return 2
    for path in args:
        if pages:
            bad += page_problems(path)
            continue
        with open(path) as f:
            bad += problems(f.read(), path, shown_at)
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

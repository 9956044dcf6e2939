#!/usr/bin/env python3
"""Checks the geometry of a drawing (an SVG of tools/trace_picture.py) as a reader at 1280 px sees it.

A picture teaches at a glance only if it can be read: every text is at least 11 px, nothing
runs off the page, no text lies on another, no text straddles the edge of a box (a value is
inside its cell or away from it), and no line or arrow crosses a text. Text extents are
estimated for the monospace font the drawings use (0.6 em a character, 0.8 em above the
baseline and 0.25 em below), which is what DejaVu Sans Mono measures.

Usage: trace_geometry.py FILE.svg...   (exit 1 and one line per problem when any)
Standard library only.
"""
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


def boxes(svg_text):
    """(width, height, texts, rects, lines): texts as (x0, y0, x1, y1, size, text)."""
    root = ET.fromstring(svg_text)
    width, height = _num(root.get("width")), _num(root.get("height"))
    texts, rects, lines = [], [], []
    for el in root.iter():
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
        elif tag in ("path", "polyline", "polygon"):
            lines.append(None)  # not drawn by trace_picture.py: reported
    return width, height, texts, rects, lines


def _overlap(a, b, slack=0.5):
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def _inside(a, r, slack=0.5):
    return a[0] >= r[0] - slack and a[2] <= r[2] + slack and a[1] >= r[1] - slack and a[3] <= r[3] + slack


def _segment_hits_box(seg, box):
    x1, y1, x2, y2 = seg
    steps = 40
    for k in range(steps + 1):
        x = x1 + (x2 - x1) * k / steps
        y = y1 + (y2 - y1) * k / steps
        if box[0] < x < box[2] and box[1] < y < box[3]:
            return True
    return False


def problems(svg_text, name="drawing"):
    """Every geometry problem of one SVG, as lines of text (empty: it passes)."""
    width, height, texts, rects, lines = boxes(svg_text)
    out = []
    if width > PAGE_WIDTH:
        out.append("%s: %g px wide, wider than a %d px page: it would be scaled down" % (name, width, PAGE_WIDTH))
    for t in texts:
        if t[4] < MIN_FONT:
            out.append("%s: text %r is %g px, below %d px" % (name, t[5], t[4], MIN_FONT))
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
    for r in rects:
        if r[0] <= 0 and r[1] <= 0 and r[2] >= width and r[3] >= height:
            continue  # the page's background
        for t in texts:
            if _overlap(t, r) and not _inside(t, r):
                out.append("%s: text %r straddles the edge of a box at (%.0f, %.0f)" % (name, t[5], r[0], r[1]))
    for seg in lines:
        if seg is None:
            out.append("%s: a path or polygon the check cannot follow" % name)
            continue
        for t in texts:
            if _segment_hits_box(seg, t):
                out.append("%s: a line crosses text %r" % (name, t[5]))
    return out


def main(argv):
    bad = []
    for path in argv[1:]:
        with open(path) as f:
            bad += problems(f.read(), path)
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

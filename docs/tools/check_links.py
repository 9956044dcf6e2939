#!/usr/bin/env python3
"""Checks the generated HTML as a reader's browser would: every link and image must resolve.

For every .html and .svg file under HTML_DIR it collects href, src and data attributes
(a, img, link, script, object, area, and the links inside SVG graphs). A local target must
exist inside HTML_DIR; a #fragment must name an id or anchor in the target page; an image
must be a non-empty file, and an SVG image must be well-formed XML. Links to other sites are
listed but not fetched (CI has no network). A page's prose (not its code) must show no markdown
left unrendered: a literal ** at a word means a bold span doxygen did not take (its
rules differ between versions), and a student sees the asterisks. Exit 0 if everything
resolves and renders, 1 otherwise.
Usage: check_links.py HTML_DIR
"""
import os
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

LINK_ATTRS = {"href", "src", "data", "xlink:href"}
IMAGE_TAGS = {"img", "object", "image"}
# Doxygen's own logo (doxygen.svg, shipped as is) refers to a path id it does not contain;
# browsers draw the logo without it. It is the one known dangling reference we accept.
DOXYGEN_LOGO = "doxygen.svg"


# Markdown that doxygen left as text: ** touching a word, in prose (not __, which starts
# CUDA's own names, __syncthreads).
UNRENDERED = re.compile(r"(?<![*\w])\*\*(?=[A-Za-z`])|(?<=[A-Za-z.`:)])\*\*(?![*\w])")
# Elements whose text is code, not prose.
CODE_TAGS = {"pre", "code", "tt", "script", "style", "kbd", "samp"}
CODE_CLASSES = {"fragment", "line", "memproto", "memname", "kit-diff", "memItemLeft", "memItemRight",
                "memTemplItemLeft", "memTemplItemRight", "memTemplParams", "paramtype", "paramname"}


class Collector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.ids = [], set()
        self.stack = []      # (tag, is code) of the open elements
        self.prose = []      # (line, text) outside code

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if name in LINK_ATTRS and value is not None:
                self.links.append((tag, name, value, self.getpos()[0]))
        if tag in ("br", "img", "hr", "input", "meta", "link", "area", "col", "wbr", "source"):
            return
        classes = set((dict(attrs).get("class") or "").split())
        self.stack.append((tag, tag in CODE_TAGS or bool(classes & CODE_CLASSES)))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                break

    def handle_data(self, data):
        if data.strip() and not any(code for _, code in self.stack):
            self.prose.append((self.getpos()[0], data))


def parse(path, cache):
    if path not in cache:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        c = Collector()
        c.feed(text)  # dot's SVG graphs are XML; the HTML parser reads their attributes too
        cache[path] = c
    return cache[path]


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.path.abspath(argv[0])
    if not os.path.isfile(os.path.join(root, "index.html")):
        print("check_links.py: %s/index.html does not exist: build the docs first (make docs)" % root,
              file=sys.stderr)
        return 1
    cache, problems = {}, []
    pages = images = links = external = 0
    checked_images = set()
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith((".html", ".svg")):
                continue
            page = os.path.join(dirpath, name)
            pages += 1
            if name.endswith(".html") and not name.endswith("_source.html"):
                for line, text in parse(page, cache).prose:
                    m = UNRENDERED.search(text)
                    if m:
                        problems.append("%s:%d: markdown left unrendered, a reader sees '%s': %s" % (
                            os.path.relpath(page, root), line, m.group(0),
                            " ".join(text[max(0, m.start() - 40):m.end() + 40].split())))
            for tag, attr, value, line in parse(page, cache).links:
                where = "%s:%d" % (os.path.relpath(page, root), line)
                value = value.strip()
                parts = urlsplit(value)
                if parts.scheme in ("http", "https", "mailto", "ftp"):
                    external += 1
                    continue
                if parts.scheme == "javascript" or value.startswith("javascript:"):
                    continue
                if parts.scheme == "data":
                    continue
                if parts.scheme:
                    problems.append("%s: <%s %s=\"%s\">: unknown scheme" % (where, tag, attr, value))
                    continue
                links += 1
                target = page if not parts.path else os.path.normpath(
                    os.path.join(os.path.dirname(page), unquote(parts.path)))
                if not target.startswith(root + os.sep):
                    problems.append("%s: %s points outside the HTML folder" % (where, value))
                    continue
                if not os.path.isfile(target):
                    problems.append("%s: <%s %s=\"%s\">: %s does not exist"
                                    % (where, tag, attr, value, os.path.relpath(target, root)))
                    continue
                is_image = tag in IMAGE_TAGS or target.endswith((".png", ".svg", ".gif", ".jpg"))
                if is_image and target not in checked_images:
                    checked_images.add(target)
                    images += 1
                    if os.path.getsize(target) == 0:
                        problems.append("%s: image %s is empty" % (where, value))
                    elif target.endswith(".svg"):
                        try:
                            ET.parse(target)
                        except ET.ParseError as exc:
                            problems.append("%s: image %s is not well-formed SVG (%s)" % (where, value, exc))
                if parts.fragment and target.endswith((".html", ".svg")) and \
                        not (page == target and name == DOXYGEN_LOGO):
                    frag = unquote(parts.fragment)
                    if frag not in parse(target, cache).ids:
                        problems.append("%s: %s: no id or anchor '%s' in %s"
                                        % (where, value, frag, os.path.relpath(target, root)))
    for p in problems:
        print("broken: " + p)
    print("check_links.py: %d pages, %d local links (%d images), %d external links not fetched: %s"
          % (pages, links, images, external, "%d broken" % len(problems) if problems else "all resolve"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

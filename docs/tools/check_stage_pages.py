#!/usr/bin/env python3
"""Holds every stage page of a built HTML edition to the five-minute layout (issue 23).

Usage: check_stage_pages.py HTML_DIR [HTML_DIR ...]   (build/docs/html, build/docs-student/html)
       check_stage_pages.py --self-test

For each stageK.html of each folder (the pages the edition has; it builds nothing itself):
  - the page's visible words, at most WORD_LIMIT. Counted: the text of the page's contents
    (prose, lists, tables, the opening box). Not counted: code (listings, \\snippet fragments,
    the "What changed" diffs: their length is the code's, and the reader works in them rather
    than reads them), charts and pictures (inline SVG, with their hidden tooltips), the body of a
    closed <details> (the reference solution), the table of contents, scripts and styles.
  - the opening box: a <div class="kit-opening"> before any heading, table, code or figure
    of the contents;
  - the picture right after the box: the first figure, table, heading or code after the box
    is the page's own picture, <img src="stageK.svg"> or <object data="stageK.svg"> (doxygen's
    \image html of an SVG). A [TOC] counts as a landmark: doxygen puts it at the top of the
    contents, before the box, so a stage page has none.
It fails naming each page and what is wrong; with every page right it prints one line per page.
"""
import os
import re
import sys
import tempfile
from html.parser import HTMLParser

# The one place the limit is set: about what a reader reads in five minutes.
WORD_LIMIT = 1500

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
        "track", "wbr"}
# Elements whose start closes an open <p> (doxygen writes <p><details>...</p>, as browsers read it).
CLOSES_P = {"address", "blockquote", "details", "div", "dl", "fieldset", "figure", "footer", "form", "h1",
            "h2", "h3", "h4", "h5", "h6", "header", "hr", "ol", "p", "pre", "section", "table", "ul"}
# What may not come between the box and the picture (nor before the box).
LANDMARK = {"h1", "h2", "h3", "h4", "h5", "h6", "table", "svg", "pre", "iframe"}


class StagePage(HTMLParser):
    """Reads one doxygen page: its visible words and, in document order, the landmarks of its contents."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []          # (tag, classes, attrs)
        self.words = 0
        self.code_words = 0
        self.events = []         # ("box",), ("img", src), ("landmark", what)
        self.box_depth = None

    def _classes(self):
        return [c for _, cls, _ in self.stack for c in cls]

    def _inside(self, what):
        return any(what in cls for _, cls, _ in self.stack)

    def _in_contents(self):
        return self._inside("contents")

    def handle_starttag(self, tag, attrs):
        if tag in CLOSES_P and self.stack and self.stack[-1][0] == "p":
            self.stack.pop()
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if self._in_contents() and not self._hidden():
            self._landmark(tag, cls, a)
        if tag not in VOID:
            self.stack.append((tag, cls, a))

    def handle_startendtag(self, tag, attrs):
        a = dict(attrs)
        if self._in_contents() and not self._hidden():
            self._landmark(tag, (a.get("class") or "").split(), a)

    def _landmark(self, tag, cls, a):
        if tag == "div" and "kit-opening" in cls:
            self.events.append(("box",))
        elif tag in ("img", "object"):   # doxygen's \image html of an SVG is an <object data=...>
            self.events.append(("img", a.get("src") or a.get("data") or ""))
        elif tag in LANDMARK and not self._inside("kit-opening"):
            self.events.append(("landmark", tag))
        elif tag == "div" and ({"fragment", "kit-diff", "toc"} & set(cls)):
            self.events.append(("landmark", "the table of contents" if "toc" in cls else "code"))

    def handle_endtag(self, tag):
        if tag in VOID or not any(t == tag for t, _, _ in self.stack):
            return
        if tag == "p" and self.stack[-1][0] != "p":
            return   # a stray </p> (browsers add an empty paragraph): closes nothing
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def _hidden(self):
        tags = [t for t, _, _ in self.stack]
        if "script" in tags or "style" in tags or "svg" in tags or "title" in tags:
            return True
        if "toc" in self._classes():
            return True
        # the body of a closed <details>: only its <summary> shows
        for k, (t, _, a) in enumerate(self.stack):
            if t == "details" and "open" not in a and "summary" not in tags[k + 1:]:
                return True
        return False

    def handle_data(self, data):
        if not self._in_contents() or self._hidden():
            return
        n = len(data.split())
        classes = set(self._classes())
        tags = set(t for t, _, _ in self.stack)
        if "pre" in tags or {"fragment", "kit-diff"} & classes:
            self.code_words += n
        else:
            self.words += n


def check_page(path, stage, limit=WORD_LIMIT):
    """The problems of one stage page (a list of sentences), and its counts."""
    with open(path, encoding="utf-8") as f:
        page = StagePage()
        page.feed(f.read())
    problems = []
    if page.words > limit:
        problems.append("%d words, more than the limit of %d (check_stage_pages.py WORD_LIMIT): move a study "
                        "to a page of its own and link it" % (page.words, limit))
    picture = "stage%d.svg" % stage
    ev = page.events
    boxes = [k for k, e in enumerate(ev) if e[0] == "box"]
    if not boxes:
        problems.append('no opening box (<div class="kit-opening">: the problem the previous stage left, the '
                        "one change, the measured gain)")
    else:
        first = boxes[0]
        before = [e for e in ev[:first] if e[0] != "box"]
        if before:
            problems.append("the opening box comes after %s; it must open the page"
                            % describe(before[0]))
        after = [e for e in ev[first + 1:] if e[0] != "box"]
        if not after:
            problems.append("no picture (%s) after the opening box" % picture)
        elif not (after[0][0] == "img" and os.path.basename(after[0][1]) == picture):
            problems.append("the first figure after the opening box is %s, not the stage's picture %s"
                            % (describe(after[0]), picture))
    return problems, page.words, page.code_words


def describe(event):
    if event[0] == "img":
        return "the image %s" % event[1]
    if event[0] == "box":
        return "another box"
    what = event[1]
    return {"table": "a table", "svg": "a chart", "pre": "code", "code": "code"}.get(
        what, what if what.startswith("the ") else "a heading <%s>" % what)


def check_folder(folder, limit=WORD_LIMIT, out=sys.stdout):
    """Checks every stageK.html of folder; returns the number of failing pages."""
    pages = sorted((int(m.group(1)), name) for name in os.listdir(folder)
                   for m in [re.match(r"stage(\d+)\.html$", name)] if m)
    if not pages:
        print("%s: no stage page (stageK.html): build the docs first" % folder, file=out)
        return 1
    failed = 0
    for stage, name in pages:
        path = os.path.join(folder, name)
        problems, words, code = check_page(path, stage, limit)
        if problems:
            failed += 1
            for p in problems:
                print("%s: %s" % (path, p), file=out)
        else:
            print("%s: %d words (limit %d; %d words of code not counted), box, then the picture"
                  % (path, words, limit, code), file=out)
    return failed


GOOD = """<html><body><div class="header"><div class="title">Stage 2</div></div>
<div class="contents"><div class="textblock"><div class="kit-opening"><p><b>Left:</b> divergence.
<b>Change:</b> packed threads. <b>Gain:</b> 1.60x.</p></div>
<div class="image"><img src="stage2.svg" alt=""/></div>
<p>%s</p><h2>Idea</h2><table><tr><td>a b c</td></tr></table>
<div class="fragment"><div class="line">int a = b + c + d + e + f + g;</div></div>
<svg><title>many words in a tooltip that nobody sees</title><text>axis</text></svg>
<p><details class="kit-solution"><summary>Reference solution</summary></p><div class="fragment">x y</div>
<p>hidden words of the solution</p></details></p><p>after</p></div></div></body></html>"""


def self_test():
    """Each fault is reported, and a good page passes: proof the check can fail."""
    cases = {
        "good": (GOOD % "ten words of prose here and there, no more than ten", []),
        "long": (GOOD % " ".join(["word"] * 40), ["words, more than the limit"]),
        "no box": (GOOD.replace("kit-opening", "kit-other") % "x", ["no opening box"]),
        "picture late": (GOOD.replace('<div class="image"><img src="stage2.svg" alt=""/></div>', "")
                         .replace("<h2>Idea</h2>", '<h2>Idea</h2><img src="stage2.svg"/>') % "x",
                         ["the first figure after the opening box is a heading <h2>"]),
        "object": (GOOD.replace('<img src="stage2.svg" alt=""/>', '<object data="stage2.svg"></object>') % "x", []),
        "other picture": (GOOD.replace("stage2.svg", "stage1.svg") % "x",
                          ["not the stage's picture stage2.svg"]),
        "box late": (GOOD.replace('<div class="textblock">', '<div class="textblock"><h2>Idea</h2>') % "x",
                     ["the opening box comes after a heading <h2>"]),
    }
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (text, want) in cases.items():
            path = os.path.join(tmp, "stage2.html")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            problems, words, _ = check_page(path, 2, limit=40)
            if not want and problems:
                print("self-test %s: a good page fails: %s" % (name, problems))
                bad += 1
            for w in want:
                if not any(w in p for p in problems):
                    print("self-test %s: expected '%s', got %s" % (name, w, problems))
                    bad += 1
            if name == "good" and words != 25:
                print("self-test good: counted %d visible words, expected 25 (no code, chart, tooltip, "
                      "or closed solution)" % words)
                bad += 1
    print("self-test: %s" % ("every fault reported" if not bad else "%d failures" % bad))
    return 1 if bad else 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if not argv:
        print(__doc__)
        return 2
    failed = sum(check_folder(d) for d in argv)
    if failed:
        print("%d stage page(s) break the five-minute layout (docs/tools/check_stage_pages.py)" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Checks that a student edition shows no line that only a solution file has.

Usage: check_no_answers.py --solutions DIR --labs DIR [--stages 1,2,3] [--stages-def FILE]
                           [--public PATH]... PATH...

The solution-only lines. The stages are read from common/stages.def (found next to this
script, as ../common/stages.def, unless --stages-def names another). Every line of
DIR/<directory>/<name>.cu under --solutions, for *every* stage, is a candidate; a candidate
that also appears in one of the released labs (--labs DIR, the stages of --stages, all by
default) is dropped, and so is one found in a --public file or folder (code the edition
ships besides the labs, such as common/, emu/src, emu/include: a line that the emulator's
runtime also has, `cudaGetDevice(&device);` say, is no secret). Never pass the folder being
checked, nor one with test kernels copied from the solutions, as --public. What is left is
what only a solution has: the answers to the released stages' TODOs and everything of the
stages not handed out. Lines are compared by a key:

  1. whitespace normalised: runs of blanks (tabs, non-breaking spaces) become one space, and
     a space survives only between two word characters, so `2*s*tid` and `2 * s * tid` are
     the same line, while `unsigned int` stays two words;
  2. a trailing comment dropped (`x += y; // note` is `x += y;`), and a line that is only a
     comment (starting with //, /*, * or */) is empty;
  3. the punctuation that only frames a statement dropped: trailing `;` and `{`, a leading
     `}` (so `for (...) {` is found when a page shows `for (...)`, and `} else {` is `else`).

Trivial lines are never candidates: a key with fewer than 10 non-blank characters (blank
lines, braces, `return;`, `i += 4;`, `s >>= 1`) or with no letter at all. Ten characters is
about the shortest line that says something about how a kernel works and the longest that
also appears all over ordinary prose and code. `__syncthreads();` has 15 and is a real code
line: it counts. (In this kit every lab already has one outside its TODO, after the load, so
in practice it is never solution-only; a kit whose labs had none would rightly be told that
its pages show the barrier that only the solution has.)

The check. Every PATH (files, and folders walked recursively) is read as lines of text:
  - .html/.htm/.xhtml/.svg/.xml: tags stripped and entities unescaped, with the line
    structure kept (a raw newline and every block tag, such as Doxygen's one
    `<div class="line">` per code line, a <p>, <li>, <td> or SVG <text>, end a line);
    Doxygen's line-number spans, <script> and <style> are dropped. Each text run between
    two tags is also checked on its own, so an answer line inside <code>...</code> in the
    middle of a sentence, or one <span> per line of a coloured diff, is found too;
  - tar archives (.tar, .tar.gz, .tgz, .tar.bz2, .tar.xz): every member, as PATH!member;
  - a file with NUL bytes (binary): split on newlines and NULs;
  - anything else: text lines; a `code span` in backticks is also checked on its own.
A line is also tried without a leading diff marker (`+ `, `- `). Each line whose key is a
solution-only key is printed as `path:line: solution line: <text>` followed by where the
solution has it. Exit status: 1 when any line was found, 0 with a one-line summary when none
was, 2 for bad arguments (a missing folder or stage file, an unknown stage, no PATH).
Needs Python 3 and its standard library only.
"""
import argparse
import html
import os
import re
import sys
import tarfile

MIN_CHARS = 10
HTML_EXTS = (".html", ".htm", ".xhtml", ".svg", ".xml")
TAR_EXTS = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "desc", "details",
    "div", "dl", "dt", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "head", "header", "hr", "html", "li", "main", "nav", "ol", "p", "pre", "section", "summary",
    "table", "tbody", "td", "text", "tfoot", "th", "thead", "title", "tr", "ul",
}
SKIP_TAGS = {"script", "style"}
TOKEN = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<[!?][^>]*>|<(/?)([A-Za-z][\w:.-]*)([^>]*)>", re.S)
KIT_STAGE = re.compile(r'^KIT_STAGE\((\d+),\s*(\w+),\s*(\w+),', re.M)


class UsageError(Exception):
    pass


# ----------------------------------------------------------------------------- the key of a line

def key(text):
    """The form in which lines are compared (see the module docstring); '' for a trivial line."""
    s = " ".join(text.split())
    if s.startswith(("//", "/*", "*/")) or s == "*" or s.startswith("* "):
        return ""
    s = re.sub(r"\s*//.*$", "", s)                      # trailing // comment
    s = re.sub(r"\s*/\*.*?\*/\s*$", "", s)              # trailing /* ... */ comment
    s = re.sub(r"(?<=\W) | (?=\W)", "", s)              # a space only between two word characters
    while True:
        t = s.rstrip(";{").lstrip("}")
        if t == s:
            break
        s = t
    if len(s.replace(" ", "")) < MIN_CHARS or not re.search(r"[A-Za-z]", s):
        return ""
    return s


def variants(text):
    """The keys a page line is looked up by: as it is, and without a leading diff marker."""
    out = [key(text)]
    m = re.match(r"\s*[+-]\s(.*)$", text)
    if m:
        out.append(key(m.group(1)))
    return [k for k in out if k]


# ----------------------------------------------------------------------------- the solution-only set

def read_stages(stages_def):
    try:
        with open(stages_def, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise UsageError("cannot read the list of stages %s (%s)" % (stages_def, exc.strerror))
    stages = [(int(m.group(1)), m.group(2), m.group(3)) for m in KIT_STAGE.finditer(text)]
    if not stages:
        raise UsageError("%s has no KIT_STAGE lines" % stages_def)
    return stages


def stage_lines(folder, stage, what):
    number, directory, name = stage
    path = os.path.join(folder, directory, name + ".cu")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return path, f.read().split("\n")
    except OSError as exc:
        raise UsageError("stage %d's %s file %s cannot be read (%s)" % (number, what, path, exc.strerror))


def public_keys(paths):
    """The keys of every line of the --public files (folders walked recursively)."""
    keys = set()
    for p in paths:
        files = [p] if os.path.isfile(p) else sorted(
            os.path.join(d, n) for d, _, names in os.walk(p) for n in names)
        for f in files:
            with open(f, "rb") as fh:
                data = fh.read()
            if b"\0" not in data:
                keys.update(key(ln) for ln in data.decode("utf-8", "replace").split("\n"))
    return keys


def solution_only(solutions, labs, stages, released, public=()):
    lab_keys = public_keys(public)
    for stage in stages:
        if stage[0] in released:
            _, lines = stage_lines(labs, stage, "lab")
            lab_keys.update(key(ln) for ln in lines)
    found = {}
    for stage in stages:
        path, lines = stage_lines(solutions, stage, "solution")
        for k, ln in enumerate(lines, 1):
            kk = key(ln)
            if kk and kk not in lab_keys and kk not in found:
                found[kk] = (" ".join(ln.split()), stage[0], path, k)
    return found


# ----------------------------------------------------------------------------- files as lines

def html_lines(text):
    """(line number, text) pairs: the rendered lines, then every text run between two tags."""
    lines, runs = [], []
    buf, start = [], 1
    line = 1
    skip = None          # the tag whose content is dropped (script, style, Doxygen's lineno span)

    def flush():
        if buf:
            lines.append((start, "".join(buf)))
            buf.clear()

    pos = 0
    for m in list(TOKEN.finditer(text)) + [None]:
        end = m.start() if m else len(text)
        if end > pos and skip is None:
            pieces = text[pos:end].split("\n")
            for i, piece in enumerate(pieces):
                if i:
                    flush()
                    line += 1
                    start = line
                piece = html.unescape(piece)
                if piece:
                    if not buf:
                        start = line
                    buf.append(piece)
                if piece.strip():
                    runs.append((line, piece))
        elif end > pos:
            line += text.count("\n", pos, end)
        if m is None:
            break
        closing, tag = m.group(1), (m.group(2) or "").lower()
        if skip is not None:
            if closing and tag == skip:
                skip = None
        elif tag in SKIP_TAGS and not closing and not m.group(0).endswith("/>"):
            skip = tag
        elif tag == "span" and not closing and re.search(r'class\s*=\s*"lineno"', m.group(3) or ""):
            skip = "span"
        elif tag in BLOCK_TAGS:
            flush()
        newlines = m.group(0).count("\n")
        if newlines:
            flush()
            line += newlines
        pos = m.end()
    flush()
    return lines + runs


def text_lines(text):
    out = []
    for k, ln in enumerate(text.split("\n"), 1):
        out.append((k, ln))
        for span in re.findall(r"`([^`]+)`", ln):
            out.append((k, span))
    return out


def lines_of(name, data):
    lower = name.lower()
    if b"\0" in data:
        return [(k, ln) for k, ln in enumerate(re.split(r"[\n\0]", data.decode("utf-8", "replace")), 1)]
    text = data.decode("utf-8", "replace")
    if lower.endswith(HTML_EXTS):
        return html_lines(text)
    return text_lines(text)


def check_data(name, data, table, hits):
    seen = set()
    for number, text in lines_of(name, data):
        for k in variants(text):
            if k in table and (number, k) not in seen:
                seen.add((number, k))
                sol_text, stage, path, sol_line = table[k]
                hits.append("%s:%d: solution line: %s  (stage %d, %s:%d)"
                            % (name, number, sol_text, stage, path, sol_line))


def check_path(path, table, hits):
    """Checks one file (a tar archive member by member); returns the number of files read."""
    if path.lower().endswith(TAR_EXTS) and tarfile.is_tarfile(path):
        count = 0
        with tarfile.open(path) as tar:
            for member in tar:
                if member.isfile():
                    f = tar.extractfile(member)
                    check_data("%s!%s" % (path, member.name), f.read(), table, hits)
                    count += 1
        return count
    with open(path, "rb") as f:
        check_data(path, f.read(), table, hits)
    return 1


def parse_stage_list(text, known):
    out = set()
    for part in re.split(r"[,;\s]+", text.strip()):
        if not part:
            continue
        if not part.isdigit() or int(part) not in known:
            raise UsageError("--stages: '%s' is not a stage of common/stages.def (those are %s)"
                             % (part, ",".join(str(k) for k in sorted(known))))
        out.add(int(part))
    if not out:
        raise UsageError("--stages names no stage")
    return out


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(
        description="Finds lines that only a solution file has in a student edition.",
        epilog="Exit status: 0 nothing found, 1 a solution line was found, 2 bad arguments.")
    ap.add_argument("--solutions", required=True, metavar="DIR", help="the reference solutions (solutions/)")
    ap.add_argument("--labs", required=True, metavar="DIR", help="the labs handed out (labs/)")
    ap.add_argument("--stages", metavar="LIST", help="the stages handed out, e.g. 1,2,3 (default: all)")
    ap.add_argument("--stages-def", metavar="FILE", default=os.path.join(here, "..", "common", "stages.def"),
                    help="the list of stages (default: ../common/stages.def next to this script)")
    ap.add_argument("--public", action="append", default=[], metavar="PATH",
                    help="code shipped besides the labs (repeatable): its lines are not solution-only")
    ap.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to check")
    args = ap.parse_args(argv)
    try:
        for what, folder in (("--solutions", args.solutions), ("--labs", args.labs)):
            if not os.path.isdir(folder):
                raise UsageError("%s %s is not a folder" % (what, folder))
        stages = read_stages(os.path.normpath(args.stages_def))
        known = {s[0] for s in stages}
        released = parse_stage_list(args.stages, known) if args.stages is not None else known
        for p in args.paths + args.public:
            if not os.path.exists(p):
                raise UsageError("%s does not exist" % p)
        table = solution_only(args.solutions, args.labs, stages, released, args.public)
    except UsageError as exc:
        print("check_no_answers.py: %s" % exc, file=sys.stderr)
        return 2
    hits, files = [], 0
    for p in args.paths:
        if os.path.isdir(p):
            for dirpath, dirnames, names in os.walk(p):
                dirnames.sort()
                for name in sorted(names):
                    full = os.path.join(dirpath, name)
                    if os.path.isfile(full):
                        files += check_path(full, table, hits)
        else:
            files += check_path(p, table, hits)
    for h in hits:
        print(h)
    stages_text = ",".join(str(k) for k in sorted(released))
    if hits:
        print("check_no_answers.py: checked %d files, %d solution-only lines (stages %s handed out): "
              "%d lines show one" % (files, len(table), stages_text, len(hits)))
        return 1
    print("check_no_answers.py: checked %d files, %d solution-only lines (stages %s handed out), "
          "no answer found" % (files, len(table), stages_text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Checks that a student edition shows no answer of a lab that is still open.

Usage: check_no_answers.py --solutions DIR --labs DIR [--stages 4,5] [--closed 1,2,3]
                           [--stages-def FILE] [--public PATH]... PATH...
       check_no_answers.py --solutions DIR --labs DIR --prerequisites|--batches
                           [--stages-def FILE] [--public PATH]...

The model. Stages are handed out in batches, one per deadline. --stages names the stages whose
labs this edition hands out; --closed names the stages whose deadline has passed, whose answers
may now be seen (a closed stage's lab is the student's own file by then: a batch does not ship
it again). Every other stage is open: handed out now and not closed, or not handed out yet.
The answer of stage K is what its solution has and its lab does not: the lines of its TODO
blocks. Each later lab is built on the stage before it, so lab 4 holds stage 3's loop: lab 4
may be handed out only once stage 3 is closed. Which stages a lab needs closed is read from the
files, never kept by hand: --prerequisites prints it for every stage, and the check below
refuses an edition that breaks it, naming the lab and its lines. --batches prints the course
as batches that never break it: each hands out the next stages whose labs need only the
stages handed out before (closed by the time it goes out).

What is secret (the stages are read from common/stages.def, next to this script as
../common/stages.def unless --stages-def names another):
  - lines: every line of an open stage's answer, and every line of the solution of a stage
    not handed out (its lab's lines too, when no lab handed out has them), except a line that a
    closed stage's answer has, a --public file has (code the edition ships besides the labs:
    common/, emu/; `cudaGetDevice(&device);` is no secret), or an earlier lab handed out gives
    as code (lab 8's grid-stride loop, which the min of stage 10 reuses). A line of a later lab
    is no excuse: that is how lab 4 showed stage 3's loop;
  - expressions: every sub-expression of a secret answer line (the right side of an assignment, the
    inside of a parenthesis, a call with its arguments, the line itself without its `;`) of at
    least 14 characters with an operator in it, except one that the code (not the comments) of
    a lab handed out, a closed stage's solution or a --public file has, each also with the
    stage file's macros spelled out (`(1ull << COUNT_SHIFT)` is also `(1ull << 48)`). A hint
    or a sentence that writes `(int)((unsigned int)(key >> 32) ^ 0x80000000u)` gives the
    answer away as surely as the line itself.
Lines and expressions are compared by a key:
  1. whitespace normalised: runs of blanks (tabs, non-breaking spaces) become one space, and
     a space survives only between two word characters, so `2*s*tid` and `2 * s * tid` are
     the same, while `unsigned int` stays two words;
  2. a trailing comment dropped (`x += y; // note` is `x += y;`), and a line that is only a
     comment (starting with //, /*, * or */) is empty;
  3. the punctuation that only frames a statement dropped: trailing `;` and `{`, a leading
     `}` (so `for (...) {` is found when a page shows `for (...)`, and `} else {` is `else`).
Trivial lines are never secret: a key with fewer than 10 non-blank characters (blank lines,
braces, `return;`, `i += 4;`, `s >>= 1`) or with no letter at all. Ten characters is about the
shortest line that says something about how a kernel works and the longest that also appears
all over ordinary prose and code.

The check. Every PATH (files, and folders walked recursively) is read as lines of text:
  - .html/.htm/.xhtml/.svg/.xml: tags stripped and entities unescaped, with the line
    structure kept (a raw newline and every block tag, such as Doxygen's one
    `<div class="line">` per code line, a <p>, <li>, <td> or SVG <text>, end a line);
    Doxygen's line-number spans, <script> and <style> are dropped. Each text run between
    two tags is also checked on its own, so an answer line inside <code>...</code> in the
    middle of a sentence, or one <span> per line of a coloured diff, is found too. Attribute
    values that people read (title=, alt=, aria-label=, data-tip=) are lines too: tooltips;
  - tar archives (.tar, .tar.gz, .tgz, .tar.bz2, .tar.xz): every member, as PATH!member;
  - a file with NUL bytes (binary): split on newlines and NULs;
  - anything else: text lines (code, comments, prose); a `code span` in backticks is also
    checked on its own.
A line is also tried without a leading diff marker (`+ `, `- `). A secret line is printed as
`path:line: answer line of stage K: <text>`, a secret expression found anywhere in a line as
`path:line: answer expression of stage K: <expression>`, each followed by where the solution
has it; a lab of this edition that shows one gets a last line saying which stages it needs
closed. Exit status: 1 when anything was found, 0 with a one-line summary when nothing was,
2 for bad arguments (a missing folder or stage file, an unknown stage, no PATH).
Needs Python 3 and its standard library only.
"""
import argparse
import html
import os
import re
import sys
import tarfile

MIN_CHARS = 10
MIN_EXPRESSION_CHARS = 14
OPERATOR = re.compile(r"[-+*/%^&|<>?!~\[\](]")
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
READ_ATTRIBUTES = re.compile(r'\b(?:title|alt|aria-label|data-tip|data-title)\s*=\s*("([^"]*)"|\'([^\']*)\')', re.I)
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


def flat(text):
    """A line in the form expressions are searched in: the key's spacing, comments kept."""
    s = " ".join(text.split())
    return re.sub(r"(?<=\W) | (?=\W)", "", s)


def code_of(text):
    """The code of a source line, without its comments (for what counts as shown code)."""
    s = re.sub(r"/\*.*?\*/", " ", text)
    s = re.sub(r"//.*$", "", s)
    if s.lstrip().startswith(("*", "/*")):
        return ""
    return s


def expressions(k):
    """The sub-expressions of a line key that say something on their own (see the docstring)."""
    s = k
    m = re.match(r"^for\((.*)\)$", s)
    parts = [s]
    if m:
        parts += m.group(1).split(";")
    found = set()
    for part in parts:
        found.add(part)
        depth = 0
        for i, ch in enumerate(part):   # the right side of a top-level assignment
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == "=" and depth == 0 and part[i + 1:i + 2] != "=" and \
                    (i == 0 or part[i - 1] not in "=!<>" or part[i - 2:i] in ("<<", ">>")):
                found.add(part[i + 1:])
                break
        stack = []
        for i, ch in enumerate(part):   # every parenthesis, and a call with its name
            if ch == "(":
                stack.append(i)
            elif ch == ")" and stack:
                j = stack.pop()
                found.add(part[j + 1:i])
                name = re.search(r"[A-Za-z_][\w.]*$", part[:j])
                if name:
                    found.add(part[name.start():i + 1])
                else:
                    found.add(part[j:i + 1])
    out = set()
    for e in found:
        e = e.strip().rstrip(";,")
        if len(e.replace(" ", "")) >= MIN_EXPRESSION_CHARS and re.search(r"[A-Za-z]", e) \
                and OPERATOR.search(e) and e.count("(") == e.count(")"):
            out.add(e)
    return out


# ----------------------------------------------------------------------------- what is secret

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


# The code every edition ships besides the labs: the harness and the emulator's runtime and
# translator. Its lines are no answer (cudaGetDevice(&device); is in solutions and harness alike).
# Never emu/tests/: its kernels are solutions with faults put in. The one list: the release, the
# docs tests and check_every_batch.py all pass --public-code-of.
PUBLIC_CODE = ("common", "emu/include", "emu/src", "emu/tools")


def public_code(kit):
    """The PUBLIC_CODE folders the kit at \p kit has."""
    return [os.path.join(kit, p) for p in PUBLIC_CODE if os.path.isdir(os.path.join(kit, p))]


def public_lines(paths):
    """Every line of the --public files (folders walked recursively), binary files left out."""
    lines = []
    for p in paths:
        files = [p] if os.path.isfile(p) else sorted(
            os.path.join(d, n) for d, _, names in os.walk(p) for n in names)
        for f in files:
            with open(f, "rb") as fh:
                data = fh.read()
            if b"\0" not in data:
                lines += data.decode("utf-8", "replace").split("\n")
    return lines


class Secrets:
    """The secret lines and expressions of one edition, and where each comes from."""

    def __init__(self, solutions, labs, stages, released, closed, public=()):
        self.stages = stages
        self.released, self.closed = set(released), set(closed)
        sol = {s[0]: stage_lines(solutions, s, "solution") for s in stages}
        lab = {s[0]: stage_lines(labs, s, "lab") for s in stages}
        keys = lambda lines: {key(ln) for ln in lines} - {""}
        pub = public_lines(public)
        self.answer = {}                   # stage -> its answer's keys (what its lab lacks)
        for number, _, _ in stages:
            self.answer[number] = keys(sol[number][1]) - keys(lab[number][1])
        shown = keys(pub)                  # lines no answer can hide in: public code, and the
        for c in self.closed:              # answers of closed stages (a line that an open
            shown |= self.answer[c]        # stage's answer shares with one is out already)
        handed_out = set()
        for j in self.released | self.closed:
            handed_out |= keys(lab[j][1])
        self.lines = {}                    # key -> (text, stage, path, line number)
        for number, _, _ in stages:
            path, lines = sol[number]
            own = keys(lab[number][1])
            if number in self.closed:
                continue
            not_out = number not in self.released
            given = set()                  # code an earlier lab handed out gave away already
            for j in self.released | self.closed:
                if j < number:
                    given |= keys(lab[j][1])
            for i, ln in enumerate(lines, 1):
                k = key(ln)
                if not k or k in shown or k in given or k in self.lines:
                    continue
                if k not in own or (not_out and k not in handed_out):
                    self.lines[k] = (" ".join(ln.split()), number, path, i)
        # Expressions: code that is shown (public code, the labs handed out, closed solutions).
        code = [code_of(ln) for ln in pub]
        for j in self.released:
            code += [code_of(ln) for ln in lab[j][1]]
        for c in self.closed:
            code += [code_of(ln) for ln in sol[c][1]]
        shown_code = "\n".join(flat(ln) for ln in code)
        self.expressions = {}              # expression -> (stage, path, line number)
        macros = {number: defines(sol[number][1]) for number, _, _ in stages}
        for k, (text, number, path, i) in self.lines.items():
            if k not in self.answer[number] or k.startswith(("#", "[[")):
                continue                   # a skeleton line of a stage not out, an #include: no idea in it
            found = expressions(k)
            for e in list(found):          # `1ull << COUNT_SHIFT` is `1ull << 48` in a sentence
                found |= expressions(spelled_out(e, macros[number]))
            for e in found:
                if e not in self.expressions and not contains(shown_code, e):
                    self.expressions[e] = (number, path, i)
        self.index = {}                    # the first 6 characters -> expressions, for the search
        for e in self.expressions:
            self.index.setdefault(e[:6], []).append(e)
        self.lab_paths = {os.path.join(d, n + ".cu"): number for number, d, n in stages}

    def find(self, text):
        """The secret expressions in one line of text."""
        s = flat(text)
        hits = []
        for i in range(max(0, len(s) - MIN_EXPRESSION_CHARS + 1)):
            for e in self.index.get(s[i:i + 6], ()):
                if s.startswith(e, i) and bounded(s, i, i + len(e)):
                    hits.append(e)
        return hits


def defines(lines):
    """The object-like macros of a stage file whose value is one literal or name."""
    out = {}
    for ln in lines:
        m = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)\s+([\w.]+)\s*(?:/[*/].*)?$", ln)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def spelled_out(e, macros):
    """An expression with its stage's macros replaced by their values."""
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: macros.get(m.group(0), m.group(0)), e)


def bounded(s, start, end):
    """Whether s[start:end] is not the middle of a longer name or number."""
    word = lambda c: c.isalnum() or c == "_"
    return not (start > 0 and word(s[start - 1]) and word(s[start])) and \
        not (end < len(s) and word(s[end - 1]) and word(s[end]))


def contains(haystack, e):
    start = haystack.find(e)
    while start >= 0:
        if bounded(haystack, start, start + len(e)):
            return True
        start = haystack.find(e, start + 1)
    return False


def prerequisites(solutions, labs, stages, public=()):
    """For each stage: the stages whose answers its lab shows (those it needs closed), read from
    the files: a line of lab J that is in the answer of a stage K before J and in no public
    file (a line of a later stage's answer is code lab J gives). A line that several stages'
    answers share is charged to the latest of them before J (closing any of them shows it)."""
    keys = lambda lines: {key(ln) for ln in lines} - {""}
    pub = keys(public_lines(public))
    sol = {s[0]: keys(stage_lines(solutions, s, "solution")[1]) for s in stages}
    lab = {s[0]: keys(stage_lines(labs, s, "lab")[1]) for s in stages}
    answer = {k: sol[k] - lab[k] - pub for k in sol}
    need = {}
    for j in sol:
        need[j] = set()
        for line in lab[j] - pub:
            owners = sorted(k for k in sol if k < j and line in answer[k])
            if owners:
                need[j].add(owners[-1])
    return need


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


def check_data(name, data, secrets, hits):
    seen = set()
    for number, text in lines_of(name, data):
        for k in variants(text):
            if k in secrets.lines and (number, k) not in seen:
                seen.add((number, k))
                sol_text, stage, path, sol_line = secrets.lines[k]
                hits.append((name, stage, "%s:%d: answer line of stage %d: %s  (%s:%d)"
                             % (name, number, stage, sol_text, path, sol_line)))
        for e in secrets.find(text):
            if (number, e) in seen or any(e in k for n, k in seen if n == number):
                continue
            seen.add((number, e))
            stage, path, sol_line = secrets.expressions[e]
            hits.append((name, stage, "%s:%d: answer expression of stage %d: %s  (%s:%d)"
                         % (name, number, stage, e, path, sol_line)))


def lines_of(name, data):
    lower = name.lower()
    if b"\0" in data:
        return [(k, ln) for k, ln in enumerate(re.split(r"[\n\0]", data.decode("utf-8", "replace")), 1)]
    text = data.decode("utf-8", "replace")
    if lower.endswith(HTML_EXTS):
        return html_lines(text) + attribute_lines(text)
    return text_lines(text)


def attribute_lines(text):
    """The attribute values a reader sees (tooltips, alternative texts), as lines."""
    out = []
    for m in READ_ATTRIBUTES.finditer(text):
        value = m.group(2) if m.group(2) is not None else m.group(3)
        out.append((text.count("\n", 0, m.start()) + 1, html.unescape(value)))
    return out


def check_path(path, secrets, hits):
    """Checks one file (a tar archive member by member); returns the number of files read."""
    if path.lower().endswith(TAR_EXTS) and tarfile.is_tarfile(path):
        count = 0
        with tarfile.open(path) as tar:
            for member in tar:
                if member.isfile():
                    f = tar.extractfile(member)
                    check_data("%s!%s" % (path, member.name), f.read(), secrets, hits)
                    count += 1
        return count
    with open(path, "rb") as f:
        check_data(path, f.read(), secrets, hits)
    return 1


def parse_stage_list(text, known, option):
    out = set()
    for part in re.split(r"[,;\s]+", text.strip()):
        if not part:
            continue
        m = re.fullmatch(r"(\d+)-(\d+)", part)
        numbers = range(int(m.group(1)), int(m.group(2)) + 1) if m else [part]
        for p in numbers:
            if not str(p).isdigit() or int(p) not in known:
                raise UsageError("%s: '%s' is not a stage of common/stages.def (those are %s)"
                                 % (option, p, ",".join(str(k) for k in sorted(known))))
            out.add(int(p))
    return out


def lab_stage(name, secrets):
    """The stage whose lab file a checked path is (PATH or archive!member), or None."""
    for rel, number in secrets.lab_paths.items():
        if ("/" + name.replace("\\", "/")).endswith("/labs/" + rel.replace("\\", "/")):
            return number
    return None


def batches(need):
    """The course in batches: each hands out, in order, the stages whose labs need only stages
    the earlier batches handed out (which are closed by then). [(batch, closed before it)]."""
    out, closed, batch = [], [], []
    for k in sorted(need):
        if not need[k] <= set(closed):
            out.append((batch, list(closed)))
            closed += batch
            batch = []
        batch.append(k)
    out.append((batch, list(closed)))
    return out


def ranges(stages):
    """1,2,3,5 as 1-3;5 (the form CMake's KIT_RELEASE_STAGES takes)."""
    parts, run = [], []
    for k in sorted(stages) + [None]:
        if run and (k is None or k != run[-1] + 1):
            parts.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
            run = []
        if k is not None:
            run.append(k)
    return ";".join(parts)


def numbers(stages):
    return ",".join(str(k) for k in sorted(stages)) or "none"


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(
        description="Finds the answers of open labs in a student edition.",
        epilog="Exit status: 0 nothing found, 1 an answer was found, 2 bad arguments.")
    ap.add_argument("--solutions", required=True, metavar="DIR", help="the reference solutions (solutions/)")
    ap.add_argument("--labs", required=True, metavar="DIR", help="the labs (labs/)")
    ap.add_argument("--stages", metavar="LIST", help="the stages this edition hands out, e.g. 4,5 or 4-6 (default: all)")
    ap.add_argument("--closed", metavar="LIST", default="",
                    help="the stages whose deadline has passed: their answers may show (default: none)")
    ap.add_argument("--prerequisites", action="store_true",
                    help="print, for each stage, the stages its lab needs closed, and stop")
    ap.add_argument("--batches", action="store_true",
                    help="print the batches the labs allow (each hands out the stages whose "
                         "prerequisites the earlier batches closed), and stop")
    ap.add_argument("--stages-def", metavar="FILE", default=os.path.join(here, "..", "common", "stages.def"),
                    help="the list of stages (default: ../common/stages.def next to this script)")
    ap.add_argument("--public", action="append", default=[], metavar="PATH",
                    help="code shipped besides the labs (repeatable): its lines are no secret")
    ap.add_argument("--public-code-of", metavar="KIT",
                    help="the code every edition ships besides the labs (PUBLIC_CODE, of the kit at KIT) "
                         "as --public")
    ap.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to check")
    args = ap.parse_args(argv)
    if args.public_code_of:
        args.public += public_code(args.public_code_of)
    try:
        for what, folder in (("--solutions", args.solutions), ("--labs", args.labs)):
            if not os.path.isdir(folder):
                raise UsageError("%s %s is not a folder" % (what, folder))
        stages = read_stages(os.path.normpath(args.stages_def))
        known = {s[0] for s in stages}
        for p in args.paths + args.public:
            if not os.path.exists(p):
                raise UsageError("%s does not exist" % p)
        if args.batches:
            need = prerequisites(args.solutions, args.labs, stages, args.public)
            for number, (batch, closed) in enumerate(batches(need), 1):
                print("batch %d: KIT_RELEASE_STAGES=%s KIT_CLOSED_STAGES=%s"
                      % (number, ranges(batch), ranges(closed) if closed else '""'))
            return 0
        if args.prerequisites:
            need = prerequisites(args.solutions, args.labs, stages, args.public)
            for k in sorted(need):
                print("stage %d: its lab shows the answers of stages %s" % (k, numbers(need[k]))
                      if need[k] else "stage %d: its lab shows no other stage's answer" % k)
            return 0
        if not args.paths:
            raise UsageError("name a file or folder to check (or --prerequisites)")
        released = parse_stage_list(args.stages, known, "--stages") if args.stages is not None else known
        if not released:
            raise UsageError("--stages names no stage")
        closed = parse_stage_list(args.closed, known, "--closed")
        if released & closed:
            raise UsageError("stages %s are both handed out (--stages) and closed (--closed)"
                             % numbers(released & closed))
        secrets = Secrets(args.solutions, args.labs, stages, released, closed, args.public)
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
                        files += check_path(full, secrets, hits)
        else:
            files += check_path(p, secrets, hits)
    needs = {}
    for name, stage, text in hits:
        print(text)
        j = lab_stage(name, secrets)
        if j is not None and stage != j:
            needs.setdefault(j, set()).add(stage)
    for j in sorted(needs):
        print("check_no_answers.py: lab %d shows the answers of open stages %s: hand it out once %s "
              "closed (KIT_CLOSED_STAGES), or leave it out of this batch"
              % (j, numbers(needs[j]), "they are" if len(needs[j]) > 1 else "that one is"))
    what = "%d files, %d answer lines and %d answer expressions (stages %s handed out, %s closed)" % (
        files, len(secrets.lines), len(secrets.expressions), numbers(released), numbers(closed))
    if hits:
        print("check_no_answers.py: checked %s: %d lines show one" % (what, len(hits)))
        return 1
    print("check_no_answers.py: checked %s, no answer found" % what)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Checks that every speed figure the kit's texts quote is the newest committed run's.

The pages' figures are generated (docs_assets.py writes them from docs/results/*.json); the
texts below are typed, so this script reads them as a reader would and compares:
  README.md, release/README.student.md, tests/grader/grading.conf (its comments), the comments of
  labs/*/*.cu and solutions/*/*.cu, docs/*.md, docs/stages/*.md and docs/studies/*.md.
In each sentence it finds
  - GB/s and TB/s figures ("409 GB/s", "407, 2782 and 2757 GB/s"), and what they are of: the
    nearest "stage K", "CUB"/"cub::...", "copy" or "peak" before them in the clause, else the
    stage of the file (labs/0K_..., docs/stages/stageK.md), else the subjects of the list
    in the sentence before ("On an H100 the same day: 407, 2782 and 2757 GB/s");
  - speedups ("1.62x stage 1", "1.03x over stage 5", "9.23x") and grading.conf's lines of
    speedups over stage 1, one per stage ("1.00 1.62 2.09 ...", six or more);
  - percentages of CUB, of the copy and of the peak ("103% of cub::DeviceReduce::Sum");
  - dates, "2^K ints", "T threads" and "median of R runs" in a sentence that quotes figures;
  - links to docs/results/ladder-*.{json,txt};
  - microseconds ("7.2 us at 2^16 ints", "an empty kernel takes 6.8 us"), GB/s and ratios to CUB
    ("1.80x as fast as CUB") at a size other than the ladder's: the newest sweep of the GPU
    (docs/results/sweep-*.json) at that n; at no size: the ladder's row (or any n of the sweep);
  - speedups over the CPU ("200x as fast as one CPU thread", "28x as fast as OpenMP", with the
    copy: the best+copy row) and the GB/s of the ladder's host rows (CPU, OpenMP, pinned and
    pageable copies);
  - three claims: stage 4 is "the biggest single step", stage 7 runs "as fast as" CUB, and stage
    8 "beats CUB" (faster at every n from 2^14 to 2^20 in every committed sweep);
and the GPU each figure is of: the GPU named in its clause, else in its sentence ("on an
H200" after figures claims them, a name before figures leads them), "both GPUs" for all.
Harris's G80 figures are literature, not runs: they are skipped. A figure that names no GPU
in a sentence that says it was measured fails. Every figure is compared, at the precision it
is quoted with, with the newest run of its GPU in docs/results/ (by date; the run a page
shows); a .txt table beside that run must be the same run.

Usage: check_quoted_figures.py SOURCE_DIR [--verbose]
       check_quoted_figures.py SOURCE_DIR --self-test
--self-test proves the check can fail: it changes, one at a time in memory, each figure the
check verified (and a date and a results link), and every change must be reported with its
file and line; then it does the same with a README it writes for a made-up run and sweep,
which quotes the kinds of figures the kit's texts do not quote yet. The stages are those of
common/stages.def. Exit 0 when everything agrees (or, with --self-test, when every change was
caught), 1 otherwise.
"""
import glob
import json
import os
import re
import sys

G80 = "G80"
ALL = "*"


# ---------------------------------------------------------------------------------- the runs
def gpu_short(name):
    """The GPU's short name, as texts write it: 'NVIDIA H100 80GB HBM3' -> 'H100' (the same rule
    as docs_assets.py, which names the pages' figures after it)."""
    words = [w for w in re.split(r"[\s-]+", name) if w and w not in ("NVIDIA", "GeForce", "Tesla", "Quadro")]
    for k, w in enumerate(words):
        if re.search(r"\d", w):
            w = re.sub(r"[^A-Za-z0-9]", "", w)
            if w.isdigit() and k > 0:
                w = re.sub(r"[^A-Za-z0-9]", "", words[k - 1]) + w
            return w
    return re.sub(r"[^A-Za-z0-9]", "", "".join(words)) or "GPU"


def stage_numbers(root):
    """The stages of common/stages.def, in order."""
    with open(os.path.join(root, "common", "stages.def"), encoding="utf-8") as f:
        found = [int(k) for k in re.findall(r"^KIT_STAGE\((\d+),", f.read(), re.M)]
    if not found:
        raise SystemExit("check_quoted_figures.py: no KIT_STAGE lines in %s/common/stages.def" % root)
    return found


def is_sweep(path, data):
    return os.path.basename(path).startswith("sweep-") or (isinstance(data, dict) and data.get("kind") == "sweep")


def is_accuracy(path, data):
    """An accuracy run of the float sums (reduce_ladder --accuracy): errors, not speeds; none of its
    figures is quoted as a speed."""
    return os.path.basename(path).startswith("accuracy-") or (isinstance(data, dict) and
                                                              data.get("kind") == "accuracy")


def load_sweeps(root):
    """{short GPU name: its newest sweep} from docs/results/ (reduce_ladder --sweep), each with
    by_n: {n: {row: row}}."""
    newest = {}
    for path in sorted(glob.glob(os.path.join(root, "docs", "results", "*.json"))):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if not is_sweep(path, data) or data.get("emulated"):
            continue
        data["file"] = os.path.relpath(path, root)
        data["short"] = gpu_short(data["gpu"]["name"])
        data["by_n"] = dict((int(size["n"]), dict((str(r["row"]), r) for r in size["rows"])) for size in data["sizes"])
        old = newest.get(data["short"])
        if old is None or (data["date"], data["file"]) > (old["date"], old["file"]):
            newest[data["short"]] = data
    return newest


def load_runs(root):
    """{short GPU name: its newest timed run} from docs/results/*.json (sweeps left out: load_sweeps()),
    plus every run's file."""
    newest, files = {}, []
    for path in sorted(glob.glob(os.path.join(root, "docs", "results", "*.json"))):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if is_sweep(path, data) or is_accuracy(path, data):
            continue
        data["file"] = os.path.relpath(path, root)
        data["short"] = gpu_short(data["gpu"]["name"])
        data["rows_by"] = dict((str(r["stage"]), r) for r in data["rows"])
        files.append(data["file"])
        if data.get("emulated"):
            continue
        old = newest.get(data["short"])
        if old is None or (data["date"], data["file"]) > (old["date"], old["file"]):
            newest[data["short"]] = data
    return newest, files


def ok(row):
    return bool(row) and row.get("result") == "ok" and isinstance(row.get("gbps"), (int, float))


def gbps_of(run, subject):
    """The GB/s a subject ('1'..'7', 'CUB', 'copy', 'peak') reached on a run, or None."""
    if subject == "peak":
        return run["gpu"].get("peak_gbps")
    row = run["rows_by"].get(subject)
    return row["gbps"] if ok(row) else None


def speedup_of(run, k, base):
    """Stage k's speedup over stage base on a run: the values it may be quoted as (the ladder's
    printed one and the ratio of the medians), or []."""
    a, b = run["rows_by"].get(str(k)), run["rows_by"].get(str(base))
    if not ok(a) or not ok(b):
        return []
    out = [b["median_ms"] / a["median_ms"]]
    printed = a.get("step_speedup") if base == k - 1 else a.get("cumulative_speedup") if base == 1 else None
    if printed and printed.endswith("x"):
        out.append(float(printed[:-1]))
    return out


def percent_of(run, k, what):
    row = run["rows_by"].get(str(k))
    if not ok(row):
        return []
    if what == "cub":
        out = []
        if str(row.get("percent_of_cub", "")).endswith("%"):
            out.append(float(row["percent_of_cub"][:-1]))
        cub = gbps_of(run, "CUB")
        if cub:
            out.append(100.0 * row["gbps"] / cub)
        return out
    ref = gbps_of(run, "copy" if what == "copy" else "peak")
    return [100.0 * row["gbps"] / ref] if ref else []


def sweep_ok(sweep, n, row):
    r = sweep["by_n"].get(n, {}).get(row) if sweep else None
    return r if r and r.get("result") == "ok" and isinstance(r.get("median_ms"), (int, float)) else None


def sweep_values(sweep, n, row, what):
    """A sweep's figure of a row ('8', 'CUB', 'copy', 'launch', '7') at n (every n when n is None):
    what = 'us' (median time in microseconds), 'gbps', or 'cub' (CUB's time / the row's)."""
    if not sweep:
        return []
    out = []
    for m in ([n] if n is not None else sorted(sweep["by_n"])):
        r = sweep_ok(sweep, m, row)
        if not r:
            continue
        if what == "us":
            out.append(1000.0 * r["median_ms"])
        elif what == "gbps" and isinstance(r.get("gbps"), (int, float)):
            out.append(r["gbps"])
        elif what == "cub":
            c = sweep_ok(sweep, m, "CUB")
            if c and r["median_ms"] > 0:
                out.append(c["median_ms"] / r["median_ms"])
    if what == "us" and row == "launch" and n is None and out:
        ts = sorted(out)   # the pages quote the median over every n
        out.append(ts[len(ts) // 2] if len(ts) % 2 else (ts[len(ts) // 2 - 1] + ts[len(ts) // 2]) / 2)
    return out


def cub_ratio_of(run, key):
    """A ladder row's speed over CUB's (CUB's time / the row's), as a ratio."""
    row, cub = run["rows_by"].get(key), run["rows_by"].get("CUB")
    if not ok(row) or not ok(cub) or not row["median_ms"]:
        return []
    out = [cub["median_ms"] / row["median_ms"]]
    if str(row.get("percent_of_cub", "")).endswith("%"):
        out.append(float(row["percent_of_cub"][:-1]) / 100.0)
    return out


def cpu_ratio_of(run, key, base="cpu"):
    """A ladder row's speedup over the CPU's row base ('cpu' or 'cpu-omp'): the printed one (for
    'cpu') and the ratio of the medians."""
    row, cpu = run["rows_by"].get(key), run["rows_by"].get(base)
    if not ok(row) or not ok(cpu) or not row["median_ms"]:
        return []
    out = [cpu["median_ms"] / row["median_ms"]]
    printed = row.get("speedup_over_cpu")
    if base == "cpu" and isinstance(printed, str) and printed.endswith("x"):
        try:
            out.append(float(printed[:-1]))
        except ValueError:
            pass
    return out


def matches(quoted, values):
    """Whether the quoted text of a number is one of values, rounded as it is written."""
    decimals = len(quoted.split(".")[1]) if "." in quoted else 0
    q = float(quoted)
    return any(v is not None and abs(v - q) <= 0.5 * 10 ** -decimals + 1e-9 for v in values)


# ---------------------------------------------------------------------------------- the texts
def quoted_files(root):
    files = ["README.md", "release/README.student.md", "tests/grader/grading.conf"]
    files += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "labs", "*", "*.cu")))
    files += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "solutions", "*", "*.cu")))
    files += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
    files += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "stages", "*.md")))
    files += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "studies", "*.md")))
    return [f for f in files if os.path.isfile(os.path.join(root, f))]


def file_stage(path):
    m = re.match(r"(?:labs|solutions)/0*(\d+)_", path) or re.match(r"docs/stages/stage(\d+)\.md$", path) or \
        re.match(r"docs/studies/stage(\d+)_\w+\.md$", path)
    return int(m.group(1)) if m else None


def prose_lines(path, text):
    """(line number, prose) for each line a reader reads as text: comments of .cu and .conf
    files, everything else of .md; None where a paragraph ends."""
    out = []
    in_comment = False
    fence = False
    for no, line in enumerate(text.split("\n"), 1):
        if path.endswith(".cu"):
            s = line.strip()
            if in_comment:
                end = "*/" in s
                s = s.split("*/")[0]
                s = re.sub(r"^\*\s?", "", s)
                out.append((no, s) if s.strip() else None)
                in_comment = not end
                continue
            m = re.search(r"/\*+(.*?)(\*/|$)", line)
            if m:
                in_comment = not m.group(2)
                out.append((no, m.group(1)) if m.group(1).strip() else None)
                continue
            m = re.search(r"//+(.*)$", line)
            out.append((no, m.group(1)) if m and m.group(1).strip() else None)
        elif path.endswith(".conf"):
            m = re.match(r"\s*#+\s?(.*)$", line)
            out.append((no, m.group(1)) if m and m.group(1).strip() else None)
        else:
            if line.strip().startswith("```"):
                fence = not fence
                out.append(None)
                continue
            out.append(None if fence or not line.strip() else (no, line))
    return out


def paragraphs(path, text):
    """Paragraphs as (text, the line of each character)."""
    cur, lines = [], []
    for item in prose_lines(path, text) + [None]:
        if item is None or re.match(r"\s*(?:[-*]|\d+\.)\s", item[1]):
            if cur:
                yield "".join(cur), lines
            cur, lines = [], []
            if item is None:
                continue
        no, s = item
        s = s.strip() + " "
        cur.append(s)
        lines.extend([no] * len(s))


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`*\\])")
CLAUSE_SPLIT = re.compile(r"[,;:()]")
NUM = r"\d+(?:\.\d+)?"
BANDWIDTH = re.compile(r"(?<![\w.^])((?:%s(?:,\s*|\s+(?:and|or|to|of)\s+))*%s)\s*(GB/s|TB/s)" % (NUM, NUM))
SPEEDUP = re.compile(r"(?<![\w.^])(%s)x\b" % NUM)
SPEEDUP_LINE = re.compile(r"(?<![\w.^])(\d+\.\d\d)((?:\s+\d+\.\d\d){5,})(?![\w.])")   # one per stage
PERCENT = re.compile(r"(?<![\w.^])(%s)%%\s+of\s+([^,;.()]{0,60})" % NUM)
SUBJECT = re.compile(r"\bstage\s+(\d+)\b|\b(CUB|cub::)|\b(copy)\b|\b(peak|theoretical)\b", re.I)
# the ladder's host rows, named in a clause before a figure: OpenMP first (its clause names the CPU too)
HOST_SUBJECT = [(re.compile(r"\bOpenMP\b"), "cpu-omp"), (re.compile(r"\bpageable\b"), "h2d-pageable"),
                (re.compile(r"\bpinned\b"), "h2d-pinned"), (re.compile(r"\b(?:CPU|one thread)\b"), "cpu")]
MICRO = re.compile(r"(?<![\w.^])(%s)\s*(?:\u00b5s|&micro;s|us|microseconds)\b" % NUM)
SIZE = re.compile(r"\b2(?:\^|<sup>)(\d+)(?:</sup>)?")
LAUNCH_SUBJECT = re.compile(r"\b(?:empty kernel|empty launch|launch latency|one launch|a launch)\b", re.I)
VS_CUB = re.compile(r"\s+(?:as fast as\s+|faster than\s+|over\s+|of\s+)?(?:CUB\b|`?cub::)")
VS_CPU = re.compile(r"\s+(?:as fast as\s+|faster than\s+|over\s+|of\s+)?(?:the\s+)?(?:CPU\b|one (?:CPU )?thread|"
                    r"OpenMP|all (?:of )?its)")
DATE = re.compile(r"\b(20\d\d-\d\d-\d\d)\b")
RESULT_LINK = re.compile(r"docs/results/(ladder-[\w.-]+?\.(?:json|txt))")
MEASURED = re.compile(r"\bmeasur|\bMeasur")


def gpu_mentions(sentence, gpus):
    """(start, end, gpu, kind) for each GPU a sentence names; kind 'after' when a preposition
    puts the name after what it measured ('1.83x on an H200'), else 'before'."""
    out = []
    names = sorted(gpus, key=len, reverse=True)
    pattern = r"\b(?:NVIDIA\s+)?(%s|G80|8800 GTX|Harris)\b|\b(both GPUs|every GPU|each GPU)\b" % "|".join(
        re.escape(g) for g in names) if names else r"\b(G80|8800 GTX|Harris)\b|\b(both GPUs)\b"
    for m in re.finditer(pattern, sentence):
        gpu = ALL if m.group(2) else G80 if m.group(1) in ("G80", "8800 GTX", "Harris") else m.group(1)
        before = sentence[max(0, m.start() - 12):m.start()]
        kind = "after" if re.search(r"\b(?:on|of|for)\s+(?:an?|the)\s+$|\bon\s+$", before) else "before"
        if m.group(1) == "Harris":
            kind = "before"
        out.append((m.start(), m.end(), gpu, kind))
    return out


def size_near(sentence, start, end):
    """The n a figure is at, as the sentence writes it (2^16, 2<sup>16</sup>): the nearest one before
    it, else the first after it; None when the sentence names none."""
    sizes = list(SIZE.finditer(sentence))
    before = [m for m in sizes if m.end() <= start]
    after = [m for m in sizes if m.start() >= end]
    m = before[-1] if before else after[0] if after else None
    return 1 << int(m.group(1)) if m else None


def attribute(figures, sentence, mentions):
    """The GPU of each figure (start offset) of a sentence, or None."""
    gpu = {}
    # 1. a clause that names one GPU
    bounds = [0] + [m.end() for m in CLAUSE_SPLIT.finditer(sentence)] + [len(sentence) + 1]
    for pos in figures:
        for a, b in zip(bounds, bounds[1:]):
            if a <= pos < b:
                named = set(g for s, _, g, _ in mentions if a <= s < b)
                if len(named) == 1:
                    gpu[pos] = named.pop()
    # 2. 'on an H200' claims the figures between the GPU named before it and itself
    prev = -1
    for s, e, g, kind in mentions:
        if kind == "after":
            for pos in figures:
                if pos not in gpu and prev < pos < s:
                    gpu[pos] = g
        prev = s
    # 3. the nearest GPU named before the figure, else after it
    for pos in figures:
        if pos in gpu:
            continue
        before = [m for m in mentions if m[0] < pos]
        after = [m for m in mentions if m[0] > pos]
        if before:
            gpu[pos] = before[-1][2]
        elif after:
            gpu[pos] = after[0][2]
    return gpu


class Checker:
    def __init__(self, root, overrides=None):
        self.root = root
        self.overrides = overrides or {}
        self.runs, self.result_files = load_runs(root)
        self.sweeps = load_sweeps(root)
        self.stages = stage_numbers(root)
        self.problems = []   # (path, line, message)
        self.checked = []    # (path, line, the figure's text, start, end): what the self-test changes
        self.skipped = 0
        self.last_dates = set()

    def text(self, path):
        if path in self.overrides:
            return self.overrides[path]
        with open(os.path.join(self.root, path), encoding="utf-8") as f:
            return f.read()

    def fail(self, path, line, msg):
        self.problems.append((path, line, msg))

    def runs_for(self, gpu):
        if gpu == ALL:
            return list(self.runs.values())
        return [self.runs[gpu]] if gpu in self.runs else []

    def check_value(self, path, line, quoted, values_of, what, gpu, span):
        """values_of(run) -> acceptable values; gpu: a short name, ALL, G80 or None."""
        if gpu == G80:
            self.skipped += 1
            return
        runs = self.runs_for(gpu)
        if not runs:
            return  # reported by the caller (no GPU named) or a GPU with no run: nothing to compare
        self.checked.append((path, line, quoted, span))
        for run in runs:
            values = values_of(run)
            if not values:
                self.fail(path, line, "%s: %s has no such figure in %s" % (what, quoted, run["file"]))
            elif not matches(quoted, values):
                shown = ", ".join(sorted(set("%.2f" % v for v in values)))
                self.fail(path, line, "%s: quotes %s, but the newest %s run (%s) has %s"
                          % (what, quoted, run["short"], run["file"], shown))

    def check_file(self, path):
        text = self.text(path)
        stage = file_stage(path)
        for m in RESULT_LINK.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            name = "docs/results/" + m.group(1)
            base = name.rsplit(".", 1)[0] + ".json"
            if not os.path.isfile(os.path.join(self.root, name)):
                self.fail(path, line, "links %s, which does not exist" % name)
                continue
            newest = [r["file"] for r in self.runs.values()]
            self.checked.append((path, line, m.group(1), (m.start(1), m.end(1))))
            if base not in newest:
                self.fail(path, line, "links %s, not the newest run of its GPU (%s)" % (name, ", ".join(newest)))
        offset = 0
        for para, lines in paragraphs(path, text):
            self.check_paragraph(path, text, para, lines, stage)
            offset += 1

    def locate(self, text, lines, para, start, quoted):
        """The figure's offset in the file: its line, then its text on that line."""
        line = lines[min(start, len(lines) - 1)]
        line_start = 0
        for _ in range(line - 1):
            line_start = text.index("\n", line_start) + 1
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        k = text.find(quoted, line_start, line_end)
        return line, ((k, k + len(quoted)) if k >= 0 else None)

    def check_paragraph(self, path, text, para, lines, stage):
        gpus = list(self.runs)
        sentences, pos = [], 0
        for m in SENTENCE_END.finditer(para):
            sentences.append((pos, para[pos:m.start()]))
            pos = m.end()
        sentences.append((pos, para[pos:]))
        prev_subjects = []
        para_mentions = []
        for s0, sent in sentences:
            mentions = gpu_mentions(sent, gpus)
            figures = []  # (start, end, kind, quoted, extra)
            for m in BANDWIDTH.finditer(sent):
                nums = list(re.finditer(NUM, m.group(1)))
                for n in nums:
                    figures.append((m.start(1) + n.start(), m.start(1) + n.end(), m.group(2), n.group(0), len(nums)))
            line_spans = set()
            for m in SPEEDUP_LINE.finditer(sent):
                line_spans.add((m.start(), m.end()))
                for k, n in enumerate(re.finditer(r"\d+\.\d\d", m.group(0))):
                    figures.append((m.start() + n.start(), m.start() + n.end(), "line", n.group(0), k + 1))
            for m in SPEEDUP.finditer(sent):
                figures.append((m.start(1), m.end(1), "x", m.group(1), None))
            for m in MICRO.finditer(sent):
                figures.append((m.start(1), m.end(1), "us", m.group(1), None))
            for m in PERCENT.finditer(sent):
                obj = m.group(2)
                what = "cub" if re.search(r"CUB|cub::", obj) else "copy" if "copy" in obj else \
                    "peak" if re.search(r"peak|theoretical|bandwidth|GB/s", obj) else None
                if what:
                    figures.append((m.start(1), m.end(1), "%", m.group(1), what))
            if not figures:
                para_mentions += mentions
                continue
            figures.sort()
            owner = attribute([f[0] for f in figures], sent, mentions)
            subjects_here = []
            last_end = 0
            for start, end, kind, quoted, extra in figures:
                gpu = owner.get(start)
                if gpu is None and para_mentions:
                    gpu = para_mentions[-1][2]
                line, span = self.locate(text, lines, para, s0 + start, quoted)
                # what the figure is of: named since the figure before, not counting the stage a
                # speedup is over ('1.77x stage 6 and 103% of CUB': the 103% is not stage 6's)
                ctx = re.sub(r"\d(?:\.\d+)?x\s+(?:over\s+|faster than\s+)?stage\s+\d", "", sent[last_end:start])
                if re.match(r"x\s+(?:over\s+|faster than\s+)?stage\s+\d", sent[end:]):
                    last_end = end + re.match(r"x\s+(?:over\s+|faster than\s+)?stage\s+\d", sent[end:]).end()
                else:
                    last_end = end
                if gpu is None:
                    if MEASURED.search(sent) and not re.match(r"\s*the\b", sent[end + 1:end + 6]):
                        self.fail(path, line, "%s%s names no GPU: say which run it is from (or leave the figure to "
                                  "the generated pages)" % (quoted, {"x": "x", "%": "%"}.get(kind, " " + kind)))
                    continue
                size = size_near(sent, start, end)
                if kind in ("GB/s", "TB/s"):
                    subj = [m for m in SUBJECT.finditer(ctx)]
                    host = [key for rx, key in HOST_SUBJECT if rx.search(ctx)]
                    if subj and not (subj[-1].group(3) and host and host[0].startswith("h2d")):
                        last = subj[-1]
                        subject = last.group(1) or ("CUB" if last.group(2) else "copy" if last.group(3) else "peak")
                    elif host:
                        subject = host[0]   # 'the pinned copy reads 25 GB/s': the copy to the GPU
                    elif stage is not None and extra == 1:
                        subject = str(stage)
                    elif extra > 1 and len(prev_subjects) == extra:
                        k = sum(1 for f in figures if f[2] in ("GB/s", "TB/s") and f[0] < start)
                        subject = prev_subjects[k % extra]
                    else:
                        subject = None
                    subjects_here.append(subject)
                    scale = 1000.0 if kind == "TB/s" else 1.0
                    if subject is None:
                        values_of = lambda run, s=scale: [v / s for v in (gbps_of(run, x) for x in
                                                          list(run["rows_by"]) + ["peak"]) if v]
                        what = "%s %s" % (quoted, kind)
                    else:
                        values_of = lambda run, x=subject, s=scale: [gbps_of(run, x) / s] if gbps_of(run, x) else []
                        what = "%s %s of %s" % (quoted, kind, "stage " + subject if subject.isdigit() else subject)
                    if size is not None and subject != "peak":
                        # at a size the ladder does not run: the sweep's figure at that n
                        values_of = self.at_size(values_of, size, [subject] if subject else None, "gbps", scale)
                        what += " at n = 2^%d" % (size.bit_length() - 1)
                    self.check_value(path, line, quoted, values_of, what, gpu, span)
                elif kind == "us":
                    subject = "launch" if LAUNCH_SUBJECT.search(ctx) else None
                    subj = [m for m in SUBJECT.finditer(ctx)]
                    if subject is None and subj:
                        last = subj[-1]
                        subject = last.group(1) or ("CUB" if last.group(2) else "copy" if last.group(3) else None)
                    if subject is None and stage is not None:
                        subject = str(stage)
                    keys = [subject] if subject else None
                    values_of = self.at_size(lambda run, x=subject: [1000.0 * r["median_ms"] for r in
                                                                     [run["rows_by"].get(x)] if ok(r)] if x else [],
                                             size, keys, "us", 1.0)
                    self.check_value(path, line, quoted, values_of, "%s us of %s%s" % (
                        quoted, {"launch": "an empty launch", None: "any row"}.get(subject, "stage " + str(subject)
                                                                                  if str(subject).isdigit() else subject),
                        " at n = 2^%d" % (size.bit_length() - 1) if size else ""), gpu, span)
                elif kind == "line":
                    self.check_value(path, line, quoted, lambda run, k=extra: speedup_of(run, k, 1),
                                     "stage %d's speedup over stage 1, %s" % (extra, quoted), gpu, span)
                elif kind == "x":
                    if any(a <= start < b for a, b in line_spans):
                        continue
                    after = sent[end + 1:end + 30]
                    if re.match(r"\s+the\b", after):
                        continue  # '1.5x the copy bandwidth': a rule, not a measurement
                    m = re.match(r"\s+(?:over\s+|faster than\s+)?stage\s+(\d+)", after)
                    subj = list(re.finditer(r"\bstage\s+(\d+)\b", ctx))
                    k = int(subj[-1].group(1)) if subj else stage
                    if (VS_CUB.match(after) or VS_CPU.match(after)) and not k:
                        # 'stage 8 is 200x as fast as one thread and 28x as fast as OpenMP'
                        named = list(re.finditer(r"\bstage\s+(\d+)\b", sent[:start]))
                        k = int(named[-1].group(1)) if named else None
                    if VS_CUB.match(after) and k:
                        # '1.80x as fast as CUB' (at a size: the sweep's ratio there)
                        values_of = self.at_size(lambda run, k=k: cub_ratio_of(run, str(k)), size, [str(k)], "cub", 1.0)
                        self.check_value(path, line, quoted, values_of, "stage %d against CUB, %sx%s" % (
                            k, quoted, " at n = 2^%d" % (size.bit_length() - 1) if size else ""), gpu, span)
                    elif VS_CPU.match(after):
                        base = "cpu-omp" if re.match(r"\s+(?:\w+\s+){0,3}(?:OpenMP|all (?:of )?its)", after) else "cpu"
                        key = "best+copy" if re.search(r"\bcopy\b", ctx) else str(k) if k else None
                        self.check_value(path, line, quoted,
                                         lambda run, x=key, b=base: cpu_ratio_of(run, x, b) if x else [],
                                         "%s over %s, %sx" % (key and ("stage " + key if key.isdigit() else key) or "?",
                                                              "OpenMP" if base == "cpu-omp" else "the CPU", quoted),
                                         gpu, span)
                    elif m and k:
                        base = int(m.group(1))
                        self.check_value(path, line, quoted, lambda run, k=k, b=base: speedup_of(run, k, b),
                                         "stage %d over stage %d, %sx" % (k, base, quoted), gpu, span)
                    elif k:
                        self.check_value(path, line, quoted,
                                         lambda run, k=k: speedup_of(run, k, k - 1) + speedup_of(run, k, 1),
                                         "stage %d's speedup, %sx" % (k, quoted), gpu, span)
                    else:
                        self.check_value(path, line, quoted,
                                         lambda run: [v for k in self.stages[1:] for b in range(1, k)
                                                      for v in speedup_of(run, k, b)],
                                         "a speedup, %sx" % quoted, gpu, span)
                elif kind == "%":
                    subj = list(re.finditer(r"\bstage\s+(\d+)\b", ctx))
                    k = int(subj[-1].group(1)) if subj else stage
                    if k:
                        self.check_value(path, line, quoted, lambda run, k=k, w=extra: percent_of(run, k, w),
                                         "stage %d at %s%% of %s" % (k, quoted, extra), gpu, span)
                    else:
                        self.check_value(path, line, quoted,
                                         lambda run, w=extra: [v for k in self.stages for v in percent_of(run, k, w)],
                                         "%s%% of %s" % (quoted, extra), gpu, span)
            if any(s is not None for s in subjects_here):
                prev_subjects = subjects_here
            self.check_settings(path, text, lines, sent, s0, owner, mentions)
            para_mentions += mentions

    def at_size(self, values_of, size, keys, what, scale):
        """values_of(run), or at a size other than the ladder's n, the newest sweep's figure of the
        rows keys (every row when None) at that size, what = 'us', 'gbps' or 'cub'."""
        def values(run):
            out = []
            if size is None or size == run["n"]:
                out += values_of(run)
            sweep = self.sweeps.get(run["short"])
            if sweep:
                rows = keys or sorted(set(k for n in sweep["by_n"] for k in sweep["by_n"][n]))
                for k in rows:
                    out += [v / scale for v in sweep_values(sweep, size, k, what)]
            return out
        return values

    def check_settings(self, path, text, lines, sent, s0, owner, mentions):
        """Dates, n, threads and repetitions in a sentence that quotes a run's figures; 'the same
        day' means the date of the runs quoted in the sentence before."""
        named = set(g for g in owner.values() if g not in (None, G80))
        runs = [r for g in named for r in self.runs_for(g)]
        if not runs:
            return
        m = re.search(r"\bthe same day\b", sent)
        if m and self.last_dates and not all(r["date"] in self.last_dates for r in runs):
            line, _ = self.locate(text, lines, None, s0 + m.start(), "same day")
            self.fail(path, line, "'the same day': this run is of %s, the one before of %s (%s)" % (
                ", ".join(sorted(set(r["date"] for r in runs))), ", ".join(sorted(self.last_dates)),
                ", ".join(r["file"] for r in runs)))
        self.last_dates = set(r["date"] for r in runs)
        for m in DATE.finditer(sent):
            line, span = self.locate(text, lines, None, s0 + m.start(), m.group(1))
            self.checked.append((path, line, m.group(1), span))
            if not any(r["date"] == m.group(1) for r in runs):
                self.fail(path, line, "date %s: the run quoted is of %s (%s)" % (
                    m.group(1), ", ".join(sorted(set(r["date"] for r in runs))),
                    ", ".join(r["file"] for r in runs)))
        for m in re.finditer(r"\b2\^(\d+) ints\b", sent):
            if not all(r["n"] == 1 << int(m.group(1)) or (1 << int(m.group(1))) in
                       self.sweeps.get(r["short"], {}).get("by_n", {}) for r in runs):
                line, _ = self.locate(text, lines, None, s0 + m.start(), m.group(0))
                self.fail(path, line, "n = 2^%s, but the run quoted has n = %s" % (
                    m.group(1), ", ".join(str(r["n"]) for r in runs)))
        for m in re.finditer(r"\b(\d+) threads\b", sent):
            if not all(r["threads"] == int(m.group(1)) for r in runs):
                line, _ = self.locate(text, lines, None, s0 + m.start(), m.group(0))
                self.fail(path, line, "%s threads, but the run quoted has %s" % (
                    m.group(1), ", ".join(str(r["threads"]) for r in runs)))
        for m in re.finditer(r"\bmedian of (\d+) runs\b", sent):
            if not all(r.get("reps") == int(m.group(1)) for r in runs):
                line, _ = self.locate(text, lines, None, s0 + m.start(), m.group(0))
                self.fail(path, line, "median of %s runs, but the run quoted has %s" % (
                    m.group(1), ", ".join(str(r.get("reps")) for r in runs)))

    def check_claims(self, path):
        text = self.text(path)
        stage = file_stage(path)
        if stage == 4:
            for m in re.finditer(r"biggest\s+(?:single\s+)?step", text):
                line = text.count("\n", 0, m.start()) + 1
                for run in self.runs.values():
                    steps = dict((k, speedup_of(run, k, k - 1)[0]) for k in self.stages[1:] if speedup_of(run, k, k - 1))
                    if steps and max(steps, key=steps.get) != 4:
                        best = max(steps, key=steps.get)
                        self.fail(path, line, "says stage 4 is the biggest step, but on %s (%s) stage %d's %.2fx "
                                  "beats stage 4's %.2fx" % (run["short"], run["file"], best, steps[best],
                                                             steps.get(4, 0)))
        if stage == 7:
            for m in re.finditer(r"as fast as\s+`?cub::DeviceReduce::Sum|as fast as\s+CUB", text):
                line = text.count("\n", 0, m.start()) + 1
                for run in self.runs.values():
                    pct = percent_of(run, 7, "cub")
                    if pct and pct[-1] < 95.0:
                        self.fail(path, line, "says stage 7 is as fast as CUB, but on %s (%s) it reaches %.0f%% of "
                                  "CUB" % (run["short"], run["file"], pct[-1]))

    def check_stage8_claims(self, path):
        """'beats CUB' on stage 8's files: stage 8 faster than CUB at every n from 2^14 to 2^20 in
        every committed sweep (the sweeps there are; the sweep test requires that there is one)."""
        if file_stage(path) != 8:
            return
        text = self.text(path)
        for m in re.finditer(r"\b(?:beats|beating|faster than|ahead of)\s+(?:CUB\b|`?cub::)", text):
            line = text.count("\n", 0, m.start()) + 1
            for sweep in self.sweeps.values():
                slow = [k for k in range(14, 21) if sweep_values(sweep, 1 << k, "8", "cub") and
                        sweep_values(sweep, 1 << k, "8", "cub")[0] <= 1.0]
                if slow:
                    self.fail(path, line, "says stage 8 beats CUB, but in %s it does not at n = %s" % (
                        sweep["file"], ", ".join("2^%d" % k for k in slow)))

    def check_tables(self):
        """The .txt beside each newest run must be the same run (the README links it)."""
        for run in self.runs.values():
            txt = os.path.join(self.root, run["file"][:-5] + ".txt")
            if not os.path.isfile(txt):
                continue
            with open(txt, encoding="utf-8") as f:
                table = f.read()
            rel = os.path.relpath(txt, self.root)
            for no, line in enumerate(table.split("\n"), 1):
                m = re.match(r"(\S+)\s+.*?\s+(\d+\.\d+)\s+(\d+\.\d)%\s+(\d+\.\d)\s", line)
                if not m or m.group(1) not in run["rows_by"]:
                    continue
                row = run["rows_by"][m.group(1)]
                if ok(row) and not matches(m.group(4), [row["gbps"]]):
                    self.fail(rel, no, "row %s reads %s GB/s, but %s, the run it sits beside, has %.1f: the "
                              "table is another run (make both from one run)" % (m.group(1), m.group(4),
                                                                               run["file"], row["gbps"]))

    def run(self):
        if not self.runs:
            self.fail("docs/results", 0, "no timed ladder run (docs/results/*.json)")
            return
        for path in quoted_files(self.root):
            self.check_file(path)
            self.check_claims(path)
            self.check_stage8_claims(path)
        self.check_tables()


def self_test(root):
    """Changes each verified figure in memory, one at a time; each change must be caught."""
    base = Checker(root)
    base.run()
    if base.problems:
        print("check_quoted_figures.py --self-test: the unchanged texts already fail; fix them first:")
        for p in base.problems:
            print("  %s:%d: %s" % p)
        return 1
    missed, caught = [], 0
    for path, line, quoted, span in base.checked:
        if span is None:
            continue
        text = base.text(path)
        a, b = span
        if text[a:b] != quoted:
            continue
        digits = [i for i in range(a, b) if text[i].isdigit()]
        i = digits[-1] if quoted[0].isdigit() or not quoted.startswith("ladder") else digits[0]
        changed = text[:i] + str((int(text[i]) + 3) % 10) + text[i + 1:]
        c = Checker(root, {path: changed})
        c.run()
        if any(p == path and l == line for p, l, _ in c.problems):
            caught += 1
        else:
            missed.append("%s:%d: %s changed to %s" % (path, line, quoted, changed[a:b]))
    for m in missed:
        print("not caught: " + m)
    print("check_quoted_figures.py --self-test: %d of %d changed figures, dates and links caught%s"
          % (caught, caught + len(missed), "" if not missed else ", %d missed" % len(missed)))
    return 0 if caught and not missed else 1


def synthetic_self_test(root):
    """The figure kinds the kit's texts do not quote yet (a sweep's microseconds and ratios to CUB
    at a size, speedups over the CPU, the host rows' GB/s): a README written for a made-up run and
    sweep, checked, then changed figure by figure like the real texts."""
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp(prefix="check_quoted_figures_")
    try:
        os.makedirs(os.path.join(tmp, "common"))
        os.makedirs(os.path.join(tmp, "docs", "results"))
        shutil.copy(os.path.join(root, "common", "stages.def"), os.path.join(tmp, "common", "stages.def"))
        n = 1 << 26
        ms = {"1": 0.66, "7": 0.1028, "8": 0.1011, "CUB": 0.1044, "copy": 0.1845, "cpu": 21.4, "cpu-omp": 2.9,
              "h2d-pageable": 31.0, "h2d-pinned": 10.6, "best+copy": 10.71}
        rows = []
        for key, t in ms.items():
            row = {"stage": key, "title": "stage 8 + copy from pinned memory" if key == "best+copy" else key,
                   "result": "ok", "median_ms": t, "gbps": (2 if key == "copy" else 1) * 4.0 * n / (t * 1e-3) / 1e9,
                   "step_speedup": "-", "cumulative_speedup": "-", "percent_of_cub": "-",
                   "speedup_over_cpu": "%.1fx" % (ms["cpu"] / t) if key != "copy" else "-"}
            rows.append(row)
        ladder = {"gpu": {"name": "NVIDIA H100 80GB HBM3", "peak_gbps": 3352.0}, "emulated": False,
                  "date": "2026-11-30", "n": n, "threads": 256, "reps": 30, "rows": rows}
        sizes = []
        for k in range(10, 29):
            t8 = 0.0072 if k < 22 else 0.0072 * 2 ** (k - 22)
            ratio = 1.80 if 14 <= k <= 20 else 1.02
            sizes.append({"n": 1 << k, "rows": [
                {"row": "8", "title": "8", "result": "ok", "median_ms": t8, "gbps": 4.0 * (1 << k) / (t8 * 1e-3) / 1e9},
                {"row": "CUB", "title": "CUB", "result": "ok", "median_ms": t8 * ratio, "gbps": 1.0},
                {"row": "launch", "title": "launch", "result": "ok", "median_ms": 0.0068 + 0.0001 * (k % 2),
                 "gbps": None}]})
        sweep = {"kind": "sweep", "gpu": ladder["gpu"], "emulated": False, "date": "2026-11-30", "threads": 256,
                 "sizes": sizes}
        for name, data in (("ladder-H100-2026-11-30.json", ladder), ("sweep-H100-2026-11-30.json", sweep)):
            with open(os.path.join(tmp, "docs", "results", name), "w", encoding="utf-8") as f:
                json.dump(data, f)
        g16 = 4.0 * (1 << 16) / (0.0072e-3) / 1e9
        text = ("# A made-up kit\n\n"
                "Measured on an NVIDIA H100 on 2026-11-30 (2^26 ints, 256 threads, median of 30 runs): stage 8 "
                "reads %.0f GB/s and is %.2fx as fast as CUB.\n\n"
                "In the sweep of the H100, stage 8 takes 7.2 \u00b5s at 2^16 ints (%.0f GB/s), while an empty kernel "
                "takes 6.8 \u00b5s; there stage 8 is 1.80x as fast as CUB.\n\n"
                "On the H100's host, stage 8 is %.0fx as fast as one CPU thread and %.0fx as fast as OpenMP; with the "
                "pinned copy it is %.1fx as fast as one thread. The pinned copy reads %.0f GB/s on the H100.\n"
                % (4.0 * n / (ms["8"] * 1e-3) / 1e9, ms["CUB"] / ms["8"], g16, ms["cpu"] / ms["8"],
                   ms["cpu-omp"] / ms["8"], ms["cpu"] / ms["best+copy"], 4.0 * n / (ms["h2d-pinned"] * 1e-3) / 1e9))
        with open(os.path.join(tmp, "README.md"), "w", encoding="utf-8") as f:
            f.write(text)
        c = Checker(tmp)
        c.run()
        kinds = [q for p, _, q, _ in c.checked if p == "README.md"]
        print("check_quoted_figures.py --self-test: a made-up run and sweep: %d figures checked (%s)"
              % (len(kinds), ", ".join(kinds)))
        for p in c.problems:
            print("  %s:%d: %s" % p)
        if c.problems or len(kinds) < 11:
            print("check_quoted_figures.py --self-test: the made-up texts should check 11 or more figures and agree")
            return 1
        return self_test(tmp)
    finally:
        shutil.rmtree(tmp)


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.path.abspath(args[0])
    if "--self-test" in argv:
        return self_test(root) or synthetic_self_test(root)
    c = Checker(root)
    c.run()
    for path, line, msg in c.problems:
        print("%s:%d: %s" % (path, line, msg))
    if "--verbose" in argv:
        for path, line, quoted, _ in c.checked:
            print("checked %s:%d: %s" % (path, line, quoted))
    print("check_quoted_figures.py: %d figures, dates and links checked against %s (%d of Harris's G80 not "
          "checked): %s" % (len(c.checked), ", ".join(r["file"] for r in sorted(c.runs.values(), key=lambda r: r["short"])),
                            c.skipped, "%d disagree" % len(c.problems) if c.problems else "all agree"))
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

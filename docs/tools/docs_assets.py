#!/usr/bin/env python3
"""Generates what the documentation shows that must not drift from the code and the data.

Reads the kit's description, kit.json (common/kit_description.cmake: the stages of
common/stages.def, their problems and points), the stage files and every ladder result in
docs/results/*.json, and writes into OUT (the build folder, never the source tree), for each
stage documented:
  stage<K>.svg           the picture of stage K: tools/trace_picture.py --svg draws the CPU emulator's
                         trace of the reference kernel (traces/stage<K>.json, made by --emulator's
                         --trace for one small launch, PICTURE_LAUNCH), beside the previous stage's
                         where the stage replaces one idea with another (PICTURE_BESIDE); no code in it
  changes-stage<K>.html  the code difference from stage K-1 to stage K, from the real files
  results-stage<K>.html  the measured numbers of stage K, one row per result file
  ladder.html            bar charts and tables of every result file, for the main page
  worth.html             the main page's 'worth it' section: the ladder's CPU, copy and best+copy rows
  sweep.html             the stage 8 page's sweep: GB/s against n (docs/results/sweep-*.json), chart
                         and table per GPU, or a sentence saying none is committed yet
  figures.doxy           doxygen aliases of the figures the pages' text quotes (\H200_7_gbps, ...), the
                         sections that exist (ENABLED_SECTIONS += sweep_H100 worth_H100 ...), and per
                         stage K of the kit \grading_stageK: its problem and points (kit.json)
Two editions, one script:
  instructor  (default) every stage; the differences are solution K-1 -> solution K.
  student     the stages of --stages only. The differences are what stage K changes: from
              stage K-1's answer when K-1 is closed (--closed: its deadline has passed), else
              from lab K-1, to lab K, each TODO block marked as the student's part, so they
              never contain an open answer (when stage K-1 is not in the edition, the fragment
              says so and shows lab K's kernel and launcher alone; the first stage has no fragment in either edition, its page
              quotes its lab through \snippet). The ladder links only the pages that exist. OUT/src/ receives a copy of common/ and of the released labs: the
              student Doxyfile's EXAMPLE_PATH, which cannot reach solutions/. Nothing generated
              names a file a student does not have (the pictures' captions, the ladder's
              result files).
Files of stages no longer documented are removed from OUT, so a smaller release leaves no
stale pictures or copies behind.
Usage: docs_assets.py SOURCE_DIR OUT [--edition instructor|student] [--stages 1,2,3] [--closed 1]
                      [--kit KIT.json] [--emulator reduce_ladder_emu]
--edition, --stages, --closed, --kit and --emulator default to the environment variables
KIT_DOCS_EDITION, KIT_DOCS_STAGES, KIT_DOCS_CLOSED, KIT_DOCS_KIT and KIT_DOCS_EMULATOR (set by
docs/CMakeLists.txt: the build's kit.json and reduce_ladder_emu), and else to instructor, all
stages, none, and a description of SOURCE_DIR written by its own generator (cmake -P
common/kit_description.cmake); the pictures need the emulator.
"""
import argparse
import difflib
import glob
import html
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools"))
import trace_picture  # noqa: E402
# What the sweep test holds every committed sweep to (stage 8 against CUB): the pages quote these
# thresholds and ranges through aliases, never typed copies.
from check_sweeps import ALL_MIN, ALL_RANGE, MID_MIN, MID_RANGE  # noqa: E402

# Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007): GeForce 8800 GTX (G80),
# 2^22 ints, cumulative speedup of kernels 2..7 over kernel 1.
HARRIS_G80 = {1: "1.00x", 2: "2.33x", 3: "4.68x", 4: "8.34x", 5: "15.0x", 6: "21.2x", 7: "30.0x"}


INT_SUM = ("KIT_INT", "KIT_SUM")


def describe(src):
    """The kit's description of SOURCE_DIR (kit.json), written by its own generator: cmake -P
    common/kit_description.cmake on its stages.def, problems.c and tests/grader/grading.conf."""
    tmp = tempfile.mkdtemp(prefix="docs_assets_kit_")
    try:
        path = os.path.join(tmp, "kit.json")
        try:
            run = subprocess.run(["cmake", "-DSOURCE=" + os.path.abspath(src), "-DOUTPUT=" + path, "-P",
                                  os.path.join(src, "common", "kit_description.cmake")],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        except OSError as exc:
            raise SystemExit("docs_assets.py: no --kit (KIT_DOCS_KIT), and cmake cannot run to describe %s: %s"
                             % (src, exc))
        if run.returncode != 0:
            raise SystemExit("docs_assets.py: the kit's description of %s cannot be written:\n%s" % (src, run.stdout))
        return load_description(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_description(path):
    try:
        with open(path, encoding="utf-8") as f:
            kit = json.load(f)
    except (OSError, ValueError) as exc:
        raise SystemExit("docs_assets.py: cannot read the kit's description %s: %s" % (path, exc))
    if kit.get("format") != 1:
        raise SystemExit("docs_assets.py: %s has format %r; this script reads format 1" % (path, kit.get("format")))
    return kit


def read_stages(src, kit=None):
    """The stages of the kit's description (kit: a kit.json's contents or path; else KIT_DOCS_KIT,
    else SOURCE_DIR described by its own generator), in order: number, dir, name, title, passes
    ("many", "one"), type, op (as stages.def writes them: KIT_INT, KIT_SUM, ...), baseline, problem
    (in words: "int sum"), points {correctness, speedup, sanitizer} and emulated_points (what the
    CPU emulator can award)."""
    if kit is None:
        kit = os.environ.get("KIT_DOCS_KIT") or None
    if kit is None:
        kit = describe(src)
    elif not isinstance(kit, dict):
        kit = load_description(kit)
    stages = [dict(number=int(s["number"]), dir=s["dir"], name=s["name"], title=s["title"], passes=s["passes"],
                   type=s["type"], op=s["op"], baseline=int(s["baseline"]), problem=s["problem"],
                   points=s["points"], emulated_points=s["emulated_points"], full_marks=kit.get("emulated_full_marks"))
              for s in kit.get("stages", [])]
    if not stages:
        raise SystemExit("docs_assets.py: the kit's description has no stage")
    return stages


def is_int_sum(stage):
    """Whether a stage is one of the int-sum ladder's (the main page's chart and table)."""
    return (stage["type"], stage["op"]) == INT_SUM


def snippet(path, marker):
    """The lines between the two lines containing [marker], as Doxygen's \\snippet shows them."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    marks = [k for k, ln in enumerate(lines) if "[%s]" % marker in ln]
    if len(marks) < 2:
        raise SystemExit("docs_assets.py: %s has no pair of [%s] lines" % (path, marker))
    return lines[marks[0] + 1:marks[1]]


def kernel_and_launcher(src, folder, stage):
    path = os.path.join(src, folder, stage["dir"], stage["name"] + ".cu")
    return snippet(path, "kernel") + [""] + snippet(path, "launcher")


def file_name(folder, stage):
    return "%s/%s/%s.cu" % (folder, stage["dir"], stage["name"])


TODO_LINE = re.compile(r"//\s*\[(todo[\w-]*)\]\s*TODO\(student\)")


def diff_html(old, new, old_stage, new_stage, head, todo=False):
    """A colour diff of two kernel-and-launcher listings; head describes what is compared.

    With todo=True (the labs), a TODO's first line is compared as a marker of its own instead
    of as a comment, and is never hidden among the unchanged lines.
    """
    def norm(lines, name):
        """What is compared: the code without comments and with the kernel's name blanked."""
        out = []
        for ln in lines:
            m = TODO_LINE.search(ln) if todo else None
            if m:
                out.append("TODO " + m.group(1))
                continue
            ln = re.sub(r"/\*.*?\*/|//.*", "", ln.replace(name, "NAME")).rstrip()
            out.append(ln)
        return out
    sm = difflib.SequenceMatcher(None, norm(old, old_stage["name"]), norm(new, new_stage["name"]), autojunk=False)
    out = ['<div class="kit-diff"><div class="kit-diff-head">%s (%s; <span class="del">&minus; removed</span>, '
           '<span class="add">+ added</span>)</div><pre>' % (head[0], head[1])]
    added = removed = 0

    def context(block):
        if len(block) > 7:
            for ln in block[:2]:
                out.append('<span class="ctx">  %s</span>' % html.escape(ln))
            out.append('<span class="skip">  &#8942; %d unchanged lines</span>' % (len(block) - 4))
            for ln in block[-2:]:
                out.append('<span class="ctx">  %s</span>' % html.escape(ln))
        else:
            for ln in block:
                out.append('<span class="ctx">  %s</span>' % html.escape(ln))

    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            block = new[j1:j2]
            marks = [k for k, ln in enumerate(block) if todo and (TODO_LINE.search(ln) or TODO_REST in ln)]
            begin = 0
            for k in marks:
                context(block[begin:k])
                out.append('<span class="todo">&#9654; %s</span>' % html.escape(todo_text(block[k])))
                begin = k + 1
            context(block[begin:])
            continue
        for ln in old[i1:i2]:
            out.append('<span class="del">- %s</span>' % html.escape(ln))
            removed += 1
        for ln in new[j1:j2]:
            if todo and (TODO_LINE.search(ln) or TODO_REST in ln):  # the student's part: marked, not code
                out.append('<span class="todo">&#9654; %s</span>' % html.escape(todo_text(ln)))
                continue
            out.append('<span class="add">+ %s</span>' % html.escape(ln))
            added += 1
    # one <span> per line, display:block in kit.css, so no newlines between them inside <pre>
    out = [out[0]] + ["".join(out[1:])]
    what = ("%d lines removed, %d added (lines that differ only in comments or in the kernel's name count "
            "as unchanged)" % (removed, added))
    if todo:
        what += ("; <span class=\"todo\">&#9654; TODO</span> marks your part" +
                 (": the code around it is the same, the change is all yours to write" if not (added or removed) else ""))
    out.append("</pre><div class=\"kit-diff-head\">%s</div></div>" % what)
    return "\n".join(out) + "\n"


TODO_REST = "// ... (the rest of this TODO block: see \"Your task\" below)"


def todo_text(line):
    """A TODO line as a student page shows it: without the [todo-...] tag that only the tools read."""
    return re.sub(r"//\s*\[todo[\w-]*\]\s*", "// ", line.strip())


def fold_todo(lines):
    """A lab's listing with each TODO block shortened to its first line and a pointer."""
    out, inside = [], False
    for ln in lines:
        if inside:
            inside = "end of TODO" not in ln
            continue
        out.append(ln)
        if TODO_LINE.search(ln):
            indent = ln[:len(ln) - len(ln.lstrip())]
            out.append(indent + TODO_REST)
            inside = True
    return out


def changes_html(prev, cur, src):
    """Instructor edition: the diff of the kernel and launcher of solution prev -> solution cur."""
    return diff_html(kernel_and_launcher(src, "solutions", prev), kernel_and_launcher(src, "solutions", cur),
                     prev, cur, ("%s &rarr; %s" % (file_name("solutions", prev), file_name("solutions", cur)),
                                 "kernel and launcher"))


def listing_html(stage, src):
    """A lab's kernel and launcher alone, in the diff's frame (nothing to compare it with)."""
    lines = kernel_and_launcher(src, "labs", stage)
    body = "".join('<span class="ctx">  %s</span>' % html.escape(ln) for ln in lines)
    return ('<div class="kit-diff"><div class="kit-diff-head">%s (kernel and launcher, as handed out)</div>'
            '<pre>%s</pre></div>\n' % (file_name("labs", stage), body))


def lab_changes_html(prev, cur, src, before=None, closed=False):
    """Student edition: what stage cur changes relative to the stage before it, its TODO
    blocks marked as the student's part.

    prev is the previous stage when it is in this edition, else None. When prev is closed
    (its deadline has passed: KIT_DOCS_CLOSED), the diff starts from prev's reference answer,
    so it shows what this stage changes in a correct stage prev, not that answer arriving as
    added lines. When prev is open, it starts from prev's lab, whose TODO is empty: lab cur
    then carries no answer of prev (else the edition could not be handed out:
    release/check_no_answers.py refuses it), and the answer to cur's own TODO is never in a lab.
    """
    here = "<code>%s</code>" % file_name("labs", cur)
    if prev is None:
        before = cur["number"] - 1 if before is None else before
        return ('<p class="kit-edition">Stage %d is not part of this hand-out, so there is no previous lab to '
                'compare with. These are the kernel and launcher you start from, %s; the TODO comments mark '
                'what you write.</p>\n' % (before, here)) + listing_html(cur, src)
    new = fold_todo(kernel_and_launcher(src, "labs", cur))
    if closed:   # the answer without its TODO markers: they were stage prev's, not this stage's
        old = [ln for ln in kernel_and_launcher(src, "solutions", prev)
               if not TODO_LINE.search(ln) and "end of TODO" not in ln]
        base = "stage %d's reference answer" % prev["number"]
        intro = ('<p class="kit-edition">You start from %s, which is stage %d done right (that stage is closed, '
                 'so its answer is yours to read now). Here is what this stage changes in it; '
                 '<span class="kit-todo-mark">&#9654; TODO</span> marks what you write, everything else is '
                 'given.</p>\n' % (here, prev["number"]))
    else:
        old = fold_todo(kernel_and_launcher(src, "labs", prev))
        base = file_name("labs", prev)
        intro = ('<p class="kit-edition">You start from %s. Here is what changed since the lab before it, '
                 '<code>%s</code> (its TODO still empty, as yours may be): '
                 '<span class="kit-todo-mark">&#9654; TODO</span> marks what you write, everything else is '
                 'given.</p>\n' % (here, base))
    return intro + diff_html(old, new, prev, cur,
                             ("%s &rarr; %s" % (base, file_name("labs", cur)),
                              "kernel and launcher, each TODO block shortened to its first line"),
                             todo=True)


def gpu_short(name):
    """The short name a text uses for a GPU: 'NVIDIA H100 80GB HBM3' -> 'H100', 'NVIDIA H200' ->
    'H200', 'NVIDIA A100-SXM4-40GB' -> 'A100', 'NVIDIA GeForce RTX 4090' -> 'RTX4090' (letters
    and digits only: it also names the doxygen aliases of the run's figures, \\H200_7_gbps)."""
    words = [w for w in re.split(r"[\s-]+", name) if w and w not in ("NVIDIA", "GeForce", "Tesla", "Quadro")]
    for k, w in enumerate(words):
        if re.search(r"\d", w):
            w = re.sub(r"[^A-Za-z0-9]", "", w)
            if w.isdigit() and k > 0:  # RTX 4090
                w = re.sub(r"[^A-Za-z0-9]", "", words[k - 1]) + w
            return w
    return re.sub(r"[^A-Za-z0-9]", "", "".join(words)) or "GPU"


def is_sweep(path, data=None):
    """A sweep (reduce_ladder --sweep: a few rows at every n) rather than a ladder run."""
    return os.path.basename(path).startswith("sweep-") or (isinstance(data, dict) and data.get("kind") == "sweep")


def is_accuracy(path, data=None):
    """An accuracy run (reduce_ladder --accuracy: float sums' errors against n) rather than a ladder run."""
    return os.path.basename(path).startswith("accuracy-") or (isinstance(data, dict) and data.get("kind") == "accuracy")


def load_results(src):
    """Every ladder result in docs/results/*.json (sweeps and accuracy runs left out: load_sweeps(),
    load_accuracy()), oldest first within each GPU."""
    results = []
    for path in sorted(glob.glob(os.path.join(src, "docs", "results", "*.json"))):
        if is_sweep(path) or is_accuracy(path):
            continue
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if is_sweep(path, data) or is_accuracy(path, data):
                continue
            rows = dict((str(r["stage"]), r) for r in data["rows"])
            data["gpu"]["name"], data["date"], data["n"], data["threads"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SystemExit("docs_assets.py: %s is not a ladder result (%s)" % (path, exc))
        data["by_stage"] = rows
        data["file"] = os.path.relpath(path, src)
        data["short"] = gpu_short(data["gpu"]["name"])
        results.append(data)
    if not results:
        raise SystemExit("docs_assets.py: no ladder results in docs/results/*.json")
    return results


def newest_runs(results):
    """The newest timed run of each GPU (by date, then file name), ordered by GPU: what the pages
    show and quote. Runs on the CPU emulator have no timings and are left out."""
    newest = {}
    for r in results:
        if r.get("emulated"):
            continue
        key = r["short"]
        if key not in newest or (r["date"], r["file"]) > (newest[key]["date"], newest[key]["file"]):
            newest[key] = r
    if not newest:
        raise SystemExit("docs_assets.py: docs/results/*.json has no run on a GPU (only emulated ones)")
    return [newest[k] for k in sorted(newest)]


SWEEP_ROWS = ("7", "8", "CUB", "copy", "launch")   # what a sweep measures at every n


def load_sweeps(src):
    """Every sweep in docs/results/ (sweep-<GPU>-<date>.json, "kind": "sweep"): dicts with the
    file's fields, plus file, short (the GPU's short name) and by_n ({n: {row: row}}, n ascending
    in ns). A file that is not a readable sweep stops the build, naming it."""
    sweeps = []
    for path in sorted(glob.glob(os.path.join(src, "docs", "results", "*.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as exc:
            raise SystemExit("docs_assets.py: cannot read %s (%s)" % (path, exc))
        if not is_sweep(path, data):
            continue
        try:
            if data.get("kind") != "sweep":
                raise KeyError('"kind" is not "sweep"')
            by_n = {}
            for size in data["sizes"]:
                n = int(size["n"])
                by_n[n] = dict((str(r["row"]), r) for r in size["rows"])
                for r in size["rows"]:
                    r["result"], r["median_ms"]
            data["gpu"]["name"], data["date"]
            if not by_n:
                raise KeyError("no sizes")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SystemExit("docs_assets.py: %s is not a sweep (%s)" % (path, exc))
        data["by_n"] = by_n
        data["ns"] = sorted(by_n)
        data["file"] = os.path.relpath(path, src)
        data["short"] = gpu_short(data["gpu"]["name"])
        sweeps.append(data)
    return sweeps


def newest_sweeps(sweeps):
    """The newest sweep of each GPU (by date, then file name), ordered by GPU; emulated ones left out."""
    newest = {}
    for r in sweeps:
        if r.get("emulated"):
            continue
        if r["short"] not in newest or (r["date"], r["file"]) > (newest[r["short"]]["date"], newest[r["short"]]["file"]):
            newest[r["short"]] = r
    return [newest[k] for k in sorted(newest)]


def size_text(n):
    k = n.bit_length() - 1
    return "2<sup>%d</sup>" % k if n == 1 << k else str(n)


def harris(k):
    """Harris's G80 speedup of his kernel k over kernel 1; his ladder has seven kernels."""
    return HARRIS_G80.get(k, "-")


def mib_text(nbytes):
    return "%.0f MiB" % (nbytes / 1048576.0)


def run_text(r, edition):
    """One measurement's GPU, date and settings; the instructor edition adds its result file (a
    student edition has no docs/results/: the main page says the instructor's kit measured it)."""
    source = ' <span class="kit-nowrap">(<code>%s</code>)</span>' % html.escape(r["file"]) if edition == "instructor" else ""
    peak = r["gpu"].get("peak_gbps")
    l2 = r["gpu"].get("l2_bytes")
    hw = []
    if r["gpu"].get("sm_count"):
        hw.append("%d SMs" % r["gpu"]["sm_count"])
    if l2:
        hw.append("%s L2 cache" % mib_text(l2))
    if peak:
        hw.append("theoretical peak %.0f GB/s" % peak)
    return ("<b>%s</b>%s, measured %s by <span class=\"kit-nowrap\"><code>reduce_ladder</code>:</span> n = %s ints (%s), %d threads per block, "
            "%s input, median of %d runs%s"
            % (html.escape(r["gpu"]["name"]), " (%s)" % ", ".join(hw) if hw else "", html.escape(r["date"]),
               size_text(r["n"]), mib_text(4 * r["n"]), r["threads"], html.escape(r.get("pattern", "?")),
               r.get("reps", 0), source))


def fmt(v, spec):
    return spec % v if isinstance(v, (int, float)) and not isinstance(v, bool) else html.escape(str(v))


def ok_row(row):
    return bool(row) and row.get("result") == "ok" and isinstance(row.get("gbps"), (int, float))


def percent_of_peak(r, row):
    """GB/s as a share of the GPU's theoretical DRAM bandwidth (gpu.peak_gbps; None if unknown)."""
    peak = r["gpu"].get("peak_gbps")
    if not ok_row(row) or not isinstance(peak, (int, float)) or peak <= 0:
        return None
    return 100.0 * row["gbps"] / peak


def pct_text(v):
    return "%.0f%%" % v if v is not None else "-"


def ratio_text(row, base):
    """How many times faster row is than base, as the ladder prints it (2 decimals and x)."""
    if not ok_row(row) or not ok_row(base) or not row["median_ms"]:
        return "-"
    return "%.2fx" % (base["median_ms"] / row["median_ms"])


def stage_results_html(stage, runs):
    """Stage K's speed on the newest run of each GPU: one row per GPU."""
    k = stage["number"]
    speed_cols = ""
    if k == 2:
        speed_cols = "<th>vs stage 1</th>"
    elif k > 2:
        speed_cols = "<th>vs stage %d</th><th>vs stage 1</th>" % (k - 1)
    g80 = k in HARRIS_G80   # Harris's ladder ends at his kernel 7
    out = ['<table class="kit-results"><tr><th>GPU, run</th><th>time</th><th>GB/s</th><th>%% of peak</th>%s'
           '<th>%% of CUB</th><th>copy</th>%s</tr>' % (speed_cols, "<th>Harris, G80, vs stage 1</th>" if g80 else "")]
    shown = [r for r in runs if r["by_stage"].get(str(k)) is not None]
    if not shown:
        return ('<p class="kit-note">No committed run has stage %d yet: the newest run of each GPU in '
                '<code>docs/results/</code> (%s) was measured before it. <code>reduce_ladder --counters --format '
                'json</code> on a GPU measures every stage; commit its output as '
                '<code>docs/results/ladder-&lt;GPU&gt;-&lt;date&gt;.json</code>.</p>\n'
                % (k, ", ".join("%s, %s" % (html.escape(r["short"]), html.escape(r["date"])) for r in runs)))
    for r in shown:
        row = r["by_stage"].get(str(k))
        copy = r["by_stage"].get("copy")
        cells = ""
        if k == 2:
            cells = "<td>%s</td>" % html.escape(row["cumulative_speedup"])
        elif k > 2:
            cells = "<td>%s</td><td>%s</td>" % (html.escape(row["step_speedup"]), html.escape(row["cumulative_speedup"]))
        out.append("<tr><td>%s, %s</td><td>%s ms</td><td><b>%s</b></td><td>%s</td>%s<td>%s</td><td>%s</td>%s</tr>"
                   % (html.escape(r["short"]), html.escape(r["date"]), fmt(row["median_ms"], "%.4f"),
                      fmt(row["gbps"], "%.0f"), pct_text(percent_of_peak(r, row)), cells,
                      html.escape(row["percent_of_cub"]), ("%s GB/s" % fmt(copy["gbps"], "%.0f")) if ok_row(copy) else "-",
                      "<td>%s</td>" % harris(k) if g80 else ""))
    out.append("</table>")
    notes = ["GB/s: bytes of input read per second (n &#215; 4 bytes / median time)",
             "% of peak: that rate as a share of the GPU's theoretical DRAM bandwidth"]
    if k > 1:
        notes.append("vs stage %s: how many times faster than that stage on the same run" %
                     ("1" if k == 2 else "%d, vs stage 1" % (k - 1)))
    notes += ["% of CUB: the speed of <code>cub::DeviceReduce::Sum</code> on the same input",
              "copy: a device-to-device copy's read+write rate, about the fastest memory can go"]
    runs_text = "; ".join("%s: n = %s ints, %d threads, median of %d runs" % (html.escape(r["short"]), size_text(r["n"]),
                                                                          r["threads"], r.get("reps", 0)) for r in shown)
    missing = [r for r in runs if r not in shown]
    if missing:
        runs_text += ("; no stage %d yet in the newest run of the %s" %
                      (k, " or the ".join(html.escape(r["short"]) for r in missing)))
    out.append('<p class="kit-note">%s. %s.</p>' % (". ".join(notes), runs_text))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------- beyond int sums
# Stages 9 and on reduce other types or with other operators (common/stages.def's type and op
# columns). Their speed is measured against the reference of their baseline stage (the last
# column), not against stage 1, and the main page's ladder of int sums leaves them out.
TYPE_WORDS = {"KIT_INT": ("int", "ints"), "KIT_FLOAT": ("float", "floats"), "KIT_MAT3": ("3x3 int matrix", "matrices"),
              "KIT_MAT3_SOA": ("3x3 int matrix (9 planes)", "matrices")}
OP_WORDS = {"KIT_SUM": "sum", "KIT_MIN": "minimum", "KIT_MAX": "maximum", "KIT_ARGMIN": "argmin"}
LAYOUT = {"KIT_MAT3": "array of structures", "KIT_MAT3_SOA": "structure of arrays (9 planes)"}


def problem_text(stage):
    """'float sum', 'int min', 'element-wise min of 3x3 int matrices': the stage's problem as the kit's
    description names it (common/problems.c)."""
    if stage.get("problem"):
        return stage["problem"]
    if stage["type"] in ("KIT_MAT3", "KIT_MAT3_SOA"):
        return "element-wise %s of 3x3 int matrices" % OP_WORDS.get(stage["op"], stage["op"])
    return "%s %s" % (TYPE_WORDS.get(stage["type"], (stage["type"],))[0], OP_WORDS.get(stage["op"], stage["op"]))


def points_text(value):
    """6 -> "6", 2.5 -> "2.5"."""
    value = float(value)
    return "%d" % value if value.is_integer() else "%g" % value


def grading_aliases(stages):
    """\\grading_stageK for every stage of the kit, the line a stage page shows under 'Your task':
    what the stage is graded on and its points, from the kit's description (its problem from
    common/problems.c, its points from the grading configuration): "Points: 6 for the int sum, 2
    for speed, 2 for no races or memory errors (8 of 10 without a GPU)." Short: the longest stage
    pages are near their word limit (check_stage_pages.py)."""
    lines = ["# Each stage's problem and points (docs_assets.py grading_aliases, from kit.json)."]
    for s in stages:
        p = s["points"]
        full = float(p["correctness"]) + float(p["speedup"]) + float(p["sanitizer"])
        if s.get("full_marks") == "scale":
            without = "scaled to %s without a GPU" % points_text(full)
        else:
            without = "%s of %s without a GPU" % (points_text(s["emulated_points"]["total"]), points_text(full))
        text = ("<b>Points:</b> %s for the %s, %s for speed, %s for no races or memory errors (%s)."
                % (points_text(p["correctness"]), s["problem"], points_text(p["speedup"]), points_text(p["sanitizer"]),
                   without))
        lines.append('ALIASES += grading_stage%d="%s"' % (s["number"], text.replace('"', '\\"')))
    return "\n".join(lines) + "\n"


def ratio_of(row, base):
    """base's time / row's time (how many times faster row is), or None."""
    if not ok_row(row) or not ok_row(base) or not row["median_ms"]:
        return None
    return base["median_ms"] / row["median_ms"]


def elements_of(r, row, stage):
    """The elements a row reduced: the row's "n", else that of its section of the run (reduce_ladder
    writes a section per problem, with the n of that problem: ints, floats or matrices), else the run's
    n in ints' worth of bytes (n / 9 matrices)."""
    if isinstance(row.get("n"), int):
        return row["n"]
    for sec in r.get("sections") or []:
        if isinstance(sec, dict) and stage["number"] in (sec.get("stages") or []) and isinstance(sec.get("n"), int):
            return sec["n"]
    return r["n"] // 9 if stage["type"] in ("KIT_MAT3", "KIT_MAT3_SOA") else r["n"]


def row_n_text(r, row, stage):
    n = elements_of(r, row, stage)
    return "%s %s" % (size_text(n) if n & (n - 1) == 0 else "{:,}".format(n),
                      TYPE_WORDS.get(stage["type"], ("", "elements"))[1])


def problem_results_html(stage, runs, stages):
    """A stage beyond the int sums: its speed on the newest run of each GPU, and against the reference
    of its baseline stage where that is another stage."""
    k, base = stage["number"], stage["baseline"]
    shown = [r for r in runs if r["by_stage"].get(str(k)) is not None]
    if not shown:
        return ('<p class="kit-note kit-missing">Not measured yet: no committed run has stage %d. The newest run of each '
                'GPU in <code>docs/results/</code> (%s) was made before the kit had it. <code>reduce_ladder --counters '
                '--format json</code> on a GPU measures every stage of <code>common/stages.def</code>; committed as '
                '<code>docs/results/ladder-&lt;GPU&gt;-&lt;date&gt;.json</code>, its figures appear here.</p>\n'
                % (k, ", ".join("%s, %s" % (html.escape(r["short"]), html.escape(r["date"])) for r in runs)))
    has_cub = any(str(r["by_stage"][str(k)].get("percent_of_cub", "-")) not in ("-", "") for r in shown)
    out = ['<table class="kit-results"><tr><th>GPU, run</th><th>n</th><th>time</th><th>GB/s</th><th>%% of peak</th>%s%s'
           '</tr>' % ("<th>vs stage %d</th>" % base if base != k else "", "<th>% of CUB</th>" if has_cub else "")]
    for r in shown:
        row = r["by_stage"][str(k)]
        if not ok_row(row):
            out.append('<tr><td>%s, %s</td><td>%s</td><td colspan="%d" class="kit-text">%s</td></tr>'
                       % (html.escape(r["short"]), html.escape(r["date"]), row_n_text(r, row, stage),
                          3 + (base != k) + has_cub, html.escape(str(row.get("result", "not measured")))))
            continue
        vs = ""
        if base != k:
            v = ratio_of(row, r["by_stage"].get(str(base)))
            vs = "<td>%s</td>" % ("%.2fx" % v if v else "-")
        cub = "<td>%s</td>" % html.escape(str(row.get("percent_of_cub", "-"))) if has_cub else ""
        out.append("<tr><td>%s, %s</td><td>%s</td><td>%s ms</td><td><b>%s</b></td><td>%s</td>%s%s</tr>"
                   % (html.escape(r["short"]), html.escape(r["date"]), row_n_text(r, row, stage),
                      fmt(row["median_ms"], "%.4f"), fmt(row["gbps"], "%.0f"), pct_text(percent_of_peak(r, row)), vs, cub))
    out.append("</table>")
    notes = ["GB/s: bytes of input read per second (the n elements' bytes / median time)",
             "% of peak: that rate as a share of the GPU's theoretical DRAM bandwidth"]
    if base != k:
        notes.append("vs stage %d: how many times faster than the reference stage %d on the same run, the speed "
                     "this stage is graded against" % (base, base))
    if has_cub:
        notes.append("% of CUB: the speed of CUB's reduction of the same problem on the same input")
    missing = [r for r in runs if r not in shown]
    tail = ("; no stage %d yet in the newest run of the %s" % (k, " or the ".join(html.escape(r["short"]) for r in missing))
            if missing else "")
    out.append('<p class="kit-note">%s. %s: %d threads per block, median of %s runs%s.</p>'
               % (". ".join(notes), problem_text(stage)[0].upper() + problem_text(stage)[1:],
                  shown[0]["threads"], shown[0].get("reps", "?"), tail))
    return "\n".join(out) + "\n"


def matrix_stages(stages):
    """The stages that reduce 3x3 matrices, in order (13, 14, 15)."""
    return [s for s in stages if s["type"] in ("KIT_MAT3", "KIT_MAT3_SOA")]


def matrix_layout(stage, first):
    """What a matrices stage does with the layout: 'AoS, 9 ints per thread', 'SoA', 'AoS, coalesced'."""
    if stage["type"] == "KIT_MAT3_SOA":
        return "SoA: 9 planes"
    return "AoS, as the report has it" if stage is first else "AoS, coalesced loads"


def matrices_html(stages, runs, this, documented):
    """The 3x3 matrices' layouts side by side (stages 13, 14, 15): per GPU, each stage's GB/s and time,
    and how many times faster than the first (the array of structures read 9 ints per thread). this:
    the page's stage, shaded."""
    mats = matrix_stages(stages)
    if not mats:
        return ""
    first = mats[0]
    shown = [r for r in runs if any(ok_row(r["by_stage"].get(str(s["number"]))) for s in mats)]
    if not shown:
        return ('<p class="kit-note kit-missing">Not measured yet: no committed run has stages %s. The next run of '
                '<code>reduce_ladder --counters --format json</code> on a GPU measures them; committed to '
                '<code>docs/results/</code>, it fills this table: the three layouts side by side, in GB/s and as '
                'multiples of stage %d\'s speed.</p>\n'
                % (", ".join(str(s["number"]) for s in mats[:-1]) + " and %d" % mats[-1]["number"], first["number"]))
    head = "".join('<th%s>%s<br>stage %s<br>%s</th>' % (
        ' class="kit-this"' if s["number"] == this else "",
        '<a href="stage%d.html">%s</a>' % (s["number"], html.escape(matrix_layout(s, first)))
        if s["number"] in documented and s["number"] != this else html.escape(matrix_layout(s, first)),
        s["number"], html.escape(s["title"])) for s in mats)
    out = ['<table class="kit-results kit-side"><tr><th>GPU, run</th><th></th>%s</tr>' % head]
    for r in shown:
        base = r["by_stage"].get(str(first["number"]))
        lines = (("GB/s", lambda row: "<b>%s</b>" % fmt(row["gbps"], "%.0f")),
                 ("time", lambda row: "%s ms" % fmt(row["median_ms"], "%.4f")),
                 ("% of peak", lambda row: pct_text(percent_of_peak(r, row))),
                 ("vs stage %d" % first["number"], lambda row: "%.2fx" % ratio_of(row, base) if ratio_of(row, base)
                  else "-"))
        for li, (label, cell) in enumerate(lines):
            cells = []
            for s in mats:
                row = r["by_stage"].get(str(s["number"]))
                cls = ' class="kit-this"' if s["number"] == this else ""
                if ok_row(row):
                    cells.append("<td%s>%s</td>" % (cls, cell(row)))
                else:
                    cells.append("<td%s>%s</td>" % (cls, html.escape(str(row.get("result"))) if row else "not measured"))
            first_cell = ('<td rowspan="%d">%s, %s</td>' % (len(lines), html.escape(r["short"]), html.escape(r["date"]))
                          if li == 0 else "")
            out.append("<tr>%s<td class=\"kit-text\">%s</td>%s</tr>" % (first_cell, label, "".join(cells)))
    out.append("</table>")
    r0 = shown[0]
    sizes = sorted(set(row_n_text(r, r["by_stage"][str(s["number"])], s) for r in shown for s in mats
                       if r["by_stage"].get(str(s["number"]))))
    out.append('<p class="kit-note">The same matrices in every column (%s, %d threads per block, median of %s runs); '
               'GB/s: their bytes, 36 per matrix, read per second. <i>vs stage %d</i>: stage %d\'s time divided by '
               'the column\'s, above 1.00x where the column is faster.</p>'
               % (", ".join(sizes), r0["threads"], r0.get("reps", "?"), first["number"], first["number"]))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------- float accuracy
# reduce_ladder --accuracy --format json, committed as docs/results/accuracy-<GPU>-<date>.json:
#   {"kind": "accuracy", "gpu": {"name": ...}, "date": "YYYY-MM-DD", "rows": [
#     {"n": 1024, "pattern": "random", "exact": <the exact sum, a double>,
#      "sequential": e, "pairwise": e, "kahan": e, "neumaier": e, "stage9": e, "cub": e,
#      "stage9_reproducible": true}, ...]}
# where each e is a relative error |computed - exact| / |exact| (0 when exact; null where not
# measured, as CUB on the emulator). Optional: "emulated", "threads", "seed", "stage_runs" (or
# "reps": the runs the reproducibility column compares) at the top; per row "bound" (the grader's
# kit_float_bound() / |exact|; computed here from KIT_FLOAT_RUN where missing), "abs_sum" (sum of
# |x|; the kit's float patterns are all non-negative, so it is the exact sum where it is missing),
# "stage9_result" (the check's word when not "ok") and "values" (the computed sums themselves, by
# the same keys). A file whose name is not accuracy-<GPU>-<date>.json (such as a sample) is never
# shown: the pages show only dated runs, and only those made on a GPU ("emulated" false).
ACCURACY_NAME = re.compile(r"^accuracy-(.+)-(\d{4}-\d\d-\d\d)\.json$")
ACCURACY_CPU = (("sequential", "sequential float", "#d62728"), ("pairwise", "pairwise tree", "#e08a1e"),
                ("kahan", "Kahan", "#8c6bb1"), ("neumaier", "Neumaier", "#4c9a4c"))
UNIT_ROUNDOFF = 2.0 ** -24   # float's u: the largest relative error of one rounding


def accuracy_keys(float_stage):
    """The row keys of an accuracy run, in table order: (key, label, colour, where)."""
    return [(k, label, colour, "CPU") for k, label, colour in ACCURACY_CPU] + \
        [("stage%d" % float_stage, "stage %d" % float_stage, "#3b6fb6", "GPU"), ("cub", "CUB", "#2c7a2c", "GPU")]


def kit_float_run(src):
    """KIT_FLOAT_RUN of common/kit.h: the additions in a row the float lab allows before its tree."""
    with open(os.path.join(src, "common", "kit.h"), encoding="utf-8") as f:
        m = re.search(r"^#define\s+KIT_FLOAT_RUN\s+(\d+)", f.read(), re.M)
    if not m:
        raise SystemExit("docs_assets.py: common/kit.h has no '#define KIT_FLOAT_RUN <number>' (the float page needs it)")
    return int(m.group(1))


def reproducible_runs(src):
    """KIT_REPRODUCIBLE_RUNS of tests/grader/grader.h: how often the grader runs one input of a float stage
    (the float page quotes it), or None without the grader."""
    try:
        with open(os.path.join(src, "tests", "grader", "grader.h"), encoding="utf-8") as f:
            m = re.search(r"^#define\s+KIT_REPRODUCIBLE_RUNS\s+(\d+)", f.read(), re.M)
    except OSError:
        return None
    return int(m.group(1)) if m else None


def float_depth(n):
    """ceil(log2 n), as kit_float_bound() counts it (0 for n = 1)."""
    return (max(1, n) - 1).bit_length()


def float_bound_relative(n, run):
    """kit_float_bound(n, sum |x|) / sum |x|: gamma_h, h = ceil(log2 n) + KIT_FLOAT_RUN."""
    h = float_depth(n) + run
    return h * UNIT_ROUNDOFF / (1.0 - h * UNIT_ROUNDOFF)


def load_accuracy(src, float_stage):
    """The dated accuracy runs in docs/results/ (accuracy-<GPU>-<date>.json), each with file and short; a
    file that says it is one but cannot be read as one stops the build, naming it."""
    found = []
    for path in sorted(glob.glob(os.path.join(src, "docs", "results", "*.json"))):
        name = os.path.basename(path)
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as exc:
            if name.startswith("accuracy-"):
                raise SystemExit("docs_assets.py: cannot read %s (%s)" % (path, exc))
            continue
        if not is_accuracy(path, data) or not ACCURACY_NAME.match(name):
            continue
        try:
            if data.get("kind") != "accuracy":
                raise KeyError('"kind" is not "accuracy"')
            data["gpu"]["name"], data["date"]
            rows = sorted(data["rows"], key=lambda r: (str(r.get("pattern", "")), int(r["n"])))
            for r in rows:
                int(r["n"]), float(r["exact"])
                for key, _, _, _ in accuracy_keys(float_stage):
                    if r.get(key) is not None:
                        float(r[key])
            if not rows:
                raise KeyError("no rows")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SystemExit("docs_assets.py: %s is not an accuracy run (%s)" % (path, exc))
        data["rows"] = rows
        data["file"] = os.path.relpath(path, src)
        data["short"] = gpu_short(data["gpu"]["name"])
        found.append(data)
    return found


def newest_accuracy(runs):
    """The newest accuracy run of each GPU (by date, then file), ordered by GPU; emulated runs left out."""
    newest = {}
    for r in runs:
        if r.get("emulated"):
            continue
        if r["short"] not in newest or (r["date"], r["file"]) > (newest[r["short"]]["date"], newest[r["short"]]["file"]):
            newest[r["short"]] = r
    return [newest[k] for k in sorted(newest)]


def sci_html(v):
    """A relative error as the table prints it: 8.4 &times; 10<sup>-3</sup>, 0 (exact), - (not measured)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return "-"
    if v == 0:
        return "0"
    m, e = ("%.1e" % v).split("e")
    return "%s&#8239;&#215;&#8239;10<sup>%d</sup>" % (m, int(e))


def sci_alias(v):
    """A relative error for a page's text (a doxygen alias: named entities only): 8.4 &times; 10<sup>-3</sup>."""
    return sci_html(v).replace("&#8239;&#215;&#8239;", " &times; ")


def sci_text(v):
    """The same for an SVG or an alias: 8.4e-3, 0."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return "-"
    if v == 0:
        return "0"
    m, e = ("%.1e" % v).split("e")
    return "%se%d" % (m, int(e))


def n_label(row):
    return size_text(int(row["n"])) if int(row["n"]) & (int(row["n"]) - 1) == 0 else "{:,}".format(int(row["n"]))


def accuracy_chart(run, keys, float_run):
    """Relative error against n on log axes: one line per way of summing (random inputs), the grader's
    bound gamma_h and one rounding (u) as dashed lines; an exact result (0) sits on the bottom edge."""
    rows = [r for r in run["rows"] if r.get("pattern", "random") == "random"]
    rows = sorted(rows, key=lambda r: int(r["n"]))
    if len(rows) < 2:
        return ""
    ns = [int(r["n"]) for r in rows]
    kmin, kmax = math.log2(ns[0]), math.log2(ns[-1])
    values = [r.get(k) for r in rows for k, _, _, _ in keys]
    values = [v for v in values if isinstance(v, (int, float)) and v > 0]
    bound = [float(r["bound"]) if isinstance(r.get("bound"), (int, float)) else float_bound_relative(int(r["n"]), float_run)
             for r in rows]
    lo_v = min(values + [UNIT_ROUNDOFF / 16])
    hi_v = max(values + bound)
    lo = 10 ** math.floor(math.log10(lo_v))
    hi = 10 ** math.ceil(math.log10(hi_v * 1.2))
    W, H, left, plot_top, bottom = 800, 446, 62, 56, 376
    plot_w = W - left - 200
    xs = lambda k: left + plot_w * (k - kmin) / ((kmax - kmin) or 1)
    ys = lambda v: bottom - (bottom - plot_top) * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
    floor_y = bottom - 2
    svg = ['<svg class="kit-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" role="img" '
           'aria-label="relative error of float sums against n on %s">' % (W, H, W, html.escape(run["gpu"]["name"]))]
    # the title on two lines: on one it ran past the chart's 800 units and was cut
    svg.append('<text x="8" y="20" font-size="14" font-weight="bold">%s</text>' % html.escape(
        "Relative error of a float sum against n, %s, %s" % (run["short"], run["date"])))
    svg.append('<text x="8" y="38" font-size="12" fill="#444">random floats in [0, 1); both axes logarithmic</text>')
    v = lo
    while v <= hi * 1.0001:
        svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e3e3e3"/>' % (left, left + plot_w, ys(v), ys(v)))
        svg.append('<text x="%d" y="%.1f" font-size="10.5" text-anchor="end" fill="#666">10%s</text>'
                   % (left - 6, ys(v) + 4, sup(int(round(math.log10(v))))[1:]))
        v *= 10
    for k in range(int(math.ceil(kmin)), int(kmax) + 1):
        svg.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#333"/>' % (xs(k), xs(k), bottom, bottom + 4))
        if (k - int(math.ceil(kmin))) % 2 == 0:
            svg.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>' % (xs(k), bottom + 17, sup(k)))
    svg.append('<text x="%d" y="%d" font-size="11" text-anchor="middle" fill="#444">n, floats summed</text>'
               % (left + plot_w / 2, bottom + 34))
    labels = []
    # the grader's bound and one rounding
    pts = " ".join("%.1f,%.1f" % (xs(math.log2(n)), ys(b)) for n, b in zip(ns, bound))
    svg.append('<polyline points="%s" fill="none" stroke="#555" stroke-width="1.4" stroke-dasharray="6 4"/>' % pts)
    labels.append((ys(bound[-1]) + 4, "grader's bound, h = log\u2082n + %d" % float_run, "#555555"))
    svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#999" stroke-width="1.2" stroke-dasharray="2 3"/>'
               % (left, left + plot_w, ys(UNIT_ROUNDOFF), ys(UNIT_ROUNDOFF)))
    labels.append((ys(UNIT_ROUNDOFF) + 4, "one rounding, u = 2\u207b\u00b2\u2074", "#777777"))
    for key, label, colour, where in reversed(keys):
        pts = [(math.log2(int(r["n"])), r.get(key)) for r in rows if isinstance(r.get(key), (int, float))]
        if not pts:
            continue
        coords = [(xs(k), ys(v) if v > 0 else floor_y) for k, v in pts]
        width = 2.6 if where == "GPU" and key != "cub" else 1.8
        svg.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f" stroke-linejoin="round"/>'
                   % (" ".join("%.1f,%.1f" % c for c in coords), colour, width))
        for (k, v), (x, y) in zip(pts, coords):
            svg.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"><title>%s</title></circle>'
                       % (x, y, width + 0.6, colour, html.escape("%s (%s), n = %s: %s" % (
                           label, where, sup(int(k)), sci_text(v) if v else "0, exact"))))
        last = pts[-1][1]
        labels.append((coords[-1][1] + 4, "%s (%s) %s" % (label, where, sci_text(last) if last else "0, exact"), colour))
    placed = spread_labels([w for w, _, _ in labels], 14, plot_top, bottom + 6)
    for (wanted, text, colour), ly in zip(labels, placed):
        svg.append('<polyline points="%d,%.1f %d,%.1f" fill="none" stroke="%s" stroke-width="1"/>'
                   % (left + plot_w + 2, wanted - 4, left + plot_w + 10, ly - 4, colour))
        svg.append('<text x="%d" y="%.1f" font-size="11" fill="%s">%s</text>' % (left + plot_w + 13, ly, colour,
                                                                                  html.escape(text)))
    svg.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>' % (left, left + plot_w, bottom, bottom))
    svg.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>' % (left, left, plot_top, bottom))
    svg.append('<text x="8" y="%d" font-size="10.5" fill="#666">|computed &#8722; exact| / exact. A point on the '
               'bottom edge is an exact result (error 0), which a logarithmic axis cannot place.</text>' % (H - 12))
    svg.append("</svg>")
    return "\n".join(svg)


def accuracy_table(run, keys, float_run):
    """Per n (and pattern): the exact sum, the relative error of each way of summing, the grader's bound
    relative to the sum, and whether the stage gave the same bits in every run."""
    stage_key = keys[4][0]
    out = ['<div class="kit-scroll"><table class="kit-results kit-accuracy"><tr><th>n</th><th>input</th>'
           '<th>exact sum</th>%s<th>grader\'s bound</th><th>%s: same bits every run</th></tr>'
           % ("".join("<th>%s<br>(%s)</th>" % (html.escape(label), where) for _, label, _, where in keys),
              html.escape(keys[4][1]))]
    for r in run["rows"]:
        n = int(r["n"])
        exact = float(r["exact"])
        abs_sum = float(r.get("abs_sum", abs(exact)))
        # the run's own bound (reduce_ladder --accuracy writes kit_float_bound() / |exact|), else the same
        # computed here from KIT_FLOAT_RUN
        bound = float(r["bound"]) if isinstance(r.get("bound"), (int, float)) and not isinstance(r.get("bound"), bool) \
            else float_bound_relative(n, float_run) * abs_sum / abs(exact) if exact else None
        pattern = str(r.get("pattern", "random"))
        what = {"random": "random [0, 1)", "positional": "1, 2, 3, ...", "ones": "2\u00b2\u2074, then ones",
                "last-only": "zeros and a 7"}.get(pattern, pattern)
        if pattern == "positional" and n == 10000:
            what = "1, 2, ..., 10000: the course's example"
        values = r.get("values") if isinstance(r.get("values"), dict) else {}
        cells = []
        for key, _, _, _ in keys:
            v = r.get(key)
            bad = isinstance(v, (int, float)) and bound is not None and v > bound
            got = values.get(key)
            shown = sci_html(v) + ('<br><span class="kit-value">%s</span>' % (
                "{:,.0f}".format(got) if isinstance(got, (int, float)) and abs(got) >= 1e4 else "%.9g" % got)
                if isinstance(got, (int, float)) else "")
            cells.append('<td%s>%s</td>' % (' class="kit-bad"' if bad and key in (stage_key, "cub") else "", shown))
        rep = r.get(stage_key + "_reproducible")
        result = r.get(stage_key + "_result")
        same = "yes" if rep is True else "<b>no</b>" if rep is False else "-"
        if result not in (None, "ok"):   # the stage failed on that input: the grader's word for it
            same += ' <span class="kit-value">(%s)</span>' % html.escape(str(result))
        out.append("<tr><td>%s</td><td class=\"kit-text\">%s</td><td>%s</td>%s<td>%s</td><td>%s</td></tr>"
                   % (n_label(r), html.escape(what), "{:,.0f}".format(exact) if abs(exact) >= 1e4 else "%.6g" % exact,
                      "".join(cells), sci_html(bound) if bound is not None else "-", same))
    out.append("</table></div>")
    return "\n".join(out)


def accuracy_html(runs, edition, float_stage, float_run):
    """The float page's table: per GPU, the newest accuracy run as a chart and a table; a plain sentence
    when none is committed."""
    keys = accuracy_keys(float_stage)
    if not runs:
        return ('<p class="kit-note kit-missing">No GPU run of the accuracy measurement is committed yet, so this '
                'page has no error table of its own: the figures above are the course\'s. %s</p>\n'
                % ("<code>reduce_ladder --accuracy --format json</code> on a GPU sums random floats at n from "
                   "2<sup>10</sup> up in every way the table compares; committed as <code>docs/results/"
                   "accuracy-&lt;GPU&gt;-&lt;date&gt;.json</code>, it appears here as a chart and a table."
                   if edition == "instructor" else "Your instructor's kit shows it here once measured."))
    out = []
    for run in runs:
        source = ' <span class="kit-nowrap">(<code>%s</code>)</span>' % html.escape(run["file"]) if edition == "instructor" else ""
        extra = []
        if run.get("threads"):
            extra.append("%s threads per block" % run["threads"])
        runs_of_stage = run.get("stage_runs") or run.get("reps")
        if runs_of_stage:
            extra.append("stage %d run %s times per input for the reproducibility column" % (float_stage, runs_of_stage))
        out.append('<div class="kit-ladder"><p class="kit-run"><b>%s</b>, measured %s by <span class="kit-nowrap">'
                   '<code>reduce_ladder --accuracy</code></span>%s%s</p>'
                   % (html.escape(run["gpu"]["name"]), html.escape(run["date"]),
                      ": " + ", ".join(html.escape(e) for e in extra) if extra else "", source))
        out.append(accuracy_chart(run, keys, float_run))
        out.append(accuracy_table(run, keys, float_run))
        out.append("</div>")
    out.append('<p class="kit-note">Each error is |computed &#8722; exact| / |exact|, the exact sum from a long '
               'accumulator (no rounding at all). CPU columns: one thread, in float, in index order (sequential, '
               'Kahan, Neumaier) or as a balanced tree of pairs (pairwise). GPU columns: stage %d\'s reference '
               'solution and <code>cub::DeviceReduce::Sum</code> on the same input. <i>Grader\'s bound</i>: '
               '<code>kit_float_bound()</code> divided by the sum, &#947;<sub>h</sub> &#183; &#931;|x| / |&#931;x| with '
               'h = &#8968;log<sub>2</sub> n&#8969; + %d; a GPU figure above it is marked red. <i>Same bits</i>: '
               'whether every run of stage %d on that input returned the same float. Under an error, where the '
               'run recorded it, the sum itself.</p>'
               % (float_stage, float_run, float_stage))
    return "\n".join(out) + "\n"


def accuracy_figures(run, float_stage):
    """What the float page quotes from an accuracy run: \\<GPU>_acc_<key>_last (the error at the largest
    n of the random rows), \\<GPU>_acc_last_n, \\<GPU>_acc_date, \\<GPU>_acc_reproducible (yes/no).
    Where Neumaier's error there is above Kahan's and the run recorded the sums, also the parts of
    Neumaier's sum (neumaier_stall(): \\<GPU>_acc_neumaier_sum, _lost, _correction, _correction_off)."""
    rows = sorted([r for r in run["rows"] if r.get("pattern", "random") == "random"], key=lambda r: int(r["n"]))
    f = dict(date=run["date"])
    if rows:
        last = rows[-1]
        f["last_n"] = size_text(int(last["n"]))
        for key, _, _, _ in accuracy_keys(float_stage):
            if isinstance(last.get(key), (int, float)):
                f[("stage" if key.startswith("stage") else key) + "_last"] = sci_alias(last[key])
        for key, value in (neumaier_stall(last) or {}).items():
            f["neumaier_" + key] = value
    reps = [r.get("stage%d_reproducible" % float_stage) for r in run["rows"]]
    f["reproducible"] = "every input" if reps and all(x is True for x in reps) else \
        "not every input" if any(x is False for x in reps) else "not measured"
    return f


def neumaier_stall(row):
    """Why Neumaier's sum is worse than Kahan's on a row, from the sums the run recorded (its "values"),
    or None where it is not, the running sum never reached 2^24 or the run has no sums. Neumaier's running sum adds the same values in
    the same order as the sequential sum, so it is that sum bit for bit; the rest of the result is its
    correction c, a running float sum of its own of what that sum lost: c = result - running sum (to
    the result's last rounding). Gives the running sum ("sum"), what c had to carry (exact - running
    sum: "lost"), c ("correction") and c's own error ("correction_off"), as the page writes them."""
    values = row.get("values") if isinstance(row.get("values"), dict) else {}
    seq, neu = values.get("sequential"), values.get("neumaier")
    err_n, err_k = row.get("neumaier"), row.get("kahan")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (seq, neu, err_n, err_k)) \
            or err_n <= err_k or seq < 2 ** 24:   # the page's reason: from 2^24 on, a value below 1 is lost whole
        return None
    lost, correction = float(row["exact"]) - seq, neu - seq
    return dict(sum="{:,.0f}".format(seq), lost="{:,.1f}".format(lost), correction="{:,.0f}".format(correction),
                correction_off="{:,.0f}".format(abs(correction - lost)))


# ---------------------------------------------------------------------------------- counters
# The hardware counters `reduce_ladder --counters` adds to every row (null when they could not
# be taken). Each: key, label, how to show a value, and whether more is better (for the words).
COUNTERS = [
    ("kernels", "kernel launches (passes)", lambda v: "%d" % v),
    ("dram_bytes_read", "DRAM bytes read", lambda v: "%.1f MiB" % (v / 1048576.0)),
    ("dram_read_per_input_byte", "DRAM bytes read per input byte", lambda v: "%.2f" % v),
    ("percent_of_peak_bandwidth", "input read rate, % of peak bandwidth", lambda v: "%.0f%%" % v),
    ("bank_conflicts_per_request", "shared-memory bank conflicts per request", lambda v: "%.2f" % v),
    ("active_threads_per_instruction", "active threads per warp instruction (of 32)", lambda v: "%.1f" % v),
    ("warp_instructions", "warp instructions", lambda v: "%.1f M" % (v / 1e6)),
    ("warp_instructions_per_element", "warp instructions per input element",
     lambda v: "%.2f" % v if v >= 1 else "%.3f" % v),
    ("branch_instructions", "branch instructions", lambda v: "%.2f M" % (v / 1e6)),
    ("achieved_occupancy_percent", "achieved occupancy", lambda v: "%.0f%%" % v),
]
# The same, as the main page's table of every stage names them (nine columns must fit 1024 px).
COUNTER_SHORT = {
    "kernels": "passes", "dram_bytes_read": "DRAM read", "dram_read_per_input_byte": "DRAM read per input byte",
    "percent_of_peak_bandwidth": "% of peak bandwidth", "bank_conflicts_per_request": "bank conflicts per request",
    "active_threads_per_instruction": "active threads per instruction", "warp_instructions": "warp instructions",
    "warp_instructions_per_element": "warp instructions per element", "branch_instructions": "branches",
    "achieved_occupancy_percent": "occupancy",
}
COUNTER_LABEL = dict((key, label) for key, label, _ in COUNTERS)

# What each stage sets out to change, in the counters: (key, the direction the stage aims for).
# The pages say in words, from the numbers of each run, what actually happened.
STAGE_AIMS = {
    2: [("warp_instructions_per_element", "down", "no modulo, and idle warps skip the add"),
        ("bank_conflicts_per_request", "up", "the price of the strided index")],
    3: [("bank_conflicts_per_request", "down", "sequential addressing is conflict-free"),
        ("warp_instructions_per_element", "down", "no conflicts to replay, no multiply")],
    4: [("warp_instructions_per_element", "down", "half the blocks, half the trees"),
        ("kernels", "down", "each pass shrinks the data twice as much"),
        ("percent_of_peak_bandwidth", "up", "")],
    5: [("warp_instructions_per_element", "down", "no loop and no block barrier for the last six steps"),
        ("branch_instructions", "down", ""),
        ("percent_of_peak_bandwidth", "up", "")],
    6: [("warp_instructions_per_element", "down", "no loop at all"),
        ("branch_instructions", "down", ""),
        ("percent_of_peak_bandwidth", "up", "")],
    7: [("warp_instructions_per_element", "down", "one tree per block, int4 loads"),
        ("percent_of_peak_bandwidth", "up", "the memory kept busy"),
        ("dram_read_per_input_byte", "same", "every input read once")],
    8: [("kernels", "down", "one launch: the blocks meet in an atomic"),
        ("dram_read_per_input_byte", "same", "every input still read once"),
        ("percent_of_peak_bandwidth", "same", "at this n the second launch was already cheap")],
    # beyond the int sums: each compared with the stage its page starts from (COMPARED_WITH)
    9: [("dram_read_per_input_byte", "same", "a float is as wide as an int"),
        ("percent_of_peak_bandwidth", "same", "a float add costs what an int add does: the memory decides")],
    10: [("dram_read_per_input_byte", "same", "every input read once"),
         ("percent_of_peak_bandwidth", "same", "a min costs what an add does")],
    11: [("warp_instructions_per_element", "same", "the same tree, another operator"),
         ("percent_of_peak_bandwidth", "same", "")],
    12: [("kernels", "down", "one launch: the blocks meet in one 64-bit atomicMin"),
         ("dram_read_per_input_byte", "same", "every input read once")],
    14: [("percent_of_peak_bandwidth", "up", "each load instruction reads whole 128-byte lines"),
         ("dram_read_per_input_byte", "same", "the same bytes, read in another order")],
    15: [("percent_of_peak_bandwidth", "up", "each load instruction reads whole 128-byte lines"),
         ("dram_read_per_input_byte", "same", "the same bytes, read in another order")],
}

# The stage each page beyond the int sums compares itself with: the code difference ("What changed")
# and the counters table start from it. The int sums compare stage K with stage K-1.
COMPARED_WITH = {9: 8, 10: 7, 11: 10, 12: 10, 13: 10, 14: 13, 15: 13}


def compared_with(stage, stages):
    """The stage (a row of stages) stage's page compares itself with, or None for the first."""
    by_number = dict((s["number"], s) for s in stages)
    k = stage["number"]
    want = COMPARED_WITH.get(k) if not is_int_sum(stage) else None
    if want is None:
        earlier = [s for s in stages if s["number"] < k]
        return earlier[-1] if earlier else None
    if want not in by_number:
        raise SystemExit("docs_assets.py: COMPARED_WITH says stage %d's page starts from stage %d, which "
                         "common/stages.def does not have" % (k, want))
    return by_number[want]


# What the commonest stall reasons of Nsight Compute mean, for the pages' words.
STALL_MEANING = {
    "long_scoreboard": "waiting for global memory",
    "barrier": "waiting at __syncthreads()",
    "short_scoreboard": "waiting for shared memory",
    "mio_throttle": "the shared-memory queue is full",
    "lg_throttle": "the global-memory queue is full",
    "wait": "a fixed delay between dependent instructions",
    "math_pipe_throttle": "the arithmetic units are busy",
    "branch_resolving": "waiting for a branch to resolve",
    "no_instruction": "waiting for instructions",
    "not_selected": "ready, but another warp went",
    "membar": "waiting at a memory fence",
}


def stall_cell(c):
    """The top stall reason as a table shows it: 'long scoreboard, 96%'."""
    if not c or not c.get("top_stall"):
        return None
    share = counter_value(c, "top_stall_share_percent")
    return html.escape(str(c["top_stall"]).replace("_", " ")) + (", %.0f%%" % share if share is not None else "")


def counters_of(row):
    c = row.get("counters") if row else None
    return c if isinstance(c, dict) else None


def counter_value(c, key):
    v = c.get(key) if c else None
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def stall_text(c):
    if not c or not c.get("top_stall"):
        return None
    share = counter_value(c, "top_stall_share_percent")
    reason = str(c["top_stall"])
    bits = ([html.escape(STALL_MEANING[reason])] if reason in STALL_MEANING else []) + \
        (["%.0f%% of stalls" % share] if share is not None else [])
    name = "<i>%s</i>" % html.escape(reason.replace("_", " "))
    return "%s (%s)" % (name, ", ".join(bits)) if bits else name


def change_words(key, old, new, fmt_value):
    """('down', 'fall from 2.41 to 1.53 (&minus;37%)'), ('up', 'rise from ...'), ('same', 'stay at ...')."""
    if old is None or new is None:
        return None, "not measured"
    a, b = fmt_value(old), fmt_value(new)
    if (abs(old) < 1e-9 and abs(new) < 1e-9) or a == b:
        return "same", "stay at %s" % b
    if abs(old) < 1e-9:
        return "up", "rise from %s to %s" % (a, b)
    rel = (new - old) / abs(old)
    if abs(rel) < 0.05:
        return "same", "stay about the same (%s to %s)" % (a, b)
    if key.endswith("percent") or key.startswith("percent"):  # a share already: no % of a %
        return ("up" if rel > 0 else "down"), "%s from %s to %s" % ("rise" if rel > 0 else "fall", a, b)
    if rel > 3:  # '+22781%' says less than the two numbers
        return "up", "rise from %s to %s" % (a, b)
    return ("up" if rel > 0 else "down"), "%s from %s to %s (%s%.0f%%)" % (
        "rise" if rel > 0 else "fall", a, b, "+" if rel > 0 else "&minus;", abs(100 * rel))


AIM_WORDS = {"up": "more", "down": "less", "same": "no change"}


def per_gpu(said):
    """'X on both GPUs' when every run says the same, else 'X on the H100; Y on the H200'.
    said: [(run, words)]."""
    texts = [w for _, w in said]
    if len(said) > 1 and all(t == texts[0] for t in texts):
        return "%s on %s" % (texts[0], "both GPUs" if len(said) == 2 else "every GPU")
    return "; ".join("%s on the %s" % (w, html.escape(r["short"])) for r, w in said)


def stall_name(c):
    return "<i>%s</i>" % html.escape(str(c["top_stall"]).replace("_", " ")) if c and c.get("top_stall") else None


def counters_summary(stage, runs, before=None):
    """Sentences saying what the counters of stage `before` (K-1 by default) -> K show, from the numbers
    of each run."""
    k = stage["number"]
    before = k - 1 if before is None else before
    fmts = dict((key, f) for key, _, f in COUNTERS)
    keys = [str(k)] if before < 1 else [str(before), str(k)]
    measured = [r for r in runs if all(counters_of(r["by_stage"].get(s)) for s in keys)]
    partial = [r for r in runs if r not in measured and any(counters_of(r["by_stage"].get(s)) for s in keys)]
    parts = []
    if before < 1:
        lines = (("warp_instructions_per_element", "Every input element costs %s warp instructions"),
                 ("active_threads_per_instruction", "An average warp instruction has %s of its 32 threads active"),
                 ("bank_conflicts_per_request", "Shared memory sees %s bank conflicts per request"),
                 ("percent_of_peak_bandwidth", "The input is read at %s of the peak bandwidth"))
        for key, sentence in lines:
            said = [(r, fmts[key](counter_value(counters_of(r["by_stage"]["1"]), key))) for r in measured
                    if counter_value(counters_of(r["by_stage"]["1"]), key) is not None]
            if said:
                if all(w == said[0][1] for _, w in said):
                    parts.append("<li>%s%s.</li>" % (sentence % said[0][1], " on both GPUs" if len(said) == 2 else ""))
                else:
                    parts.append("<li>%s.</li>" % (sentence % " on the %s, ".join(w for _, w in said[:1]) +
                                 " on the %s" % html.escape(said[0][0]["short"]) +
                                 "".join(" and %s on the %s" % (w, html.escape(r["short"])) for r, w in said[1:])))
        stalls = [(r, stall_text(counters_of(r["by_stage"]["1"]))) for r in measured]
        stalls = [(r, t) for r, t in stalls if t]
        if stalls:
            parts.append("<li>The commonest reason a warp waits: %s.</li>" % per_gpu(stalls))
        if not parts:
            return ""
        return ('<p class="kit-counter-words">What the counters show for stage 1, the starting point (the next '
                'stages cut the instructions each element costs):</p>\n'
                '<ul class="kit-counter-words">%s</ul>\n' % "".join(parts))
    for key, aim, why in STAGE_AIMS.get(k, []):
        said, dirs = [], set()
        for r in measured:
            old = counter_value(counters_of(r["by_stage"][str(before)]), key)
            new = counter_value(counters_of(r["by_stage"][str(k)]), key)
            d, words = change_words(key, old, new, fmts[key])
            if d:
                dirs.add(d)
            said.append((r, words))
        if not dirs:
            continue
        why_text = " (%s)" % why if why else ""
        if dirs == {aim}:
            verdict = "as this stage intends" + why_text
        elif len(dirs) > 1 or aim == "same":
            verdict = "this stage aims for %s%s" % (AIM_WORDS[aim], why_text)
        else:
            verdict = "not what this stage aims for, which is %s%s" % (AIM_WORDS[aim], why_text)
        label = COUNTER_LABEL[key]
        parts.append("<li><b>%s</b>: %s; %s.</li>" % (label[0].upper() + label[1:], per_gpu(said), verdict))
    stalls = []
    for r in measured:
        a = stall_text(counters_of(r["by_stage"][str(before)]))
        b = stall_text(counters_of(r["by_stage"][str(k)]))
        if a and b:
            ca, cb = counters_of(r["by_stage"][str(before)]), counters_of(r["by_stage"][str(k)])
            sa, sb = counter_value(ca, "top_stall_share_percent"), counter_value(cb, "top_stall_share_percent")
            reason = str(ca["top_stall"])
            if stall_name(ca) == stall_name(cb) and sa is not None and sb is not None:
                stalls.append((r, "%s%s in both stages, %.0f%% of stalls in stage %d and %.0f%% in stage %d" % (
                    stall_name(ca), " (%s)" % html.escape(STALL_MEANING[reason]) if reason in STALL_MEANING else "",
                    sa, before, sb, k)))
            else:
                stalls.append((r, "%s in stage %d, %s in stage %d" % (a, before, b, k)))
    if stalls:
        parts.append("<li><b>What warps wait for most</b>: %s.</li>" % per_gpu(stalls))
    for r in partial:
        lost = [s for s in keys if not counters_of(r["by_stage"].get(s))]
        parts.append("<li>The %s run has no counters for stage %s (they could not be taken), so it is left out "
                     "here.</li>" % (html.escape(r["short"]), " or ".join(lost)))
    if not parts:
        return ""
    return ('<p class="kit-counter-words">What the counters show from stage %d to stage %d:</p>\n'
            '<ul class="kit-counter-words">%s</ul>\n' % (before, k, "".join(parts)))


def counters_html(stage, runs, before=None):
    """Stage K's hardware counters next to stage `before`'s (K-1 by default), for the newest run of each GPU."""
    k = stage["number"]
    before = k - 1 if before is None else before
    keys = [str(before), str(k)] if before >= 1 else [str(k)]
    cols, missing = [], []
    for r in runs:
        have = [counters_of(r["by_stage"].get(s)) for s in keys]
        if not any(have):
            missing.append(r)
            continue
        for s, c in zip(keys, have):
            cols.append((r, s, c))
    out = []
    if cols:
        head = "".join('<th>%s<br>stage %s</th>' % (html.escape(r["short"]), s) for r, s, _ in cols)
        out.append('<table class="kit-results kit-counters"><tr><th>counter (per reduction of n ints)</th>%s</tr>' % head)
        for key, label, f in COUNTERS:
            cells = []
            for r, s, c in cols:
                v = counter_value(c, key)
                cls = ' class="kit-this"' if s == str(k) and before >= 1 else ""
                cells.append("<td%s>%s</td>" % (cls, f(v) if v is not None else ("-" if c else "not measured")))
            out.append("<tr><td>%s</td>%s</tr>" % (label, "".join(cells)))
        cells = "".join("<td%s>%s</td>" % (' class="kit-this"' if s == str(k) and before >= 1 else "",
                                           stall_cell(c) or ("-" if c else "not measured")) for r, s, c in cols)
        out.append("<tr><td>top stall reason</td>%s</tr>" % cells)
        out.append("</table>")
        sources = sorted(set(r.get("counters_from") or "the profiler" for r, _, _ in cols))
        out.append('<p class="kit-note">Counted by %s (<code>reduce_ladder --counters</code>), for one reduction '
                   'of the same n; the columns of stage %d are shaded.</p>'
                   % (html.escape("; ".join(sources)), k) if before >= 1 else
                   '<p class="kit-note">Counted by %s (<code>reduce_ladder --counters</code>), for one reduction '
                   'of the same n.</p>' % html.escape("; ".join(sources)))
        out.append(counters_summary(stage, runs, before))
    without = [r for r in missing if r.get("counters_from", "none") == "none"]
    failed = [r for r in missing if r not in without]
    if without:
        names = " and ".join("%s (%s)" % (html.escape(r["short"]), html.escape(r["date"])) for r in without)
        out.append('<p class="kit-note">No hardware counters for the %s run%s: %s recorded without '
                   '<code>--counters</code>. <code>reduce_ladder --counters --format json</code> adds them, on a '
                   'machine where the profiler may read the GPU\'s counters.</p>'
                   % (names, "s" if len(without) > 1 else "", "they were" if len(without) > 1 else "it was"))
    for r in failed:
        out.append('<p class="kit-note">No hardware counters for the %s run (%s): they could not be taken%s.</p>'
                   % (html.escape(r["short"]), html.escape(r["date"]),
                      " (%s)" % html.escape(r["counters_note"]) if r.get("counters_note") else ""))
    return "\n".join(out) + "\n"


def counters_overview_html(r, stages):
    """All stages' counters of one run, for the main page (rows: counters; columns: stages, CUB)."""
    names = [str(s["number"]) for s in stages] + ["CUB"]
    have = [(n, counters_of(r["by_stage"].get(n))) for n in names]
    have = [(n, c) for n, c in have if c]
    if not have:
        if r.get("counters_from", "none") == "none":
            return '<p class="kit-note">This run has no hardware counters (recorded without <code>--counters</code>).</p>'
        return '<p class="kit-note">This run has no hardware counters: they could not be taken%s.</p>' % (
            " (%s)" % html.escape(r["counters_note"]) if r.get("counters_note") else "")
    out = ['<details class="kit-counters"><summary>Hardware counters of every stage on the %s (%s)</summary>'
           % (html.escape(r["short"]), html.escape(r["date"])),
           '<div class="kit-scroll"><table class="kit-results kit-counters kit-overview"><tr><th>counter</th>%s</tr>'
           % "".join("<th>%s</th>" % ("stage " + n if n.isdigit() else n) for n, _ in have)]
    for key, label, f in COUNTERS:
        out.append("<tr><td>%s</td>%s</tr>" % (COUNTER_SHORT[key], "".join(
            "<td>%s</td>" % (f(counter_value(c, key)) if counter_value(c, key) is not None else "-") for _, c in have)))
    out.append('<tr class="kit-stall"><td>top stall reason</td>%s</tr>'
               % "".join("<td>%s</td>" % (stall_cell(c) or "-") for _, c in have))
    out.append("</table></div>")
    out.append('<p class="kit-note">Counted by %s (<code>reduce_ladder --counters</code>), for one reduction of '
               'the same n. Each stage\'s page says what its counters show.</p></details>'
               % html.escape(r.get("counters_from") or "the profiler"))
    return "\n".join(out)


# ---------------------------------------------------------------------------------- chart
def spread_labels(wanted, gap, low, high):
    """Label positions near the wanted ys (any order), at least gap apart, within [low, high]."""
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    ys = [wanted[i] for i in order]
    for i in range(len(ys)):
        ys[i] = max(ys[i], low if i == 0 else ys[i - 1] + gap)
    if ys and ys[-1] > high:
        ys[-1] = high
        for i in range(len(ys) - 2, -1, -1):
            ys[i] = min(ys[i], ys[i + 1] - gap)
    out = [0.0] * len(wanted)
    for i, y in zip(order, ys):
        out[i] = y
    return out


def bar_chart(r, stages):
    """An SVG bar chart of GB/s per stage, with CUB, the copy and the theoretical peak as lines."""
    rows = [(s["number"], s["title"], r["by_stage"].get(str(s["number"]))) for s in stages]
    peak = r["gpu"].get("peak_gbps")
    refs = []  # (label, GB/s, colour)
    if isinstance(peak, (int, float)) and peak > 0:
        refs.append(("theoretical peak", peak, "#555555"))
    for name, label, colour in (("copy", "copy (read+write)", "#d62728"), ("CUB", "CUB", "#2c7a2c")):
        row = r["by_stage"].get(name)
        if ok_row(row):
            refs.append((label, row["gbps"], colour))
    values = [row["gbps"] for _, _, row in rows if ok_row(row)] + [v for _, v, _ in refs]
    top = max(values) * 1.08 if values else 1.0
    W, H, left, bottom, plot_top = 800, 336, 56, 276, 40
    plot_w = W - left - 214
    ys = lambda v: bottom - (bottom - plot_top) * v / top
    svg = ['<svg class="kit-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" '
           'role="img" aria-label="GB/s per stage on %s">' % (W, H, W, html.escape(r["gpu"]["name"]))]
    svg.append('<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>'
               % (left, html.escape("GB/s per stage, %s, %s" % (r["gpu"]["name"], r["date"]))))
    step = 1000 if top > 4000 else 500 if top > 2000 else 100 if top > 400 else 20
    v = 0
    while v <= top:
        svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e3e3e3"/>' % (left, left + plot_w, ys(v), ys(v)))
        svg.append('<text x="%d" y="%.1f" font-size="10" text-anchor="end" fill="#666">%d</text>' % (left - 6, ys(v) + 3, v))
        v += step
    # reference lines first, so that the bars (and their numbers) are drawn over them
    for label, value, colour in refs:
        y = ys(value)
        svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.6" stroke-dasharray="6 4"/>'
                   % (left, left + plot_w, y, y, colour))
    bw = plot_w / len(rows)
    for k, (num, title, row) in enumerate(rows):
        x = left + k * bw + bw * 0.18
        cx = x + bw * 0.32
        if row and isinstance(row.get("gbps"), (int, float)):
            g = row["gbps"]
            ok = row.get("result") == "ok"
            svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>'
                       % (x, ys(g), bw * 0.64, bottom - ys(g), "#3b6fb6" if ok else "#d62728",
                          html.escape("stage %d, %s: %.0f GB/s" % (num, title, g))))
            if bottom - ys(g) >= 20:  # inside the bar, clear of the reference lines
                svg.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="#fff" '
                           'font-weight="bold">%.0f</text>' % (cx, ys(g) + 13, g))
            else:
                svg.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%.0f</text>' % (cx, ys(g) - 4, g))
        svg.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">stage %d</text>' % (cx, bottom + 15, num))
    # labels at the right, spread apart so that close lines do not write over each other
    label_x = left + plot_w + 24
    placed = spread_labels([ys(v) + 4 for _, v, _ in refs], 14, plot_top - 10, bottom)
    for (label, value, colour), ly in zip(refs, placed):
        y = ys(value)
        svg.append('<polyline points="%d,%.1f %d,%.1f %d,%.1f" fill="none" stroke="%s" stroke-width="1"/>'
                   % (left + plot_w, y, left + plot_w + 8, y, label_x - 3, ly - 4, colour))
        svg.append('<text x="%d" y="%.1f" font-size="11" fill="%s">%s %.0f GB/s</text>'
                   % (label_x, ly, colour, label, value))
    svg.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>' % (left, left + plot_w, bottom, bottom))
    svg.append('<text x="%d" y="%d" font-size="10" fill="#666">bars: bytes of input read per second (n &#215; 4 bytes / '
               'median time); the copy line counts read+write, 2 &#215; n &#215; 4 bytes</text>' % (left, bottom + 36))
    svg.append("</svg>")
    return "\n".join(svg)


# ---------------------------------------------------------------------------------- worth it
WORTH_ROWS = ("cpu", "cpu-omp", "h2d-pageable", "h2d-pinned", "best+copy")


def ratio_x(v):
    """A ratio as the pages print it: 0.27x, 3.4x, 12x, 205x."""
    return "%.2fx" % v if v < 1 else "%.1fx" % v if v < 10 else "%.0fx" % v


def best_stage(r):
    """The stage the run's best+copy row names ('stage 8 plus ...'), else its fastest stage."""
    m = re.search(r"\bstage\s+(\d+)", str(r["by_stage"].get("best+copy", {}).get("title", "")))
    if m and ok_row(r["by_stage"].get(m.group(1))):
        return m.group(1)
    timed = [(row["median_ms"], k) for k, row in r["by_stage"].items() if k.isdigit() and ok_row(row)]
    return min(timed)[1] if timed else None


def worth_figures(r):
    """What the main page's 'worth it' section quotes from one ladder run (its rows cpu, cpu-omp,
    h2d-pageable, h2d-pinned and best+copy), or None where the run lacks one of them."""
    rows = r["by_stage"]
    if not all(ok_row(rows.get(k)) for k in WORTH_ROWS):
        return None
    best = best_stage(r)
    if best is None:
        return None
    ms = dict((k, rows[k]["median_ms"]) for k in WORTH_ROWS)
    ms["best"] = rows[best]["median_ms"]
    f = dict(best_stage=best, cpu_threads=str(r.get("cpu_threads") or "?"), cpu_name=str(r.get("cpu") or "the host CPU"))
    for key, k in (("cpu", "cpu"), ("omp", "cpu-omp"), ("pageable", "h2d-pageable"), ("pinned", "h2d-pinned"),
                   ("best_copy", "best+copy"), ("best", "best")):
        f[key + "_time"] = time_text(ms[k])
    f["best_over_cpu"] = ratio_x(ms["cpu"] / ms["best"])
    f["best_over_omp"] = ratio_x(ms["cpu-omp"] / ms["best"])
    f["best_copy_over_cpu"] = ratio_x(ms["cpu"] / ms["best+copy"])
    f["best_copy_over_omp"] = ratio_x(ms["cpu-omp"] / ms["best+copy"])
    f["omp_over_cpu"] = ratio_x(ms["cpu"] / ms["cpu-omp"])
    f["pageable_over_pinned"] = ratio_x(ms["h2d-pageable"] / ms["h2d-pinned"])
    f["copy_pct"] = "%.0f%%" % min(100.0, 100.0 * ms["h2d-pinned"] / ms["best+copy"])
    f["pinned_gbps"] = "%.0f" % rows["h2d-pinned"]["gbps"]
    f["pageable_gbps"] = "%.1f" % rows["h2d-pageable"]["gbps"] if rows["h2d-pageable"]["gbps"] < 10 else \
        "%.0f" % rows["h2d-pageable"]["gbps"]
    f["best_over_pinned"] = ratio_x(ms["h2d-pinned"] / ms["best"])
    # the sums of the same data, copied once, after which the GPU is ahead of the CPU in total:
    # pinned + k * best < k * cpu  <=>  k > pinned / (cpu - best)
    for key, k in (("cpu", "cpu"), ("omp", "cpu-omp")):
        gain = ms[k] - ms["best"]
        k_sums = int(ms["h2d-pinned"] / gain) + 1 if gain > 0 else None
        f["reuse_" + key] = ("one sum" if k_sums == 1 else "%d sums" % k_sums) if k_sums else "no number of sums"
    return f


def worth_chart(r, f):
    """Horizontal bars: the time to have the sum, from where the data is, on the CPU and the GPU."""
    rows = r["by_stage"]
    best = f["best_stage"]
    bars = [("CPU, one thread", rows["cpu"], "#8c8c8c"),
            ("CPU, OpenMP, %s threads" % f["cpu_threads"], rows["cpu-omp"], "#6d6d6d"),
            ("stage %s, data already on the GPU" % best, rows[best], "#3b6fb6"),
            ("copy to the GPU, pageable memory", rows["h2d-pageable"], "#e58d8e"),
            ("copy to the GPU, pinned memory", rows["h2d-pinned"], "#d62728"),
            ("stage %s + pinned copy, timed together" % best, rows["best+copy"], "#7a4fa3")]
    top = max(b[1]["median_ms"] for b in bars) * 1.02
    W, left, pitch, top_y = 800, 262, 30, 44
    plot_w = W - left - 110
    H = top_y + pitch * len(bars) + 40
    svg = ['<svg class="kit-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" role="img" '
           'aria-label="time to the sum on %s">' % (W, H, W, html.escape(r["gpu"]["name"]))]
    svg.append('<text x="8" y="22" font-size="14" font-weight="bold">%s</text>' % html.escape(
        "Time to the sum of %s ints, from where the data is, %s, %s" % (
            sup(r["n"].bit_length() - 1) if r["n"] & (r["n"] - 1) == 0 else r["n"], r["short"], r["date"])))
    for k, (label, row, colour) in enumerate(bars):
        y = top_y + k * pitch
        w = max(1.5, plot_w * row["median_ms"] / top)
        svg.append('<text x="%d" y="%.1f" font-size="12" text-anchor="end">%s</text>' % (left - 8, y + 15, html.escape(label)))
        svg.append('<rect x="%d" y="%d" width="%.1f" height="20" fill="%s"><title>%s</title></rect>'
                   % (left, y + 2, w, colour, html.escape("%s: %s" % (row["title"], time_text(row["median_ms"])))))
        over = row.get("speedup_over_cpu", "-")
        extra = " (%s the CPU's one thread)" % over if isinstance(over, str) and over.endswith("x") and \
            row is not rows["cpu"] else ""
        svg.append('<text x="%.1f" y="%.1f" font-size="12">%s%s</text>'
                   % (left + w + 6, y + 16, time_text(row["median_ms"]), html.escape(extra)))
    svg.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>' % (left, left, top_y, top_y + pitch * len(bars)))
    svg.append('<text x="%d" y="%d" font-size="10.5" fill="#666">median times, linear scale; the copies move the n '
               'ints (%s) from the host to the GPU</text>' % (left, H - 12, mib_text(4 * r["n"])))
    svg.append("</svg>")
    # the times can be wider than the plot when labels are long: the chart is fixed-width
    # time_text writes &micro;, which html.escape turned into &amp;micro; in the tooltips
    return "\n".join(svg).replace("&amp;micro;", "\u00b5").replace("&micro;", "\u00b5")


def worth_html(runs, edition):
    """The main page's 'worth it' section: per GPU, the CPU, the copies and the best stage."""
    out = []
    have = [(r, worth_figures(r)) for r in runs]
    for r, f in have:
        if not f:
            continue
        rows = r["by_stage"]
        best = f["best_stage"]
        out.append('<div class="kit-ladder"><p class="kit-run">%s; CPU: %s, %s threads for OpenMP</p>'
                   % (run_text(r, edition), html.escape(f["cpu_name"]), html.escape(f["cpu_threads"])))
        out.append(worth_chart(r, f))
        out.append('<table class="kit-results"><tr><th class="kit-text">what</th><th>time</th><th>GB/s</th>'
                   '<th>vs the CPU, one thread</th></tr>')
        for key, label in (("cpu", "the CPU, one thread (exact sum)"),
                           ("cpu-omp", "the CPU, OpenMP, %s threads" % f["cpu_threads"]),
                           (best, "stage %s on the GPU, the data already there" % best),
                           ("h2d-pageable", "copy to the GPU from pageable memory (plain malloc)"),
                           ("h2d-pinned", "copy to the GPU from pinned memory (cudaMallocHost)"),
                           ("best+copy", "stage %s and the pinned copy, timed together" % best)):
            row = rows[key]
            over = row.get("speedup_over_cpu", "-")
            out.append('<tr><td class="kit-text">%s</td><td>%s</td><td>%s</td><td>%s</td></tr>'
                       % (html.escape(label), time_text(row["median_ms"]), fmt(row["gbps"], "%.1f" if row["gbps"] < 10
                                                                              else "%.0f"),
                          "<b>%s</b>" % html.escape(over) if key in (best, "best+copy") else html.escape(str(over))))
        out.append("</table></div>")
    missing = [r for r, f in have if not f]
    if missing:
        out.append('<p class="kit-note">%s: no CPU and copy rows in the newest run (%s). <code>reduce_ladder '
                   '--format json</code> adds them (rows <code>cpu</code>, <code>cpu-omp</code>, '
                   '<code>h2d-pageable</code>, <code>h2d-pinned</code>, <code>best+copy</code>).</p>'
                   % (" and ".join(html.escape(r["short"]) for r in missing),
                      ", ".join("<code>%s</code>" % html.escape(r["file"]) if edition == "instructor" else
                                html.escape(r["date"]) for r in missing)))
    if not any(f for _, f in have):
        out.insert(0, '<p class="kit-note">No committed run measures the CPU and the copy to the GPU yet, so this '
                   'section has no figures.</p>')
    else:
        out.append('<p class="kit-note">GB/s: the n ints\' bytes (n &#215; 4) per second. The CPU sums are exact '
                   '(64-bit, one thread, and OpenMP over the threads named); the copies are <code>cudaMemcpy</code> '
                   'of the input from host memory to the GPU, from a plain allocation (pageable) and from a pinned one. '
                   'The last row is one measurement: the pinned copy, then the stage.</p>')
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------- sweep
SWEEP_SERIES = (("8", "stage 8", "#3b6fb6", 2.6), ("7", "stage 7", "#8fb3e0", 1.8), ("CUB", "CUB", "#2c7a2c", 1.8),
                ("copy", "copy (read+write)", "#d62728", 1.4))
LATENCY_FACTOR = 1.5   # the latency floor: sizes where stage 8 takes at most this many times the
                       # empty kernel of the same n (every launch figure is the launch row at its n)


def sweep_value(sw, n, row, key="median_ms"):
    r = sw["by_n"].get(n, {}).get(row)
    if not r or r.get("result") != "ok" or not isinstance(r.get(key), (int, float)):
        return None
    return r[key]


def sweep_ratio(sw, n):
    """Stage 8's speed over CUB's at n: CUB's time / stage 8's time, or None."""
    a, b = sweep_value(sw, n, "8"), sweep_value(sw, n, "CUB")
    return b / a if a and b else None


def latency_floor_end(sw):
    """The largest n, from the smallest up without a gap, at which stage 8 takes at most
    LATENCY_FACTOR times the empty kernel of the same n; None where even the smallest does not."""
    end = None
    for n in sw["ns"]:
        t8, tl = sweep_value(sw, n, "8"), sweep_value(sw, n, "launch")
        if t8 is None or tl is None or t8 > LATENCY_FACTOR * tl:
            break
        end = n
    return end


def sup(k):
    """2 to the k as text with superscript digits: 2¹⁰."""
    return "2" + str(k).translate(str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b"))


STAGE7_SOURCE = None  # set by main(): solutions/07_multi_element/reduce_multi_element.cu (or the lab)


def stage7_values_per_block(sw):
    """The most ints stage 7's launcher gives one block in a single-block grid: read from its
    launcher ('per_block = 16 * threads'), times the sweep's block size."""
    with open(STAGE7_SOURCE, encoding="utf-8") as f:
        m = re.search(r"per_block\s*=\s*(\d+)\s*\*\s*threads", f.read())
    if not m:
        raise SystemExit("docs_assets.py: cannot find 'per_block = K * threads' in %s (the sweep's text needs it)"
                         % STAGE7_SOURCE)
    return int(m.group(1)) * int(sw.get("threads", 256))


def sweep_figures(sw):
    """What the stage 8 page quotes from a sweep: \\<GPU>_sweep_<key>."""
    ns = sw["ns"]
    first, last = ns[0], ns[-1]
    f = dict(date=sw["date"], threads=str(sw.get("threads", "?")), first_n=size_text(first), last_n=size_text(last))
    us = lambda n, row: 1000.0 * sweep_value(sw, n, row) if sweep_value(sw, n, row) else None
    # The empty kernel is quoted at the n it is compared at, never as a figure of another n.
    for row, key in (("8", "8"), ("7", "7"), ("CUB", "cub"), ("launch", "launch")):
        if us(first, row):
            f["%s_first_us" % key] = "%.1f" % us(first, row)
    if us(first, "8") and us(first, "launch"):
        f["launch_pct_of_8_first"] = "%.0f%%" % (100.0 * us(first, "launch") / us(first, "8"))
    if us(first, "8") and us(first, "7"):
        f["7_over_8_first"] = ratio_x(us(first, "7") / us(first, "8"))
    # The smallest n at which stage 7 launches twice (its first pass leaves more than one partial
    # sum): there the difference between stages 7 and 8 is the price of the second launch.
    two = [n for n in ns if STAGE7_SOURCE and n > stage7_values_per_block(sw)]
    if two and us(two[0], "7") and us(two[0], "8"):
        f["two_pass_n"] = size_text(two[0])
        f["7_two_pass_us"] = "%.1f" % us(two[0], "7")
        f["8_two_pass_us"] = "%.1f" % us(two[0], "8")
        f["second_launch_us"] = "%.1f" % (us(two[0], "7") - us(two[0], "8"))
        if us(two[0], "launch"):
            f["launch_two_pass_us"] = "%.1f" % us(two[0], "launch")
    ratios = [(sweep_ratio(sw, n), n) for n in ns if sweep_ratio(sw, n)]
    if ratios:
        best = max(ratios)
        f["8_over_cub_best"] = "%.2fx" % best[0]
        f["8_over_cub_best_n"] = size_text(best[1])
        mid = [(v, n) for v, n in ratios if 1 << MID_RANGE[0] <= n <= 1 << MID_RANGE[1]]
        if mid:
            f["8_over_cub_mid_min"] = "%.2fx" % min(mid)[0]
            f["8_over_cub_mid_max"] = "%.2fx" % max(mid)[0]
            f["8_over_cub_mid_max_n"] = size_text(max(mid)[1])
        f["8_over_cub_last"] = "%.2fx" % dict((n, v) for v, n in ratios).get(last, 0.0)
    if us(last, "8") and us(last, "7"):
        f["8_over_7_last"] = "%.2fx" % (us(last, "7") / us(last, "8"))
    g = sweep_value(sw, last, "8", "gbps")
    peak = sw["gpu"].get("peak_gbps")
    if g:
        f["8_last_gbps"] = "%.0f" % g
        if isinstance(peak, (int, float)) and peak > 0:
            f["8_last_pct_peak"] = "%.0f%%" % (100.0 * g / peak)
    end = latency_floor_end(sw)
    if end:
        f["latency_n"] = size_text(end)
        f["latency_size"] = "%.0f KiB" % (4 * end / 1024.0) if 4 * end < 1 << 20 else mib_text(4 * end)
    l2 = sw["gpu"].get("l2_bytes")
    if isinstance(l2, (int, float)) and l2 > 0:
        fits = [n for n in ns if 4 * n <= l2]
        if fits:
            f["l2_n"] = size_text(fits[-1])
        f["l2"] = mib_text(l2)
    return f


LABEL_EM = 11.5 * 0.58   # the width of one character of an 11.5-unit label (DejaVu Sans, on the safe side)


def label_place(label, x1, x2, W, taken):
    """Where a bracket's label goes: (x of its start, its lines). Centred over [x1, x2] when it
    fits there; else starting at x1 (a little right of it, clear of a neighbour's end), or
    ending at x2, whichever stays inside the chart; else in
    two lines split at its colon. Never starting left of x1 unless it ends at x2, and never
    within 10 units of a label in `taken` [(from, to)]."""
    def free(a, b):
        return 8 <= a and b <= W - 8 and all(b + 10 <= a0 or a >= b0 + 10 for a0, b0 in taken)

    for lines in ([label], [p.strip() + (":" if k == 0 else "") for k, p in enumerate(label.split(":", 1))]):
        width = LABEL_EM * max(len(t) for t in lines)
        for lx in ((x1 + x2) / 2 - width / 2 if width <= x2 - x1 else None, x1 + 4, x2 - width):
            if lx is not None and free(lx, lx + width):
                return lx, lines
    return max(8, min(x1, W - 8 - LABEL_EM * len(label))), [label]


def sweep_chart(sw):
    """GB/s against n on log axes: stage 7, stage 8, CUB and the copy; the regions where the input
    fits in L2, where the time is about one launch (the latency floor) and where the input streams
    from DRAM (the bandwidth ceiling, the theoretical peak drawn as a line)."""
    ns = sw["ns"]
    kmin, kmax = math.log2(ns[0]), math.log2(ns[-1])
    peak = sw["gpu"].get("peak_gbps") if isinstance(sw["gpu"].get("peak_gbps"), (int, float)) else None
    l2 = sw["gpu"].get("l2_bytes") if isinstance(sw["gpu"].get("l2_bytes"), (int, float)) else None
    values = [sweep_value(sw, n, key, "gbps") for n in ns for key, _, _, _ in SWEEP_SERIES]
    values = [v for v in values if v and v > 0] + ([peak] if peak else [])
    lo = 10 ** math.floor(math.log10(min(values))) if values else 0.1
    hi = 10 ** math.ceil(math.log10(max(values) * 1.15)) if values else 1e4
    W, H, left, plot_top, bottom = 800, 470, 62, 112, 400
    plot_w = W - left - 214
    xs = lambda k: left + plot_w * (k - kmin) / ((kmax - kmin) or 1)
    ys = lambda v: bottom - (bottom - plot_top) * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
    svg = ['<svg class="kit-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" role="img" '
           'aria-label="GB/s against n on %s">' % (W, H, W, html.escape(sw["gpu"]["name"]))]
    svg.append('<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>'
               % (8, html.escape("GB/s against n, %s, %s (both axes logarithmic)" % (sw["gpu"]["name"], sw["date"]))))
    # regions: shaded columns in the plot, brackets with their names above it
    lat_end = latency_floor_end(sw)
    l2_k = math.log2(l2 / 4.0) if l2 else None
    regions = []   # (k from, k to, row of the bracket, label, fill or None, ink)
    if lat_end:
        regions.append((kmin, math.log2(lat_end) + 0.5, 0, "latency floor: time \u2248 one empty launch",
                        "#f6efe1", "#9a6a12"))
    if l2_k and l2_k > kmin:
        regions.append((kmin, min(l2_k, kmax), 1, "the input fits in L2 (%s)" % mib_text(l2), "#eaf3ea", "#2c6e2c"))
    if l2_k is not None and l2_k < kmax:
        regions.append((max(l2_k, kmin), kmax, 1, "bandwidth ceiling: the input streams from DRAM", None, "#555555"))
    placed_labels = {}   # bracket row -> [(x from, x to)] of the labels already placed
    for a, b, row, label, fill, ink in regions:
        x1, x2 = xs(a), xs(min(b, kmax))
        if fill:
            svg.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" opacity="%s"/>'
                       % (x1, plot_top, x2 - x1, bottom - plot_top, fill, "0.9" if row == 0 else "0.55"))
        by = 46 + 26 * row
        svg.append('<path d="M%.1f %d V%d H%.1f V%d" fill="none" stroke="%s" stroke-width="1.2"/>'
                   % (x1 + 1, by + 8, by, x2 - 1, by + 8, ink))
        # the label over its own bracket: centred where it fits; a longer one starts where its
        # bracket starts and runs on to the right (the margin right of the plot is free up
        # there), or ends where it ends; never over another bracket's label or past the chart
        lx, lines = label_place(label, x1, x2, W, placed_labels.get(row, []))
        for k, text in enumerate(lines):
            width = LABEL_EM * len(text)
            placed_labels.setdefault(row, []).append((lx, lx + width))
            svg.append('<text x="%.1f" y="%d" font-size="11.5" fill="%s">%s</text>'
                       % (lx, by - 4 - 14 * (len(lines) - 1 - k), ink, html.escape(text)))
    if l2_k and kmin < l2_k < kmax:
        svg.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#2c6e2c" stroke-dasharray="3 3"/>'
                   % (xs(l2_k), xs(l2_k), plot_top, bottom))
    # grid: decades of GB/s, every second power of two of n
    v = lo
    while v <= hi * 1.0001:
        svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e3e3e3"/>' % (left, left + plot_w, ys(v), ys(v)))
        svg.append('<text x="%d" y="%.1f" font-size="10.5" text-anchor="end" fill="#666">%s</text>'
                   % (left - 6, ys(v) + 4, ("%g" % v) if v < 1 else "{:,}".format(int(round(v)))))
        v *= 10
    for k in range(int(math.ceil(kmin)), int(kmax) + 1):
        x = xs(k)
        svg.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s"/>'
                   % (x, x, bottom, bottom + 4, "#333"))
        if (k - int(math.ceil(kmin))) % 2 == 0:
            svg.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>' % (x, bottom + 17, sup(k)))
    svg.append('<text x="%d" y="%d" font-size="11" text-anchor="middle" fill="#444">n, ints read (input of 4n bytes)</text>'
               % (left + plot_w / 2, bottom + 34))
    svg.append('<text x="14" y="%d" font-size="11" fill="#444" transform="rotate(-90 14 %d)" text-anchor="middle">'
               'GB/s</text>' % ((plot_top + bottom) / 2, (plot_top + bottom) / 2))
    labels = []   # (wanted y, text, colour)
    # the ceiling of a sum that costs one empty launch and nothing else: 4n bytes in the time of
    # the empty kernel measured at that n (the same launch figure the latency floor compares with)
    pts = []
    for n in ns:
        tl = sweep_value(sw, n, "launch")
        gb = 4.0 * n / (tl * 1e-3) / 1e9 if tl else None
        if gb and lo <= gb <= hi:
            pts.append("%.1f,%.1f" % (xs(math.log2(n)), ys(gb)))
    if len(pts) > 1:
        svg.append('<polyline points="%s" fill="none" stroke="#9a6a12" stroke-width="1.6" stroke-dasharray="2 3"/>'
                   % " ".join(pts))
        # its key in the bottom right corner, which no line reaches (large n, few GB/s), as wide
        # as its text (11 units a character at 0.58 em, on the safe side)
        key = "4n bytes in one empty launch at that n"
        kw = 36 + 11 * 0.58 * len(key) + 8
        kx, ky = left + plot_w - kw - 4, bottom - 30
        svg.append('<rect x="%.1f" y="%d" width="%.1f" height="26" fill="#ffffff" stroke="#dddddd"/>' % (kx, ky, kw))
        svg.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#9a6a12" stroke-width="1.6" '
                   'stroke-dasharray="2 3"/>' % (kx + 6, kx + 30, ky + 13, ky + 13))
        svg.append('<text x="%.1f" y="%d" font-size="11" fill="#9a6a12">%s</text>'
                   % (kx + 36, ky + 17, html.escape(key)))
    if peak:
        svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#555" stroke-width="1.4" stroke-dasharray="6 4"/>'
                   % (left, left + plot_w, ys(peak), ys(peak)))
        labels.append((ys(peak) + 4, "theoretical peak %.0f GB/s" % peak, "#555555"))
    for key, name, colour, width in reversed(SWEEP_SERIES):
        pts = [(math.log2(n), sweep_value(sw, n, key, "gbps"), sweep_value(sw, n, key)) for n in ns]
        pts = [(k, g, t) for k, g, t in pts if g and g > 0]
        if not pts:
            continue
        svg.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f" stroke-linejoin="round"/>'
                   % (" ".join("%.1f,%.1f" % (xs(k), ys(g)) for k, g, _ in pts), colour, width))
        for k, g, t in pts:
            svg.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"><title>%s</title></circle>'
                       % (xs(k), ys(g), width + 0.6, colour, html.escape("%s, n = %s: %.1f \u00b5s, %.0f GB/s"
                                                                          % (name, sup(int(k)), 1000 * t, g))))
        labels.append((ys(pts[-1][1]) + 4, "%s %.0f GB/s" % (name, pts[-1][1]), colour))
    placed = spread_labels([w for w, _, _ in labels], 14, plot_top, bottom)
    for (wanted, text, colour), ly in zip(labels, placed):
        svg.append('<polyline points="%d,%.1f %d,%.1f" fill="none" stroke="%s" stroke-width="1"/>'
                   % (left + plot_w + 2, wanted - 4, left + plot_w + 10, ly - 4, colour))
        svg.append('<text x="%d" y="%.1f" font-size="11" fill="%s">%s</text>' % (left + plot_w + 13, ly, colour,
                                                                                  html.escape(text)))
    svg.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>' % (left, left + plot_w, bottom, bottom))
    svg.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>' % (left, left, plot_top, bottom))
    svg.append('<text x="%d" y="%d" font-size="10.5" fill="#666">GB/s: 4n bytes of input per median time (the copy: '
               'read+write, 8n bytes). Latency floor: stage 8 takes at most %.1f times the empty launch at that n.</text>'
               % (8, H - 12, LATENCY_FACTOR))
    svg.append("</svg>")
    return "\n".join(svg)


def sweep_table(sw):
    """Per n: time and GB/s of stages 7 and 8, CUB and the copy, the empty launch, stage 8 / CUB."""
    l2 = sw["gpu"].get("l2_bytes") if isinstance(sw["gpu"].get("l2_bytes"), (int, float)) else None
    lat_end = latency_floor_end(sw)
    cols = (("7", "stage 7"), ("8", "stage 8"), ("CUB", "CUB"), ("copy", "copy"))
    out = ['<div class="kit-scroll"><table class="kit-results kit-sweep"><tr><th rowspan="2">n</th>%s'
           '<th rowspan="2">empty launch<br>&micro;s</th><th rowspan="2">stage 8<br>vs CUB</th></tr><tr>%s</tr>'
           % ("".join('<th colspan="2">%s</th>' % name for _, name in cols),
              "".join("<th>&micro;s</th><th>GB/s</th>" for _ in cols))]
    for n in sw["ns"]:
        cls = []
        if l2 and 4 * n <= l2:
            cls.append("kit-l2")
        if lat_end and n <= lat_end:
            cls.append("kit-latency")
        cells = []
        for key, _ in cols:
            t, g = sweep_value(sw, n, key), sweep_value(sw, n, key, "gbps")
            r = sw["by_n"][n].get(key)
            if r is not None and r.get("result") != "ok":
                cells.append('<td colspan="2" class="kit-bad">%s</td>' % html.escape(str(r.get("result"))))
            else:
                cells.append("<td>%s</td><td>%s</td>" % ("%.1f" % (1000 * t) if t else "-",
                                                          ("%.0f" % g if g >= 10 else "%.1f" % g) if g else "-"))
        tl = sweep_value(sw, n, "launch")
        ratio = sweep_ratio(sw, n)
        out.append('<tr%s><td>%s</td>%s<td>%s</td><td><b>%s</b></td></tr>'
                   % (' class="%s"' % " ".join(cls) if cls else "", size_text(n), "".join(cells),
                      "%.1f" % (1000 * tl) if tl else "-", "%.2fx" % ratio if ratio else "-"))
    out.append("</table></div>")
    return "\n".join(out)


def reps_text(sw):
    """How many runs each median is of: '200 runs at each n', or '200 runs up to 2<sup>20</sup>, 30
    above' where the sweep times large n fewer times."""
    spans = []   # [reps, first n, last n]
    for n in sw["ns"]:
        reps = sorted(set(r.get("reps") for r in sw["by_n"][n].values() if isinstance(r.get("reps"), (int, float))))
        if not reps:
            continue
        rep = int(max(reps))
        if spans and spans[-1][0] == rep:
            spans[-1][2] = n
        else:
            spans.append([rep, n, n])
    if not spans:
        return "? runs at each n"
    if len(spans) == 1:
        text = "%d runs at each n" % spans[0][0]
    elif len(spans) == 2:
        text = "%d runs up to %s, %d above" % (spans[0][0], size_text(spans[0][2]), spans[1][0])
    else:
        text = ", ".join("%d runs from %s to %s" % (rep, size_text(a), size_text(b)) for rep, a, b in spans)
    turns = sw.get("turns")
    if isinstance(turns, int) and turns > 1:  # the rows of an n were timed in turns (reduce_ladder --sweep)
        text += ", timed in %d turns in which the rows of an n take turns (a cell is the median of its turns)" % turns
    return text


def sweep_html(sweeps, runs, edition):
    """The stage 8 page's sweep: per GPU, the newest sweep's chart and table; a sentence when none."""
    if not sweeps:
        return ('<p class="kit-note kit-missing">No sweep is committed yet. <code>reduce_ladder --sweep --format json</code> '
                'on a GPU times stages 7 and 8, CUB, a copy and an empty kernel at every n from 2<sup>10</sup> to '
                '2<sup>28</sup>; %s</p>\n' % ("its output, committed as <code>docs/results/sweep-&lt;GPU&gt;-&lt;date&gt;.json"
                                             "</code>, appears here as a chart and a table." if edition == "instructor" else
                                             "your instructor's kit shows it here once measured."))
    out = []
    for sw in sweeps:
        source = ' <span class="kit-nowrap">(<code>%s</code>)</span>' % html.escape(sw["file"]) if edition == "instructor" else ""
        reps = reps_text(sw)
        out.append('<div class="kit-ladder"><p class="kit-run"><b>%s</b>, measured %s by <span class="kit-nowrap">'
                   '<code>reduce_ladder --sweep</code>:</span> n = %s to %s ints, %s threads per block, %s input, '
                   'median of %s%s</p>'
                   % (html.escape(sw["gpu"]["name"]), html.escape(sw["date"]), size_text(sw["ns"][0]),
                      size_text(sw["ns"][-1]), html.escape(str(sw.get("threads", "?"))),
                      html.escape(str(sw.get("pattern", "?"))), reps, source))
        out.append(sweep_chart(sw))
        out.append(sweep_table(sw))
        out.append("</div>")
    out.append('<p class="kit-note">&micro;s: the median time of one reduction (the copy: of one copy of the n ints). '
               'GB/s: 4n bytes per that time (the copy: 8n, read and written). <i>Stage 8 vs CUB</i>: CUB\'s time '
               'divided by stage 8\'s, above 1.00x where stage 8 is faster. Green rows: the input fits in the L2 '
               'cache; rows with a tan first cell: the latency floor, where stage 8 takes at most %.1f times the '
               'empty launch of the same row.</p>' % LATENCY_FACTOR)
    return "\n".join(out) + "\n"


def ladder_html(runs, stages, documented, edition, older):
    """The main page's charts and tables; a stage links to its page only where it has one."""
    out = []
    for r in runs:
        out.append('<div class="kit-ladder"><p class="kit-run">%s</p>' % run_text(r, edition))
        out.append(bar_chart(r, stages))
        out.append('<table class="kit-results"><tr><th>stage</th><th class="kit-text">what</th><th>time</th><th>GB/s</th>'
                   '<th>% of peak</th><th>step</th><th>vs stage 1</th><th>% of CUB</th><th>Harris, G80, vs stage 1</th></tr>')
        for s in stages:
            row = r["by_stage"].get(str(s["number"]))
            if not row:
                continue
            cell = ('<a href="stage%d.html">%d</a>' % (s["number"], s["number"]) if s["number"] in documented
                    else "%d" % s["number"])
            out.append('<tr><td>%s</td><td class="kit-text">%s</td><td>%s ms</td><td>%s</td><td>%s</td><td>%s</td>'
                       '<td><b>%s</b></td><td>%s</td><td>%s</td></tr>'
                       % (cell, html.escape(s["title"]), fmt(row["median_ms"], "%.4f"),
                          fmt(row["gbps"], "%.0f"), pct_text(percent_of_peak(r, row)), html.escape(row["step_speedup"]),
                          html.escape(row["cumulative_speedup"]), html.escape(row["percent_of_cub"]),
                          harris(s["number"])))
        for name in ("CUB", "copy"):
            row = r["by_stage"].get(name)
            if row:
                out.append('<tr class="kit-ref"><td>%s</td><td class="kit-text">%s</td><td>%s ms</td><td>%s</td><td>%s</td><td></td>'
                           '<td></td><td></td><td></td></tr>'
                           % (name, html.escape(row["title"]), fmt(row["median_ms"], "%.4f"), fmt(row["gbps"], "%.0f"),
                              pct_text(percent_of_peak(r, row))))
        out.append("</table>")
        out.append(counters_overview_html(r, stages))
        out.append("</div>")
    if older and edition == "instructor":
        out.append('<p class="kit-note">Older runs in <code>docs/results/</code>, not shown (each GPU shows its newest): %s.</p>'
                   % ", ".join("<code>%s</code>" % html.escape(r["file"]) for r in older))
    return "\n".join(out) + "\n"


def figure_aliases(runs, sweeps=(), stages=(), accuracy=(), float_stage=9, float_run=None, repeats=None):
    """Doxygen aliases for the figures the pages quote in their text, from the newest run of each
    GPU: \\H200_7_gbps (3778), \\H200_7_step (1.73x), \\H200_7_cumul (9.23x), \\H200_7_pct_cub
    (103%), \\H200_7_pct_peak (78%), \\H200_7_pct_copy (94%), \\H200_peak (4814), \\H200_date,
    \\H200_l2 (60 MiB), \\H200_n (2<sup>26</sup>), \\H200_mib (256 MiB), \\H200_n_over_l2 (4.3).
    The last stage of common/stages.def (stages) also under a name of its own: \\last_stage (its
    number) and \\H200_last_gbps, \\H200_last_pct_peak, ..., with the sections has_last_<GPU> and
    has_last_all where the newest runs measured it. stages: the int sums' (the last of them is the
    ladder's last step). accuracy: the newest accuracy run of each GPU (\\H100_acc_sequential_last, ...,
    sections accuracy_<GPU>, accuracy); float_run: KIT_FLOAT_RUN (\\kit_float_run). The course's
    example, 1 + 2 + ... + 10000 in float, is computed here: \\course_*."""
    lines = ["# Generated by docs/tools/docs_assets.py from the newest run of each GPU in docs/results/."]
    sections = []

    def alias(name, value):
        lines.append('ALIASES += %s="%s"' % (name, value.replace('"', '\\"')))

    for r in runs:
        g = r["short"]
        alias(g + "_name", r["gpu"]["name"])
        alias(g + "_date", r["date"])
        alias(g + "_n", size_text(r["n"]))
        alias(g + "_mib", mib_text(4 * r["n"]))
        alias(g + "_threads", str(r["threads"]))
        peak = r["gpu"].get("peak_gbps")
        if isinstance(peak, (int, float)) and peak > 0:
            alias(g + "_peak", "%.0f" % peak)
        l2 = r["gpu"].get("l2_bytes")
        if isinstance(l2, (int, float)) and l2 > 0:
            alias(g + "_l2", mib_text(l2))
            alias(g + "_n_over_l2", "%.1f" % (4.0 * r["n"] / l2))
        copy = r["by_stage"].get("copy")
        for key, row in r["by_stage"].items():
            if not ok_row(row):
                continue
            name = "%s_%s" % (g, alias_key(key))
            alias(name + "_gbps", "%.0f" % row["gbps"])
            alias(name + "_ms", "%.4f" % row["median_ms"])
            alias(name + "_time", time_text(row["median_ms"]))
            over = row.get("speedup_over_cpu", "-")
            if isinstance(over, str) and over.endswith("x"):
                alias(name + "_over_cpu", over)
            if percent_of_peak(r, row) is not None:
                alias(name + "_pct_peak", "%.0f%%" % percent_of_peak(r, row))
            if key.isdigit():
                if row.get("step_speedup", "-") != "-":
                    alias(name + "_step", row["step_speedup"])
                if row.get("cumulative_speedup", "-") != "-":
                    alias(name + "_cumul", row["cumulative_speedup"])
                pct = str(row.get("percent_of_cub", "-"))
                if pct.endswith("%"):
                    alias(name + "_pct_cub", "%.0f%%" % float(pct.rstrip("%")))
                if ok_row(copy):
                    alias(name + "_pct_copy", "%.0f%%" % (100.0 * row["gbps"] / copy["gbps"]))
        w = worth_figures(r)
        if w:
            sections.append("worth_" + g)
            for key, value in sorted(w.items()):
                alias("%s_worth_%s" % (g, key), value)
    # What the sweep test (check_sweeps.py) requires and where the latency floor ends, as the
    # stage 8 page quotes them: \sweep_mid_min (1.3), \sweep_mid_from (2<sup>14</sup>), ...
    alias("sweep_mid_min", "%g" % MID_MIN)
    alias("sweep_all_min", "%g" % ALL_MIN)
    for name, (a, b) in (("mid", MID_RANGE), ("all", ALL_RANGE)):
        alias("sweep_%s_from" % name, size_text(1 << a))
        alias("sweep_%s_to" % name, size_text(1 << b))
    alias("sweep_latency_factor", "%g" % LATENCY_FACTOR)
    for sw in sweeps:
        g = sw["short"]
        f = sweep_figures(sw)
        sections.append("sweep_" + g)
        for key, value in sorted(f.items()):
            alias("%s_sweep_%s" % (g, key), value)
    if float_run is not None:
        alias("kit_float_run", str(float_run))
    alias("kit_reproducible_runs", "%d" % repeats if repeats else "several")
    for key, value in sorted(course_example().items()):
        alias("course_" + key, value)
    for acc in accuracy:
        sections.append("accuracy_" + acc["short"])
        for key, value in sorted(accuracy_figures(acc, float_stage).items()):
            alias("%s_acc_%s" % (acc["short"], key), value)
    if accuracy:   # the float page quotes the first GPU's run under names of its own: \acc_gpu, \acc_...
        alias("acc_gpu", accuracy[0]["short"])
        for key, value in sorted(accuracy_figures(accuracy[0], float_stage).items()):
            alias("acc_" + key, value)
    if accuracy:
        sections.append("accuracy")
        if "neumaier_sum" in accuracy_figures(accuracy[0], float_stage):
            sections.append("acc_neumaier_stalled")   # the float page says why Neumaier's is worse there
    gpus = set(r["short"] for r in runs)
    if stages:
        last = str(stages[-1]["number"])
        alias("last_stage", last)
        for line in [ln for ln in lines if re.match(r'ALIASES \+= [A-Za-z0-9]+_%s_' % last, ln)]:
            lines.append(re.sub(r'^ALIASES \+= ([A-Za-z0-9]+)_%s_' % last, r"ALIASES += \1_last_", line))
        have = set(r["short"] for r in runs if ok_row(r["by_stage"].get(last)))
        sections.extend("has_last_%s" % g for g in sorted(have))
        if have == gpus:
            sections.append("has_last_all")
    stage_keys = sorted(set(k for r in runs for k, row in r["by_stage"].items() if k.isdigit() and ok_row(row)),
                        key=int)
    for k in stage_keys:
        have = set(r["short"] for r in runs if ok_row(r["by_stage"].get(k)))
        sections.extend("has_%s_%s" % (k, g) for g in sorted(have))
        if have == gpus:
            sections.append("has_%s_all" % k)   # every GPU's newest run measured stage k
    for what, have in (("worth", set(x[6:] for x in sections if x.startswith("worth_"))),
                       ("sweep", set(sw["short"] for sw in sweeps))):
        if have:
            sections.append(what)           # some GPU has it
        if have and gpus <= have:
            sections.append(what + "_all")  # every GPU the pages show has it
    lines.append("# Sections for the pages' \\if: has_<stage>_<GPU> and has_<stage>_all (the newest runs measured "
                 "the stage), worth_<GPU> (the CPU and copy rows of the ladder), "
                 "sweep_<GPU> (a sweep), worth/sweep (some GPU), worth_all/sweep_all (every GPU with a run), "
                 "accuracy_<GPU>/accuracy (an accuracy run of the float sums), acc_neumaier_stalled (in the first "
                 "of them, Neumaier's sum is worse than Kahan's at the largest n).")
    if sections:
        lines.append("ENABLED_SECTIONS += " + " ".join(sections))
    return "\n".join(lines) + "\n"


def float32(x):
    """x rounded to the nearest IEEE binary32 (ties to even), as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def float32_add(a, b):
    """a + b of two floats as the GPU and the CPU add them: the exact sum rounded once to the nearest
    float. In double the sum of two floats is exact unless their exponents differ by more than 29
    bits; then the smaller is below a quarter of the larger's float spacing, and rounding the double
    to float gives the larger, as the exact sum would."""
    return float32(a + b)


def running_float_sum(values):
    """The sum in index order in one float, s = s + x: (the sum, (k, exact) for the first add whose result
    had to be rounded, k counting from 1, or None when none was)."""
    s, first, exact = 0.0, None, 0
    for k, x in enumerate(values, 1):
        exact += x
        s = float32_add(s, float32(x))
        if first is None and s != exact:
            first = (k, exact)
    return s, first


def pairwise_float_sum(values):
    """The sum as a balanced tree of pairs, in float: the halves first, then their sum."""
    def tree(lo, hi):
        if hi - lo == 1:
            return float32(values[lo])
        mid = (lo + hi + 1) // 2
        return float32_add(tree(lo, mid), tree(mid, hi))
    return tree(0, len(values)) if values else 0.0


def course_example():
    """The course's example (seed 002): 1 + 2 + ... + 10000 in float, computed here as a CPU does it, one
    rounding to the nearest float after every add (float32_add), in index order and as a balanced tree
    of pairs. The page quotes these, never typed copies."""
    values = list(range(1, 10001))
    seq, first = running_float_sum(values)
    pair = pairwise_float_sum(values)
    exact = sum(values)
    return dict(n=str(len(values)), exact=str(exact), sequential="%d" % seq, pairwise="%d" % pair, error=str(exact - int(seq)),
                first_rounded_k=str(first[0]) if first else "none",
                first_rounded_sum=str(first[1]) if first else "none")


# ----------------------------------------------------------------------------- the stage pictures

# The launch each stage's picture draws: (threads per block, n, input pattern). Small launches,
# one block where one shows the stage, so the docs build stays quick (the emulator records every
# access). docs/pictures.md says what each shows.
#   1-4    64 threads (two warps: divergence and bank conflicts within and across warps), one
#          block (stage 4: two loads a thread); all ones, so a number counts the inputs it sums;
#   5, 6   256 threads, one block: stage 5's loop runs while s > 32, so a block of 64 would show
#          none of its steps; at 256, two (s = 128, 64) before the warp's shuffles;
#   7-9,12 64 threads, n = 2045: the launcher's two blocks (16 values a thread), each thread four
#          16-byte loads in flight, block 0's thread 0 the one int past the last whole int4, and
#          the blocks' meeting (stages 8 and 12 in one pass, the others in a second launch);
#          random values for the float sum and argmin (ties in [-8, 8]);
#   10, 11 64 threads, n = 83 random ints, one block: threads 0-19 load an int4 each and threads
#          0-2 the 3 ints past them (the minimum or maximum at the tail), lanes 20-31 and warp 1
#          read nothing and hand the tree the identity (MAX, MIN): what these stages change;
#   13, 14 64 matrices, one block: one matrix a thread, so warp 0's 9 loads are the ones that
#          touch the sectors; 15: 67 matrices, one group of 32 a warp and 3 left for block 0.
PICTURE_LAUNCH = {1: (64, 64, "ones"), 2: (64, 64, "ones"), 3: (64, 64, "ones"), 4: (64, 128, "ones"),
                  5: (256, 512, "ones"), 6: (256, 512, "ones"), 7: (64, 2045, "ones"), 8: (64, 2045, "ones"),
                  9: (64, 2045, "random"), 10: (64, 83, "random"), 11: (64, 83, "random"),
                  12: (64, 2045, "random"), 13: (64, 64, "random"), 14: (64, 64, "random"),
                  15: (64, 67, "random")}
# A stage that replaces one idea of the stage before with another is drawn beside it (the
# previous stage's block at the same launch, row by row): 1 -> 2 the thread for each add, 2 -> 3
# the words, 3 -> 4 the first add in the load, 4 -> 5 the last warp's steps, 5 -> 6 the loop,
# 6 -> 7 many loads a thread for one each, 7 -> 8 the blocks' atomics for a second launch, 10 ->
# 12 a value with its index for a value (stage 12's page starts from stage 10's minimum), 13 ->
# 14 -> 15 the matrices' layout and loads.
PICTURE_BESIDE = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 7, 12: 10, 14: 13, 15: 14}


def picture_launch(stage):
    """PICTURE_LAUNCH's row, or for a stage it does not name: 64 threads, two blocks and a tail."""
    default = "ones" if is_int_sum(stage) else "random"
    return PICTURE_LAUNCH.get(stage["number"], (64, 2 * 64 + 3, default))


def stage_trace(emulator, number, launch, path):
    """The emulator's trace of the reference solution of stage `number` for `launch`, written to path."""
    threads, n, pattern = launch
    args = [emulator, "--stage", str(number), "--impl", "solutions", "--threads", str(threads), "--n", str(n),
            "--pattern", pattern, "--trace", path]
    try:
        run = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    except OSError as exc:
        raise SystemExit("docs_assets.py: cannot run the emulator %s: %s" % (emulator, exc))
    if run.returncode != 0:
        raise SystemExit("docs_assets.py: %s failed (%d):\n%s" % (" ".join(args), run.returncode, run.stdout))
    doc = trace_picture.load(path)
    for r in doc["impls"][0]["runs"]:
        if r["status"] != "OK":
            raise SystemExit("docs_assets.py: stage %d's reference solution went wrong in the picture's launch "
                             "(%s): %s" % (number, " ".join(args), r["message"] or r["status"]))
    return doc


def stage_picture(emulator, out, stage, stages, documented):
    """The SVG of stage `stage`'s picture: its reference kernel's trace (traces/stage<K>.json), drawn
    by tools/trace_picture.py with no source text, beside the previous stage's where PICTURE_BESIDE
    says so (when that stage is documented in this edition)."""
    folder = os.path.join(out, "traces")
    os.makedirs(folder, exist_ok=True)
    launch = picture_launch(stage)
    doc = stage_trace(emulator, stage["number"], launch, os.path.join(folder, "stage%d.json" % stage["number"]))
    beside = None
    before = PICTURE_BESIDE.get(stage["number"])
    if before is not None and before in documented and any(x["number"] == before for x in stages):
        beside = stage_trace(emulator, before, launch,
                             os.path.join(folder, "stage%d-beside-%d.json" % (before, stage["number"])))
    return trace_picture.static_svg(doc, no_source=True, beside=beside)


def alias_key(key):
    """A row's name as part of an alias: 'cpu-omp' -> 'cpu_omp', 'best+copy' -> 'best_copy'."""
    return re.sub(r"[^A-Za-z0-9]+", "_", key).strip("_")


def time_text(ms):
    """A time with its unit, three figures or so: 21.4 ms, 0.104 ms, 7.1 &micro;s."""
    if ms >= 10:
        return "%.1f ms" % ms
    if ms >= 1:
        return "%.2f ms" % ms
    if ms >= 0.1:
        return "%.3f ms" % ms
    return "%.1f &micro;s" % (1000.0 * ms)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def parse_stages(text, stages):
    known = [s["number"] for s in stages]
    if text is None or not text.strip():
        return set(known)
    chosen = set()
    for part in re.split(r"[,;\s]+", text.strip()):
        if part and (not part.isdigit() or int(part) not in known):
            raise SystemExit("docs_assets.py: --stages: '%s' is not a stage of common/stages.def (%s)"
                             % (part, ",".join(map(str, known))))
        if part:
            chosen.add(int(part))
    return chosen


def copy_examples(src, out, stages, documented):
    """OUT/src: common/ and the released labs, the only code the student pages may quote."""
    root = os.path.join(out, "src")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "common"))
    for name in sorted(os.listdir(os.path.join(src, "common"))):
        if os.path.isfile(os.path.join(src, "common", name)):
            shutil.copy2(os.path.join(src, "common", name), os.path.join(root, "common", name))
    for s in stages:
        if s["number"] in documented:
            os.makedirs(os.path.join(root, "labs", s["dir"]))
            shutil.copy2(os.path.join(src, "labs", s["dir"], s["name"] + ".cu"),
                         os.path.join(root, "labs", s["dir"], s["name"] + ".cu"))


TODO_MARKER = re.compile(r"^(\s*)//\s*\[(todo[\w-]*)\]\s*(TODO.*)$")


def todo_copies(src, out, stages, documented):
    """OUT/todo/<dir>/<name>.cu: each documented lab with the first line of each TODO moved off its
    [todo] marker line. \\snippet leaves out the lines that carry the marker, and the labs put the
    TODO's first line there: the pages' "Your task" quotes todo/<dir>/<name>.cu, and shows it all."""
    root = os.path.join(out, "todo")
    shutil.rmtree(root, ignore_errors=True)
    for s in stages:
        if s["number"] not in documented:
            continue
        with open(os.path.join(src, "labs", s["dir"], s["name"] + ".cu"), encoding="utf-8") as f:
            lines = f.read().split("\n")
        copy = []
        for line in lines:
            m = TODO_MARKER.match(line)
            copy.extend(["%s// [%s]" % (m.group(1), m.group(2)), "%s// %s" % (m.group(1), m.group(3))] if m else [line])
        os.makedirs(os.path.join(root, s["dir"]))
        write(os.path.join(root, s["dir"], s["name"] + ".cu"), "\n".join(copy))


def stage_page_aliases(stages, documented, runs):
    """What the stage pages of this edition say about each other and about the counters page:
    \\next_stage<K>, the line that ends stage K's page (the next stage this edition documents, and the
    stages between that are later labs), and the section counters_<K> where some run has hardware
    counters of stage K (the counters page has a section for it, and stage K's page links it)."""
    lines, sections = ["# The stage pages' links (docs_assets.py stage_page_aliases)."], []
    numbers = [s["number"] for s in stages]
    for s in stages:
        k = s["number"]
        if k not in documented:
            continue
        later = [m for m in numbers if m > k and m in documented]
        if later:
            skipped = [m for m in numbers if k < m < later[0]]
            text = "Next: \\ref stage%d" % later[0]
            if skipped:
                text += " (%s)" % ("stage %d is a later lab" % skipped[0] if len(skipped) == 1 else
                                   "stages %d-%d are later labs" % (skipped[0], skipped[-1]))
            text += "."
        elif k != numbers[-1]:
            text = "This is the last stage handed out so far; stage %d is a later lab." % numbers[numbers.index(k) + 1]
        else:
            text = "This is the last stage. Back to the \\ref index \"overview\"."
        lines.append('ALIASES += next_stage%d="%s"' % (k, text.replace('"', '\\"')))
        before = compared_with(s, stages)
        keys = [str(before["number"]), str(k)] if before else [str(k)]
        if any(counters_of(r["by_stage"].get(x)) for r in runs for x in keys):
            sections.append("counters_%d" % k)
    if sections:
        lines.append("ENABLED_SECTIONS += " + " ".join(sections))
    return "\n".join(lines) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description="Generates the documentation's pictures, diffs and tables.")
    ap.add_argument("source_dir")
    ap.add_argument("out")
    ap.add_argument("--edition", choices=("instructor", "student"),
                    default=os.environ.get("KIT_DOCS_EDITION") or "instructor")
    ap.add_argument("--stages", default=os.environ.get("KIT_DOCS_STAGES"),
                    help="the stages to document, e.g. 1,2,3 (default: all of common/stages.def)")
    ap.add_argument("--closed", default=os.environ.get("KIT_DOCS_CLOSED"),
                    help="student edition: the stages closed (their answers may show), e.g. 1,2,3")
    ap.add_argument("--kit", default=os.environ.get("KIT_DOCS_KIT") or None,
                    help="the kit's description, kit.json (default: SOURCE_DIR described by its own generator)")
    ap.add_argument("--emulator", default=os.environ.get("KIT_DOCS_EMULATOR") or None,
                    help="reduce_ladder_emu, whose traces of the reference kernels the stage pictures draw")
    args = ap.parse_args(argv)
    src, out = args.source_dir, args.out
    os.makedirs(out, exist_ok=True)
    stages = read_stages(src, load_description(args.kit) if args.kit else describe(src))
    documented = parse_stages(args.stages, stages) if args.edition == "student" else \
        set(s["number"] for s in stages)
    closed = parse_stages(args.closed, stages) if args.edition == "student" and args.closed else set()
    if args.edition == "instructor" and args.stages and parse_stages(args.stages, stages) != documented:
        raise SystemExit("docs_assets.py: the instructor edition documents every stage; --stages is for "
                         "--edition student")
    global STAGE7_SOURCE
    seven = [x for x in stages if x["number"] == 7]
    STAGE7_SOURCE = os.path.join(src, "solutions", seven[0]["dir"], seven[0]["name"] + ".cu") if seven else None
    results = load_results(src)
    runs = newest_runs(results)
    older = [r for r in results if not any(r is n for n in runs)]
    if not args.emulator:
        raise SystemExit("docs_assets.py: the stage pictures are drawn from the CPU emulator's traces: give "
                         "--emulator PATH (reduce_ladder_emu; KIT_DOCS_EMULATOR)")
    int_stages = [s for s in stages if is_int_sum(s)]
    floats = [s for s in stages if s["type"] == "KIT_FLOAT" and s["op"] == "KIT_SUM"]
    float_stage = floats[0]["number"] if floats else 9
    float_run = kit_float_run(src)
    accuracy = newest_accuracy(load_accuracy(src, float_stage))
    written = set()
    shutil.rmtree(os.path.join(out, "traces"), ignore_errors=True)   # a smaller release leaves none behind
    for k, s in enumerate(stages):
        if s["number"] not in documented:
            continue
        svg = stage_picture(args.emulator, out, s, stages, documented)
        name = "stage%d.svg" % s["number"]
        write(os.path.join(out, name), svg)
        written.add(name)
        before = compared_with(s, stages)
        if before is not None:
            name = "changes-stage%d.html" % s["number"]
            if args.edition == "instructor":
                write(os.path.join(out, name), changes_html(before, s, src))
            else:
                prev = before if before["number"] in documented else None
                write(os.path.join(out, name), lab_changes_html(prev, s, src, before["number"],
                                                                closed=before["number"] in closed))
            written.add(name)
        name = "results-stage%d.html" % s["number"]
        write(os.path.join(out, name), stage_results_html(s, runs) if is_int_sum(s) else
              problem_results_html(s, runs, stages))
        written.add(name)
        name = "counters-stage%d.html" % s["number"]
        write(os.path.join(out, name), counters_html(s, runs, before["number"] if before else 0))
        written.add(name)
        if s in matrix_stages(stages):
            name = "matrices-stage%d.html" % s["number"]
            write(os.path.join(out, name), matrices_html(stages, runs, s["number"], documented))
            written.add(name)
    # The main page's ladder is the int sums' (stages 1-8); the other stages have pages of their own.
    write(os.path.join(out, "ladder.html"), ladder_html(runs, int_stages, documented, args.edition, older))
    sweeps = newest_sweeps(load_sweeps(src))
    write(os.path.join(out, "sweep.html"), sweep_html(sweeps, runs, args.edition))
    write(os.path.join(out, "worth.html"), worth_html(runs, args.edition))
    write(os.path.join(out, "accuracy.html"), accuracy_html(accuracy, args.edition, float_stage, float_run))
    write(os.path.join(out, "figures.doxy"), figure_aliases(runs, sweeps, int_stages, accuracy, float_stage,
                                                             float_run, reproducible_runs(src)) +
          stage_page_aliases(stages, documented, runs) + grading_aliases(stages))
    todo_copies(src, out, stages, documented)
    # what an earlier, larger set of stages left behind
    for name in os.listdir(out):
        if re.match(r"(stage\d+\.svg|(changes|results|counters|matrices)-stage\d+\.html)$", name) and \
                name not in written:
            os.remove(os.path.join(out, name))
    if args.edition == "student":
        copy_examples(src, out, stages, documented)
    else:
        shutil.rmtree(os.path.join(out, "src"), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Generates what the documentation shows that must not drift from the code and the data.

Reads common/stages.def, the stage files and every ladder result in docs/results/*.json,
and writes into OUT (the build folder, never the source tree), for each stage documented:
  stage<K>.svg           the picture of stage K (docs/tools/stage_picture.py runs the reference
                         kernel of solutions/; a picture of the algorithm, with no code in it)
  changes-stage<K>.html  the code difference from stage K-1 to stage K, from the real files
  results-stage<K>.html  the measured numbers of stage K, one row per result file
  ladder.html            bar charts and tables of every result file, for the main page
Two editions, one script:
  instructor  (default) every stage; the differences are solution K-1 -> solution K.
  student     the stages of --stages only. The differences are lab K-1 -> lab K, both
              skeletons from labs/, so they never contain the answer to stage K's TODO (when
              stage K-1 is not handed out, the fragment says so and shows lab K's kernel and
              launcher alone; the first stage has no fragment in either edition, its page
              quotes its lab through \snippet). The ladder links only the pages that exist. OUT/src/ receives a copy of common/ and of the released labs: the
              student Doxyfile's EXAMPLE_PATH, which cannot reach solutions/. Nothing generated
              names a file a student does not have (the pictures' captions, the ladder's
              result files).
Files of stages no longer documented are removed from OUT, so a smaller release leaves no
stale pictures or copies behind.
Usage: docs_assets.py SOURCE_DIR OUT [--edition instructor|student] [--stages 1,2,3]
--edition and --stages default to the environment variables KIT_DOCS_EDITION and
KIT_DOCS_STAGES (set by docs/CMakeLists.txt), and else to instructor and all stages.
"""
import argparse
import difflib
import glob
import html
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stage_picture  # noqa: E402

# Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007): GeForce 8800 GTX (G80),
# 2^22 ints, cumulative speedup of kernels 2..7 over kernel 1.
HARRIS_G80 = {1: "1.00x", 2: "2.33x", 3: "4.68x", 4: "8.34x", 5: "15.0x", 6: "21.2x", 7: "30.0x"}


def read_stages(src):
    with open(os.path.join(src, "common", "stages.def"), encoding="utf-8") as f:
        text = f.read()
    stages = []
    for m in re.finditer(r'^KIT_STAGE\((\d+),\s*(\w+),\s*(\w+),\s*"([^"]*)"', text, re.M):
        stages.append(dict(number=int(m.group(1)), dir=m.group(2), name=m.group(3), title=m.group(4)))
    if not stages:
        raise SystemExit("docs_assets.py: no KIT_STAGE lines in common/stages.def")
    return stages


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
            marks = [k for k, ln in enumerate(block) if todo and TODO_LINE.search(ln)]
            begin = 0
            for k in marks:
                context(block[begin:k])
                out.append('<span class="ctx">  %s</span>' % html.escape(block[k]))
                begin = k + 1
            context(block[begin:])
            continue
        for ln in old[i1:i2]:
            out.append('<span class="del">- %s</span>' % html.escape(ln))
            removed += 1
        for ln in new[j1:j2]:
            out.append('<span class="add">+ %s</span>' % html.escape(ln))
            added += 1
    # one <span> per line, display:block in kit.css, so no newlines between them inside <pre>
    out = [out[0]] + ["".join(out[1:])]
    out.append("</pre><div class=\"kit-diff-head\">%d lines removed, %d added (lines that differ only in "
               "comments or in the kernel's name count as unchanged)</div></div>" % (removed, added))
    return "\n".join(out) + "\n"


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
            out.append(indent + "// ... (the rest of this TODO block: see \"Your task\" below)")
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


def lab_changes_html(prev, cur, src):
    """Student edition: what changed around stage cur's TODO, from the two skeletons in labs/.

    prev is the previous stage when it is handed out too, else None. Only lab files are
    shown: the previous lab's TODO is empty there and the current lab's TODO is a comment, so
    the answer to stage cur's TODO cannot be in it (a previous stage's answer can, where
    lab cur carries it: the note says so).
    """
    here = "<code>%s</code>" % file_name("labs", cur)
    if prev is None:
        before = cur["number"] - 1
        return ('<p class="kit-edition">Stage %d is not part of this hand-out, so there is no previous lab to '
                'compare with. These are the kernel and launcher you start from, %s; the TODO comments mark '
                'what you write.</p>\n' % (before, here)) + listing_html(cur, src)
    old, new = kernel_and_launcher(src, "labs", prev), kernel_and_launcher(src, "labs", cur)
    shown_old, shown_new = fold_todo(old), fold_todo(new)
    # Does lab cur carry the answer to prev's TODO? (Allowed: prev is handed out already.)
    sol_prev = os.path.join(src, "solutions", prev["dir"], prev["name"] + ".cu")
    answer = set(" ".join(ln.split()) for ln in snippet(sol_prev, "todo") if ln.strip()
                 and not ln.strip().startswith(("//", "/*", "*")))
    carried = answer and answer <= set(" ".join(ln.split()) for ln in new)
    note = (" Where stage %d's lab had its TODO, this lab has that stage's reference answer, so you "
            "build on a correct stage %d." % (prev["number"], prev["number"])) if carried else ""
    intro = ('<p class="kit-edition">You start from %s. Here is what changed since the previous lab, '
             '<code>%s</code>, computed from the two skeletons when this page was built: the TODO comments '
             'mark what you write, everything else is given.%s</p>\n' % (here, file_name("labs", prev), note))
    return intro + diff_html(shown_old, shown_new, prev, cur,
                             ("%s &rarr; %s" % (file_name("labs", prev), file_name("labs", cur)),
                              "the two labs' kernel and launcher, each TODO block shortened to its first line"),
                             todo=True)


def load_results(src):
    results = []
    for path in sorted(glob.glob(os.path.join(src, "docs", "results", "*.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            rows = dict((str(r["stage"]), r) for r in data["rows"])
            data["gpu"]["name"], data["date"], data["n"], data["threads"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SystemExit("docs_assets.py: %s is not a ladder result (%s)" % (path, exc))
        data["by_stage"] = rows
        data["file"] = os.path.relpath(path, src)
        results.append(data)
    if not results:
        raise SystemExit("docs_assets.py: no ladder results in docs/results/*.json")
    return results


def size_text(n):
    k = n.bit_length() - 1
    return "2<sup>%d</sup>" % k if n == 1 << k else str(n)


def run_text(r, edition):
    """One measurement's GPU, date and settings; the instructor edition adds its result file (a
    student edition has no docs/results/: the main page says the instructor's kit measured it)."""
    source = " (<code>%s</code>)" % html.escape(r["file"]) if edition == "instructor" else ""
    return ("%s, measured %s by <code>reduce_ladder</code>: n = %s ints, %d threads per block, %s input, "
            "median of %d runs%s"
            % (html.escape(r["gpu"]["name"]), html.escape(r["date"]), size_text(r["n"]), r["threads"],
               html.escape(r.get("pattern", "?")), r.get("reps", 0), source))


def fmt(v, spec):
    return spec % v if isinstance(v, (int, float)) else html.escape(str(v))


def stage_results_html(stage, results):
    k = str(stage["number"])
    out = ['<table class="kit-results"><tr><th>GPU</th><th>date</th><th>n, threads</th><th>time</th>'
           '<th>GB/s</th><th>%s</th><th>vs stage 1</th><th>share of CUB</th><th>copy ceiling</th>'
           '<th>Harris, G80 (2007), vs stage 1</th></tr>'
           % ("vs stage %d" % (stage["number"] - 1) if stage["number"] > 1 else "step")]
    for r in results:
        row = r["by_stage"].get(k)
        copy = r["by_stage"].get("copy")
        if row is None:
            continue
        out.append("<tr><td>%s</td><td>%s</td><td>%s, %d</td><td>%s ms</td><td><b>%s</b></td><td>%s</td>"
                   "<td>%s</td><td>%s</td><td>%s GB/s</td><td>%s</td></tr>"
                   % (html.escape(r["gpu"]["name"]), html.escape(r["date"]), size_text(r["n"]), r["threads"],
                      fmt(row["median_ms"], "%.4f"), fmt(row["gbps"], "%.0f"), html.escape(row["step_speedup"]),
                      html.escape(row["cumulative_speedup"]), html.escape(row["percent_of_cub"]),
                      fmt(copy["gbps"], "%.0f") if copy else "-", HARRIS_G80[stage["number"]]))
    out.append("</table>")
    return "\n".join(out) + "\n"


def bar_chart(r, stages):
    """An SVG bar chart of GB/s per stage, with CUB and the copy as reference lines."""
    rows = [(s["number"], s["title"], r["by_stage"].get(str(s["number"]))) for s in stages]
    ref = [(name, r["by_stage"].get(name)) for name in ("CUB", "copy")]
    values = [row["gbps"] for _, _, row in rows if row] + [row["gbps"] for _, row in ref if row]
    top = max(values) * 1.12
    W, H, left, bottom, plot_top = 800, 330, 64, 270, 40
    plot_w = W - left - 200
    ys = lambda v: bottom - (bottom - plot_top) * v / top
    svg = ['<svg class="kit-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" '
           'role="img" aria-label="GB/s per stage on %s">' % (W, H, W, html.escape(r["gpu"]["name"]))]
    svg.append('<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>'
               % (left, html.escape("GB/s per stage, %s, %s" % (r["gpu"]["name"], r["date"]))))
    step = 500 if top > 2000 else 100 if top > 400 else 20
    v = 0
    while v <= top:
        svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e3e3e3"/>' % (left, left + plot_w, ys(v), ys(v)))
        svg.append('<text x="%d" y="%.1f" font-size="10" text-anchor="end" fill="#666">%d</text>' % (left - 6, ys(v) + 3, v))
        v += step
    bw = plot_w / len(rows)
    for k, (num, title, row) in enumerate(rows):
        x = left + k * bw + bw * 0.18
        if row:
            g = row["gbps"]
            ok = row.get("result") == "ok"
            svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>'
                       % (x, ys(g), bw * 0.64, bottom - ys(g), "#3b6fb6" if ok else "#d62728",
                          html.escape("stage %d, %s: %.0f GB/s" % (num, title, g))))
            svg.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%.0f</text>'
                       % (x + bw * 0.32, ys(g) - 4, g))
        svg.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">stage %d</text>'
                   % (x + bw * 0.32, bottom + 15, num))
    colors = {"CUB": "#2c7a2c", "copy": "#d62728"}
    labels = {"CUB": "CUB", "copy": "copy (read+write)"}
    for name, row in ref:
        if row:
            y = ys(row["gbps"])
            svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.6" stroke-dasharray="6 4"/>'
                       % (left, left + plot_w, y, y, colors[name]))
            dy = -4 if name == "copy" else 12
            svg.append('<text x="%d" y="%.1f" font-size="11" fill="%s">%s %.0f GB/s</text>'
                       % (left + plot_w + 6, y + dy, colors[name], labels[name], row["gbps"]))
    svg.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>' % (left, left + plot_w, bottom, bottom))
    svg.append('<text x="%d" y="%d" font-size="10" fill="#666">bytes of input read per second (n &#215; 4 bytes / '
               'median time); the copy moves 2 &#215; n &#215; 4 bytes</text>' % (left, bottom + 36))
    svg.append("</svg>")
    return "\n".join(svg)


def ladder_html(results, stages, documented, edition):
    """The main page's charts and tables; a stage links to its page only where it has one."""
    out = []
    for r in results:
        out.append('<div class="kit-ladder"><p class="kit-run">%s</p>' % run_text(r, edition))
        out.append(bar_chart(r, stages))
        out.append('<table class="kit-results"><tr><th>stage</th><th>what</th><th>time</th><th>GB/s</th>'
                   '<th>step</th><th>vs stage 1</th><th>share of CUB</th><th>Harris, G80, vs stage 1</th></tr>')
        for s in stages:
            row = r["by_stage"].get(str(s["number"]))
            if not row:
                continue
            cell = ('<a href="stage%d.html">%d</a>' % (s["number"], s["number"]) if s["number"] in documented
                    else "%d" % s["number"])
            out.append('<tr><td>%s</td><td>%s</td><td>%s ms</td><td>%s</td><td>%s</td>'
                       '<td><b>%s</b></td><td>%s</td><td>%s</td></tr>'
                       % (cell, html.escape(s["title"]), fmt(row["median_ms"], "%.4f"),
                          fmt(row["gbps"], "%.0f"), html.escape(row["step_speedup"]),
                          html.escape(row["cumulative_speedup"]), html.escape(row["percent_of_cub"]),
                          HARRIS_G80[s["number"]]))
        for name in ("CUB", "copy"):
            row = r["by_stage"].get(name)
            if row:
                out.append('<tr class="kit-ref"><td>%s</td><td>%s</td><td>%s ms</td><td>%s</td><td></td><td></td>'
                           '<td></td><td></td></tr>' % (name, html.escape(row["title"]),
                                                        fmt(row["median_ms"], "%.4f"), fmt(row["gbps"], "%.0f")))
        out.append("</table></div>")
    return "\n".join(out) + "\n"


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


def main(argv):
    ap = argparse.ArgumentParser(description="Generates the documentation's pictures, diffs and tables.")
    ap.add_argument("source_dir")
    ap.add_argument("out")
    ap.add_argument("--edition", choices=("instructor", "student"),
                    default=os.environ.get("KIT_DOCS_EDITION") or "instructor")
    ap.add_argument("--stages", default=os.environ.get("KIT_DOCS_STAGES"),
                    help="the stages to document, e.g. 1,2,3 (default: all of common/stages.def)")
    args = ap.parse_args(argv)
    src, out = args.source_dir, args.out
    os.makedirs(out, exist_ok=True)
    stages = read_stages(src)
    documented = parse_stages(args.stages, stages) if args.edition == "student" else \
        set(s["number"] for s in stages)
    if args.edition == "instructor" and args.stages and parse_stages(args.stages, stages) != documented:
        raise SystemExit("docs_assets.py: the instructor edition documents every stage; --stages is for "
                         "--edition student")
    results = load_results(src)
    # A student has neither docs/tools/ nor solutions/: the picture says what was run, not where.
    note = stage_picture.SOURCE_NOTE if args.edition == "instructor" else \
        "Drawn when these pages were built, by running the stage's reference kernel for one block."
    written = set()
    for k, s in enumerate(stages):
        if s["number"] not in documented:
            continue
        path = os.path.join(src, "solutions", s["dir"], s["name"] + ".cu")
        try:
            svg, _, problems = stage_picture.picture(path, s["number"], s["title"], note=note)
        except (OSError, stage_picture.StageCodeError, stage_picture.SimError, SyntaxError) as exc:
            print("docs_assets.py: cannot draw %s: %s" % (path, exc), file=sys.stderr)
            return 1
        name = "stage%d.svg" % s["number"]
        write(os.path.join(out, name), svg)
        written.add(name)
        if k > 0:
            name = "changes-stage%d.html" % s["number"]
            if args.edition == "instructor":
                write(os.path.join(out, name), changes_html(stages[k - 1], s, src))
            else:
                prev = stages[k - 1] if stages[k - 1]["number"] in documented else None
                write(os.path.join(out, name), lab_changes_html(prev, s, src))
            written.add(name)
        name = "results-stage%d.html" % s["number"]
        write(os.path.join(out, name), stage_results_html(s, results))
        written.add(name)
    write(os.path.join(out, "ladder.html"), ladder_html(results, stages, documented, args.edition))
    # what an earlier, larger set of stages left behind
    for name in os.listdir(out):
        if re.match(r"(stage\d+\.svg|(changes|results)-stage\d+\.html)$", name) and name not in written:
            os.remove(os.path.join(out, name))
    if args.edition == "student":
        copy_examples(src, out, stages, documented)
    else:
        shutil.rmtree(os.path.join(out, "src"), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

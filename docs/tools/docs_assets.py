#!/usr/bin/env python3
"""Generates what the documentation shows that must not drift from the code and the data.

Reads common/stages.def, the solution files and every ladder result in docs/results/*.json,
and writes into OUT (the build folder, never the source tree):
  stage<K>.svg           the picture of stage K (docs/tools/stage_picture.py runs the kernel)
  changes-stage<K>.html  the code difference from stage K-1 to stage K, from the real files
  results-stage<K>.html  the measured numbers of stage K, one row per result file
  ladder.html            bar charts and tables of every result file, for the main page
Usage: docs_assets.py SOURCE_DIR OUT
"""
import difflib
import glob
import html
import json
import os
import re
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


def changes_html(prev, cur, src):
    """A colour diff of the kernel and launcher of stage prev -> cur (the real files)."""
    def code(stage):
        path = os.path.join(src, "solutions", stage["dir"], stage["name"] + ".cu")
        return snippet(path, "kernel") + [""] + snippet(path, "launcher")

    old, new = code(prev), code(cur)
    def norm(lines, name):
        """What is compared: the code without comments and with the kernel's name blanked."""
        out = []
        for ln in lines:
            ln = re.sub(r"/\*.*?\*/|//.*", "", ln.replace(name, "NAME")).rstrip()
            out.append(ln)
        return out
    sm = difflib.SequenceMatcher(None, norm(old, prev["name"]), norm(new, cur["name"]), autojunk=False)
    out = ['<div class="kit-diff"><div class="kit-diff-head">solutions/%s/%s.cu &rarr; solutions/%s/%s.cu'
           ' (kernel and launcher; <span class="del">&minus; removed</span>, <span class="add">+ added</span>)</div><pre>'
           % (prev["dir"], prev["name"], cur["dir"], cur["name"])]
    added = removed = 0
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            block = new[j1:j2]
            if len(block) > 7:
                for ln in block[:2]:
                    out.append('<span class="ctx">  %s</span>' % html.escape(ln))
                out.append('<span class="skip">  &#8942; %d unchanged lines</span>' % (len(block) - 4))
                for ln in block[-2:]:
                    out.append('<span class="ctx">  %s</span>' % html.escape(ln))
            else:
                for ln in block:
                    out.append('<span class="ctx">  %s</span>' % html.escape(ln))
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


def run_text(r):
    return ("%s, measured %s by <code>reduce_ladder</code>: n = %s ints, %d threads per block, %s input, "
            "median of %d runs (<code>%s</code>)"
            % (html.escape(r["gpu"]["name"]), html.escape(r["date"]), size_text(r["n"]), r["threads"],
               html.escape(r.get("pattern", "?")), r.get("reps", 0), html.escape(r["file"])))


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


def ladder_html(results, stages):
    out = []
    for r in results:
        out.append('<div class="kit-ladder"><p class="kit-run">%s</p>' % run_text(r))
        out.append(bar_chart(r, stages))
        out.append('<table class="kit-results"><tr><th>stage</th><th>what</th><th>time</th><th>GB/s</th>'
                   '<th>step</th><th>vs stage 1</th><th>share of CUB</th><th>Harris, G80, vs stage 1</th></tr>')
        for s in stages:
            row = r["by_stage"].get(str(s["number"]))
            if not row:
                continue
            out.append('<tr><td><a href="stage%d.html">%d</a></td><td>%s</td><td>%s ms</td><td>%s</td><td>%s</td>'
                       '<td><b>%s</b></td><td>%s</td><td>%s</td></tr>'
                       % (s["number"], s["number"], html.escape(s["title"]), fmt(row["median_ms"], "%.4f"),
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


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    src, out = argv
    os.makedirs(out, exist_ok=True)
    stages = read_stages(src)
    results = load_results(src)
    for k, s in enumerate(stages):
        path = os.path.join(src, "solutions", s["dir"], s["name"] + ".cu")
        try:
            svg, _, problems = stage_picture.picture(path, s["number"], s["title"])
        except (OSError, stage_picture.StageCodeError, stage_picture.SimError, SyntaxError) as exc:
            print("docs_assets.py: cannot draw %s: %s" % (path, exc), file=sys.stderr)
            return 1
        write(os.path.join(out, "stage%d.svg" % s["number"]), svg)
        if k > 0:
            write(os.path.join(out, "changes-stage%d.html" % s["number"]), changes_html(stages[k - 1], s, src))
        write(os.path.join(out, "results-stage%d.html" % s["number"]), stage_results_html(s, results))
    write(os.path.join(out, "ladder.html"), ladder_html(results, stages))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Checks that each stage's picture draws what its trace holds.

A stage page's picture is tools/trace_picture.py's drawing of the CPU emulator's trace of the
reference kernel (docs_assets.py writes both into the docs' generated folder: stage<K>.svg and
traces/stage<K>.json). Nothing expected is typed in here: what the picture must show is read
from the trace itself, so the check holds for any kernel:
  - the block drawn (block 0 of the first launch) shuffles: warp 0's shuffles are drawn, an
    arrow from lane to lane (class shfl), as many rows as shuffles of its first ladder;
  - its threads load global memory: warp 0's loads are drawn as 32-byte sectors (class sector),
    with the width of each thread's loads;
  - the counters count bank conflicts, or the block's shared requests have some: the conflicting
    words are marked (class conflict) and the banks numbered (class bank);
  - the run has more than one block or launch: the blocks' meeting is drawn;
  - docs_assets.PICTURE_BESIDE names a stage before it: that stage is drawn beside it;
  - no source text: no line of the reference solution's kernel is in the picture.
Then, as proof that the check can fail, it breaks copies of the pictures one way at a time (the
shuffle arrows left out, the previous stage not beside, a line of the solution written in) and
must see each reported.
Usage: check_stage_pictures.py GEN_DIR K...   (exit 1 and one line per problem when any)
"""
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import docs_assets  # noqa: E402
import trace_picture  # noqa: E402


def classes(svg):
    return set(c for m in re.finditer(r'class="([^"]*)"', svg) for c in m.group(1).split())


def texts(svg):
    return [trace_picture.html.unescape(m.group(1)) for m in re.finditer(r"<text[^>]*>([^<]*)</text>", svg)]


STAGES = []


def solution_lines(number):
    """The kernel lines of stage `number`'s solution that say something (10 characters or more)."""
    if not STAGES:
        STAGES.extend(docs_assets.read_stages(ROOT))
    for s in STAGES:
        if s["number"] == number:
            path = os.path.join(ROOT, "solutions", s["dir"], s["name"] + ".cu")
            with open(path, encoding="utf-8") as f:
                lines = [l.strip() for l in f.read().split("\n")]
            return [l for l in lines if len(l.replace(" ", "")) >= 10 and not l.startswith(("*", "/*", "//"))
                    and re.search(r"[=(\[]", l)]
    return []


def check(gen, number):
    problems = []
    svg_path = os.path.join(gen, "stage%d.svg" % number)
    trace_path = os.path.join(gen, "traces", "stage%d.json" % number)
    for path in (svg_path, trace_path):
        if not os.path.exists(path):
            return ["stage %d: %s is missing (build the docs first)" % (number, path)]
    with open(svg_path, encoding="utf-8") as f:
        svg = f.read()
    doc = trace_picture.load(trace_path)
    run = doc["impls"][0]["runs"][0]
    trace = run["trace"]
    blocks = trace["launches"][0]["blocks"]
    zero = [b for b in blocks if b["index"] == [0, 0, 0]] or blocks[:1]
    events = zero[0]["events"]
    have = classes(svg)
    words = texts(svg)
    name = "stage %d" % number
    shuffles = [e for e in events if e[2] == "warp" and e[4].startswith("__shfl") and e[0] < 32]
    if shuffles and "shfl" not in have:
        problems.append("%s: block 0's warp 0 shuffles (%d lane-shuffles), but no shuffle arrow is drawn" % (name, len(shuffles)))
    if shuffles:
        rows = len([w for w in words if re.match(r"^(down|up|xor|lane) \d+$", w)])
        if rows == 0:
            problems.append("%s: no row of the shuffles is labelled with its lane distance" % name)
    arrays = trace["arrays"]
    loads = [e for e in events if e[2] == "ld" and e[0] < 32 and 0 <= e[3] < len(arrays)
             and arrays[e[3]]["space"] == "global"]
    if loads:
        if "sector" not in have:
            problems.append("%s: warp 0 loads global memory, but no sector is drawn" % name)
        widths = sorted(set(e[5] for e in loads))
        joined = " ".join(words)
        for w in widths:
            if not re.search(r"\bloads? of %d bytes" % w, joined):
                problems.append("%s: the loads of %d bytes are not said with their width" % (name, w))
    counted = run.get("counters") or {}
    block_conflicts = False
    for ph in trace_picture.block_phases(trace, 0, blocks.index(zero[0])):
        if trace_picture.shared_requests(ph)[1] > 1:
            block_conflicts = True
    if block_conflicts and "conflict" not in have:
        problems.append("%s: block 0 has bank conflicts (%d counted in the launch), none is drawn" % (
            name, counted.get("shared_bank_conflicts", 0)))
    if "conflict" in have and "bank" not in have:
        problems.append("%s: bank conflicts are drawn, but the banks are not numbered" % name)
    if len(trace["launches"]) > 1 or len(blocks) > 1:
        if not any(w.startswith("Between the blocks") for w in words):
            problems.append("%s: %d launches, %d blocks in the first, but the blocks' meeting is not drawn" % (
                name, len(trace["launches"]), len(blocks)))
    before = docs_assets.PICTURE_BESIDE.get(number)
    if before is not None and not {"Stage %d (the previous stage)" % before,
                                   "Stage %d (the stage this one changes)" % before} & set(words):
        problems.append("%s: stage %d is not drawn beside it" % (name, before))
    shown = "\n".join(words)
    flat = re.sub(r"\s+", "", shown)
    for line in solution_lines(number):
        if re.sub(r"\s+", "", line.rstrip(";{")) in flat:
            problems.append("%s: the picture shows a line of the solution: %s" % (name, line))
    return problems


def proof(gen, numbers):
    """Each fault, made in a copy of one picture, must be reported: [] when they all are."""
    def shuffles(k):
        with open(os.path.join(gen, "stage%d.svg" % k), encoding="utf-8") as f:
            return 'class="shfl"' in f.read()
    faults = []
    shuffling = [k for k in numbers if shuffles(k)]
    beside = [k for k in numbers if k in docs_assets.PICTURE_BESIDE]
    if shuffling:
        faults.append((shuffling[0], lambda svg: svg.replace('class="shfl"', ""), "no shuffle arrow is drawn"))
    if beside:
        faults.append((beside[0], lambda svg: svg.replace("(the previous stage)", "(before)"), "is not drawn beside it"))
    lines = solution_lines(numbers[0])
    if lines:
        faults.append((numbers[0], lambda svg: svg.replace("</svg>", '<text x="1" y="1" font-size="11">%s</text></svg>'
                                                           % trace_picture.esc(lines[0])),
                       "shows a line of the solution"))
    missed = []
    for k, spoil, expected in faults:
        tmp = tempfile.mkdtemp(prefix="check_stage_pictures_")
        try:
            os.makedirs(os.path.join(tmp, "traces"))
            shutil.copy(os.path.join(gen, "traces", "stage%d.json" % k), os.path.join(tmp, "traces"))
            with open(os.path.join(gen, "stage%d.svg" % k), encoding="utf-8") as f:
                svg = spoil(f.read())
            with open(os.path.join(tmp, "stage%d.svg" % k), "w", encoding="utf-8") as f:
                f.write(svg)
            if not any(expected in line for line in check(tmp, k)):
                missed.append("the check missed a fault made in stage %d's picture: it should say '%s'" % (k, expected))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return missed, len(faults)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    gen = argv[1]
    numbers = [int(k) for k in argv[2:]]
    bad = []
    for k in numbers:
        bad += check(gen, k)
    if not bad:
        missed, made = proof(gen, numbers)
        bad += missed
    for line in bad:
        print(line)
    if not bad:
        print("every picture (stages %s) draws what its trace holds; the %d faults made in copies were each reported"
              % (", ".join(argv[2:]), made))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

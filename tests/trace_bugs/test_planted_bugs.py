#!/usr/bin/env python3
"""A picture of a lab with a planted bug draws the mistake where it happened.

Usage: test_planted_bugs.py BUG PICTURE_PROGRAM OUT_DIR
BUG: missing_barrier, wrong_tail_bound, lost_ties or missing_fence. Runs the program (reduce_ladder's
--picture code on the bug's stage file, picture_of_a_lab.c) with --picture and --trace, then checks
the trace (the error is recorded, at lines of the bug's own file that do what the mistake is about),
the drawing (the frame of that step shows it) and the geometry of every drawing it made
(tools/trace_geometry.py). Nothing expected is typed in: sizes and lines come from the trace and
the stage file.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import trace_geometry  # noqa: E402
import trace_picture  # noqa: E402

STAGE = {"missing_barrier": 3, "wrong_tail_bound": 3, "lost_ties": 12, "missing_fence": 8}


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def source_line(doc, line):
    lines = doc["impls"][0]["source_lines"]
    if not isinstance(line, int) or not lines or not 0 < line <= len(lines):
        fail("line %r is not a line of the lab's file" % (line,))
    return lines[line - 1]


def frames_with(doc, kind):
    """(view, step, error) of every drawn frame of the lab that shows an error of this kind."""
    found = []
    for v in trace_picture.views(doc):
        if v["impl"] != 0:
            continue
        for s, frame in enumerate(v["frames"]):
            for err in frame["errors"]:
                if err[0] == kind:
                    found.append((v, s, err))
    return found


def check_geometry(doc, out):
    bad = []
    for v in trace_picture.views(doc):
        for s, frame in enumerate(v["frames"]):
            bad += trace_geometry.problems(frame["svg"], "impl %d run %d launch %d block %d step %d" % (
                v["impl"], v["run"], v["launch"], v["block"], s + 1))
    svg = trace_picture.static_svg(doc)
    with open(out + ".svg", "w") as f:
        f.write(svg)
    bad += trace_geometry.problems(svg, "the static SVG")
    if bad:
        fail("the drawings break the geometry rules:\n  " + "\n  ".join(bad[:20]))


def main():
    bug, program, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    args = [program, "--stage", str(STAGE[bug]), "--impl", "labs", "--compare", "--picture", out + ".html",
            "--trace", out + ".json"]
    if bug == "lost_ties":
        args += ["--pattern", "ties"]
    if bug == "missing_fence":
        # This file's own launcher gives a block to every 64 ints (the lab's gives 16 a thread, and
        # the picture's default n follows the reference's): 131 ints, three blocks, all drawn.
        args += ["--threads", "64", "--n", "131"]
    run = subprocess.run(args, capture_output=True, text=True, timeout=100)
    if run.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(args), run.returncode, run.stderr))
    if not os.path.getsize(out + ".html"):
        fail("no picture")
    with open(out + ".json") as f:
        doc = json.load(f)
    lab = doc["impls"][0]
    if lab["impl"] != "labs" or doc["impls"][1]["impl"] != "solutions":
        fail("--compare should give the lab, then the reference")
    if doc["impls"][1]["source_lines"] is not None:
        fail("the reference solution's source text is in the trace")
    errors = [(run, e) for run in lab["runs"] for e in run["trace"]["errors"]]
    # A drawing of a wrong kernel must not read like a pass: the command's last line says so.
    wrong = [r for r in lab["runs"] if r["status"] != "OK"]
    said = re.search(r"(\d+) of the (\d+) runs drawn went wrong", run.stderr)
    if wrong and not (said and int(said.group(1)) == len(wrong) and int(said.group(2)) == len(lab["runs"])):
        fail("%d of %d runs went wrong, but the command said: %s" % (len(wrong), len(lab["runs"]), run.stderr))

    if bug == "missing_barrier":
        races = [e for _, e in errors if e["kind"] == "race"]
        if not races:
            fail("no race recorded in %d runs" % len(lab["runs"]))
        for race in races:
            a, b = race["accesses"]
            if a["thread"] == b["thread"] or "st" not in (a["op"], b["op"]):
                fail("a race needs two threads and a store: %r" % race)
            for acc in (a, b):
                if "sdata" not in source_line(doc, acc["line"]):
                    fail("the race's line %d does not touch sdata" % acc["line"])
        if not frames_with(doc, "race") or "race" not in "".join(
                f["svg"] for v, s, _ in frames_with(doc, "race") for f in [v["frames"][s]]):
            fail("no frame draws the racing word")
    elif bug == "wrong_tail_bound":
        for run in lab["runs"]:
            past = [e for e in run["trace"]["errors"] if e["kind"] == "past_the_end"]
            arrays = run["trace"]["arrays"]
            hits = [e for e in past if arrays[e["array"]]["name"] == "in" and e["offset"] // 4 == run["n"]]
            if not hits:
                fail("%d threads: no read of in[%d] (one past the end) recorded" % (run["threads"], run["n"]))
            if "in[" not in source_line(doc, hits[0]["accesses"][0]["line"]):
                fail("the read past the end is not drawn at the line that reads in[]")
        shown = frames_with(doc, "past_the_end")
        if not shown or "past the end of in" not in shown[0][2][1]:
            fail("no frame says the read went past the end of in")
    elif bug == "lost_ties":
        if all(run["status"] == "OK" for run in lab["runs"]):
            fail("the lab that loses ties gave the right index at every block size")
        shown = frames_with(doc, "lost_tie")
        if not shown:
            fail("no frame draws the shuffle that kept the larger of two tied indices")
        line = int(shown[0][2][1].rsplit("line ", 1)[1].split(":")[0])
        if "__shfl" not in source_line(doc, line):
            fail("the lost tie is drawn at line %d, which is no shuffle" % line)
    elif bug == "missing_fence":
        stale = [e for _, e in errors if e["kind"] == "stale_read"]
        if not stale:
            fail("no stale read recorded")
        store, load = stale[0]["accesses"]
        if store["op"] not in ("st", "atom") or load["op"] != "ld" or store["value"] == load["value"]:
            fail("a stale read is a load that missed a store's value: %r" % stale[0])
        if stale[0]["stored_by_block"] == stale[0]["block"]:
            fail("the store and the stale load are in the same block")
        if not frames_with(doc, "stale_read"):
            fail("no frame draws the stale read")
    check_geometry(doc, out)
    print("ok: %s drawn where it happened; every drawing passes the geometry check" % bug)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A picture of a lab with a planted bug draws the mistake where it happened.

Usage: test_planted_bugs.py BUG PICTURE_PROGRAM OUT_DIR
       test_planted_bugs.py --grade BUG PICTURE_PROGRAM BUILD KIT_GRADE GRADE_REPORT KIT_GRADE_ARGS...
       (the picture a failed emulated grade of the lab leaves: grade_main())
BUG: missing_barrier, wrong_tail_bound, lost_ties, missing_fence, ticket_without_fence_device,
last_block_by_index or lost_update (stage 8's blocks meeting through __device__ variables);
device_variable_forms is a right lab 8 whose __device__ variables take each shape of declaration. Runs the program (reduce_ladder's
--picture code on the bug's stage file, picture_of_a_lab.c) with --picture and --trace, then checks
the trace (the error is recorded, at lines of the bug's own file that do what the mistake is about),
the drawing (the frame of that step shows it) and the geometry of every drawing it made
(tools/trace_geometry.py). Nothing expected is typed in: sizes and lines come from the trace and
the stage file.
"""
import base64
import gzip
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

STAGE = {"missing_barrier": 3, "wrong_tail_bound": 3, "lost_ties": 12, "missing_fence": 8,
         "ticket_without_fence_device": 8, "last_block_by_index": 8, "lost_update": 8,
         "device_variable_forms": 8}


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


def device_variable(doc, run, name):
    """The trace's array for the lab's __device__ variable `name`, checked against its declaration."""
    found = [a for a in run["trace"]["arrays"] if a["name"] == name]
    if not found or found[0]["space"] != "device":
        fail("%d threads: no __device__ variable %s in the trace's arrays: %r" % (
            run["threads"], name, [(a["name"], a["space"]) for a in run["trace"]["arrays"]]))
    declared = source_line(doc, found[0]["line"])
    # __device__, or a macro of the file that holds it (DEVICE_VAR)
    if not re.search(r"__device__|\b[A-Z][A-Z_]+\b", declared) or not re.search(r"\b%s\b" % name, declared):
        fail("%s is said to be declared at line %d: %r" % (name, found[0]["line"], declared))
    return found[0]


def page_meetings(out):
    """The drawings of the blocks' meeting that the page --picture wrote holds (its gzip'd data)."""
    with open(out + ".html") as f:
        text = f.read()
    data = re.search(r'<script id="data" type="application/octet-stream">([^<]*)</script>', text)
    if not data:
        fail("the page has no data")
    return json.loads(gzip.decompress(base64.b64decode(data.group(1).strip())))["meetings"]


def meeting_texts(doc, run_index, out):
    """The texts of the page's drawing of the blocks' meeting for the lab's run, and its red ones."""
    found = [m for m in page_meetings(out) if m["impl"] == 0 and m["run"] == run_index and m["launch"] == 0]
    if not found:
        fail("the page draws no meeting of the blocks for run %d" % run_index)
    svg = found[0]["svg"]
    texts = [trace_picture.html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    red = [trace_picture.html.unescape(t) for t in re.findall(r'<text[^>]*fill="%s"[^>]*>([^<]*)</text>' % trace_picture.C_BAD,
                                                           svg)]
    bad = trace_geometry.problems(svg, "the meeting of run %d" % run_index)
    if bad:
        fail("the meeting's drawing breaks the geometry rules:\n  " + "\n  ".join(bad[:20]))
    return texts, red, svg


def check_meeting(doc, run_index, name, error_kind, out, op="atom"):
    """Every block's atomic (op "atom"; "st": store) on `name` is drawn in the order the blocks ran,
    with the value it left, and the read that went wrong (error_kind) is drawn red at its line, in
    its block."""
    run = doc["impls"][0]["runs"][run_index]
    trace = run["trace"]
    var = device_variable(doc, run, name)
    aid = trace["arrays"].index(var)
    blocks = trace["launches"][0]["blocks"]
    if len(blocks) < 2:
        fail("%d threads: %d block drawn, nothing meets" % (run["threads"], len(blocks)))
    texts, red, svg = meeting_texts(doc, run_index, out)
    joined = "\n".join(texts)
    writes = [(b, e) for b in blocks for e in b["events"] if e[2] == op and e[3] == aid]
    if len({b["index"][0] for b, _e in writes}) < len(blocks):
        fail("%d threads: %d %s on %s recorded for %d blocks" % (run["threads"], len(writes), op, name, len(blocks)))
    for b, e in writes:
        made = source_line(doc, e[7])
        if ("atomicAdd(&%s" % name if op == "atom" else "%s =" % name) not in made:
            fail("the %s on %s is recorded at line %d: %r" % (op, name, e[7], made))
        left = trace_picture.value_text(trace["arrays"], aid, e[8] if op == "atom" else e[6], e[5])
        drawn = ("thread %d's atomic on %s leaves" if op == "atom" else "thread %d stores %s =") % (e[0], name)
        if drawn not in joined or left not in texts:
            fail("the meeting does not draw block %d's %s leaving %s:\n%s" % (b["index"][0], drawn, left, joined))
    # the blocks in the order they ran, each with its own box
    order = [int(t.split()[1]) for t in texts if re.fullmatch(r"block \d+", t)]
    if order != [b["index"][0] for b in blocks]:
        fail("the meeting draws the blocks %r, the trace ran %r" % (order, [b["index"][0] for b in blocks]))
    errs = [e for e in trace["errors"] if e["kind"] == error_kind and e["launch"] == 0]
    if not errs:
        fail("%d threads: no %s recorded" % (run["threads"], error_kind))
    err = errs[0]
    load = err["accesses"][1] if error_kind == "stale_read" else err["accesses"][0]
    said = " ".join(red)
    if "line %d" % load["line"] not in said or err_word(trace, err) not in said:
        fail("no red text names %s and line %d:\n%r" % (err_word(trace, err), load["line"], red))
    block = blocks[err["block"]]["index"][0]
    # the red row sits in the block's rows: after its box, before the next block's
    at = svg.index(">block %d<" % block)
    nxt = [svg.index(">block %d<" % b["index"][0]) for b in blocks if svg.index(">block %d<" % b["index"][0]) > at]
    row = svg.find('fill="%s"' % trace_picture.C_BAD, at)
    if row < 0 or (nxt and row > min(nxt)):
        fail("the red row is not in block %d's rows" % block)
    return err, load


def err_word(trace, err):
    return trace_picture.err_element(trace["arrays"], err)


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
    if bug in ("missing_fence", "device_variable_forms"):
        # This file's own launcher gives a block to every 64 ints (the lab's gives 16 a thread, and
        # the picture's default n follows the reference's): 131 ints, three blocks, all drawn.
        args += ["--threads", "64", "--n", "131"]
    # The trace's name is relative to the folder the command runs in, as a student gives it.
    folder, name = os.path.split(os.path.abspath(out))
    args[args.index(out + ".json")] = name + ".json"
    run = subprocess.run(args, capture_output=True, text=True, timeout=100, cwd=folder)
    if run.returncode not in (0, 1):
        fail("%s exited %d: %s" % (" ".join(args), run.returncode, run.stderr))
    if not os.path.getsize(out + ".html"):
        fail("no picture")
    with open(out + ".json") as f:
        doc = json.load(f)
    # The line that names the trace names a file that is there, from any folder.
    said_trace = re.search(r"wrote the trace of stage \d+ \(labs\) to (\S+)\n", run.stderr)
    if not said_trace or not os.path.isabs(said_trace.group(1)) or \
            os.path.realpath(said_trace.group(1)) != os.path.realpath(out + ".json"):
        fail("the command does not say where the trace is (%s): %s" % (out + ".json", run.stderr))
    lab = doc["impls"][0]
    # --help: exit status 1 if any run gave a wrong answer, --picture's runs too (after drawing).
    wrong_runs = [r for r in lab["runs"] if r["status"] != "OK"]
    if run.returncode != (1 if wrong_runs else 0):
        fail("%d of the lab's %d runs went wrong, and the command exited %d: %s" % (
            len(wrong_runs), len(lab["runs"]), run.returncode, run.stderr))
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
    elif bug == "ticket_without_fence_device":
        # The blocks meet through two __device__ variables: a ticket counter and an array of sums.
        for ri, run in enumerate(lab["runs"]):
            if run["status"] == "OK":
                fail("%d threads: the lab without its fence gave the right sum" % run["threads"])
            device_variable(doc, run, "block_sums")
            tickets = [e for b in run["trace"]["launches"][0]["blocks"] for e in b["events"]
                       if e[2] == "atom" and run["trace"]["arrays"][e[3]]["name"] == "blocks_done"]
            if [(e[6], e[8]) for e in tickets] != [(k, k + 1) for k in range(len(tickets))]:
                fail("the tickets on blocks_done, in the order the blocks ran, are not 0, 1, 2, ...: %r" % (
                    [(e[6], e[8]) for e in tickets],))
            err, load = check_meeting(doc, ri, "blocks_done", "stale_read", out)
            arrays = run["trace"]["arrays"]
            if arrays[err["array"]]["name"] != "block_sums" or arrays[err["array"]]["space"] != "device":
                fail("the stale read is not of the __device__ array block_sums: %r" % err)
            store = err["accesses"][0]
            if "block_sums[" not in source_line(doc, load["line"]) or "block_sums[" not in source_line(doc, store["line"]):
                fail("the stale read's lines %d and %d do not touch block_sums" % (load["line"], store["line"]))
            if err["stored_by_block"] == err["block"] or store["value"] == load["value"]:
                fail("a stale read is another block's store, missed: %r" % err)
            last = run["trace"]["launches"][0]["blocks"][err["block"]]
            if err["block"] != len(run["trace"]["launches"][0]["blocks"]) - 1 or last is None:
                fail("the stale read is not in the block that ran last (the one that took the last ticket)")
        if not [f for f in frames_with(doc, "stale_read") if "block_sums[" in f[2][1]]:
            fail("no frame names block_sums in its stale read")
    elif bug == "last_block_by_index":
        for ri, run in enumerate(lab["runs"]):
            if run["status"] == "OK":
                fail("%d threads: the lab that takes the last index for the last block gave the right sum" % run["threads"])
            err, load = check_meeting(doc, ri, "blocks_and_sum", "early_read", out)
            blocks = run["trace"]["launches"][0]["blocks"]
            grid = run["trace"]["launches"][0]["grid"][0]
            if blocks[err["block"]]["index"][0] != grid - 1:
                fail("the early read is in block %d, not in the last index %d" % (blocks[err["block"]]["index"][0], grid - 1))
            later = err["accesses"][1]
            if err["written_by_block"] <= err["block"] or later["op"] != "atom":
                fail("an early read is followed by a later block's atomic: %r" % err)
            text = source_line(doc, load["line"])
            if "blocks_and_sum" not in text or "atomicAdd" in text:
                fail("the early read is drawn at line %d, which does not load blocks_and_sum: %r" % (load["line"], text))
        if not frames_with(doc, "early_read"):
            fail("no frame draws the early read")
    elif bug == "device_variable_forms":
        # every __device__ variable the kernel touches is named where the build step can tell;
        # two names in one declaration and a __constant__ are not recorded
        named = ["meetings", "arrived", "block_sums", "last_sum", "tickets", "declared_later", "aligned_total"]
        for run in lab["runs"]:
            if run["status"] != "OK":
                fail("%d threads: the right lab went wrong: %s" % (run["threads"], run["message"]))
            if run["trace"]["errors"]:
                fail("%d threads: a right kernel's trace holds errors: %r" % (run["threads"], run["trace"]["errors"]))
            for name in named:
                var = device_variable(doc, run, name)
                aid = run["trace"]["arrays"].index(var)
                if not any(e[3] == aid for b in run["trace"]["launches"][0]["blocks"] for e in b["events"]
                           if e[2] in ("ld", "st", "atom")):
                    fail("%d threads: no access of %s recorded" % (run["threads"], name))
            declared_at = source_line(doc, device_variable(doc, run, "declared_later")["line"])
            if "extern" in declared_at:
                fail("declared_later is said to be declared at its extern declaration: %r" % declared_at)
            for name in ("first", "second", "scale", "zero"):
                if any(a["name"] == name for a in run["trace"]["arrays"]):
                    fail("%s is recorded, which docs/trace_format.md says is not" % name)
            sizes = {a["name"]: a["bytes"] for a in run["trace"]["arrays"] if a["space"] == "device"}
            if sizes["block_sums"] != 4096 or sizes["last_sum"] != 16 or sizes["meetings"] != 8 or \
                    sizes["aligned_total"] != 16:
                fail("the variables' sizes are wrong: %r" % sizes)
    elif bug == "lost_update":
        for ri, run in enumerate(lab["runs"]):
            if run["status"] == "OK":
                fail("%d threads: the lab without its atomic gave the right sum" % run["threads"])
            err, load = check_meeting(doc, ri, "blocks_and_sum", "stale_read", out, op="st")
            store = err["accesses"][0]
            if "blocks_and_sum" not in source_line(doc, load["line"]) or \
                    "blocks_and_sum =" not in source_line(doc, store["line"]):
                fail("the lost update is drawn at lines %d and %d" % (load["line"], store["line"]))
        shown = [f for f in frames_with(doc, "stale_read") if f[2][1].startswith("lost update of blocks_and_sum")]
        if not shown:
            fail("no frame calls the stale read of blocks_and_sum a lost update: %r" % (
                [f[2][1] for f in frames_with(doc, "stale_read")],))
        if "atomic" not in shown[0][2][1] or "__threadfence" in shown[0][2][1]:
            fail("the lost update's words should name the atomic, not a fence: %r" % shown[0][2][1])
    check_geometry(doc, out)
    if bug == "device_variable_forms":
        print("ok: a right lab 8's __device__ variables are named at their declarations; its drawings pass the "
              "geometry check")
    else:
        print("ok: %s drawn where it happened; every drawing passes the geometry check" % bug)


def grade_main():
    """--grade BUG PICTURE_PROGRAM BUILD KIT_GRADE GRADE_REPORT KIT_GRADE_ARGS...: the lab graded on the
    emulator as a student's is (BUILD/runners/run_labs_stageK_emu, BUILD/reduce_ladder_emu the bug's
    picture program), then the picture its failure left: of a case that went wrong, in words that say
    which, the same in the report."""
    import shutil
    import time
    bug, program, build, kit_grade, grade_report = sys.argv[2:7]
    rest = sys.argv[7:]
    stage = STAGE[bug]
    results = os.path.join(build, "grade")
    shutil.rmtree(results, ignore_errors=True)
    os.makedirs(os.path.join(results, "logs"))
    lab = os.path.join(build, "lab", "%s_stage%d.cu" % (bug, stage))
    os.makedirs(os.path.dirname(lab), exist_ok=True)
    shutil.copyfile(os.path.join(HERE, "%s_stage%d.cu" % (bug, stage)), lab)
    old = time.time() - 3600  # the lab is older than the program that draws it (else: no picture)
    os.utime(lab, (old, old))
    shutil.copyfile(program, os.path.join(build, "reduce_ladder_emu"))
    os.chmod(os.path.join(build, "reduce_ladder_emu"), 0o755)
    with open(os.path.join(build, "CMakeCache.txt"), "w") as f:  # where tools/trace_picture.py is
        f.write("CMAKE_HOME_DIRECTORY:INTERNAL=%s\n" % ROOT)
    args = [kit_grade, "emulated"] + rest + ["--source", lab, "--shown", "lab%d.cu" % stage, "--results", results,
                                             "--logs", os.path.join(results, "logs")]
    run = subprocess.run(args, capture_output=True, text=True, timeout=280)
    out = run.stdout + run.stderr
    if run.returncode != 1:
        fail("the grade of the lab with the %s exited %d, not 1:\n%s" % (bug, run.returncode, out))
    first = re.search(r"First failure: .*?n = (\d+), (\d+) threads, (\S+) input", out)
    if not first:
        fail("the grade names no first failure:\n" + out)
    said = re.search(r"^picture: (\S+) \(your kernel (.*)\)$", run.stdout, re.M)
    if not said:
        fail("the grade left no picture:\n" + out)
    with open(os.path.join(results, "stage%d.picture" % stage)) as f:
        note = f.read().rstrip("\n").split("\t")
    if len(note) != 5:
        fail("the picture's note says nothing of how its run went: %r (%s)" % (note, said.group(0)))
    page, n, threads, pattern, drawn = note
    if drawn not in ("first", "smallest", "like"):
        fail("the picture's run of the lab went %s: %s" % ("right" if drawn == "right" else "unsaid (%r)" % drawn,
                                                          said.group(0)))
    if drawn == "first" and (n, threads, pattern) != first.groups():
        fail("the picture is said to be of the failing case (n = %s, %s threads, %s), which is n = %s, %s threads, %s" % (
            n, threads, pattern, *first.groups()))
    if drawn == "first" and "in the failing case (n = %s, %s threads, pattern %s), which went wrong again" % (
            n, threads, pattern) not in said.group(2):
        fail("the grade's line does not say the picture is of the failing case: " + said.group(0))
    if int(n) > 1 << 14 or not 64 <= int(threads) <= 256 or not os.path.getsize(page):
        fail("the picture is of n = %s, %s threads: %s" % (n, threads, page))
    report = subprocess.run([grade_report, "--results", results, "--stages", str(stage)], capture_output=True,
                            text=True, timeout=60)
    text = " ".join(report.stdout.split())
    if "Picture of your kernel" not in text or page not in text or "which went wrong" not in text or \
            "small run of that case" in text:
        fail("the report does not say what the picture drew:\n" + report.stdout)
    print("ok: the failed grade's picture is of a case that went wrong (%s: n = %s, %s threads, pattern %s); the "
          "first failure was n = %s, %s threads" % (drawn, n, threads, pattern, first.group(1), first.group(2)))


if __name__ == "__main__":
    if sys.argv[1] == "--grade":
        grade_main()
    else:
        main()

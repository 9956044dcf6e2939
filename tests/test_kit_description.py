#!/usr/bin/env python3
"""The kit's description (common/kit_description.cmake, kit.json) follows its inputs:
  test_kit_description.py --kit KIT --cmake cmake --work WORK [--build-description BUILD/kit.json]

On a copy of common/stages.def, common/problems.c and tests/grader/grading.conf, run as a script
(cmake -P, no configure):
  1. the kit's own inputs: every stage, its problem in words, its baseline, and test names
     that say both (stage 12: ..._exact_argmin_..., ..._over_reference_stage_12);
  2. stage 12's operator changed to KIT_MAX and that problem renamed "int maximum" in the
     table, stage 12's correctness worth 7 and every speedup part 3: the description says so,
     its problem, test names, points and parts, and what the CPU emulator can award
     (emulated_points: correctness and sanitizer; with emulated.full_marks = scale, scaled to
     the stage's full marks); the CUDA version of the reference (reference_cuda) as given, or
     as a student edition's edition.cmake says;
  3. a stage whose type and operator are no row of the problem table, a points line and an
     emulated.full_marks it cannot read, stop it with a message;
and, given the build's kit.json (configure wrote it), its stages are what the script writes
for the same files.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys


def fail(text):
    print("FAILED: " + text)
    sys.exit(1)


def describe(args, source, output, config=None, expect_failure=None, more=()):
    command = [args.cmake, "-DSOURCE=" + source, "-DOUTPUT=" + output] + list(more)
    if config:
        command.append("-DGRADING_CONFIG=" + config)
    command += ["-P", os.path.join(source, "common", "kit_description.cmake")]
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if expect_failure is not None:
        if run.returncode == 0 or expect_failure not in run.stdout:
            fail("expected the generator to fail saying %r; it exited %d:\n%s" % (expect_failure, run.returncode, run.stdout))
        return None
    if run.returncode != 0:
        fail("the generator failed:\n" + run.stdout)
    with open(output) as f:
        return json.load(f)


def stage(d, k):
    return next(s for s in d["stages"] if s["number"] == k)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kit", required=True)
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--work", required=True)
    parser.add_argument("--build-description")
    args = parser.parse_args()
    kit = os.path.abspath(args.kit)
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    copy = os.path.join(work, "kit")
    for path in ("common/stages.def", "common/problems.c", "common/kit_description.cmake", "tests/grader/grading.conf"):
        os.makedirs(os.path.dirname(os.path.join(copy, path)), exist_ok=True)
        shutil.copy(os.path.join(kit, path), os.path.join(copy, path))
    bad = []

    print("== 1. the kit's own inputs")
    d = describe(args, copy, os.path.join(work, "kit.json"))
    rows = [l for l in open(os.path.join(kit, "common", "stages.def")) if l.startswith("KIT_STAGE(")]
    if [s["number"] for s in d["stages"]] != list(range(1, len(rows) + 1)) or d["released"] != list(range(1, len(rows) + 1)):
        bad.append("stages %s, released %s: expected every row of stages.def" % ([s["number"] for s in d["stages"]], d["released"]))
    want = {
        1: ("int sum", 1, "stage1_gives_the_exact_sum_at_every_size_block_size_and_input",
            "stage1_reaches_the_required_speedup_over_reference_stage_1"),
        9: ("float sum", 9, "stage9_gives_the_float_sum_within_its_error_bound_at_every_size_block_size_and_input",
            "stage9_reaches_the_required_speedup_over_reference_stage_9"),
        12: ("int argmin", 12, "stage12_gives_the_exact_argmin_at_every_size_block_size_and_input",
             "stage12_reaches_the_required_speedup_over_reference_stage_12"),
        15: ("element-wise min of 3x3 int matrices", 13,
             "stage15_gives_the_exact_min_of_3x3_matrices_at_every_size_block_size_and_input",
             "stage15_reaches_the_required_speedup_over_reference_stage_13"),
    }
    for k, (problem, baseline, correctness, speedup) in want.items():
        s = stage(d, k)
        got = (s["problem"], s["baseline"], s["tests"]["correctness"], s["tests"]["speedup"])
        if got != (problem, baseline, correctness, speedup):
            bad.append("stage %d: %s, expected %s" % (k, got, (problem, baseline, correctness, speedup)))
    s12 = stage(d, 12)
    if (s12["dir"], s12["name"], s12["file"], s12["threads"], s12["passes"], s12["type"], s12["op"]) != \
            ("12_argmin", "reduce_argmin", "12_argmin/reduce_argmin.cu", {"min": 64, "max": 1024}, "one", "KIT_INT", "KIT_ARGMIN"):
        bad.append("stage 12's row: %s" % s12)
    if [(p["key"], p["name"], p["points"]) for p in s12["parts"]] != \
            [("correctness", "stage 12: correctness", 6), ("speedup", "stage 12: speedup", 2),
             ("sanitizer", "stage 12: races and memory errors", 2)]:
        bad.append("stage 12's parts: %s" % s12["parts"])
    print("   %d stages; stage 12: %s, %s" % (len(d["stages"]), s12["problem"], s12["tests"]["speedup"]))

    print("== 2. stage 12 made a maximum, renamed, with other points")
    with open(os.path.join(copy, "common", "stages.def")) as f:
        text = f.read()
    text, n = re.subn(r"^(KIT_STAGE\(12,.*)KIT_ARGMIN,", r"\1KIT_MAX,   ", text, flags=re.M)
    with open(os.path.join(copy, "common", "stages.def"), "w") as f:
        f.write(text)
    with open(os.path.join(copy, "common", "problems.c")) as f:
        text = f.read()
    text, m = re.subn(r'\{KIT_INT, KIT_MAX, "int max"', '{KIT_INT, KIT_MAX, "int maximum"', text)
    with open(os.path.join(copy, "common", "problems.c"), "w") as f:
        f.write(text)
    if n != 1 or m != 1:
        fail("could not change stage 12's row (%d) or the problem table (%d): test out of date" % (n, m))
    with open(os.path.join(copy, "tests", "grader", "grading.conf"), "a") as f:
        f.write("stage12.points.correctness = 7\npoints.speedup = 3  # every stage\n")
    d = describe(args, copy, os.path.join(work, "changed.json"))
    s12 = stage(d, 12)
    got = (s12["op"], s12["problem"], s12["tests"]["correctness"], s12["tests"]["emulated"], s12["points"],
           [p["points"] for p in s12["parts"]], stage(d, 11)["problem"], stage(d, 1)["points"])
    expected = ("KIT_MAX", "int maximum", "stage12_gives_the_exact_maximum_at_every_size_block_size_and_input",
                "stage12_gives_the_exact_maximum_at_every_size_up_to_2_20_on_the_cpu_emulator",
                {"correctness": 7, "speedup": 3, "sanitizer": 2}, [7, 3, 2], "int maximum",
                {"correctness": 6, "speedup": 3, "sanitizer": 2})
    if got != expected:
        bad.append("after the change: %s, expected %s" % (got, expected))
    print("   stage 12: %s, %s, %s" % (s12["problem"], s12["tests"]["correctness"], s12["points"]))
    got = (d["emulated_full_marks"], d["reference_cuda"], s12["emulated_points"], stage(d, 1)["emulated_points"])
    expected = ("keep", "", {"correctness": 7, "speedup": 0, "sanitizer": 2, "total": 9},
                {"correctness": 6, "speedup": 0, "sanitizer": 2, "total": 8})
    if got != expected:
        bad.append("without a GPU (keep): %s, expected %s" % (got, expected))
    with open(os.path.join(copy, "tests", "grader", "grading.conf"), "a") as f:
        f.write("emulated.full_marks = scale  # the rest scaled to full marks\n")
    with open(os.path.join(copy, "edition.cmake"), "w") as f:  # a student edition's
        f.write("set(KIT_REFERENCE_CUDA_VERSION 13.0.88)\n")
    d = describe(args, copy, os.path.join(work, "scaled.json"))
    given = describe(args, copy, os.path.join(work, "given.json"), more=["-DREFERENCE_CUDA=12.9.41"])
    os.remove(os.path.join(copy, "edition.cmake"))
    got = (d["emulated_full_marks"], d["reference_cuda"], given["reference_cuda"], stage(d, 12)["emulated_points"],
           stage(d, 1)["emulated_points"], stage(d, 12)["points"])
    expected = ("scale", "13.0.88", "12.9.41", {"correctness": 9.333333, "speedup": 0, "sanitizer": 2.666667, "total": 12},
                {"correctness": 8.25, "speedup": 0, "sanitizer": 2.75, "total": 11},
                {"correctness": 7, "speedup": 3, "sanitizer": 2})
    if got != expected:
        bad.append("without a GPU (scale), and the reference's CUDA: %s, expected %s" % (got, expected))
    print("   without a GPU: stage 12 reaches %g of 12 (keep) or %g (scale); stage 1 %g (scale)"
          % (9, stage(d, 12)["emulated_points"]["total"], stage(d, 1)["emulated_points"]["total"]))

    print("== 3. what it cannot describe")
    with open(os.path.join(copy, "common", "stages.def")) as f:
        text = f.read()
    with open(os.path.join(copy, "common", "stages.def"), "w") as f:
        f.write(re.sub(r"^(KIT_STAGE\(12,.*)KIT_MAX,", r"\1KIT_ARGMAX,", text, flags=re.M))
    describe(args, copy, os.path.join(work, "bad.json"), expect_failure="KIT_ARGMAX")
    with open(os.path.join(copy, "common", "stages.def"), "w") as f:
        f.write(text)
    with open(os.path.join(copy, "tests", "grader", "grading.conf"), "a") as f:
        f.write("stage3.points.correctness = six\n")
    describe(args, copy, os.path.join(work, "bad.json"), expect_failure="cannot read the")
    with open(os.path.join(copy, "tests", "grader", "grading.conf"), "a") as f:
        f.write("emulated.full_marks = sometimes\n")  # read before the points (and their bad line above)
    describe(args, copy, os.path.join(work, "bad.json"), expect_failure="cannot read emulated.full_marks")
    print("   an unknown problem, an unreadable points line and emulated.full_marks stop it")

    if args.build_description:
        print("== 4. the build's kit.json")
        with open(args.build_description) as f:
            built = json.load(f)
        config = built["grading_config"]
        if not os.path.isabs(config):
            config = os.path.join(kit, config)
        again = describe(args, kit, os.path.join(work, "again.json"), config=config)
        for s in again["stages"]:
            s["released"] = s["number"] in built["released"]
        if built["stages"] != again["stages"]:
            bad.append("the build's kit.json has other stages than the script writes for the same files")
        print("   the same %d stages" % len(built["stages"]))

    if bad:
        fail("\n  ".join(["the description does not follow its inputs:"] + bad))
    print("ok: kit.json follows stages.def, the problem table and grading.conf")


if __name__ == "__main__":
    main()

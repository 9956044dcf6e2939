#!/usr/bin/env python3
"""Gradescope's run_autograder when grading raises, on a 15-stage edition, without grading:
  gradescope_fallback.py --kit KIT --autograder run_autograder --cmake cmake --work WORK

A stand-in edition (AUTOGRADER_ROOT=WORK/root): labs/ with an empty file per stage, and kit.json
written by the kit's own generator (common/kit_description.cmake) for all 15 stages, from a
copy of tests/grader/grading.conf that gives stage 12 7 correctness points and stage 15 3 speedup
points. Then:
  1. no build (setup.sh did not finish): grade() raises; results.json must still come, exit 0,
     with every released stage's three parts (named as kit.json names them, with the stage's
     problem: "stage 2 (int sum): correctness") at 0 of the description's points, failed, each
     saying the autograder failed;
  2. the same with grade() replaced by one that raises KeyError (run_autograder imported as a
     module, main() called);
  3. a build's kit.json (setup.sh's configure: another grading.conf) is read before the edition's;
  4. the leaderboard of a grade record made on a GPU (which this test's machine may not have): a
     correct stage's GB/s and % of reference as numbers, the GPU named, and words, never a
     number, for a stage not correct, one not graded, and every stage of an emulated record.
     In 1-3 the autograder failed: its leaderboard says not graded, with no number.
Before kit.json, run_autograder read points for stages 1-7 only, and the fallback raised
KeyError for stage 8 and wrote no results.json.
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys

STAGES = list(range(1, 16))


def fail(text):
    print("FAILED: " + text)
    sys.exit(1)


def describe(args, source, config, output, released):
    subprocess.run([args.cmake, "-DSOURCE=" + source, "-DOUTPUT=" + output, "-DGRADING_CONFIG=" + config,
                    "-DEDITION=student", "-DRELEASED=" + ",".join(map(str, released)),
                    "-P", os.path.join(args.kit, "common", "kit_description.cmake")], check=True)
    with open(output) as f:
        return json.load(f)


def check(results_path, description, released, words):
    """Problems with results.json: every released stage's parts at 0 of the description's points."""
    try:
        with open(results_path) as f:
            results = json.load(f)
    except (OSError, ValueError) as e:
        return ["no valid results.json: %s" % e]
    bad = []
    want = []
    for s in description["stages"]:
        if s["number"] in released:  # named with the stage's problem: "stage 2 (int sum): correctness"
            want += [(p["name"].replace("stage %d:" % s["number"], "stage %d (%s):" % (s["number"], s["problem"]), 1),
                      float(p["points"])) for p in s["parts"]]
    got = [(t.get("name"), float(t.get("max_score", -1))) for t in results.get("tests", [])]
    if got != want:
        bad.append("tests %s, expected %s" % (got, want))
    for t in results.get("tests", []):
        if t.get("score") != 0 or t.get("status") != "failed" or words not in t.get("output", "") or \
                t.get("visibility") != "visible":
            bad.append("%s: score %r, status %r, visibility %r, output %r" % (
                t.get("name"), t.get("score"), t.get("status"), t.get("visibility"), t.get("output", "")[:120]))
    if results.get("score") != 0 or words not in results.get("output", ""):
        bad.append("score %r, output %r" % (results.get("score"), results.get("output", "")[:200]))
    board = results.get("leaderboard", [])
    if not board or any(isinstance(e.get("value"), (int, float)) for e in board) or \
            board[0] != {"name": "GPU", "value": "none: not graded"}:
        bad.append("the leaderboard of a submission not graded: %r" % board[:3])
    return bad


def expect_zeros(results, description, released, status, what, shown=""):
    """Fails, saying \p what, unless results.json has every released stage at 0 and \p status is 0."""
    bad = check(results, description, released, "tell your instructor")
    if status != 0:
        bad.append("exit status %r" % status)
    if bad:
        print(shown[-3000:])
        fail("\n  ".join([what + ":"] + bad))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kit", required=True)
    parser.add_argument("--autograder", required=True)
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    args.kit = os.path.abspath(args.kit)
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    root = os.path.join(work, "root")
    edition = os.path.join(root, "source", "reduction-lab-kit")
    os.makedirs(os.path.join(root, "results"))
    os.makedirs(os.path.join(root, "submission"))

    # The edition's inputs: the kit's, with stage 12's and stage 15's points changed.
    config = os.path.join(work, "grading.conf")
    with open(os.path.join(args.kit, "tests", "grader", "grading.conf")) as f:
        text = f.read()
    with open(config, "w") as f:
        f.write(text + "\nstage12.points.correctness = 7\nstage15.points.speedup = 3\n")
    description = describe(args, args.kit, config, os.path.join(work, "kit.json"), STAGES)
    os.makedirs(edition)
    shutil.copy(os.path.join(work, "kit.json"), os.path.join(edition, "kit.json"))
    for s in description["stages"]:
        os.makedirs(os.path.join(edition, "labs", s["dir"]))
        open(os.path.join(edition, "labs", s["dir"], s["name"] + ".cu"), "w").close()
    points = {s["number"]: s["points"] for s in description["stages"]}
    if points[12]["correctness"] != 7 or points[15]["speedup"] != 3 or points[8] != \
            {"correctness": 6, "speedup": 2, "sanitizer": 2}:
        fail("kit.json's points do not follow the grading.conf it was written from: %s" % points)
    results = os.path.join(root, "results", "results.json")
    env = dict(os.environ, AUTOGRADER_ROOT=root)

    print("== 1. setup.sh did not finish: grade() raises")
    run = subprocess.run([sys.executable, args.autograder], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True)
    expect_zeros(results, description, STAGES, run.returncode, "the fallback's results.json for a 15-stage edition",
                 run.stdout)
    print("   45 parts at 0, stage 12's correctness of 7, stage 15's speedup of 3")

    print("== 2. grade() raises KeyError (run_autograder as a module)")
    os.remove(results)
    os.environ["AUTOGRADER_ROOT"] = root
    loader = importlib.machinery.SourceFileLoader("run_autograder", args.autograder)
    spec = importlib.util.spec_from_loader("run_autograder", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)

    def raises():
        raise KeyError(8)
    module.grade = raises
    expect_zeros(results, description, STAGES, module.main(), "the fallback's results.json when grading raises KeyError")
    print("   results.json written, every stage 0")

    print("== 3. the build's kit.json comes first")
    os.remove(results)
    build = module.BUILD  # setup.sh's build folder, where run_autograder looks
    os.makedirs(build)
    with open(config, "a") as f:
        f.write("stage9.points.sanitizer = 4\n")
    released = [9, 12]
    built = describe(args, args.kit, config, os.path.join(build, "kit.json"), released)
    expect_zeros(results, built, released, module.main(),
                 "with a build's kit.json (stages 9 and 12, stage 9's sanitizer part 4 points)")
    print("   stages 9 and 12, stage 9's sanitizer part 4 points")

    print("== 4. the leaderboard of a grade record made on a GPU, and of one made on the CPU emulator")
    h100 = "NVIDIA H100 80GB HBM3"

    def stage(k, correct, gbps=None, on=h100):
        speedup = {"outcome": "pass", "device": on}
        if gbps:
            speedup.update(achieved=4.8, required=4.0, reference=5.0, gbps=gbps, reference_gbps=gbps / 0.96)
        return {"stage": k, "points": {"correctness": {"status": "pass" if correct else "fail"}},
                "parts": {"speedup": speedup}}
    record = {"graded_on": h100, "stages": [stage(9, True, 2601.234), stage(12, False, 3100.0), stage(15, True, 980.0)]}
    released = [(9, "09", "a"), (12, "12", "b"), (15, "15", "c"), (14, "14", "d")]
    board = {e["name"]: e["value"] for e in module.leaderboard(released, record, {14: "is missing"})}
    want = {"GPU": h100, "stage 9 GB/s": 2601.2, "stage 9 % of reference": 96.0,
            "stage 12 GB/s": "no time: not correct", "stage 12 % of reference": "no time: not correct",
            "stage 15 GB/s": 980.0, "stage 15 % of reference": 96.0,
            "stage 14 GB/s": "no time: not graded", "stage 14 % of reference": "no time: not graded"}
    if board != want:
        fail("the leaderboard of a GPU's grade record:\n  %s\n  expected\n  %s" % (board, want))
    emulated = {"graded_on": "CPU emulator", "stages": [stage(9, True, on="CPU emulator"), stage(12, False, on="")]}
    board = {e["name"]: e["value"] for e in module.leaderboard(released[:2], emulated, {})}
    if board["GPU"] != "none (CPU emulator): no times" or \
            any(isinstance(v, (int, float)) or "no time" not in v for v in board.values()) or \
            "emulator" not in board["stage 9 GB/s"]:
        fail("the leaderboard of an emulated grade record must say there are no times: %s" % board)
    print("   on a GPU: %s" % ", ".join("%s = %s" % item for item in want.items() if item[0].startswith("stage 9")))
    print("   on the CPU emulator: stage 9 GB/s = %s" % board["stage 9 GB/s"])
    print("ok: the fallback writes results.json for every released stage, with kit.json's parts and points")


if __name__ == "__main__":
    main()

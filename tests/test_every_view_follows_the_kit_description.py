#!/usr/bin/env python3
"""Every view of a grade follows the kit's description (kit.json, common/kit_description.cmake):
  test_every_view_follows_the_kit_description.py --kit KIT --cmake cmake --grade-report GRADE_REPORT --work WORK

On a copy of the description's inputs (common/stages.def, common/problems.c,
common/kit_description.cmake, tests/grader/grading.conf), twice: as they are, then with stage 2
made another problem in stages.def (its operator KIT_SUM -> KIT_MAX: "int sum" -> "int max") and
its correctness worth 7 points in grading.conf (6 by default). Each time the copy is described
by the kit's own generator (cmake -P), one grade of stages 1-3 (stage 2 correct and race-free on
the CPU emulator, no GPU: the result files kit_grade writes, made up here) goes through every
view, and stage 2 must show the problem and points of that description:
  terminal       grade_report's table: stage 2's row "9 / 11" (correctness + races of 7 + 2 + 2)
  JSON           grade_report --record (grade.json): stage 2's points and what it could reach
  Gradescope     run_autograder's results.json, from grade_report --json and from its fallback
                 (no grade at all): "stage 2 (int max): correctness" worth 7, and its no-GPU note
  Classroom      release/github/grade.yml's edition step on the edition's kit.json: stage 2's
                 test name says its problem, its max-score the 9 points the emulator can award
  class CSV      tests/class/grade_class.py's row for a student (from grade.json: its points, the
                 maximum and what was reachable without a GPU) and the stage's file; the class report (class_report.py, HTML and CSV): "Stage 2: int max",
                 7 points for correctness
  docs           docs/tools/docs_assets.py's \\grading_stage2 (docs/stages/stage2.md shows it)
and the old problem and points must be gone from stage 2's place in each. The terminal table
shows points only; the JSON record names each stage's problem from the grader's compiled stage
table (made from the same stages.def at build time), checked against kit.json for the kit's own.
No build of the kit, no grading: a few seconds.
"""
import argparse
import base64  # noqa: F401  (classroom_workflow's helpers need it loaded)
import csv
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # modules of the source tree are imported: leave no __pycache__ there

bad = []


def fail(text):
    print("FAILED: " + text)
    sys.exit(1)


def check(condition, text):
    if not condition:
        bad.append(text)
    return condition


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def describe(args, source, output, edition="instructor", released=None):
    command = [args.cmake, "-DSOURCE=" + source, "-DOUTPUT=" + output, "-DEDITION=" + edition]
    if released:
        command += ["-DRELEASED=" + ",".join(map(str, released)), "-DREFERENCE_CUDA=13.0.88"]
    command += ["-P", os.path.join(source, "common", "kit_description.cmake")]
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if run.returncode != 0:
        fail("the generator failed:\n" + run.stdout)
    with open(output) as f:
        return json.load(f)


def stage2_results(folder):
    """What kit_grade leaves for stages 1-3 without a GPU when stage 2 is correct and race-free on
    the CPU emulator (tests/grader/results.c's files) and stages 1 and 3 did not run."""
    os.makedirs(folder)
    files = {"stage2.emulated-correctness": "status=pass\nmessage=every size up to 2^20 + 7 passes\n"
                                            "gpu=the kit's CPU emulator\n",
             "stage2.emulated-races": "status=pass\nmessage=no race in 2 thread orders\n",
             "stage2.speedup": "status=skip\nmessage=no CUDA GPU\n"}
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)


def views(args, modules, work, label, source):
    """Every view of the made-up grade, with SOURCE's description: {view: what stage 2 shows}."""
    out = os.path.join(work, label)
    os.makedirs(out)
    kit = describe(args, source, os.path.join(out, "kit.json"))
    edition_kit = describe(args, source, os.path.join(out, "edition-kit.json"), "student", [1, 2, 3])
    config = os.path.join(source, "tests", "grader", "grading.conf")
    shown = {}

    # terminal, grade.json, and the kit's results.json (what Gradescope's view starts from)
    results = os.path.join(out, "grade")
    stage2_results(results)
    record, gradescope = os.path.join(results, "grade.json"), os.path.join(results, "results.json")
    run = subprocess.run([args.grade_report, "--results", results, "--config", config, "--stages", "1,2,3",
                          "--record", record, "--json", gradescope],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    row = re.search(r"^2 +pass \(emulated\) .*?(\S+ / \S+)$", run.stdout, re.M)
    shown["terminal"] = {"points": row.group(1) if row else run.stdout}
    with open(record) as f:
        grade = json.load(f)
    s2 = [s for s in grade["stages"] if s["stage"] == 2][0]
    shown["JSON"] = {"points": (s2["points"]["correctness"]["max_score"], s2["max_score"], s2["reachable"])}
    # The record names each stage's problem from the grader's compiled stage table, which the
    # build makes from the same stages.def as kit.json: equal for the kit's own description (the
    # changed copy would need the grader rebuilt from it).
    if label == "before":
        kit_problems = {s["number"]: s["problem"] for s in kit["stages"]}
        for s in grade["stages"]:
            check(s.get("problem") == kit_problems.get(s["stage"]),
                  "grade.json names stage %d's problem %r, kit.json %r" % (s["stage"], s.get("problem"),
                                                                           kit_problems.get(s["stage"])))

    # Gradescope: run_autograder's results, from the kit's report and from its fallback
    root = os.path.join(out, "gradescope")
    edition = os.path.join(root, "source", "reduction-lab-kit")
    os.makedirs(edition)
    shutil.copy(os.path.join(out, "edition-kit.json"), os.path.join(edition, "kit.json"))
    for s in edition_kit["stages"]:
        os.makedirs(os.path.join(edition, "labs", s["dir"]))
        open(os.path.join(edition, "labs", s["dir"], s["name"] + ".cu"), "w").close()
    os.environ["AUTOGRADER_ROOT"] = root
    autograder = load("run_autograder_" + label, os.path.join(args.kit, "release", "gradescope", "run_autograder"))
    stages = autograder.read_stages()
    with open(gradescope) as f:
        graded = autograder.compose(stages, json.load(f), {}, [], "")
    fallback = autograder.compose(stages, None, {k: "not graded" for k, _, _ in stages}, [], "")
    shown["Gradescope"] = {
        "names": [(t["name"], t["max_score"]) for t in graded["tests"] if t["name"].startswith("stage 2")],
        "fallback": [(t["name"], t["max_score"]) for t in fallback["tests"] if t["name"].startswith("stage 2")],
        "note": graded["output"]}

    # GitHub Classroom: the workflow's edition step, run on the edition's kit.json
    classroom = modules["classroom"]
    with open(os.path.join(args.kit, "release", "github", "grade.yml")) as f:
        workflow = classroom.yaml.safe_load(f)
    check(not classroom.check_wiring(workflow, edition_kit),
          "%s: the workflow's wiring: %s" % (label, classroom.check_wiring(workflow, edition_kit)))
    step = [s for s in workflow["jobs"][classroom.JOB]["steps"] if s.get("id") == "edition"][0]
    checkout = os.path.join(out, "classroom")
    os.makedirs(checkout)
    shutil.copy(os.path.join(out, "edition-kit.json"), os.path.join(checkout, "kit.json"))
    with open(os.path.join(out, "edition-step.sh"), "w") as f:
        f.write(step["run"])
    outputs = os.path.join(out, "github-output")
    open(outputs, "w").close()
    run = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", os.path.join(out, "edition-step.sh")],
                         cwd=checkout, env=dict(os.environ, GITHUB_OUTPUT=outputs),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if run.returncode != 0:
        fail("%s: the workflow's edition step failed:\n%s" % (label, run.stdout))
    pairs = classroom.read_pairs(outputs)
    shown["Classroom"] = {"name": pairs.get("name2"), "points": pairs.get("points2"),
                          "problems": classroom.check_edition_outputs(pairs, edition_kit, [1, 2, 3])}

    # the class CSV and the class report
    grade_class, class_report = modules["grade_class"], modules["class_report"]
    settings = {"stages": [1, 2, 3], "students": ["alice"], "kit": kit}
    student = {"student": "alice", "outcome": None, "notes": "", "stages": [1, 2, 3], "points": {}, "max_points": {},
               "total": None, "max_total": None, "grade": [], "speed": {}, "seconds": {},
               "where": {"gpu": "emulator"}}
    notes = []
    grade_class.Grader(settings, None).read_grade(results, student, notes)
    rows = list(csv.DictReader(io.StringIO(grade_class.class_csv(settings, {"alice": student}))))
    page = class_report.render_html([student], "Class", (), kit)
    summary = [r for r in csv.DictReader(io.StringIO(class_report.render_csv([student], (), kit)))
               if r["section"] == "stage-summary" and r["stage"] == "2"]
    shown["class CSV"] = {"points": (rows[0]["stage2"], rows[0]["max_total"], rows[0]["reachable_total"]),
                          "file": grade_class.read_stages(kit)[2]}
    # every heading of stage 2 (its points, its leaderboard) must name it as the description does
    shown["class report"] = {"headings": sorted(set(re.findall(r"<h3>(Stage 2[^<]*)</h3>", page))),
                             "worth": re.findall(r'<h3>Stage 2[^<]*</h3>\s*<div class="stats">([^<]*)</div>', page),
                             "csv": (summary[0]["problem"], summary[0]["correctness_points"], summary[0]["max_points"])
                             if summary else None}

    # the docs: the stage page's line of points (docs_assets.py writes it into figures.doxy)
    docs_assets = modules["docs_assets"]
    aliases = docs_assets.grading_aliases(docs_assets.read_stages(source, os.path.join(out, "kit.json")))
    line = re.search(r'^ALIASES \+= grading_stage2="(.*)"$', aliases, re.M)
    shown["docs"] = {"line": line.group(1) if line else aliases}
    return kit, shown


def expect(label, shown, problem, correctness, others):
    """Stage 2 as SHOWN must be the problem and points given, and none of OTHERS (the other
    description's problem and points)."""
    full, reachable = correctness + 4, correctness + 2
    want = {
        "terminal": {"points": "%d / %d" % (reachable, full)},
        "JSON": {"points": (correctness, full, reachable)},
        "Classroom": {"name": "stage 2: strided index, no divergence, the %s (CPU emulator: correctness and races)"
                              % problem, "points": str(reachable), "problems": []},
        # reachable_total as grade.json says it: stages 1 and 3 were not graded, so nothing made them less than 10
        "class CSV": {"points": (str(reachable), str(full + 20), str(10 + reachable + 10)),
                      "file": "02_divergence_free/reduce_divergence_free.cu"},
        "class report": {"headings": ["Stage 2: %s" % problem],
                         "worth": ["%d points for correctness, 2 for speed, 2 for races and memory errors" % correctness],
                         "csv": (problem, str(correctness), str(full))},
        "docs": {"line": "<b>Points:</b> %d for the %s, 2 for speed, 2 for no races or memory errors "
                         "(%d of %d without a GPU)." % (correctness, problem, reachable, full)},
    }
    # graded without a GPU, speed is not measured: 0 of 0, not a failed test (the fallback, which
    # graded nothing, keeps the description's points)
    names = [("stage 2 (%s): correctness" % problem, correctness), ("stage 2 (%s): speedup" % problem, 0)]
    fallback_names = [names[0], ("stage 2 (%s): speedup" % problem, 2)]
    for view, facts in want.items():
        for key, value in facts.items():
            check(shown[view][key] == value, "%s, %s's %s: %r, expected %r" % (label, view, key, shown[view][key], value))
    gradescope = shown["Gradescope"]
    check(gradescope["names"][:2] == names and gradescope["names"][2][0].startswith("stage 2 (%s): races" % problem),
          "%s, Gradescope: stage 2's tests %s, expected %s and the races" % (label, gradescope["names"], names))
    check(gradescope["fallback"] == fallback_names + [("stage 2 (%s): races and memory errors" % problem, 2)],
          "%s, Gradescope's fallback: stage 2's tests %s" % (label, gradescope["fallback"]))
    check("(%d of %d points in all here)" % (8 + reachable + 8, 20 + full) in gradescope["note"],
          "%s, Gradescope: the no-GPU note does not say %d of %d points: %r"
          % (label, 8 + reachable + 8, 20 + full, gradescope["note"]))
    # nothing of the other description in stage 2's place
    text = json.dumps(shown)
    other_problem, other_correctness = others
    for old in ("Stage 2: %s" % other_problem, "stage 2 (%s)" % other_problem, "the %s (CPU" % other_problem,
                "%d for the %s" % (other_correctness, other_problem), "%d / %d" % (other_correctness + 2, other_correctness + 4),
                "%d points for correctness" % other_correctness):
        check(old not in text, "%s: %r still shows in stage 2's place: %s" % (label, old, text[:2000]))
    print("   %s: stage 2 is the %s, %d points for correctness (%d of %d without a GPU) in every view"
          % (label, problem, correctness, reachable, full))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kit", required=True)
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--grade-report", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    args.kit = os.path.abspath(args.kit)
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    copy = os.path.join(work, "kit")
    for path in ("common/stages.def", "common/problems.c", "common/kit_description.cmake", "tests/grader/grading.conf"):
        os.makedirs(os.path.dirname(os.path.join(copy, path)), exist_ok=True)
        shutil.copy(os.path.join(args.kit, path), os.path.join(copy, path))
    for folder in ("release/tests", "tests/class", "docs/tools"):
        sys.path.insert(0, os.path.join(args.kit, folder))
    modules = {}
    try:
        modules["classroom"] = load("classroom_workflow", os.path.join(args.kit, "release", "tests", "classroom_workflow.py"))
    except SystemExit:
        fail("the Classroom view is read with PyYAML: install python3-yaml (apt) or PyYAML (pip)")
    import class_report  # noqa: E402
    import docs_assets  # noqa: E402
    import grade_class  # noqa: E402
    modules.update(grade_class=grade_class, class_report=class_report, docs_assets=docs_assets)
    with open(os.path.join(args.kit, "docs", "stages", "stage2.md")) as f:
        check("\\grading_stage2\n" in f.read(), "docs/stages/stage2.md does not show \\grading_stage2, its points")

    print("== 1. the kit's description as it is")
    kit, shown = views(args, modules, work, "before", copy)
    expect("before", shown, "int sum", 6, ("int max", 7))

    print("== 2. stage 2 made an int max in stages.def, its correctness worth 7 in grading.conf")
    with open(os.path.join(copy, "common", "stages.def")) as f:
        text = f.read()
    text, n = re.subn(r"^(KIT_STAGE\(2,.*KIT_INT, *)KIT_SUM,", r"\1KIT_MAX,", text, flags=re.M)
    if n != 1:
        fail("could not change stage 2's row of stages.def: test out of date")
    with open(os.path.join(copy, "common", "stages.def"), "w") as f:
        f.write(text)
    with open(os.path.join(copy, "tests", "grader", "grading.conf"), "a") as f:
        f.write("\nstage2.points.correctness = 7\n")
    kit, shown = views(args, modules, work, "after", copy)
    expect("after", shown, "int max", 7, ("int sum", 6))

    if bad:
        fail("\n  ".join(["a view does not follow the kit's description:"] + bad))
    print("ok: terminal, JSON, Gradescope, Classroom, class CSV and report, and docs follow kit.json")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""GitHub Classroom's workflow (release/github/grade.yml), run here as GitHub runs it: the
commands are read from the YAML, never copied.

  classroom_workflow.py --workflow grade.yml --edition EDITION --kit KIT --work WORK --stages 1,7

The stages, their files, problems and points come from the edition's description, kit.json
(common/kit_description.cmake), as the workflow itself reads them. First it checks the
workflow's wiring against it: one grader step per stage of the kit (id stageK, run only where
the edition hands stage K out, grading stage K and reading its report, its test name and
max-score the edition step's nameK and pointsK), the reporter reading every one of them, and
the job named as GitHub Classroom expects.

Then it copies EDITION (a student edition) to WORK/workspace, keeps only the released stages
among --stages (edition.cmake, kit.json, by the edition's own generator, and labs/ cut down, to
keep the test short) and runs the job's steps in order, once, with the first kept stage's lab
unfilled (its skeleton, as the edition ships it) and the reference solutions (KIT/solutions) in
the others: the edition step must name every kept stage with its title and problem and make it
worth what kit.json says the CPU emulator can award (emulated_points.total: correctness and
races, without speed); the unfilled stage's command must fail and say "fill in the TODO", and
every other kept stage's grader must pass, with all its points in the reporter's total. (A first
run with every stage the reference graded the last stage twice, and the reference of every stage
is graded by the other autograders' tests and the kit's own make check.)
Steps run as on GitHub: `run:` with bash -eo pipefail and GITHUB_OUTPUT/GITHUB_PATH files;
`if:` and ${{ }} expressions evaluated (the few forms the workflow uses; anything else is an
error); classroom-resources/autograding-command-grader's command through /bin/sh with the
action's environment (PATH and HOME only) and time limit; the reporter's totals from the
graders' results. actions/checkout is the copy of the edition; the CUDA install step finds nvcc
and installs nothing here (its install branch needs NVIDIA's repository and is not tried).
"""
import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import yaml
except ImportError:
    print("FAILED: this test reads the workflow with PyYAML: install python3-yaml (apt) or PyYAML (pip)")
    sys.exit(1)

GRADER = "classroom-resources/autograding-command-grader"
REPORTER = "classroom-resources/autograding-grading-reporter"
CHECKOUT = "actions/checkout"
JOB = "run-autograding-tests"   # the check run GitHub Classroom reads the points from
ACTOR = "a-student"


class Failure(Exception):
    pass


def say(text):
    print(text, flush=True)


# ---------------------------------------------------------------------------- the kit
def read_description(path):
    """A kit.json (common/kit_description.cmake says its fields)."""
    try:
        with open(path) as f:
            kit = json.load(f)
    except (OSError, ValueError) as e:
        raise Failure("cannot read the kit's description %s: %s" % (path, e))
    if kit.get("format") != 1:
        raise Failure("%s has format %r; this test reads format 1" % (path, kit.get("format")))
    return kit


def kit_stages(description):
    """[(k, dir, name)] of every stage of the kit, released or not."""
    return [(s["number"], s["dir"], s["name"]) for s in description["stages"]]


def points_without_gpu(description):
    """{k: the whole points GitHub Classroom gives stage k}: what the CPU emulator can award
    (emulated_points.total: correctness and races, no speed), rounded as the workflow rounds it."""
    return {s["number"]: int(float(s["emulated_points"]["total"]) + 0.5) for s in description["stages"]}


def test_name_words(description):
    """{k: (title, problem)}: what stage k's test name must say."""
    return {s["number"]: (s["title"], s["problem"]) for s in description["stages"]}


# ---------------------------------------------------------------------------- expressions
def value_of(expr, ctx):
    expr = expr.strip()
    m = re.match(r"^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$", expr)
    if m:
        return ctx["steps"].get(m.group(1), {}).get("outputs", {}).get(m.group(2), "")
    m = re.match(r"^'([^']*)'$", expr)
    if m:
        return m.group(1)
    if expr == "github.actor":
        return ACTOR
    raise Failure("the test cannot evaluate the expression %r: teach value_of() or simplify the workflow" % expr)


def condition(expr, ctx):
    expr = expr.strip()
    m = re.match(r"^\$\{\{(.*)\}\}$", expr, re.S)
    if m:
        expr = m.group(1).strip()
    m = re.match(r"^contains\((.*),(.*)\)$", expr)
    if m:
        return value_of(m.group(2), ctx) in value_of(m.group(1), ctx)
    m = re.match(r"^(.*?)\s*(==|!=)\s*(.*)$", expr)
    if m:
        equal = value_of(m.group(1), ctx) == value_of(m.group(3), ctx)
        return equal if m.group(2) == "==" else not equal
    raise Failure("the test cannot evaluate the condition %r" % expr)


def substitute(text, ctx):
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: value_of(m.group(1), ctx), str(text))


# ---------------------------------------------------------------------------- wiring
def check_wiring(workflow, description):
    problems = []
    jobs = workflow.get("jobs") or {}
    if list(jobs) != [JOB]:
        problems.append("the workflow's one job must be named %s (GitHub Classroom reads its check run), not %s"
                        % (JOB, list(jobs)))
        return problems
    steps = jobs[JOB].get("steps") or []
    if not steps or not str(steps[0].get("uses", "")).startswith(CHECKOUT + "@"):
        problems.append("the first step must be %s" % CHECKOUT)
    by_id = {s.get("id"): s for s in steps if s.get("id")}
    reporter = [s for s in steps if str(s.get("uses", "")).startswith(REPORTER + "@")]
    if len(reporter) != 1 or reporter[0] is not steps[-1]:
        problems.append("the last step, and only it, must be %s" % REPORTER)
    for k, _, _ in kit_stages(description):
        sid = "stage%d" % k
        step = by_id.get(sid)
        if not step:
            problems.append("no step with id %s" % sid)
            continue
        if not str(step.get("uses", "")).startswith(GRADER + "@"):
            problems.append("%s does not use %s" % (sid, GRADER))
        if str(step.get("if", "")).strip() != "contains(steps.edition.outputs.stages, ' %d ')" % k:
            problems.append("%s's if is %r: it must run only where the edition hands stage %d out" % (sid, step.get("if"), k))
        w = step.get("with") or {}
        command = str(w.get("command", ""))
        named = set(re.findall(r"stage(\d+)", command))
        if "check-stage%d" % k not in command or "results-stage%d.json" % k not in command or named != {str(k)}:
            problems.append("%s's command does not grade stage %d alone: %s" % (sid, k, command))
        for key, output in (("max-score", "points"), ("test-name", "name")):
            want = "${{steps.edition.outputs.%s%d}}" % (output, k)
            if str(w.get(key, "")).replace(" ", "") != want:
                problems.append("%s's %s is %r: it must be the edition step's %s%d, from kit.json (%s)"
                                % (sid, key, w.get(key), output, k, want))
        if not w.get("timeout"):
            problems.append("%s needs a timeout" % sid)
        if reporter:
            env = reporter[0].get("env") or {}
            want = "${{ steps.%s.outputs.result }}" % sid
            if str(env.get("STAGE%d_RESULTS" % k, "")).replace(" ", "") != want.replace(" ", ""):
                problems.append("the reporter's env has no STAGE%d_RESULTS: %s" % (k, want))
    if reporter and str((reporter[0].get("with") or {}).get("runners", "")).replace(" ", "") != \
            "${{steps.edition.outputs.runners}}":
        problems.append("the reporter's runners must be the edition step's list of released stages")
    for s in steps:
        uses = str(s.get("uses", ""))
        if uses and not any(uses.startswith(a + "@") for a in (CHECKOUT, GRADER, REPORTER)):
            problems.append("step %r uses %s, which this test cannot stand in for" % (s.get("name"), uses))
    return problems


# ---------------------------------------------------------------------------- running the job
def read_pairs(path):
    """GITHUB_OUTPUT's name=value and name<<DELIMITER forms."""
    pairs = {}
    with open(path) as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^([A-Za-z0-9_-]+)<<(.+)$", line)
        if m:
            end = lines.index(m.group(2), i + 1)
            pairs[m.group(1)] = "\n".join(lines[i + 1:end])
            i = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            pairs[name] = value
        elif line.strip():
            raise Failure("cannot read %r from GITHUB_OUTPUT" % line)
        i += 1
    return pairs


def run_captured(command, env, cwd, timeout, log_path):
    """Runs command, its output into log_path (appended); returns (status, or None when it ran
    past timeout seconds and was killed, with its process group; its output)."""
    with open(log_path, "a") as log:
        start = log.tell()
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            status = process.wait(timeout=max(timeout, 1))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
            status = None
    with open(log_path, errors="replace") as log:
        log.seek(start)
        return status, log.read()


def run_job(workflow, workspace, logs, label):
    """Runs the job's steps; returns {step id: grader result}, the reporter's totals and the
    outputs of the step with id edition."""
    job = workflow["jobs"][JOB]
    if "if" in job and not condition(job["if"], {"steps": {}}):
        raise Failure("the job would not run for a student's push (if: %s)" % job["if"])
    deadline = time.time() + 60 * float(job.get("timeout-minutes", 360))
    ctx = {"steps": {}}
    path_added = []
    graders = {}
    totals = None
    tmp = tempfile.mkdtemp(prefix="classroom-", dir=logs)
    for n, step in enumerate(job["steps"]):
        name = step.get("name") or step.get("uses") or "step %d" % n
        sid = step.get("id")
        if "if" in step and not condition(step["if"], ctx):
            say("   - %s: skipped (if: %s)" % (name, step["if"]))
            if sid:
                ctx["steps"][sid] = {"outputs": {}, "outcome": "skipped"}
            continue
        env_step = {k: substitute(v, ctx) for k, v in (step.get("env") or {}).items()}
        base_path = ":".join(path_added + [os.environ.get("PATH", "")])
        uses = str(step.get("uses", ""))
        log_path = os.path.join(logs, "%s-%02d.log" % (label, n))
        start = time.time()
        if uses.startswith(CHECKOUT + "@"):
            say("   - %s: the copy of the edition in %s" % (name, workspace))
            continue
        if uses.startswith(GRADER + "@"):
            w = {k: substitute(v, ctx) for k, v in (step.get("with") or {}).items()}
            # The action's environment (src/main.js): PATH and HOME, nothing else.
            env = {"PATH": base_path, "FORCE_COLOR": "true", "DOTNET_CLI_HOME": "/tmp", "DOTNET_NOLOGO": "true",
                   "HOME": os.environ.get("HOME", "/root")}
            limit = float(w.get("timeout", 10)) * 60
            status, output = 0, ""
            if w.get("setup-command"):
                status, output = run_captured(["/bin/sh", "-c", w["setup-command"]], env, workspace, limit, log_path)
            if status == 0:
                status, more = run_captured(["/bin/sh", "-c", w["command"]], env, workspace, limit, log_path)
                output += more
            max_score = int(w.get("max-score", 0) or 0)
            verdict = "pass" if status == 0 else ("error" if status is None else "fail")
            result = {"version": 1, "status": verdict, "max_score": max_score,
                      "tests": [{"name": w.get("test-name"), "status": verdict,
                                 "score": max_score if verdict == "pass" else 0, "test_code": w["command"]}]}
            ctx["steps"][sid] = {"outputs": {"result": base64.b64encode(json.dumps(result).encode()).decode()},
                                 "outcome": "success"}
            graders[sid] = (verdict, output, log_path)
            say("   - %s: %s, %d of %d points (%d s; log %s)" % (
                name, verdict, result["tests"][0]["score"], max_score, time.time() - start, log_path))
            continue
        if uses.startswith(REPORTER + "@"):
            w = {k: substitute(v, ctx) for k, v in (step.get("with") or {}).items()}
            score = max_score = 0
            for runner in str(w.get("runners", "")).split(","):
                encoded = env_step.get(runner.strip().upper() + "_RESULTS", "")
                if not encoded:
                    raise Failure("the reporter would find no result for runner %r" % runner)
                result = json.loads(base64.b64decode(encoded))
                score += sum(t["score"] for t in result["tests"])
                max_score += result["max_score"]
            totals = (score, max_score)
            say("   - %s: %d of %d points" % (name, score, max_score))
            continue
        if "run" not in step:
            raise Failure("step %r neither runs a command nor uses an action the test knows" % name)
        # A run step: bash -eo pipefail, as GitHub runs it on Linux.
        script = os.path.join(tmp, "step-%02d.sh" % n)
        with open(script, "w") as f:
            f.write(step["run"])
        output_file, path_file = os.path.join(tmp, "output-%02d" % n), os.path.join(tmp, "path-%02d" % n)
        open(output_file, "w").close()
        open(path_file, "w").close()
        env = dict(os.environ, PATH=base_path, GITHUB_OUTPUT=output_file, GITHUB_PATH=path_file,
                   GITHUB_WORKSPACE=workspace, GITHUB_ACTIONS="true", CI="true", RUNNER_TEMP=tmp, **env_step)
        status, output = run_captured(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], env, workspace,
                                      deadline - time.time(), log_path)
        say("   - %s: exit %s (%d s; log %s)" % (name, status, time.time() - start, log_path))
        if status != 0:
            say("".join(output.splitlines(True)[-40:]))
            raise Failure("the step %r failed" % name)
        if sid:
            ctx["steps"][sid] = {"outputs": read_pairs(output_file), "outcome": "success"}
        with open(path_file) as f:
            path_added = [line.strip() for line in f if line.strip()] + path_added
    return graders, totals, ctx["steps"].get("edition", {}).get("outputs", {})


def check_edition_outputs(outputs, description, keep):
    """The edition step's outputs: the kept stages, each named with its title and problem and
    worth what kit.json says the emulator can award."""
    bad = []
    points, words = points_without_gpu(description), test_name_words(description)
    if outputs.get("stages", "").split() != [str(k) for k in keep]:
        bad.append("the edition step's stages are %r, expected %s" % (outputs.get("stages"), keep))
    if outputs.get("runners") != ",".join("stage%d" % k for k in keep):
        bad.append("the edition step's runners are %r" % outputs.get("runners"))
    if not re.match(r"^\d+-\d+$", outputs.get("cuda", "")):
        bad.append("the edition step's CUDA series is %r, not like 13-0" % outputs.get("cuda"))
    for k in keep:
        if outputs.get("points%d" % k) != str(points[k]):
            bad.append("stage %d is worth %r points in the workflow; kit.json's emulated_points.total is %d"
                       % (k, outputs.get("points%d" % k), points[k]))
        name = outputs.get("name%d" % k, "")
        title, problem = words[k]
        if not name.startswith("stage %d: " % k) or title not in name or problem not in name:
            bad.append("stage %d's test name %r does not say its title %r and problem %r" % (k, name, title, problem))
    return bad


# ---------------------------------------------------------------------------- main
def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for option in ("--workflow", "--edition", "--kit", "--work", "--stages"):
        parser.add_argument(option, required=True)
    args = parser.parse_args()
    kit, edition, work = (os.path.abspath(p) for p in (args.kit, args.edition, args.work))
    with open(args.workflow) as f:
        text = f.read()
    workflow = yaml.safe_load(text)

    say("== the workflow's wiring")
    description = read_description(os.path.join(edition, "kit.json"))
    problems = check_wiring(workflow, description)
    shipped = os.path.join(edition, ".github", "workflows", os.path.basename(args.workflow))
    if not os.path.exists(shipped):
        problems.append("the edition does not ship %s" % os.path.relpath(shipped, edition))
    elif open(shipped).read() != text:
        problems.append("the edition's %s differs from %s" % (os.path.relpath(shipped, edition), args.workflow))
    if problems:
        raise Failure("; ".join(problems))
    say("   ok: one grader per stage, each run only where the edition hands it out, the reporter reads them all")

    say("== a copy of the edition, cut down to the stages %s" % args.stages)
    if not os.path.exists(os.path.join(edition, "edition.cmake")) or description.get("edition") != "student":
        raise Failure("%s is not a student edition (no edition.cmake, or kit.json says %r)"
                      % (edition, description.get("edition")))
    workspace = os.path.join(work, "workspace")
    logs = os.path.join(work, "logs")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(logs)
    shutil.copytree(edition, workspace, symlinks=True)
    edition_file = os.path.join(workspace, "edition.cmake")
    with open(edition_file) as f:
        edition_text = f.read()
    released = [s["number"] for s in description["stages"] if s["released"]]
    wanted = {int(k) for k in args.stages.split(",") if k}
    keep = [k for k in released if k in wanted]
    if len(keep) < 2:
        raise Failure("the test needs two stages of %s released by this edition (one unfilled, one the reference); "
                      "it releases %s" % (args.stages, released))
    with open(edition_file, "w") as f:
        f.write(re.sub(r"^set\(KIT_RELEASED_STAGES [0-9 ]+\)$", "set(KIT_RELEASED_STAGES %s)" % " ".join(map(str, keep)),
                       edition_text, flags=re.M))
    # and its description, which the workflow reads, by the edition's own generator
    describe = subprocess.run(["cmake", "-DSOURCE=" + workspace, "-DOUTPUT=" + os.path.join(workspace, "kit.json"),
                               "-DEDITION=student", "-DRELEASED=" + ",".join(map(str, keep)),
                               "-P", os.path.join(workspace, "common", "kit_description.cmake")],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if describe.returncode != 0:
        raise Failure("the edition's generator cannot describe the cut-down edition:\n" + describe.stdout)
    kept_description = read_description(os.path.join(workspace, "kit.json"))
    if [s["number"] for s in kept_description["stages"] if s["released"]] != keep:
        raise Failure("the cut-down edition's kit.json does not release stages %s" % keep)
    stages = [s for s in kit_stages(description) if s[0] in keep]
    for k, d, name in kit_stages(description):
        if k not in keep:
            shutil.rmtree(os.path.join(workspace, "labs", d), ignore_errors=True)
    say("   stages %s (released: %s)" % (" ".join(map(str, keep)), " ".join(map(str, released))))
    points = points_without_gpu(kept_description)

    def expect(graders, totals, outputs, failing):
        bad = check_edition_outputs(outputs, kept_description, keep)
        for k, d, name in kit_stages(description):
            sid = "stage%d" % k
            if k not in keep:
                if sid in graders:
                    bad.append("stage %d is not in the edition, yet its grader ran" % k)
                continue
            if sid not in graders:
                bad.append("stage %d's grader did not run" % k)
                continue
            verdict, output, log_path = graders[sid]
            if k == failing:
                if verdict != "fail":
                    bad.append("stage %d (unfilled) should fail, not %s" % (k, verdict))
                if "fill in the TODO" not in output:
                    bad.append("stage %d's output does not say 'fill in the TODO' (%s)" % (k, log_path))
            elif verdict != "pass":
                bad.append("stage %d should pass, not %s (%s)" % (k, verdict, log_path))
            else:  # worth what the kit's own report awarded it here, not only what kit.json says
                try:
                    with open(os.path.join(workspace, "build", "grade", "results-stage%d.json" % k)) as f:
                        tests = json.load(f)["tests"]
                    awarded = sum(float(x["score"]) for x in tests if ": speedup" not in x["name"])
                except (OSError, ValueError, KeyError) as e:
                    awarded = "unreadable (%s)" % e
                if awarded != points[k]:
                    bad.append("stage %d is worth %d points in the workflow, but the kit's report gave it %s"
                               % (k, points[k], awarded))
        want = sum(points[k] for k in keep if k != failing)
        if totals is None:
            bad.append("the reporter did not run")
        elif totals != (want, sum(points[k] for k in keep)):
            bad.append("the reporter's total is %s of %s, expected %g of %g" % (
                totals[0], totals[1], want, sum(points[k] for k in keep)))
        if bad:
            raise Failure("; ".join(bad))

    unfilled = stages[0]
    say("== stage %d unfilled (the edition's skeleton), the others the reference solutions" % unfilled[0])
    for k, d, name in stages[1:]:
        shutil.copyfile(os.path.join(kit, "solutions", d, name + ".cu"), os.path.join(workspace, "labs", d, name + ".cu"))
    graders, totals, outputs = run_job(workflow, workspace, logs, "unfilled")
    expect(graders, totals, outputs, unfilled[0])
    say("   ok: stage %d fails with the fill-in message, the others pass: %g of %g points" % ((unfilled[0],) + totals))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print("FAILED: %s" % e)
        sys.exit(1)

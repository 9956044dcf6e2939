#!/usr/bin/env python3
"""Grades a whole class: every submission built with the kit and graded by `make check-grade`,
spread over every GPU of this machine, or over many machines as one Slurm job array.

Usage:
  tests/class/grade_class.py SUBMISSIONS [CSV] [BUILD_ROOT] [options]
      SUBMISSIONS  a folder with one sub-folder per student, each a copy of labs/
      CSV          the class table (default: class-grades.csv); the class report is written
                   beside it as CSV-report.html and CSV-report.csv
      BUILD_ROOT   build folders, logs and one result per student (default: build-class)

  --stages 1-3        grade these stages only (a list 1,2,3 or a range; default: all)
  --time-limit S      seconds one submission may take, build and grading together (default 1800);
                      past it, its processes are killed and its row says "timed out"
  --fresh             grade every submission again (default: resume, skipping the submissions
                      already graded, unless the submission, the kit or the options changed)
  --gpus LIST         the GPUs to grade on, each running one submission's GPU tests at a time: 0,1 or none
                      (default: CUDA_VISIBLE_DEVICES, else every GPU nvidia-smi lists; none: the
                      CPU emulator, submissions spread over the CPU cores)
  --cpus N            the CPU cores builds and tests may use together (default: all of them)
  --keep-builds       keep each submission's build folder (default: only its logs and report)

  --slurm             submit one Slurm job array instead, a task per submission to grade, and
                      wait for it; BUILD_ROOT and the submissions must be on a file system the
                      nodes share. Interrupted, `--attach` waits for the same array again.
  --gres G            the generic resource each task asks for (default gpu:1; none: no --gres)
  --cpus-per-task N   CPU cores per task (default 4)
  --sbatch ARG        one more sbatch argument (repeat it), e.g. --sbatch=--partition=gpu
  --no-wait           submit and return; `--attach` later merges the results
  --attach            wait for the job array this BUILD_ROOT last submitted, then merge

  After grading, with the class report (none of these grades anything again):
  --similarity        compare each stage's files across the class with compare50 (pip: compare50;
                      tests/class/similarity.py), the skeletons not counting; the report lists the
                      pairs above the threshold, each with a link to compare50's side-by-side page
                      (BUILD_ROOT/similarity/)
  --similarity-threshold S  the share of a file's own code matching the other's from which a pair
                      is listed (0-1, default 0.5)
  --archive DIR       earlier years' submissions (same layout) to compare the class with; repeat it
  --distro LABS       the labs handed out, whose code never counts (default: the kit's labs/)
  --pseudonyms        the report's leaderboards show pseudonyms, and CSV-leaderboard.html holds the
                      leaderboards alone, to share; CSV-pseudonyms.csv says whose each is. They come
                      from a secret key, BUILD_ROOT/pseudonym-key (made once; --pseudonym-key FILE
                      names another): the same for every report made with it, and not to be
                      guessed from the names without it
  --roster FILE       write CSV-gradebook.csv for Canvas or Moodle (tests/class/gradebook.py): the
                      roster's columns, then a column per stage and the total; FILE is a CSV whose
                      header has the columns student (the submission's folder) and id
  --roster-columns STUDENT,ID  other names for those two columns (e.g. "SIS Login ID,ID")

Extra CMake options (e.g. -DKIT_REQUIRE_GPU=ON, -DKIT_GRADING_CONFIG=...) go in KIT_CMAKE_ARGS.

The stages, their files, problems and points come from the kit's description, kit.json, written
by the kit's own generator (common/kit_description.cmake, cmake -P) with the grading
configuration the class is graded with (KIT_CMAKE_ARGS' -DKIT_GRADING_CONFIG, else the kit's),
as each submission's build writes it; it is kept as BUILD_ROOT/kit.json, which the class report
reads for each stage's problem and points.

A stage file that is missing, is not a regular file or does not compile is graded as the kit's
unfilled skeleton (it then scores 0) and the row's notes say so: one broken file costs one
stage, and one broken submission never stops the class. Each student's result is written,
whole, to BUILD_ROOT/results/STUDENT.json when the student is done, so an interrupted class
resumes where it stopped; the CSV is rewritten (atomically) after every student. A regrade (a
changed submission, kit or options, or --fresh) keeps the earlier record in
BUILD_ROOT/history/STUDENT/, and the row's notes, the class report and the student's feedback say
what changed per stage, from the grade records (grade.json's "changes", as for one student's
regrade). reachable_total is what the grade could reach where it was graded: on the CPU
emulator, speed is not measured (8 of a stage's 10 points by default).

Exit status: 0 when every submission has a grade (a broken one's grade may be 0); 1 when some
could not be graded (interrupted, or Slurm tasks that failed to run: listed apart); 2 for bad
usage. Each speed case runs alone on its GPU: a submission's emulated tests run first, on the CPU
alone (make check-grade-emulated), then its GPU tests and the report (make check-grade-on-gpu) on
a GPU lent to it alone, and CTest runs each speed test of a submission with the GPU to itself (it
takes every slot of the GPU in CTest's resource file, tests/grader/check.cmake).
"""
import argparse
import contextlib
import csv
import datetime
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ there

# What the grading depends on besides the submission: a change here grades everyone again.
KIT_GRADING_PATHS = ["CMakeLists.txt", "common", "emu", "labs", "solutions", "tests"]
# ... but not the class grader and its tests: a change to the report grades no one again.
NOT_GRADING_PATHS = ["tests/class", "tests/slurm"]
OUTCOMES = ("graded", "build failed", "timed out", "no grade report")


def fail_usage(message):
    print("grade_class.py: %s (tests/class/grade_class.py --help says how to call it)" % message, file=sys.stderr)
    sys.exit(2)


# ------------------------------------------------------------------------------------ the stages
def grading_config(cmake_args):
    """The grading configuration the class's builds grade with: KIT_CMAKE_ARGS'
    -DKIT_GRADING_CONFIG (relative to here, as cmake reads it), or None for the kit's own."""
    config = None
    for arg in cmake_args:
        m = re.match(r"^-DKIT_GRADING_CONFIG(?::[A-Za-z]+)?=(.*)$", arg)
        if m:
            config = m.group(1)
    return os.path.abspath(config) if config else None


def read_description(path):
    """A kit.json (common/kit_description.cmake says its fields)."""
    with open(path, encoding="utf-8") as f:
        kit = json.load(f)
    if kit.get("format") != 1:
        raise SystemExit("grade_class.py: %s has format %r; this grade_class.py reads format 1" % (path, kit.get("format")))
    return kit


def describe_kit(cmake_args):
    """The kit's description, kit.json, as a build of the kit with these CMake options writes it:
    by the kit's own generator (cmake -P common/kit_description.cmake, under a second), with the
    points of the grading configuration the class is graded with."""
    with tempfile.TemporaryDirectory(prefix="grade_class.") as folder:
        path = os.path.join(folder, "kit.json")
        command = ["cmake", "-DSOURCE=" + KIT, "-DOUTPUT=" + path]
        config = grading_config(cmake_args)
        if config:
            command.append("-DGRADING_CONFIG=" + config)
        command += ["-P", os.path.join(KIT, "common", "kit_description.cmake")]
        try:
            run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        except OSError as e:
            raise SystemExit("grade_class.py: cannot run cmake, which builds the kit (sudo apt-get install "
                             "cmake): %s" % e)
        if run.returncode != 0:
            raise SystemExit("grade_class.py: the kit's description (common/kit_description.cmake) cannot be "
                             "written:\n" + run.stdout.strip())
        return read_description(path)


def read_stages(kit):
    """{number: "dir/name.cu"}: the file a student fills for each stage, from the kit's description."""
    return {int(s["number"]): s["file"] for s in kit["stages"]}


def parse_stage_list(text, known):
    numbers = set()
    for item in re.split(r"[,;\s]+", text.strip()):
        m = re.fullmatch(r"(\d+)-(\d+)", item) or re.fullmatch(r"(\d+)", item)
        if not m:
            fail_usage("--stages: '%s' is neither a stage number nor a range like 1-3" % item)
        low, high = int(m.group(1)), int(m.group(m.lastindex))
        if low > high:
            fail_usage("--stages: the range %s runs backwards (%d-%d?)" % (item, high, low))
        for k in range(low, high + 1):
            if k not in known:
                fail_usage("--stages: there is no stage %d (the kit has %d-%d)" % (k, min(known), max(known)))
            numbers.add(k)
    if not numbers:
        fail_usage("--stages is empty: name at least one stage")
    return sorted(numbers)


def kit_is_a_git_checkout():
    return subprocess.run(["git", "-C", KIT, "rev-parse", "--verify", "-q", "HEAD"], capture_output=True).returncode == 0


def committed_skeleton(stage_file):
    """The unfilled skeleton as committed: never the kit's working copy of labs/, which an
    instructor may have filled in (a broken submission would then get the instructor's answer).
    A copy of the kit that is not a git checkout has only its working copy."""
    if not kit_is_a_git_checkout():
        with open(os.path.join(KIT, "labs", stage_file), "rb") as f:
            return f.read()
    shown = subprocess.run(["git", "-C", KIT, "show", "HEAD:labs/" + stage_file], capture_output=True)
    if shown.returncode == 0:
        return shown.stdout
    try:  # not committed yet (a new stage): the working copy is all there is
        with open(os.path.join(KIT, "labs", stage_file), "rb") as f:
            return f.read()
    except OSError:
        raise SystemExit("grade_class.py: the kit has no skeleton labs/%s, committed or not" % stage_file)


# ------------------------------------------------------------------------------ the fingerprints
def kit_fingerprint(options_text):
    """The kit's grading code as committed plus any uncommitted change to it, and the options
    (without git: the files themselves)."""
    h = hashlib.sha256(options_text.encode())
    if not kit_is_a_git_checkout():
        for path in KIT_GRADING_PATHS:
            for top, dirs, files in os.walk(os.path.join(KIT, path)):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build", "__pycache__")) and
                                 os.path.relpath(os.path.join(top, d), KIT) not in NOT_GRADING_PATHS)
                for name in sorted(files):
                    with open(os.path.join(top, name), "rb") as f:
                        h.update(os.path.relpath(os.path.join(top, name), KIT).encode() + b"\0" + f.read())
        return h.hexdigest()
    pathspec = KIT_GRADING_PATHS + [":(exclude)" + path for path in NOT_GRADING_PATHS]
    tree = subprocess.run(["git", "-C", KIT, "ls-tree", "-r", "HEAD", "--"] + KIT_GRADING_PATHS, capture_output=True)
    for line in tree.stdout.splitlines(keepends=True):  # "mode type hash\tpath"
        if not any(line.split(b"\t", 1)[-1].startswith(path.encode() + b"/") for path in NOT_GRADING_PATHS):
            h.update(line)
    diff = subprocess.run(["git", "-C", KIT, "diff", "HEAD", "--"] + pathspec, capture_output=True)
    h.update(diff.stdout)
    return h.hexdigest()


def submission_files(folder, stages, stage_files):
    """{stage file: bytes, or a reason it cannot be graded} for the graded stages of one submission."""
    files = {}
    for k in stages:
        path = os.path.join(folder, stage_files[k])
        if os.path.islink(path) or (os.path.exists(path) and not os.path.isfile(path)):
            files[stage_files[k]] = "is not a regular file"
        elif not os.path.exists(path):
            files[stage_files[k]] = "is missing"
        else:
            try:
                with open(path, "rb") as f:
                    files[stage_files[k]] = f.read()
            except OSError as e:
                files[stage_files[k]] = "cannot be read (%s)" % e.strerror
    return files


def fingerprint(kit_print, files):
    h = hashlib.sha256(kit_print.encode())
    for name in sorted(files):
        content = files[name]
        h.update(name.encode() + b"\0")
        h.update(content if isinstance(content, bytes) else ("unreadable: " + content).encode())
        h.update(b"\0")
    return h.hexdigest()


# ---------------------------------------------------------------------------------- small pieces
def write_atomically(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), dir=folder)
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)  # as open() would make it, not mkstemp's 0600: TAs read the grades too
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(temporary, path)


def read_record(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def duration(seconds):
    seconds = int(round(seconds))
    if seconds < 60:
        return "%d s" % seconds
    if seconds < 3600:
        return "%d min %d s" % (seconds // 60, seconds % 60)
    return "%d h %d min" % (seconds // 3600, seconds % 3600 // 60)


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Killed(Exception):
    """The submission ran past its time limit, or the class was interrupted."""


class Children:
    """Every process group the graders started, so that an interrupted class kills them all."""

    def __init__(self):
        self.lock = threading.Lock()
        self.groups = set()
        self.stopping = False

    def run(self, command, log_path, deadline, env=None):
        """Runs command, its output to log_path; returns its exit status. Raises Killed past the deadline."""
        with open(log_path, "ab") as log:
            log.write(("$ %s\n" % " ".join(shlex.quote(c) for c in command)).encode())
            log.flush()
            with self.lock:
                if self.stopping:
                    raise Killed("interrupted")
                process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env,
                                           start_new_session=True)
                self.groups.add(process.pid)
            try:
                process.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.kill(process.pid)
                process.wait()
                raise Killed("timed out")
            finally:
                with self.lock:
                    self.groups.discard(process.pid)
            if self.stopping:
                raise Killed("interrupted")
            return process.returncode

    @staticmethod
    def kill(group):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(group, sig)
            except ProcessLookupError:
                return
            if sig == signal.SIGTERM:
                time.sleep(2)

    def stop_all(self):
        with self.lock:
            self.stopping = True
            groups = list(self.groups)
        for group in groups:
            self.kill(group)


# ------------------------------------------------------------------------ one submission, graded
class Grader:
    """Builds and grades submissions in BUILD_ROOT/students/STUDENT/; several at once (thread-safe)."""

    def __init__(self, settings, children):
        self.s = settings
        self.children = children

    def paths(self, student):
        top = os.path.join(self.s["build_root"], "students", student)
        return {"student": student, "top": top, "labs": os.path.join(top, "labs"), "build": os.path.join(top, "build"),
                "logs": os.path.join(top, "logs"), "grade": os.path.join(top, "grade"),
                "record": os.path.join(self.s["build_root"], "results", student + ".json")}

    def keep_earlier(self, student, p):
        """A regrade keeps the earlier record: results/STUDENT.json is copied to
        BUILD_ROOT/history/STUDENT/FINISHED.json before the new one replaces it. Returns (the
        earlier record, with "kept": that copy's path in BUILD_ROOT, or None; {name: bytes} of the
        earlier grading's result files, students/STUDENT/grade/stageK.PART), the files that the
        kit's report compares the new grading with, as it does for one student's regrade."""
        earlier = read_record(p["record"])
        if not isinstance(earlier, dict) or not earlier.get("student"):
            return None, {}
        stamp = re.sub(r"[^0-9TZ]", "", str(earlier.get("finished") or ""))
        if not stamp:
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(os.path.getmtime(p["record"])))
        folder = os.path.join(self.s["build_root"], "history", student)
        os.makedirs(folder, exist_ok=True)
        kept = os.path.join(folder, stamp + ".json")
        if not os.path.exists(kept):
            shutil.copyfile(p["record"], kept)
        earlier["kept"] = os.path.relpath(kept, self.s["build_root"])
        files = {}
        if os.path.isdir(p["grade"]):
            for name in sorted(os.listdir(p["grade"])):
                path = os.path.join(p["grade"], name)
                if re.fullmatch(r"stage\d+\.[a-z-]+", name) and os.path.isfile(path) and not os.path.islink(path):
                    with open(path, "rb") as f:
                        files[name] = f.read()
        return earlier, files

    @staticmethod
    def previous_of(earlier):
        """What the new record keeps of the earlier one (the whole of it is in history/)."""
        return {key: earlier.get(key) for key in ("finished", "outcome", "total", "max_total", "points", "kept",
                                                  "graded_on", "replaced")}

    def stage_of(self, stage_file):
        return next(k for k, name in self.s["stage_files"].items() if name == stage_file)

    def prepare(self, student, folder, p):
        """A private copy of the graded stage files (regular files only), the skeleton for the rest."""
        replaced = {}  # {"K": "stage K's file and why the skeleton stands in for it"}
        shutil.rmtree(p["top"], ignore_errors=True)
        os.makedirs(p["logs"])
        notes = []
        files = submission_files(folder, self.s["stages"], self.s["stage_files"])
        for name, content in sorted(files.items()):
            target = os.path.join(p["labs"], name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if not isinstance(content, bytes):
                notes.append("%s %s (graded as unfilled)" % (name, content))
                replaced[str(self.stage_of(name))] = "%s %s" % (name, content)
                content = self.s["skeletons"][name]
            with open(target, "wb") as f:
                f.write(content)
        return replaced, notes

    def build_environment(self):
        """With ccache, the submissions share every compiled object but their own stage files':
        on 2 cores a submission's build of stage 8 took 22 s alone, 6 s with the objects shared.
        The cache is keyed by what each compile reads, so a student's code reaches no one else's;
        depend mode hashes the compiler's own dependency file instead of running nvcc's
        preprocessor a second time for every compile the cache does not hold. It is the one
        CCACHE_DIR names where that is set (the kit's test suite shares one cache among all its
        builds of a kit), else one beside the builds. OMP_NUM_THREADS keeps the grader's large
        inputs, which it makes and checks on several cores (common/input.c), within a submission's
        share of the cores. Where Ninja is installed, a submission's build folder is made with it
        (CMAKE_GENERATOR, unless that or a -G is given already): Make runs a cmake process for every
        rule's message and every target's dependency scan, and a submission's build with the cache
        warm took 3.2 to 3.7 CPU-s with Make, 1.7 to 2.0 with Ninja (2 cores, 2026-11-27)."""
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", str(self.s["grade_jobs"]))
        if self.s.get("ninja") and "CMAKE_GENERATOR" not in env and not any(
                a.startswith("-G") for a in self.s["cmake_args"]):
            env["CMAKE_GENERATOR"] = "Ninja"
        if self.s.get("ccache"):
            env.update({"CCACHE_DIR": os.environ.get("CCACHE_DIR") or os.path.join(self.s["build_root"], "ccache"),
                        "CCACHE_BASEDIR": os.path.join(self.s["build_root"], "students"),
                        "CCACHE_NOHASHDIR": "true", "CCACHE_DEPEND": "true"})
        return env

    def configure_and_build(self, p, deadline, configure_first=True):
        """configure_first=False: the build is configured already, and only stage files changed (the
        skeleton put back for a file that does not compile): make sees the change, so the kit is not
        configured again (a configure is most of a submission's build once the cache holds the kit)."""
        log = os.path.join(p["logs"], "build.log")
        open(log, "w").close()
        # -DKIT_WERROR=OFF: a KIT_WERROR=ON in the grader's environment (CMakeLists.txt) must not refuse a
        # student's file for a warning; KIT_CMAKE_ARGS, which come after it, may still ask for it.
        # -DKIT_GRADE_ONLY=ON: the grader, the emulator and the stages only, not the kit's self-tests,
        # docs and release (a submission's configure on 2 cores: 6.2 s, 3.7 s so, 2026-11-27).
        configure = ["cmake", "-S", KIT, "-B", p["build"], "-DKIT_LABS_DIR=" + p["labs"], "-DKIT_WERROR=OFF",
                     "-DKIT_GRADE_ONLY=ON", "-DKIT_GRADER_SELFTEST=OFF",
                     "-DKIT_GRADE_STAGES=" + ";".join(map(str, self.s["stages"])),
                     "-DKIT_CHECK_JOBS=%d" % self.s["grade_jobs"]]
        if re.fullmatch(r"[A-Za-z0-9._@+-]{1,64}", p["student"]):  # the feedback's "Feedback for NAME", not "labs"
            configure.append("-DKIT_STUDENT=" + p["student"])
        configure += self.s["cmake_args"]
        if self.s.get("ccache"):
            configure += ["-DCMAKE_%s_COMPILER_LAUNCHER=%s" % (lang, self.s["ccache"]) for lang in ("C", "CXX", "CUDA")]
        env = self.build_environment()
        if configure_first and self.children.run(configure, log, deadline, env) != 0:
            return False, log
        # Going on past a stage file that does not compile (as make check does, tests/grader/check.cmake),
        # so that one build names every such file of the submission.
        keep_going = ["-k", "0"] if self.generator(p["build"]) == "Ninja" else ["-k"]
        build = ["cmake", "--build", p["build"], "-j", str(self.s["build_jobs"]), "--target", "grade-programs", "--"]
        return self.children.run(build + keep_going, log, deadline, env) == 0, log

    def build_with_skeletons_for_what_does_not_compile(self, p, deadline, replaced, notes):
        """Configures and builds the submission; a stage file that does not compile gets its
        skeleton, and the build runs again, until it builds or names no new file (a build that keeps
        going names them all at once). replaced and notes get a line for each. Returns (built, log)."""
        ok, log = self.configure_and_build(p, deadline)
        put_back = set()
        while not ok:
            broken = [name for name in self.files_that_failed(log) if name not in put_back]
            if not broken:
                break
            kept = os.path.join(p["logs"], "build-with-the-submission%s.log"
                                % ("-%d" % (len(put_back) + 1) if put_back else ""))
            shutil.move(log, kept)
            for name in broken:
                put_back.add(name)
                with open(os.path.join(p["labs"], name), "wb") as f:
                    f.write(self.s["skeletons"][name])
                said = self.compiler_said(kept, name)
                replaced[str(self.stage_of(name))] = "%s does not compile%s" % (
                    name, "; the compiler said: " + said if said else "")
                notes.append("%s does not compile (graded as unfilled; the compiler said: %s; all its "
                             "messages: %s)" % (name, said or "see the log", kept))
            ok, log = self.configure_and_build(p, deadline, configure_first=False)
        return ok, log

    @staticmethod
    def generator(build):
        """The CMake generator of a configured build folder (its CMakeCache.txt), or ""."""
        try:
            with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("CMAKE_GENERATOR:"):
                        return line.split("=", 1)[1].strip()
        except OSError:
            pass
        return ""

    def files_that_failed(self, log):
        """The stage files the compiler names in an error: nvcc writes "file.cu(12): error", the
        emulator's C++ compiler "file.cu:12:5: error"."""
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
        failed = []
        for k in self.s["stages"]:
            name = self.s["stage_files"][k]
            if re.search(re.escape(name) + r"(\(|:)\d+[^\n]*error", text):
                failed.append(name)
        return failed

    def compiler_said(self, log, name):
        """The compiler's first error lines for the stage file `name` in the build log, with the
        path the student knows (labs/...), not the grading machine's."""
        with open(log, encoding="utf-8", errors="replace") as f:
            lines = [line.rstrip() for line in f if re.search(re.escape(name) + r"(\(|:)\d+[^\n]*error", line)]
        shown = []
        for line in lines[:2]:
            at = line.find(name)
            start = line.rfind(" ", 0, at) + 1  # the path's first character
            shown.append("labs/" + line[at:] if line[start:at].endswith("/") or start == at else line)
        return " | ".join(shown)

    def tell_feedback(self, grade_dir, replaced):
        """Puts what the compiler said first in the student's feedback: the kit graded the skeleton
        in the file's place, and its report says "fill in the TODO", which is not what happened."""
        said = {k: v for k, v in replaced.items() if "does not compile" in v or "is missing" in v}
        if not said or not os.path.isdir(grade_dir):
            return
        head = "".join("Stage %s: %s. It was graded as the unfilled lab, so the lines about stage %s below say "
                       "'fill in the TODO'.\n" % (k, why, k) for k, why in sorted(said.items()))
        for name in os.listdir(grade_dir):
            if name.startswith("feedback") and name.endswith(".txt"):
                path = os.path.join(grade_dir, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                with open(path, "w", encoding="utf-8") as f:
                    f.write(head + "\n" + text)

    def grade(self, student, folder, fingerprint_value, lease):
        """Builds and grades one submission; returns its record (also written to results/).
        lease: CPU cores for the build, then a GPU of its own (or none) and cores for the tests."""
        p = self.paths(student)
        started = time.monotonic()
        deadline = started + self.s["time_limit"]
        record = {"student": student, "fingerprint": fingerprint_value, "outcome": None, "notes": "",
                  "time_limit": self.s["time_limit"],
                  "stages": self.s["stages"], "points": {}, "max_points": {}, "total": None, "max_total": None,
                  "grade": [], "speed": {}, "seconds": {},
                  "where": {"host": socket.gethostname(), "gpu": None, "slurm": self.s.get("slurm_task")}}
        earlier, earlier_files = self.keep_earlier(student, p)
        if earlier:
            record["previous"] = self.previous_of(earlier)
        replaced, notes = self.prepare(student, folder, p)
        record["replaced"] = replaced
        if earlier_files:  # check.cmake's place for them: grade_report --previous says what changed
            previous = os.path.join(p["build"], "grade", "previous")
            os.makedirs(previous)
            for name, content in earlier_files.items():
                with open(os.path.join(previous, name), "wb") as f:
                    f.write(content)
        try:
            with lease.building():
                build_started = time.monotonic()
                ok, log = self.build_with_skeletons_for_what_does_not_compile(p, deadline, replaced, notes)
                record["seconds"]["build"] = round(time.monotonic() - build_started, 1)
            if not ok:
                record["outcome"] = "build failed"
                notes.append("the kit did not build with this submission (see %s)" % log)
            else:
                env = self.build_environment()
                check_log = os.path.join(p["logs"], "check.log")
                target = "check-grade"
                if not self.s.get("slurm_task"):
                    # No GPU but the one lent below: with --gpus none the emulator grades even where
                    # GPUs are there (else every lane would time its speed cases on one GPU at once),
                    # and the emulated tests never touch a GPU. A Slurm task keeps the GPU Slurm gave.
                    env["CUDA_VISIBLE_DEVICES"] = ""
                if lease.pool is not None:
                    # The emulated tests first, on the CPU alone: a GPU is lent only for the rest.
                    with lease.emulating():
                        emulated_started = time.monotonic()
                        self.children.run(["cmake", "--build", p["build"], "--target", "check-grade-emulated"],
                                          check_log, deadline, env)
                        record["seconds"]["emulated"] = round(time.monotonic() - emulated_started, 1)
                    target = "check-grade-on-gpu"
                with lease.grading() as gpu:
                    grade_started = time.monotonic()
                    record["where"]["gpu"] = gpu if gpu is not None else self.s["gpu_label"]
                    if gpu is not None:
                        env["CUDA_VISIBLE_DEVICES"] = gpu
                    self.children.run(["cmake", "--build", p["build"], "--target", target], check_log, deadline, env)
                    record["seconds"]["grade"] = round(time.monotonic() - grade_started, 1)
                self.tell_feedback(os.path.join(p["build"], "grade"), replaced)
                self.read_grade(os.path.join(p["build"], "grade"), record, notes)
        except Killed as why:
            if str(why) == "interrupted":
                raise
            record["outcome"] = "timed out"
            notes.append("stopped after the time limit of %s (--time-limit); its processes were killed"
                         % duration(self.s["time_limit"]))
        import class_report  # tests/class/class_report.py: a regrade's note says what changed, from the records
        note = class_report.change_note(record)
        if note:
            notes.append(note)
        # total: from the start of this submission, waiting for cores or a GPU included
        record["seconds"]["total"] = round(time.monotonic() - started, 1)
        record["notes"] = "; ".join(notes)
        record["finished"] = now_iso()
        self.keep_what_matters(p)
        write_atomically(p["record"], json.dumps(record, indent=1, sort_keys=True) + "\n")
        return record

    def read_grade(self, grade_dir, record, notes):
        """The grade record of one graded submission, grade.json (written by the kit's C report,
        tests/grader/report.c kit_report_record): points, each part's status and message, the
        speed case's numbers and what graded it. Nothing here reads the report's text."""
        try:
            with open(os.path.join(grade_dir, "grade.json"), encoding="utf-8") as f:
                grade = json.load(f)
            stages = {int(s["stage"]): s for s in grade.get("stages", [])}
        except (OSError, ValueError, KeyError, TypeError):
            record["outcome"] = "no grade report"
            notes.append("make check-grade wrote no grade record (see %s)"
                         % os.path.join(os.path.dirname(os.path.dirname(grade_dir)), "logs", "check.log"))
            return
        # What graded it: a GPU lent to it may have been unusable (a driver fault, a wrong --gpus).
        on = str(grade.get("graded_on", ""))
        record["graded_on"] = "emulator" if ("emulator" in on or on in ("", "no GPU")) else on
        record["grade"] = []
        for k in self.s["stages"]:
            stage = stages.get(k)
            record["points"][str(k)] = float(stage["score"]) if stage else 0.0
            record["max_points"][str(k)] = float(stage["max_score"]) if stage else 0.0
            if not stage:
                continue
            for part in ("correctness", "speedup", "sanitizer"):
                points = stage["points"][part]
                name = "races" if part == "sanitizer" and stage.get("races_from") == "emulator" else part
                record["grade"].append({"stage": k, "part": name, "score": points["score"],
                                        "max_score": points["max_score"], "status": points["status"],
                                        "message": points["message"]})
            timed = stage.get("parts", {}).get("speedup", {})
            if "achieved" in timed:
                speed = {key: float(timed[key]) for key in ("achieved", "required", "reference", "spread")}
                # The times and GB/s the leaderboards rank (a grade record of an older kit has none)
                speed.update({key: float(timed[key]) for key in ("gbps", "reference_gbps", "student_ms", "reference_ms")
                              if key in timed})
                speed.update(status=timed["outcome"], message=timed.get("message", ""), device=timed.get("device", ""),
                             n=(timed.get("timed") or {}).get("n"))
                record["speed"][str(k)] = speed
        record["total"] = float(grade.get("score", 0))
        record["max_total"] = float(grade.get("max_score", 0))
        # The most it could reach where it was graded (without a GPU speed is not measured): grade.json's
        record["reachable_total"] = float(grade.get("reachable", record["max_total"]))
        record["reachable"] = {str(k): float(stages[k].get("reachable", stages[k]["max_score"]))
                               for k in self.s["stages"] if k in stages}
        if isinstance(grade.get("changes"), list):  # a regrade: what changed, as the kit's report decided it
            record["changes"] = grade["changes"]
        record["outcome"] = "graded"

    def keep_what_matters(self, p):
        """The grade report stays in students/STUDENT/grade/; the build folder (hundreds of MB) goes."""
        grade = os.path.join(p["build"], "grade")
        if os.path.isdir(grade):
            shutil.copytree(grade, p["grade"], dirs_exist_ok=True)
        if not self.s["keep_builds"]:
            shutil.rmtree(p["build"], ignore_errors=True)


# ------------------------------------------------------------------------ CPU and GPU budgets
class CpuBudget:
    """At most `total` cores' worth of make and CTest jobs at once, builds and gradings together."""

    def __init__(self, total):
        self.total = total
        self.free = total
        self.condition = threading.Condition()

    @contextlib.contextmanager
    def take(self, count):
        count = min(count, self.total)
        with self.condition:
            self.condition.wait_for(lambda: self.free >= count)
            self.free -= count
        try:
            yield
        finally:
            with self.condition:
                self.free += count
                self.condition.notify_all()


class GpuPool:
    """The GPUs, each lent to one grading at a time: a speed case never shares its GPU."""

    def __init__(self, gpus):
        self.free = list(gpus)
        self.condition = threading.Condition()

    @contextlib.contextmanager
    def take(self):
        with self.condition:
            self.condition.wait_for(lambda: self.free)
            gpu = self.free.pop(0)
        try:
            yield gpu
        finally:
            with self.condition:
                self.free.append(gpu)
                self.condition.notify_all()


class Lease:
    """What one submission may use: build_jobs cores while it builds; then a GPU of its own (when
    there are GPUs) and grade_jobs cores while CTest grades it."""

    def __init__(self, budget, pool, build_jobs, grade_jobs, primed=None, primes=False):
        self.budget, self.pool = budget, pool
        self.build_jobs, self.grade_jobs = build_jobs, grade_jobs
        self.primed, self.primes = primed, primes

    @contextlib.contextmanager
    def building(self):
        """primed: an event set once the first build of the class is done (the priming one, whose
        lease primes=True) and every build waits for."""
        if self.primed is not None and not self.primes:
            self.primed.wait()
        try:
            with self.budget.take(self.build_jobs):
                yield
        finally:
            if self.primes:
                self.primed.set()

    def emulating(self):
        """The emulated tests of a submission graded on GPUs: cores, no GPU."""
        return self.budget.take(self.grade_jobs)

    @contextlib.contextmanager
    def grading(self):
        if self.pool is None:
            with self.budget.take(self.grade_jobs):
                yield None
            return
        with self.pool.take() as gpu, self.budget.take(self.grade_jobs):
            yield gpu


def nvidia_smi_gpus():
    """The GPU numbers nvidia-smi lists, or None where it does not answer (no driver, not installed)."""
    try:
        result = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if result.returncode != 0:
        return None
    return [str(i) for i, _ in enumerate(line for line in result.stdout.splitlines() if line.startswith("GPU "))]


def visible_gpus():
    """The GPUs this process may use, found without calling CUDA (the grading forks)."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        ids = [g.strip() for g in listed.split(",") if g.strip() and g.strip() != "-1"]
        return [] if ids == ["NoDevFiles"] else ids
    return nvidia_smi_gpus() or []


def cpu_count():
    for name in ("SLURM_CPUS_PER_TASK", "SLURM_CPUS_ON_NODE"):
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# ------------------------------------------------------------------------------------ the class
def class_csv(settings, records, reasons=None):
    """The class table: a row per student of the class, a column per graded stage. A student with
    no current grade (not graded yet, a Slurm task that failed to run) has a row too, with empty
    points, outcome "not graded" and why in the notes: a student is never missing from it.
    graded_on: the GPU's name, or "emulator"; max_total: every point of the graded stages;
    reachable_total: the most the grade could reach where it was graded (grade.json's "reachable":
    on the emulator, whose grade earns no speed points unless the grading configuration scales it,
    24 of 30 for three stages by default). A regrade's notes say what changed since the last grade."""
    import class_report  # tests/class/class_report.py
    stages, reasons = settings["stages"], reasons or {}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student"] + ["stage%d" % k for k in stages] +
                    ["total", "max_total", "reachable_total", "outcome", "graded_on", "notes"])
    for student in sorted(set(settings.get("students", [])) | set(records)):
        r = records.get(student)
        if r is None:
            writer.writerow([spreadsheet_safe(student)] + [""] * len(stages) +
                            ["", "", "", "not graded", "", reasons.get(student, "not graded yet: the same command grades it")])
            continue
        points = [("%g" % r["points"][str(k)]) if str(k) in r.get("points", {}) else "" for k in stages]
        total = "" if r.get("total") is None else "%g" % r["total"]
        most = "" if r.get("max_total") is None else "%g" % r["max_total"]
        reachable = class_report.reachable_total(r, settings.get("kit")) if r.get("total") is not None else None
        writer.writerow([spreadsheet_safe(student)] + points +
                        [total, most, "" if reachable is None else "%g" % reachable, r["outcome"],
                         r.get("graded_on", ""), r.get("notes", "")])
    return out.getvalue()


def spreadsheet_safe(text):
    """A folder name as a spreadsheet shows it, never as a formula (=, +, -, @ first)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


class Progress:
    """A line per finished submission, with how long the rest should take at the pace so far, and
    at least every HEARTBEAT seconds a line naming the submissions still being graded, so that a
    class of slow stages never leaves the terminal silent."""

    HEARTBEAT = float(os.environ.get("KIT_CLASS_HEARTBEAT", "30"))  # the kit's test says 2

    def __init__(self, to_grade):
        self.to_grade = to_grade
        self.done = 0
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.width = len(str(to_grade))
        self.running = {}             # student -> when its grading started
        self.said = time.monotonic()  # the last line printed
        self.stop = threading.Event()
        self.beat = threading.Thread(target=self.heartbeat, daemon=True)
        self.beat.start()

    def begin(self, student):
        with self.lock:
            self.running[student] = time.monotonic()

    def heartbeat(self):
        while not self.stop.wait(1):
            with self.lock:
                now = time.monotonic()
                if now - self.said < self.HEARTBEAT or not self.running:
                    continue
                names = ", ".join("%s (%s)" % (name, duration(now - since))
                                  for name, since in sorted(self.running.items(), key=lambda item: item[1]))
                print("[%*d/%d] still grading %s (%s)" % (self.width, self.done, self.to_grade, names,
                                                        self.estimate(self.done, self.to_grade - self.done)),
                      flush=True)
                self.said = now

    def forget(self, student):
        with self.lock:
            self.running.pop(student, None)

    def close(self):
        self.stop.set()

    def estimate(self, done, left):
        elapsed = time.monotonic() - self.started
        if not done or not left:
            return duration(elapsed) + " so far"
        return "%s so far, about %s left" % (duration(elapsed), duration(elapsed / done * left))

    def finished(self, record):
        with self.lock:
            self.running.pop(record["student"], None)
            self.said = time.monotonic()
            self.done += 1
            if record["outcome"] == "graded":
                what = "%g/%g points" % (record["total"], record["max_total"])
                if record.get("reachable_total") is not None and record["reachable_total"] < record["max_total"]:
                    what += " (%g reachable)" % record["reachable_total"]
            else:
                what = record["outcome"]
            gpu = record["where"].get("gpu")
            if gpu is None:
                where = ""
            elif record.get("graded_on") == "emulator" or gpu == "emulator":
                where = " on the CPU emulator" + (" (GPU %s was lent: it did not answer)" % gpu if gpu != "emulator" else "")
            else:
                where = " on GPU %s" % gpu
            print("[%*d/%d] %s: %s in %s%s (%s)" % (
                self.width, self.done, self.to_grade, record["student"], what,
                duration(record["seconds"].get("total", 0)), where,
                self.estimate(self.done, self.to_grade - self.done)), flush=True)


def list_submissions(folder):
    students = sorted(name for name in os.listdir(folder)
                      if os.path.isdir(os.path.join(folder, name)) and not name.startswith("."))
    if not students:
        fail_usage("%s has no sub-folder: it should hold one folder per student, each a copy of labs/" % folder)
    return students


def current_record(settings, student, fp):
    """The student's record in results/ if it still holds: same submission, kit and options."""
    record = read_record(os.path.join(settings["build_root"], "results", student + ".json"))
    if not record or record.get("fingerprint") != fp or record.get("outcome") not in OUTCOMES:
        return None
    if record["outcome"] == "timed out" and record.get("time_limit", 0) < settings["time_limit"]:
        return None  # a longer --time-limit than it ran out of: try again
    return record


def after_grading_options(args):
    """The settings of what comes after grading (similarity check, pseudonyms, gradebook), checked
    before anything is graded: a missing compare50 or a bad roster is said at once, not after an
    hour of grading."""
    import gradebook  # tests/class/gradebook.py
    import similarity  # tests/class/similarity.py
    extras = {"similarity": None, "pseudonyms": args.pseudonyms, "pseudonym_key": args.pseudonym_key, "roster": None}
    if not args.similarity:
        for given, name in ((args.similarity_threshold is not None, "--similarity-threshold"),
                            (args.archive, "--archive"), (args.distro, "--distro")):
            if given:
                fail_usage("%s goes with --similarity" % name)
    else:
        threshold = similarity.THRESHOLD if args.similarity_threshold is None else args.similarity_threshold
        if not 0 < threshold <= 1:
            fail_usage("--similarity-threshold must be above 0 and at most 1, not %g" % threshold)
        for archive in args.archive:
            if not os.path.isdir(archive):
                fail_usage("--archive %s is not a folder of earlier submissions" % archive)
        if args.distro and not os.path.isdir(args.distro):
            fail_usage("--distro %s is not a folder (name the labs/ handed out)" % args.distro)
        python = similarity.compare50_python()
        if not python:
            raise SystemExit("grade_class.py: --similarity: " + similarity.INSTALL)
        extras["similarity"] = {"python": python, "threshold": threshold,
                                "archives": [os.path.abspath(a) for a in args.archive],
                                "distro": os.path.abspath(args.distro) if args.distro else None}
    if args.pseudonym_key and not args.pseudonyms:
        fail_usage("--pseudonym-key goes with --pseudonyms")
    if args.roster_columns and not args.roster:
        fail_usage("--roster-columns goes with --roster")
    if args.roster:
        try:
            columns = gradebook.parse_columns(args.roster_columns) if args.roster_columns else gradebook.DEFAULT_COLUMNS
            extras["roster"] = gradebook.read_roster(os.path.abspath(args.roster), columns)
        except gradebook.RosterProblem as e:
            fail_usage("--roster: %s" % e)
    return extras


def write_outputs(settings, records, failed_to_run=(), reasons=None):
    """The class CSV, and beside it the class report (CSV-report.html, CSV-report.csv) and what was
    asked for after grading: the similarity check (BUILD_ROOT/similarity/), the leaderboards by
    pseudonym (CSV-leaderboard.html, CSV-pseudonyms.csv) and the gradebook (CSV-gradebook.csv).
    Returns the report's path; settings["extras_failed"] says whether the similarity check failed
    (the report is written without it)."""
    reasons = dict(reasons or {})
    for f in failed_to_run:
        reasons.setdefault(f["student"], "its Slurm task %s failed to run (%s): --slurm again grades it"
                           % (f["task"], f["state"]))
    write_atomically(settings["csv"], class_csv(settings, records, reasons))
    import class_report  # tests/class/class_report.py
    stem = os.path.splitext(settings["csv"])[0]
    found = None
    if settings.get("similarity"):
        import similarity  # tests/class/similarity.py
        options = settings["similarity"]
        try:
            found = similarity.check(settings["submissions"], os.path.join(settings["build_root"], "similarity"),
                                     settings["stage_files"], settings["skeletons"], options["archives"],
                                     options["distro"], options["threshold"], similarity.MIN_TOKENS, options["python"])
            pairs = similarity.summary(found)
            print("similarity (compare50): %d pair(s) at %.0f%% or more%s" % (
                len(pairs), 100 * options["threshold"], ":" if pairs else ""))
            for line in pairs + found["problems"]:
                print(line)
        except (SystemExit, similarity.Problem) as e:
            print("grade_class.py: the similarity check failed, so the class report has none: %s" % e, flush=True)
            settings["extras_failed"] = True
    names = board = None
    if settings.get("pseudonyms"):
        key = class_report.pseudonym_key(settings.get("pseudonym_key") or os.path.join(settings["build_root"],
                                                                                      "pseudonym-key"))
        names = class_report.pseudonyms(sorted(set(settings.get("students", [])) | set(records)), key)
        board = stem + "-leaderboard.html"
    class_report.write_report(sorted(records.values(), key=lambda r: r["student"]), stem + "-report.html",
                              stem + "-report.csv", "Class grades: %s" % settings["submissions"],
                              failed_to_run=list(failed_to_run), kit=settings.get("kit"), similarity=found,
                              names=names, leaderboard_path=board)
    if names:
        class_report.write_pseudonyms(stem + "-pseudonyms.csv", names)
        print("leaderboards by pseudonym, to share: %s (whose each is: %s)" % (board, stem + "-pseudonyms.csv"))
    if settings.get("roster"):
        import gradebook  # tests/class/gradebook.py
        path = stem + "-gradebook.csv"
        lines = gradebook.export(settings["roster"], records, settings["stages"], path, settings.get("kit"),
                                 settings.get("students", []))
        print("gradebook for Canvas or Moodle: %s" % path)
        for line in lines:
            print(line)
    return stem + "-report.html"


def grade_here(settings, todo, records):
    """Grades the submissions of todo on this machine: each GPU grades one at a time while the
    next ones build within the CPU budget; without a GPU, several at once on the CPU emulator.
    Returns (interrupted, [(student, error)] for the ones the kit itself failed on)."""
    children = Children()
    grader = Grader(settings, children)
    budget = CpuBudget(settings["cpus"])
    pool = GpuPool(settings["gpus"]) if settings["gpus"] else None
    progress = Progress(len(todo))
    queue = list(todo)
    lock = threading.Lock()
    failures = []
    # The first build primes the compiler cache alone, with every core; the others wait for it.
    # Without it every lane compiles the whole kit from a cold cache at the same time.
    primed = threading.Event() if settings.get("ccache") and len(todo) > 1 else None
    first = [primed is not None]

    def worker():
        while True:
            with lock:
                if not queue or children.stopping:
                    return
                student, folder, fp = queue.pop(0)
                primes, first[0] = first[0], False
            lease = Lease(budget, pool, settings["cpus"] if primes else settings["build_jobs"],
                          settings["grade_jobs"], primed, primes)
            progress.begin(student)
            try:
                record = grader.grade(student, folder, fp, lease)
            except Killed:
                progress.forget(student)
                return
            except Exception as e:  # the kit's own failure on one submission never stops the class
                progress.forget(student)
                with lock:
                    failures.append((student, "%s: %s" % (type(e).__name__, e)))
                print("grade_class.py: %s could not be graded: %s: %s" % (student, type(e).__name__, e),
                      file=sys.stderr, flush=True)
                continue
            with lock:
                records[student] = record
                write_atomically(settings["csv"], class_csv(settings, records))
            progress.finished(record)

    def interrupted(signum, frame):
        print("\ngrade_class.py: interrupted: stopping the gradings under way; the submissions graded so far "
              "are kept, and the same command resumes", file=sys.stderr, flush=True)
        threading.Thread(target=children.stop_all, daemon=True).start()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(settings["lanes"], len(todo)))]
    previous = {s: signal.signal(s, interrupted) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(0.5)
    finally:
        progress.close()
        for s, handler in previous.items():
            signal.signal(s, handler)
    return children.stopping, failures


# ------------------------------------------------------------------------------------ Slurm
def slurm_command(command):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise SystemExit("grade_class.py: %s is not installed here: --slurm runs on a machine that submits "
                         "to your cluster (the Slurm client: sudo apt-get install slurm-client)" % command[0])
    except subprocess.TimeoutExpired:
        raise SystemExit("grade_class.py: %s did not answer in 120 s: is slurmctld up?" % " ".join(command))
    return result


def slurm_submit(settings, todo):
    """One job array, a task per submission of todo; returns the job's id (saved in slurm/job.json)."""
    folder = os.path.join(settings["build_root"], "slurm")
    os.makedirs(folder, exist_ok=True)
    manifest = {"settings": {k: settings[k] for k in ("submissions", "build_root", "csv", "stages", "time_limit",
                                                      "cmake_args", "kit_fingerprint", "keep_builds")},
                "tasks": [{"student": s, "folder": f, "fingerprint": fp} for s, f, fp in todo]}
    manifest_path = os.path.join(folder, "manifest.json")
    write_atomically(manifest_path, json.dumps(manifest, indent=1) + "\n")
    minutes = (settings["time_limit"] + 600 + 59) // 60  # the task's own limit comes first
    lines = ["#!/bin/bash",
             "#SBATCH --job-name=grade-class",
             "#SBATCH --array=0-%d" % (len(todo) - 1),
             "#SBATCH --cpus-per-task=%d" % settings["cpus_per_task"],
             "#SBATCH --time=%d" % minutes,
             "#SBATCH --output=%s" % os.path.join(folder, "task-%a.out")]
    if settings["gres"] != "none":
        lines.append("#SBATCH --gres=%s" % settings["gres"])
    lines += ["# One student's submission per task: %s lists them, in order." % manifest_path,
              "exec %s %s --task %s \"$SLURM_ARRAY_TASK_ID\"" % (
                  shlex.quote(sys.executable), shlex.quote(os.path.abspath(__file__)), shlex.quote(manifest_path)),
              ""]
    script = os.path.join(folder, "job.sh")
    write_atomically(script, "\n".join(lines))
    for old in os.listdir(folder):
        if old.startswith("task-") and old.endswith(".out"):
            os.remove(os.path.join(folder, old))
    result = slurm_command(["sbatch", "--parsable"] + settings["sbatch"] + [script])
    if result.returncode != 0 or not result.stdout.strip():
        hint = ""
        if "configuration source" in result.stderr or "resolve_ctls" in result.stderr:
            hint = (" (sbatch found no Slurm configuration: set SLURM_CONF to your cluster's slurm.conf; for "
                    "the kit's test cluster, source DIR/env.sh after tests/slurm/cluster.sh start DIR)")
        raise SystemExit("grade_class.py: sbatch refused the job array: %s%s"
                         % ((result.stderr.strip() or result.stdout).replace("\n", " | "), hint))
    job = result.stdout.strip().split(";")[0]
    write_atomically(os.path.join(folder, "job.json"),
                     json.dumps({"job": job, "manifest": manifest_path, "submitted": now_iso(),
                                 "tasks": len(todo)}, indent=1) + "\n")
    print("submitted job array %s: %d task(s), one per submission (%s; each: %s, %d CPUs); "
          "its tasks write %s" % (job, len(todo), script, "--gres=" + settings["gres"] if settings["gres"] != "none"
                                  else "no --gres", settings["cpus_per_task"], os.path.join(folder, "task-N.out")),
          flush=True)
    return job


def slurm_job_still_queued(settings):
    """The job array this build root last submitted, if squeue still lists any of its tasks: a second
    array would grade the same students into the same folders at the same time."""
    try:
        with open(os.path.join(settings["build_root"], "slurm", "job.json"), encoding="utf-8") as f:
            job = json.load(f)["job"]
    except (OSError, ValueError, KeyError):
        return None
    queued = slurm_command(["squeue", "-h", "-r", "-j", job, "-o", "%K"])
    return job if queued.returncode == 0 and queued.stdout.strip() else None


def slurm_task_states(job):
    """{task index: (state, reason)} from scontrol (finished tasks stay there for MinJobAge)."""
    result = slurm_command(["scontrol", "show", "job", "-o", job])
    states = {}
    for line in result.stdout.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        task = fields.get("ArrayTaskId", "")
        if task.isdigit():
            states[int(task)] = (fields.get("JobState", "UNKNOWN"), fields.get("Reason", ""))
        elif task:  # pending tasks still in one line: "3-15" or "3-15%4" or "4,7"
            for part in re.sub(r"%\d+$", "", task).split(","):
                low, _, high = part.partition("-")
                if low.isdigit():
                    for i in range(int(low), int(high or low) + 1):
                        states[i] = (fields.get("JobState", "UNKNOWN"), fields.get("Reason", ""))
    return states


# squeue's pending reasons that no waiting will clear: the job asks for what its partition lacks.
SLURM_REASONS_THAT_NEVER_CLEAR = {
    "PartitionConfig": "more CPUs, memory or GPUs per task than a node of the partition has",
    "BadConstraints": "constraints no node meets",
    "PartitionNodeLimit": "more nodes than the partition allows",
    "PartitionTimeLimit": "a --time above the partition's limit (it is --time-limit plus 10 minutes)",
    "InvalidAccount": "an account that does not exist",
    "InvalidQOS": "a QOS that does not exist",
}


def slurm_wait(settings, job, tasks):
    """Waits until no task of the job array is queued or running, printing progress."""
    progress = Progress(len(tasks))
    done_before = sum(1 for t in tasks if current_record(settings, t["student"], t["fingerprint"]))
    last = None
    warned = set()
    while True:
        queued = slurm_command(["squeue", "-h", "-r", "-j", job, "-o", "%K %T %r"])
        if queued.returncode != 0 and "Invalid job id" not in queued.stderr:
            raise SystemExit("grade_class.py: squeue failed: %s" % queued.stderr.strip())
        lines = [l.split() for l in queued.stdout.splitlines() if l.strip()]
        running = sum(1 for l in lines if len(l) > 1 and l[1] in ("RUNNING", "COMPLETING", "CONFIGURING"))
        # Why the waiting ones wait, as squeue says it (Priority, Resources, JobHeldUser, ...)
        reasons = sorted({l[2] for l in lines if len(l) > 2 and l[1] == "PENDING" and l[2] != "None"})
        done = sum(1 for t in tasks if current_record(settings, t["student"], t["fingerprint"]))
        line = "job %s: %d of %d graded, %d running, %d waiting%s (%s)" % (
            job, done, len(tasks), running, len(lines) - running, ": " + ", ".join(reasons) if reasons else "",
            progress.estimate(done - done_before, len(tasks) - done))  # the pace since this wait began
        if (done, running, len(lines), reasons) != last:
            print(line, flush=True)
            last = (done, running, len(lines), reasons)
        never = [r for r in reasons if r in SLURM_REASONS_THAT_NEVER_CLEAR and r not in warned]
        for reason in never:
            print("warning: Slurm says the tasks of job %s wait for %s: they cannot run as they were asked (%s). "
                  "scancel %s, then --slurm again with other --cpus-per-task, --gres or --sbatch options"
                  % (job, reason, SLURM_REASONS_THAT_NEVER_CLEAR[reason], job), flush=True)
            warned.add(reason)
        if not lines:
            return
        time.sleep(settings["poll"])


def slurm_merge(settings, job, tasks, records):
    """The records of the tasks, and the tasks that left none: failed to run (cancelled, node
    failure, out of time, a crash of the kit), apart from the submissions that failed to grade."""
    states = slurm_task_states(job)
    failed = []
    folder = os.path.join(settings["build_root"], "slurm")
    for i, t in enumerate(tasks):
        record = current_record(settings, t["student"], t["fingerprint"])
        if record:
            records[t["student"]] = record
            continue
        # A task cancelled while pending leaves no record in slurmctld at all; a finished one is
        # forgotten MinJobAge (300 s by default) after it ended.
        state, reason = states.get(i, ("UNKNOWN", "slurmctld has no record of it: cancelled before it started, "
                                                  "or ended longer ago than its MinJobAge"))
        tail = ""
        try:
            with open(os.path.join(folder, "task-%d.out" % i), encoding="utf-8", errors="replace") as f:
                tail = " | ".join(f.read().strip().splitlines()[-3:])
        except OSError:
            tail = "no output file (the task never started)"
        failed.append({"student": t["student"], "task": "%s_%d" % (job, i), "state": state,
                       "reason": "; ".join(x for x in (reason if reason not in ("None", "") else "", tail) if x)})
    return failed


def run_task(manifest_path, index):
    """A Slurm task: grades the index-th submission of the manifest with what Slurm gave it."""
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    settings = dict(manifest["settings"])
    task = manifest["tasks"][int(index)]
    cpus = cpu_count()
    gpus = visible_gpus()
    settings.update({"ccache": shutil.which("ccache"), "ninja": shutil.which("ninja"), "cpus": cpus, "build_jobs": cpus, "grade_jobs": cpus, "gpus": gpus,
                     "gpu_label": ",".join(gpus) if gpus else "emulator",
                     "slurm_task": "%s_%s" % (os.environ.get("SLURM_ARRAY_JOB_ID", "?"), index)})
    # the description main() kept in the build root (the same options, so the same stages)
    all_stages = read_stages(read_description(os.path.join(settings["build_root"], "kit.json")))
    settings["stage_files"] = {k: all_stages[k] for k in settings["stages"]}
    settings["skeletons"] = {name: committed_skeleton(name) for name in settings["stage_files"].values()}
    children = Children()
    signal.signal(signal.SIGTERM, lambda *a: children.stop_all())  # scancel, the job's time limit
    try:
        record = Grader(settings, children).grade(task["student"], task["folder"], task["fingerprint"],
                                                  Lease(CpuBudget(cpus), None, cpus, cpus))
    except Killed:
        print("%s: not graded: the task was stopped (scancel, the job's --time, or the node going down); "
              "its processes were killed" % task["student"], flush=True)
        return 1
    print("%s: %s (%s)" % (task["student"], record["outcome"], record["notes"] or "no notes"))
    return 0


# ------------------------------------------------------------------------------------ main
def parse_arguments(argv):
    parser = argparse.ArgumentParser(prog="tests/class/grade_class.py", add_help=False)
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("submissions", nargs="?")
    parser.add_argument("csv", nargs="?", default="class-grades.csv")
    parser.add_argument("build_root", nargs="?", default="build-class")
    parser.add_argument("--stages")
    parser.add_argument("--time-limit", type=int, default=1800)
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--gpus")
    parser.add_argument("--cpus", type=int)
    parser.add_argument("--keep-builds", action="store_true")
    parser.add_argument("--slurm", action="store_true")
    parser.add_argument("--gres", default="gpu:1")
    parser.add_argument("--cpus-per-task", type=int, default=4)
    parser.add_argument("--sbatch", action="append", default=[])
    parser.add_argument("--no-wait", action="store_true")
    parser.add_argument("--attach", action="store_true")
    parser.add_argument("--similarity", action="store_true")
    parser.add_argument("--similarity-threshold", type=float)
    parser.add_argument("--archive", action="append", default=[])
    parser.add_argument("--distro")
    parser.add_argument("--pseudonyms", action="store_true")
    parser.add_argument("--pseudonym-key")
    parser.add_argument("--roster")
    parser.add_argument("--roster-columns")
    parser.add_argument("--poll", type=float, default=10.0, help=argparse.SUPPRESS)
    parser.add_argument("--task", nargs=2, metavar=("MANIFEST", "INDEX"), help=argparse.SUPPRESS)

    def error(message):
        fail_usage(message)

    parser.error = error
    args = parser.parse_args(argv)
    if args.help:
        print(__doc__.strip())
        sys.exit(0)
    return args


def main(argv):
    args = parse_arguments(argv)
    if args.task:
        return run_task(*args.task)
    if not args.submissions:
        fail_usage("name the folder of submissions")
    if not os.path.isdir(args.submissions):
        fail_usage("%s is not a folder of submissions" % args.submissions)
    if args.time_limit < 1:
        fail_usage("--time-limit must be 1 second or more, not %d" % args.time_limit)
    for name in ("cpus", "cpus_per_task"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            fail_usage("--%s must be 1 or more" % name.replace("_", "-"))
    if args.attach and (args.fresh or args.no_wait or args.slurm):
        fail_usage("--attach waits for the job array already submitted: it takes neither --slurm, --fresh nor --no-wait")
    if args.no_wait and not args.slurm:
        fail_usage("--no-wait goes with --slurm (it submits the job array and returns)")
    extras = after_grading_options(args)  # before any grading: a missing tool or a bad roster says so first
    cmake_args = shlex.split(os.environ.get("KIT_CMAKE_ARGS", ""))
    kit = describe_kit(cmake_args)
    all_stages = read_stages(kit)
    stages = parse_stage_list(args.stages, all_stages) if args.stages else sorted(all_stages)
    build_root = os.path.abspath(args.build_root)
    os.makedirs(os.path.join(build_root, "results"), exist_ok=True)
    write_atomically(os.path.join(build_root, "kit.json"), json.dumps(kit, indent=1, sort_keys=True) + "\n")
    csv_path = os.path.abspath(args.csv)
    if not os.path.isdir(os.path.dirname(csv_path)):
        fail_usage("the folder of %s does not exist" % args.csv)

    if args.gpus is None:
        gpus = visible_gpus()
    elif args.gpus.strip().lower() == "none":
        gpus = []
    else:
        gpus = [g.strip() for g in args.gpus.split(",") if g.strip()]
        if not gpus or any(not g.isdigit() for g in gpus):
            fail_usage("--gpus takes GPU numbers such as 0,1 or none, not '%s'" % args.gpus)
        if len(set(gpus)) != len(gpus):
            fail_usage("--gpus %s names a GPU twice: two submissions would share it, and a speed case must "
                       "have its GPU alone" % args.gpus)
        listed = nvidia_smi_gpus()
        if listed is None:
            print("warning: nvidia-smi does not answer here, so GPU(s) %s could not be checked; a submission "
                  "whose GPU does not work is graded on the CPU emulator, without speed points, and its "
                  "row says so (graded_on: emulator)" % ",".join(gpus), flush=True)
        elif any(g not in listed for g in gpus):
            fail_usage("--gpus %s: nvidia-smi lists %s here" % (
                args.gpus, "GPU(s) " + ",".join(listed) if listed else "no GPU (grade on the CPU emulator: --gpus none)"))
    cpus = args.cpus or cpu_count()
    # On GPUs: each GPU runs one submission's GPU tests while two more build or run their
    # emulated tests on the CPU, the cores shared out evenly among those 3 x GPUs jobs. On the
    # emulator: a submission per core.
    if gpus:
        share = max(1, cpus // (3 * len(gpus)))
        build_jobs, grade_jobs, lanes = share, share, 3 * len(gpus)
    else:
        build_jobs, grade_jobs, lanes = min(cpus, 2), 1, cpus
    # Graded on a GPU or on the emulator: a class graded one way is graded again the other way.
    mode = "gpu" if gpus or ((args.slurm or args.attach) and args.gres.startswith("gpu")) else "emulator"
    # Not the time limit: a longer one grades again only the submissions that ran out of time.
    options_text = json.dumps({"stages": stages, "cmake": cmake_args, "mode": mode})
    settings = {"submissions": os.path.abspath(args.submissions), "build_root": build_root, "csv": csv_path,
                "stages": stages, "time_limit": args.time_limit, "cmake_args": cmake_args,
                "kit_fingerprint": kit_fingerprint(options_text), "keep_builds": args.keep_builds,
                "gpus": gpus, "cpus": cpus, "build_jobs": build_jobs, "grade_jobs": grade_jobs, "lanes": lanes,
                "gpu_label": "emulator", "gres": args.gres, "cpus_per_task": args.cpus_per_task,
                "sbatch": args.sbatch, "poll": args.poll, "ccache": shutil.which("ccache"),
                "ninja": shutil.which("ninja"), "kit": kit}
    settings.update(extras)
    if not settings["ccache"]:
        print("ccache is not installed: each submission compiles the whole kit; with it they share all but "
              "their own stage files (about 4x faster builds): sudo apt-get install ccache")
    settings["stage_files"] = {k: all_stages[k] for k in stages}
    settings["skeletons"] = {name: committed_skeleton(name) for name in settings["stage_files"].values()}

    students = list_submissions(settings["submissions"])
    settings["students"] = students
    records, todo = {}, []
    for student in students:
        folder = os.path.join(settings["submissions"], student)
        files = submission_files(folder, stages, settings["stage_files"])
        fp = fingerprint(settings["kit_fingerprint"], files)
        record = None if args.fresh else current_record(settings, student, fp)
        if record:
            records[student] = record
        else:
            todo.append((student, folder, fp))

    if args.attach:
        return attach(settings, records)
    skipped = len(students) - len(todo)
    if skipped:
        print("%d of %d submission(s) already graded and unchanged: skipped (--fresh grades them again)"
              % (skipped, len(students)))
    if args.slurm:
        if not todo:
            report = write_outputs(settings, records)
            print("nothing to submit: every submission is graded: %s, %s" % (csv_path, report))
            return 1 if settings.get("extras_failed") else 0
        still = slurm_job_still_queued(settings)
        if still:
            fail_usage("job array %s, submitted from %s, still has tasks queued or running: --attach waits for "
                       "it (or scancel %s, then --slurm again)" % (still, build_root, still))
        job = slurm_submit(settings, todo)
        if args.no_wait:
            print("not waiting (--no-wait): the same command with --attach instead of --slurm waits and merges")
            return 0
        return attach(settings, records)

    where = ("%d GPU(s) (%s), one submission's GPU tests each at a time; %d CPU cores: builds -j%d, tests -j%d"
             % (len(gpus), ",".join(gpus), cpus, build_jobs, grade_jobs) if gpus else
             "the CPU emulator (no GPU): up to %d submission(s) at once on %d CPU cores" % (lanes, cpus))
    print("grading %d submission(s) of %s, stage(s) %s, on %s" % (
        len(todo), settings["submissions"], ",".join(map(str, stages)), where), flush=True)
    interrupted, failures = grade_here(settings, todo, records) if todo else (False, [])
    reasons = {student: "the kit failed on it: %s" % error for student, error in failures}
    if interrupted:
        reasons.update({s: "not graded yet: interrupted; the same command grades it" for s in students
                        if s not in records and s not in reasons})
    report = write_outputs(settings, records, reasons=reasons)
    outcomes = [records[s]["outcome"] for s in records]
    others = ", ".join("%d %s" % (outcomes.count(o), o) for o in OUTCOMES[1:] if outcomes.count(o))
    print("%d of %d submission(s) graded%s: %s; the class report: %s" % (
        len(records), len(students), " (%s: see their rows)" % others if others else "", csv_path, report))
    warn_if_lent_gpus_did_not_grade(records.values(), [t[0] for t in todo])
    for student, error in failures:
        print("  %s: not graded: the kit failed on it: %s" % (student, error))
    if interrupted:
        print("interrupted: %d submission(s) not graded yet; the same command resumes" % (len(students) - len(records)))
        return 1
    return 1 if failures or settings.get("extras_failed") else 0


def warn_if_lent_gpus_did_not_grade(records, graded_now):
    """A GPU was lent but the report says the CPU emulator graded: no speed points for them."""
    lost = sorted(r["student"] for r in records if r["student"] in graded_now and r.get("graded_on") == "emulator"
                  and (r.get("where") or {}).get("gpu") not in (None, "emulator"))
    if lost:
        print("warning: %d submission(s) were lent a GPU but graded on the CPU emulator, without speed points, "
              "because no usable GPU answered (check nvidia-smi, the driver and --gpus; then grade them again "
              "with --fresh): %s" % (len(lost), ", ".join(lost[:10]) + (", ..." if len(lost) > 10 else "")), flush=True)


def attach(settings, records):
    """Waits for the job array this build root last submitted, then merges its tasks' results."""
    job_file = os.path.join(settings["build_root"], "slurm", "job.json")
    try:
        with open(job_file, encoding="utf-8") as f:
            job = json.load(f)
        with open(job["manifest"], encoding="utf-8") as f:
            tasks = json.load(f)["tasks"]
    except (OSError, ValueError, KeyError):
        fail_usage("--attach: %s has no job array submitted by --slurm (no %s)" % (settings["build_root"], job_file))
    def stop_waiting(signum, frame):
        print("\ngrade_class.py: stopped waiting; job array %s goes on without this process: the same command "
              "with --attach waits for it again and merges its results" % job["job"], file=sys.stderr, flush=True)
        sys.exit(1)

    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, stop_waiting)
    slurm_wait(settings, job["job"], tasks)
    failed = slurm_merge(settings, job["job"], tasks, records)
    report = write_outputs(settings, records, failed)
    warn_if_lent_gpus_did_not_grade(records.values(), [t["student"] for t in tasks])
    print("job %s: %d of %d task(s) graded their submission: %s; the class report: %s"
          % (job["job"], len(tasks) - len(failed), len(tasks), settings["csv"], report))
    if failed:
        print("%d task(s) failed to run (not the submissions' fault; run --slurm again to grade them):" % len(failed))
        for f in failed:
            print("  %s (task %s): %s%s" % (f["student"], f["task"], f["state"], ": " + f["reason"] if f["reason"] else ""))
        return 1
    return 1 if settings.get("extras_failed") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

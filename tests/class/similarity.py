#!/usr/bin/env python3
"""The similarity check: each stage's files across a class compared with compare50 (CS50's tool,
https://cs50.readthedocs.io/projects/compare50/), the skeletons handed out left out as
distributed code, optionally against the submissions of earlier years. tests/class/grade_class.py
--similarity runs it after grading and the class report lists what it found; run it alone as

  tests/class/similarity.py SUBMISSIONS OUT [--stages 1-3] [--archive DIR]... [--distro LABS]
                            [--threshold 0.5] [--min-tokens 50]

  SUBMISSIONS  a folder with one sub-folder per student, each a copy of labs/ (as grade_class.py grades)
  OUT          where to write: OUT/similarity.json (what the class report reads) and, per stage,
               OUT/stageK/: compare50's pages, index.html and match_N.html, a pair's side-by-side
               view. A folder this command wrote before is written over; any other non-empty
               folder is refused.
  --stages     the stages to compare (a list 1,2,3 or a range; default: every stage of the kit)
  --archive    a folder of earlier submissions laid out the same way (DIR/STUDENT/0K_.../....cu),
               compared with this class but not within itself; repeat it for several years. Its
               students are shown as DIR's name/STUDENT.
  --distro     the labs handed out (default: the kit's skeletons, labs/ as committed): their code
               never counts as a match
  --threshold  the similarity from which a pair is listed, 0-1 (default 0.5)
  --min-tokens the fewest matching tokens a listed pair has (default 50): a shorter match is an
               idiom any two students may write

How similar two files are: compare50's structure pass (whitespace and comments dropped, names and
literals made alike, then winnowing: every run of 25 equal tokens is found) marks the code the
two share; the similarity of a pair is the share of a file's own tokens (those not in the
skeleton) inside those matches, for the file of the two more covered, so a copy that added code
of its own is still found through the file it copied. compare50 ranks the pairs by its own score
first; the best max(100, 10 x files) pairs of each stage are measured this way (a pair below
them shares too little to matter).

compare50 runs in its own Python (pipx installs it in a virtual environment of its own): this
script finds the Python that imports it (KIT_COMPARE50_PYTHON, else the one beside the compare50
command on PATH or in ~/.local/bin, else this one) and runs itself there for the comparison.
Without compare50 it says how to install it and exits 1. Exit status 0 when similarity.json is
written (pairs found or not), 1 when compare50 is missing or failed, 2 for bad usage.
"""
import argparse
import bisect
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ there

FORMAT = 1
THRESHOLD = 0.5
MIN_TOKENS = 50
MAX_FILE_BYTES = 512 * 1024  # a stage file is a few KB (run_autograder takes no more either)
INSTALL = ("compare50 is not installed: it compares the class's files. Install it with: pipx install compare50 "
           "(pipx itself: sudo apt-get install pipx), or python3 -m pip install --user compare50; ./setup.sh "
           "installs it in the instructor's edition")
MARKER = "similarity.json"  # what says that a folder is this command's own output


class Problem(Exception):
    """Bad input, said in one line."""


# ------------------------------------------------------------------------------ finding compare50
def compare50_python():
    """The Python that imports compare50, or None. pipx's compare50 command is a shell script that
    runs `python3 -m compare50` with PATH's python3, which is not the one of pipx's environment, so
    the command itself cannot be trusted to run: the Python beside it is."""
    candidates = []
    if os.environ.get("KIT_COMPARE50_PYTHON"):
        candidates.append(os.environ["KIT_COMPARE50_PYTHON"])
    command = shutil.which("compare50")
    local = os.path.expanduser("~/.local/bin/compare50")
    if not command and os.path.exists(local):
        command = local
    if command:
        folder = os.path.dirname(os.path.realpath(command))
        candidates += [os.path.join(folder, name) for name in ("python3", "python")]
        try:
            with open(command, "rb") as f:
                first = f.readline().decode("utf-8", "replace").strip()
            if first.startswith("#!") and "python" in first:  # pip's console script names its Python
                candidates.append(first[2:].split()[0] if "env" not in first else first.split()[-1])
        except OSError:
            pass
    candidates += [sys.executable, "python3"]
    for python in candidates:
        if not (os.path.isabs(python) and os.access(python, os.X_OK)) and not shutil.which(python):
            continue
        try:
            found = subprocess.run([python, "-c", "import compare50"], capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if found.returncode == 0:
            return python
    return None


def require_compare50():
    """compare50's Python, or SystemExit naming how to install it."""
    python = compare50_python()
    if not python:
        raise SystemExit("similarity.py: " + INSTALL)
    return python


# ------------------------------------------------------------------------------------ the inputs
def readable_text(path):
    """None when PATH is a stage file compare50 can read, else why not."""
    if os.path.islink(path) or not os.path.isfile(path):
        return "is not a regular file"
    if os.path.getsize(path) > MAX_FILE_BYTES:
        return "is over %d bytes" % MAX_FILE_BYTES
    try:
        with open(path, encoding="utf-8") as f:
            f.read()
    except UnicodeDecodeError:
        return "is not UTF-8 text"
    except OSError as e:
        return "cannot be read (%s)" % e.strerror
    return None


def students_of(folder):
    return sorted(name for name in os.listdir(folder)
                  if os.path.isdir(os.path.join(folder, name)) and not name.startswith("."))


def prepare(submissions, out, stage_files, skeletons, archives=(), distro=None):
    """The job for compare50: per stage, the students' and the archives' files and the skeleton.
    stage_files {k: "dir/name.cu"}; skeletons {"dir/name.cu": bytes} (the committed labs/), used
    unless distro names the labs handed out. Files that cannot be compared are listed in
    "problems" (a missing file is not one: that student has nothing to compare)."""
    distro_root = os.path.join(out, "distro")
    shutil.rmtree(distro_root, ignore_errors=True)
    job = {"stages": {}, "problems": []}
    for k, name in sorted(stage_files.items()):
        target = os.path.join(distro_root, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if distro:
            source = os.path.join(distro, name)
            if not os.path.isfile(source):
                raise Problem("--distro %s has no %s (stage %d's skeleton): name the labs/ folder handed out"
                              % (distro, name, k))
            shutil.copyfile(source, target)
        else:
            with open(target, "wb") as f:
                f.write(skeletons[name])
        stage = {"file": name, "distro": distro_root, "submissions": [], "archive": []}
        for student in students_of(submissions):
            path = os.path.join(submissions, student, name)
            if not os.path.lexists(path):
                continue
            why = readable_text(path)
            if why:
                job["problems"].append("stage %d: %s's %s %s: not compared" % (k, student, name, why))
                continue
            stage["submissions"].append([student, os.path.join(os.path.abspath(submissions), student)])
        for archive in archives:
            label = os.path.basename(os.path.normpath(archive))
            for student in students_of(archive):
                path = os.path.join(archive, student, name)
                if os.path.lexists(path) and not readable_text(path):
                    stage["archive"].append([label, student, os.path.join(os.path.abspath(archive), student)])
        job["stages"][str(k)] = stage
    return job


def check(submissions, out, stage_files, skeletons, archives=(), distro=None, threshold=THRESHOLD,
          min_tokens=MIN_TOKENS, python=None):
    """Compares the class's files, stage by stage; writes OUT/similarity.json and the pages, and
    returns what similarity.json holds. Raises Problem for bad input, SystemExit when compare50
    is missing or fails."""
    if not 0 < threshold <= 1:
        raise Problem("--threshold must be above 0 and at most 1, not %g" % threshold)
    if min_tokens < 1:
        raise Problem("--min-tokens must be 1 or more, not %d" % min_tokens)
    for archive in archives:
        if not os.path.isdir(archive):
            raise Problem("--archive %s is not a folder of earlier submissions" % archive)
    out = os.path.abspath(out)
    if os.path.exists(out) and (not os.path.isdir(out) or (os.listdir(out) and
                                                           not os.path.exists(os.path.join(out, MARKER)))):
        raise Problem("%s exists and is not a folder this command wrote (no %s in it): name a new one" % (out, MARKER))
    python = python or require_compare50()
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):  # the pages of an earlier run: its stages may not be this one's
        if old.startswith("stage") and os.path.isdir(os.path.join(out, old)):
            shutil.rmtree(os.path.join(out, old))
    job = prepare(submissions, out, stage_files, skeletons, archives, distro)
    job.update(out=out, threshold=threshold, min_tokens=min_tokens)
    with tempfile.NamedTemporaryFile("w", suffix=".json", dir=out, delete=False) as f:
        json.dump(job, f)
        job_path = f.name
    try:
        run = subprocess.run([python, os.path.abspath(__file__), "--inside-compare50", job_path],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    finally:
        os.remove(job_path)
    if run.returncode != 0:
        raise SystemExit("similarity.py: compare50 failed (%s):\n%s" % (python, run.stdout.strip()[-3000:]))
    with open(os.path.join(out, MARKER), encoding="utf-8") as f:
        found = json.load(f)
    found.update(archives=[os.path.basename(os.path.normpath(a)) for a in archives],
                 distro=os.path.abspath(distro) if distro else "labs/ as committed")
    write_json(os.path.join(out, MARKER), found)
    return found


def write_json(path, data):
    temporary = path + ".part"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(temporary, path)


def summary(found):
    """One line per stage with pairs, for the terminal."""
    lines = []
    for k, stage in sorted(found["stages"].items(), key=lambda item: int(item[0])):
        for pair in stage["pairs"]:
            a = "%s/%s" % (pair["a_archive"], pair["a"]) if pair.get("a_archive") else pair["a"]
            b = "%s/%s" % (pair["b_archive"], pair["b"]) if pair.get("b_archive") else pair["b"]
            lines.append("  stage %s: %s and %s, %.0f%% similar (%s)" % (k, a, b, 100 * pair["similarity"], pair["view"]))
    return lines


# ------------------------------------------------------------------- inside compare50's Python
class Intervals:
    """Spans of a file, merged and sorted: whether a token lies inside one, by bisection."""

    def __init__(self, spans):
        merged = []
        for start, end in sorted((span.start, span.end) for span in spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.starts = [m[0] for m in merged]
        self.ends = [m[1] for m in merged]

    def holds(self, token):
        i = bisect.bisect_right(self.starts, token.start) - 1
        return i >= 0 and token.end <= self.ends[i]


def measure(result, own_tokens):
    """(own tokens, matched tokens) of each side of a compare50 result: a file's own tokens are
    those outside the skeleton's spans (compare50's ignored spans, the same in every pair, so
    own_tokens {file id: tokens} keeps them), matched those inside the spans the two files share."""
    sides = []
    for sub in (result.sub_a, result.sub_b):
        own = matched = 0
        for file in sub.files:
            if file.id not in own_tokens:
                ignored = Intervals(span for span in result.ignored_spans if span.file == file)
                own_tokens[file.id] = [token for token in file.tokens() if not ignored.holds(token)]
            mine = own_tokens[file.id]
            shared = Intervals(span for group in result.groups for span in group.spans if span.file == file)
            own += len(mine)
            matched += sum(1 for token in mine if shared.holds(token))
        sides.append((own, matched))
    return sides


def inside_compare50(job_path):
    """Runs in compare50's Python: compares each stage's files, renders the pairs above the
    threshold with compare50's own pages, and writes OUT/similarity.json."""
    import compare50
    from compare50 import _api, _data, _renderer, passes

    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    out, threshold, min_tokens = job["out"], job["threshold"], job["min_tokens"]
    version = getattr(compare50, "__version__", "")
    found = {"format": FORMAT, "tool": "compare50 %s" % version if version else "compare50", "pass": "structure",
             "threshold": threshold, "min_tokens": min_tokens, "stages": {}, "problems": list(job["problems"])}
    pool = _api.Executor  # compare50's own: a process pool
    ranking = passes.structure
    shown = [passes.structure, passes.text, passes.exact]  # the side-by-side view's tabs

    for k, stage in sorted(job["stages"].items(), key=lambda item: int(item[0])):
        files = len(stage["submissions"]) + len(stage["archive"])
        entry = {"file": stage["file"], "submissions": len(stage["submissions"]), "archive": len(stage["archive"]),
                 "pairs": [], "highest_below": None}
        found["stages"][k] = entry
        if len(stage["submissions"]) < 1 or files < 2:
            continue
        # Small classes compare faster in this process than through compare50's process pool.
        _api.Executor = _api.FauxExecutor if files <= 64 else pool
        preprocessor = _data.Preprocessor(ranking.preprocessors)
        who = {}
        subs = []
        for student, folder in stage["submissions"]:
            sub = _data.Submission(folder, [stage["file"]], preprocessor=preprocessor)
            who[sub.id] = (student, None)
            subs.append(sub)
        archived = []
        for label, student, folder in stage["archive"]:
            sub = _data.Submission(folder, [stage["file"]], preprocessor=preprocessor, is_archive=True)
            who[sub.id] = (student, label)
            archived.append(sub)
        distro = _data.Submission(stage["distro"], [stage["file"]], preprocessor=preprocessor)
        ignored = set(distro.files)
        with _api.progress_bar("stage %s" % k, disable=True):
            scores = _api.rank(subs, archived, ignored, ranking, n=max(100, 10 * files))
            results = _api.compare(scores, ignored, ranking)
        measured = []
        own_tokens = {}
        for result in results:
            (own_a, matched_a), (own_b, matched_b) = measure(result, own_tokens)
            coverage = [matched_a / own_a if own_a else 0.0, matched_b / own_b if own_b else 0.0]
            measured.append((max(coverage), min(matched_a, matched_b), result, coverage, [matched_a, matched_b],
                             [own_a, own_b]))
        measured.sort(key=lambda m: (-m[0], -m[1]))
        flagged = [m for m in measured if m[0] >= threshold and m[1] >= min_tokens]
        below = [m for m in measured if m not in flagged]
        if below:
            a, b = who[below[0][2].sub_a.id], who[below[0][2].sub_b.id]
            entry["highest_below"] = {"a": a[0], "a_archive": a[1], "b": b[0], "b_archive": b[1],
                                      "similarity": round(below[0][0], 4)}
        if not flagged:
            continue
        # compare50's pages for the listed pairs: its renderer numbers them match_1, match_2, ... in
        # the order of its score (a stable sort of the order given), each with a tab per pass.
        dest = os.path.join(out, "stage%s" % k)
        scores = [m[2].score for m in flagged]
        pass_to_results = {}
        with _api.progress_bar("stage %s" % k, disable=True):
            for pass_ in shown:
                preprocessor = _data.Preprocessor(pass_.preprocessors)
                for sub in subs + archived + [distro]:
                    object.__setattr__(sub, "preprocessor", preprocessor)
                pass_to_results[pass_] = _api.compare(scores, ignored, pass_)
            _renderer.render(pass_to_results, dest=dest)
        numbered = sorted(range(len(flagged)), key=lambda i: flagged[i][2].score.score, reverse=True)
        for number, i in enumerate(numbered, 1):
            similarity, _, result, coverage, matched, own = flagged[i]
            view = os.path.join(dest, "match_%d.html" % number)
            with open(view, encoding="utf-8") as f:
                page = f.read()
            if str(result.sub_a.path) not in page or str(result.sub_b.path) not in page:
                view = os.path.join(dest, "index.html")  # compare50 numbered them otherwise: its index lists them
            a, b = who[result.sub_a.id], who[result.sub_b.id]
            # the class's student first, the archive's second; two of the class in name order
            if (a[1] and not b[1]) or (not a[1] and not b[1] and b[0] < a[0]):
                a, b, coverage, matched, own = b, a, coverage[::-1], matched[::-1], own[::-1]
            flagged[i] = {"a": a[0], "a_archive": a[1], "b": b[0], "b_archive": b[1],
                          "similarity": round(similarity, 4), "coverage": [round(c, 4) for c in coverage],
                          "matched": matched, "own": own, "score": round(result.score.score, 2), "view": view}
        entry["pairs"] = flagged
    write_json(os.path.join(out, MARKER), found)
    return 0


# ------------------------------------------------------------------------------------------ main
class _Arguments(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print("similarity.py: %s" % message, file=sys.stderr)
        sys.exit(2)


def main(argv):
    if len(argv) == 2 and argv[0] == "--inside-compare50":
        return inside_compare50(argv[1])
    parser = _Arguments(prog="tests/class/similarity.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions")
    parser.add_argument("out")
    parser.add_argument("--stages")
    parser.add_argument("--archive", action="append", default=[])
    parser.add_argument("--distro")
    parser.add_argument("--threshold", type=float, default=THRESHOLD)
    parser.add_argument("--min-tokens", type=int, default=MIN_TOKENS)
    args = parser.parse_args(argv)
    if not os.path.isdir(args.submissions):
        parser.error("%s is not a folder of submissions" % args.submissions)
    if args.distro and not os.path.isdir(args.distro):
        parser.error("--distro %s is not a folder (name the labs/ handed out)" % args.distro)
    python = require_compare50()  # before the kit's description: say first what is missing
    import grade_class  # the kit's stages and skeletons, as the class is graded with them
    kit = grade_class.describe_kit([])
    files = grade_class.read_stages(kit)
    stages = grade_class.parse_stage_list(args.stages, files) if args.stages else sorted(files)
    skeletons = {} if args.distro else {files[k]: grade_class.committed_skeleton(files[k]) for k in stages}
    try:
        found = check(args.submissions, args.out, {k: files[k] for k in stages}, skeletons, args.archive, args.distro,
                      args.threshold, args.min_tokens, python)
    except Problem as e:
        parser.error(str(e))
    pairs = summary(found)
    print("similarity: %d pair(s) at %.0f%% or more: %s" % (len(pairs), 100 * args.threshold,
                                                         os.path.join(os.path.abspath(args.out), MARKER)))
    print("\n".join(pairs + found["problems"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

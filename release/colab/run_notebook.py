#!/usr/bin/env python3
"""Runs a student edition's Colab notebook start to finish, outside Colab, and checks what it did.

Usage: run_notebook.py --edition EDITION --out DIR [--stage K] [--solutions KIT]
                       [--executor auto|nbclient|plain] [--no-install] [--expect gpu|emulator|any]
                       [--work DIR [--keep-work]] [--cell-timeout SEC]

EDITION is a written student edition (build/student/reduction-lab-kit, or the autograder tests'
build/autograder-test/edition/reduction-lab-kit); it is copied afresh to --work (default
DIR/reduction-lab-kit; --keep-work: the copy there, with its build, if there is one) and never
written to. --solutions KIT puts KIT's reference solution of
stage K into the copy's labs/, so the grade shows a passing stage (without it: the skeleton,
which fails with the fill-in message). The notebook, the copy's colab/reduction_lab.ipynb, runs
in the copy's colab/ folder with its settings cell followed by STAGE = K and INSTALL = False
under --no-install (nothing is installed then: a machine without a network must have the
packages of setup.sh, CMake and nvcc already; the notebook says what is missing). The build
also finds Check, subunit and Boost.Context unpacked into a folder of their own (dpkg-deb -x
of their .deb files; prefix= in its .pc files set to that folder's usr/) through the
environment: PKG_CONFIG_PATH=<folder>/usr/lib/x86_64-linux-gnu/pkgconfig CMAKE_PREFIX_PATH=<folder>/usr.

The executor: nbclient (python3-nbclient and python3-ipykernel, a Jupyter kernel like Colab's),
or plain, this script's own (each code cell run by exec() in one namespace, its printed output
kept), for a machine without Jupyter; auto takes nbclient where it can be imported.

Written to DIR: reduction_lab.executed.ipynb (the notebook with its outputs), summary.txt (each
cell: its number, heading, seconds, and its output), logs/ (the notebook's logs of every step).
Checked: every code cell ran without an error; no cell printed more than 60 lines; the first
cells took the GPU path (nvidia-smi found a GPU) or the CPU emulator's as --expect says (any:
whichever this machine has); the grade cell showed a grade report; the last cell zipped the
labs; with --solutions the grade passed. Exit status 0 when all of it holds, 1 otherwise (the
summary's last lines say what did not), 2 for bad arguments.

  python3 release/colab/run_notebook.py --edition build/student/reduction-lab-kit \\
          --out /tmp/colab-run --stage 3 --solutions . --no-install --expect gpu
"""
import argparse
import contextlib
import datetime
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

MAX_LINES = 60  # a cell that prints more is not "short and meaningful"


def stage_file(kit, k):
    """(dir, name) of stage k in kit's common/stages.def."""
    with open(os.path.join(kit, "common", "stages.def")) as f:
        for line in f:
            m = re.match(r"KIT_STAGE\((\d+), *(\w+), *(\w+),", line)
            if m and int(m.group(1)) == k:
                return m.group(2), m.group(3)
    raise SystemExit("run_notebook.py: %s/common/stages.def has no stage %d" % (kit, k))


def inject(nb, settings):
    """Puts a cell with the settings right after the cell tagged 'parameters' (as papermill does)."""
    source = "# Set by run_notebook.py\n" + "".join("%s = %r\n" % kv for kv in settings.items())
    cell = {"cell_type": "code", "id": "injected-settings", "execution_count": None,
            "metadata": {"tags": ["injected-parameters"]}, "outputs": [], "source": source}
    at = next((i + 1 for i, c in enumerate(nb["cells"]) if "parameters" in c.get("metadata", {}).get("tags", [])), 0)
    nb["cells"].insert(at, cell)


def nbclient_usable():
    try:
        import nbclient  # noqa: F401
        import ipykernel  # noqa: F401
        import nbformat  # noqa: F401
        return True
    except ImportError:
        return False


def _when(timestamp):
    """A Jupyter timestamp (2026-11-27T04:13:00.123456Z) as a datetime."""
    return datetime.datetime.fromisoformat(timestamp.replace("Z", "+00:00"))


def run_nbclient(nb, path, cell_timeout):
    """Executes nb with nbclient in folder path; returns the seconds each code cell took (by cell id)."""
    import nbclient
    import nbformat
    node = nbformat.reads(json.dumps(nb), as_version=4)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # the kernel's debugger: no warning about frozen modules
    client = nbclient.NotebookClient(node, timeout=cell_timeout, kernel_name="python3",
                                     resources={"metadata": {"path": path}}, record_timing=True)
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError:
        pass  # the failing cell holds the error; the cells after it did not run
    except nbclient.exceptions.CellTimeoutError as e:
        print("run_notebook.py: a cell ran past %d s: %s" % (cell_timeout, str(e).splitlines()[0]))
    except nbclient.exceptions.DeadKernelError as e:
        print("run_notebook.py: the kernel died: %s" % str(e).splitlines()[0])
    nb.clear()
    nb.update(json.loads(nbformat.writes(node)))
    seconds = {}
    for cell in nb["cells"]:
        timing = cell.get("metadata", {}).get("execution", {})
        begin, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
        if begin and end:
            seconds[cell["id"]] = (_when(end) - _when(begin)).total_seconds()
    return seconds


class _Output(io.TextIOBase):
    """What a cell prints, kept for its output."""

    def __init__(self):
        self.parts = []

    def write(self, text):
        self.parts.append(text)
        return len(text)


def run_plain(nb, path, cell_timeout):
    """Executes nb's code cells with exec() in one namespace, in folder path; no Jupyter needed."""
    namespace = {"__name__": "__main__"}
    seconds = {}
    here = os.getcwd()
    os.chdir(path)
    try:
        for n, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            print("run_notebook.py: cell %s ..." % cell["id"], flush=True)
            out = _Output()
            start = time.time()
            error = None
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                try:
                    exec(compile(source, "<cell %s>" % cell["id"], "exec"), namespace)
                except BaseException as e:  # noqa: B902 (a cell's SystemExit too: it is the cell's failure)
                    error = e
            seconds[cell["id"]] = time.time() - start
            cell["execution_count"] = n + 1
            cell["outputs"] = []
            text = "".join(out.parts)
            if text:
                cell["outputs"].append({"name": "stdout", "output_type": "stream", "text": text})
            if error is not None:
                if hasattr(error, "_render_traceback_"):
                    lines = error._render_traceback_()
                else:
                    lines = traceback.format_exception(type(error), error, error.__traceback__)
                cell["outputs"].append({"output_type": "error", "ename": type(error).__name__,
                                        "evalue": str(error), "traceback": lines})
                break
    finally:
        os.chdir(here)
    return seconds


def output_text(cell):
    """A code cell's outputs as plain text (ANSI colours removed)."""
    parts = []
    for o in cell.get("outputs", []):
        if o["output_type"] == "stream":
            parts.append("".join(o["text"]) if isinstance(o["text"], list) else o["text"])
        elif o["output_type"] in ("execute_result", "display_data"):
            data = o.get("data", {}).get("text/plain", "")
            parts.append(("".join(data) if isinstance(data, list) else data) + "\n")
        elif o["output_type"] == "error":
            parts.append("\n".join(o.get("traceback") or ["%s: %s" % (o["ename"], o["evalue"])]) + "\n")
    return re.sub(r"\x1b\[[0-9;]*m", "", "".join(parts))


def summarise(nb, seconds):
    """(summary text, [(cell id, heading, output text, error?)]) of the executed notebook."""
    lines, cells, heading = [], [], "(top)"
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown":
            m = re.search(r"^#+ *(.*)", source, re.M)
            heading = m.group(1) if m else heading
            continue
        ran = cell.get("execution_count") is not None
        text = output_text(cell)
        failed = any(o["output_type"] == "error" for o in cell.get("outputs", []))
        first = source.strip().splitlines()[0] if source.strip() else ""
        state = "FAILED" if failed else ("ok" if ran else "not run")
        took = seconds.get(cell["id"])
        lines.append("== %s [%s] %s: %s%s" % (cell["id"], heading, first[:60], state,
                                             ", %.1f s" % took if took is not None else ""))
        lines.extend("   " + l for l in text.rstrip().splitlines())
        cells.append((cell["id"], heading, text, failed, ran))
    return "\n".join(lines) + "\n", cells


def check(cells, expect, solutions, stage):
    """What did not go as it should, as sentences (empty: all well)."""
    problems = []
    code = [c for c in cells if c[0] != "injected-settings"]
    for cid, heading, text, failed, ran in code:
        if failed:
            problems.append("cell %s (%s) failed: %s" % (cid, heading, text.strip().splitlines()[-1] if text.strip() else "?"))
        elif not ran:
            problems.append("cell %s (%s) did not run" % (cid, heading))
        if len(text.splitlines()) > MAX_LINES:
            problems.append("cell %s (%s) printed %d lines (at most %d)" % (cid, heading, len(text.splitlines()), MAX_LINES))
    if expect == "any":  # whichever this machine has
        has_gpu = shutil.which("nvidia-smi") and subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
        expect = "gpu" if has_gpu else "emulator"
    everything = "\n".join(c[2] for c in code)
    took_gpu = re.search(r"^GPU: .*sm_\d+", everything, re.M) is not None
    took_emulator = "Going on with the kit's CPU emulator" in everything
    if took_gpu == took_emulator:
        problems.append("the notebook said neither 'GPU: ...' nor that it goes on with the CPU emulator")
    if expect == "gpu" and not took_gpu:
        problems.append("expected the GPU path, but the notebook found no GPU")
    if expect == "emulator" and not took_emulator:
        problems.append("expected the CPU emulator's path, but the notebook found a GPU")
    if "Grade report for" not in everything:
        problems.append("no grade report was shown")
    elif solutions and ("make check-stage%d: passed" % stage) not in everything:
        problems.append("stage %d, with the reference solution in labs/, did not pass make check-stage%d" % (stage, stage))
    elif not solutions and "fill in the TODO" not in everything:
        problems.append("the unfilled stage %d's report does not say 'fill in the TODO'" % stage)
    if "Zip of your labs:" not in everything:
        problems.append("the labs were not zipped")
    return ("gpu" if took_gpu else "emulator"), problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--edition", required=True, help="a written student edition (it is copied, never changed)")
    ap.add_argument("--out", required=True, help="where the executed notebook, summary.txt and logs/ go")
    ap.add_argument("--stage", type=int, default=None, help="the notebook's STAGE (default: the first of the batch)")
    ap.add_argument("--solutions", metavar="KIT", help="put KIT's reference solution of the stage into labs/")
    ap.add_argument("--executor", choices=("auto", "nbclient", "plain"), default="auto")
    ap.add_argument("--no-install", action="store_true", help="the notebook installs nothing (INSTALL = False)")
    ap.add_argument("--expect", choices=("gpu", "emulator", "any"), default="any")
    ap.add_argument("--work", help="the edition's copy, where the notebook builds (default: OUT/reduction-lab-kit)")
    ap.add_argument("--keep-work", action="store_true",
                    help="run in the copy --work already holds (its labs and build), if there is one")
    ap.add_argument("--cell-timeout", type=int, default=1500, help="seconds one cell may take (default 1500)")
    args = ap.parse_args(argv)

    edition = os.path.abspath(args.edition)
    notebook = os.path.join(edition, "colab", "reduction_lab.ipynb")
    if not os.path.isfile(os.path.join(edition, "edition.cmake")) or not os.path.isfile(notebook):
        ap.error("%s is not a student edition with colab/reduction_lab.ipynb" % edition)
    executor = args.executor
    if executor == "auto":
        executor = "nbclient" if nbclient_usable() else "plain"
    elif executor == "nbclient" and not nbclient_usable():
        print("run_notebook.py: nbclient, ipykernel or nbformat cannot be imported by %s "
              "(sudo apt-get install python3-nbclient python3-ipykernel; ./setup.sh installs them)" % sys.executable)
        return 1
    out = os.path.abspath(args.out)
    work = os.path.abspath(args.work or os.path.join(out, "reduction-lab-kit"))
    os.makedirs(out, exist_ok=True)
    if args.keep_work and os.path.isfile(os.path.join(work, "edition.cmake")):
        print("run_notebook.py: --keep-work: the notebook runs in %s as it is (its build too)" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(edition, work, symlinks=True)
    stage = args.stage
    if args.solutions:
        if stage is None:
            ap.error("--solutions needs --stage")
        d, name = stage_file(work, stage)
        source = os.path.join(os.path.abspath(args.solutions), "solutions", d, name + ".cu")
        if not os.path.isfile(source):
            ap.error("%s is missing: --solutions names the kit (the folder that holds solutions/)" % source)
        shutil.copy(source, os.path.join(work, "labs", d, name + ".cu"))

    with open(os.path.join(work, "colab", "reduction_lab.ipynb")) as f:
        nb = json.load(f)
    settings = {}
    if stage is not None:
        settings["STAGE"] = stage
    if args.no_install:
        settings["INSTALL"] = False
    if settings:
        inject(nb, settings)
    print("run_notebook.py: %s, in %s, by %s (%s)%s" % (
        os.path.relpath(notebook, edition), work, executor, sys.executable,
        "; " + ", ".join("%s = %r" % kv for kv in settings.items()) if settings else ""))
    start = time.time()
    path = os.path.join(work, "colab")
    seconds = (run_nbclient if executor == "nbclient" else run_plain)(nb, path, args.cell_timeout)
    total = time.time() - start

    executed = os.path.join(out, "reduction_lab.executed.ipynb")
    with open(executed, "w") as f:
        json.dump(nb, f, indent=1, ensure_ascii=False)
        f.write("\n")
    if os.path.isdir(os.path.join(work, "build", "notebook-logs")):
        shutil.rmtree(os.path.join(out, "logs"), ignore_errors=True)
        shutil.copytree(os.path.join(work, "build", "notebook-logs"), os.path.join(out, "logs"))
    text, cells = summarise(nb, seconds)
    path_taken, problems = check(cells, args.expect, args.solutions, stage if stage is not None else 0)
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip() if shutil.which("nvidia-smi") else ""
    text = ("The student edition's Colab notebook, run by release/colab/run_notebook.py on %s\n"
            "edition %s (copy: %s); executor %s; %s path%s; %.0f s in all\n\n" % (
                time.strftime("%Y-%m-%d %H:%M"), edition, work, executor, path_taken,
                " (%s)" % gpu if gpu else "", total)) + text
    text += "\n" + ("ok: every cell ran; the notebook took the %s path, showed the grade report and zipped the labs\n"
                    % path_taken if not problems else "".join("NOT OK: %s\n" % p for p in problems))
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    print("Written: %s, %s, %s" % (executed, os.path.join(out, "summary.txt"), os.path.join(out, "logs")))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

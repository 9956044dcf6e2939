#!/usr/bin/env python3
"""Writes reduction_lab.ipynb, the student edition's Colab notebook, from the cells below.

Usage: make_notebook.py [--check] [OUTPUT]      (OUTPUT: reduction_lab.ipynb beside this script)

Edit the cells here, never the .ipynb, then run this script and commit both; --check exits 1
when OUTPUT is not what this script writes (a test runs it). The .ipynb keeps two
placeholders that release/colab/fill_notebook.cmake fills when make_release.cmake writes an
edition (colab/reduction_lab.ipynb there): @KIT_COLAB_LINK@ (the "Open in Colab" badge, from
the CMake cache variable KIT_COLAB_URL) and @KIT_EDITION_SOURCE@ (where a fresh Colab runtime
gets the edition: KIT_COLAB_EDITION, else the GitHub repository of KIT_COLAB_URL).

The notebook, top to bottom: settings (the stage, Drive, where the kit comes from); the GPU
(nvidia-smi: the GPU's sm_XY, or the CPU emulator with a line on how to switch a GPU on);
the kit (the edition the notebook sits in, else one in this runtime, else from Drive, from
EDITION_SOURCE or uploaded); the labs in Drive (Colab only); the packages setup.sh lists and
nvcc; configure and build (-DCMAKE_CUDA_ARCHITECTURES=XY on a GPU); the ladder, the student's
stage, its counters (one line where ERR_NVGPUCTRPERM blocks them); make check-stageK and its
report; the labs saved to Drive and zipped. Every cell prints a few lines; a step that fails
raises StepFailed, which IPython (and release/colab/run_notebook.py) shows as one line,
FAILED: what failed and why, with the log that holds the rest.

The code cells are plain Python (no ! or % lines), so run_notebook.py can run them without
Jupyter where nbclient is not installed.
"""
import argparse
import json
import os
import sys

# ---------------------------------------------------------------- the cells
INTRO = """\
# The GPU reduction lab kit in Colab

@KIT_COLAB_LINK@

This notebook builds your student edition of the kit on Colab's free GPU, runs the ladder,
and grades one lab with `make check-stageK`, as your instructor will.

1. **Runtime > Change runtime type > GPU** (a T4 is fine). Without a GPU the notebook still
   works, on the kit's CPU emulator: correctness and races are graded, speed is not.
2. Set `STAGE` in the next cell to the lab you work on, then **Runtime > Run all**.
3. Write your kernel in `labs/` (in Colab: the Files panel on the left, folder
   `drive/MyDrive/reduction-lab-kit/labs`; double-click a file to edit it), then run the
   cells from *Build* down again.

Colab forgets everything when the runtime is reset. Your lab files are kept in Google Drive
(`MyDrive/reduction-lab-kit/labs`, synchronised by the cells that build and save; the newer
copy of a changed file wins) and offered as a zip at the end. The kit itself is fetched again
after a reset: keep `reduction-lab-kit.tar.gz` in `MyDrive/reduction-lab-kit/`, or let your
instructor's `EDITION_SOURCE` below fetch it.
"""

SETTINGS = """\
# Your settings. Change them, then Runtime > Run all.
STAGE = None          # the lab to run and grade, e.g. 3; None: the first lab of this batch
USE_DRIVE = True      # in Colab: keep your labs in Google Drive (MyDrive/reduction-lab-kit/labs)
DOWNLOAD_ZIP = False  # in Colab with Drive: also download a zip of your labs at the end
INSTALL = True        # install what the kit needs and lacks (apt-get); False: only say what is missing
# Where a fresh runtime gets the kit when neither this runtime nor Drive has it: a git
# repository (https://github.com/OWNER/REPO.git, #BRANCH at the end for a branch) or the
# address of reduction-lab-kit.tar.gz. Empty: you are asked to upload the tarball.
EDITION_SOURCE = "@KIT_EDITION_SOURCE@"
KIT_DIR = None        # the kit's folder; None: the edition this notebook is in, else /content/reduction-lab-kit
"""

HELPERS = """\
#@title Helpers (run it; nothing to change) { display-mode: "form" }
import datetime, hashlib, os, pathlib, re, shutil, subprocess, sys, tarfile, time, urllib.request, zipfile

try:
    import google.colab  # noqa: F401  (only in Colab)
    IN_COLAB = True
except ImportError:
    IN_COLAB = False


class StepFailed(Exception):
    \"\"\"A step that failed: shown as one line, FAILED: why, without a traceback.\"\"\"

    def _render_traceback_(self):
        return ["FAILED: " + str(self)]


LOGS = pathlib.Path("/tmp/reduction-lab-logs")  # under the kit's build/ once it is found


def run(cmd, log, cwd=None):
    \"\"\"Runs cmd (a list); its output goes to LOGS/<log>.log. Returns (exit status, output, log).\"\"\"
    LOGS.mkdir(parents=True, exist_ok=True)
    path = LOGS / (log + ".log")
    with open(path, "w") as out:
        try:
            code = subprocess.run([str(c) for c in cmd], cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL).returncode
        except OSError as e:
            out.write(str(e) + "\\n")
            code = 127
    return code, path.read_text(errors="replace"), path


def took(start):
    s = int(time.time() - start)
    return "%d min %02d s" % (s // 60, s % 60) if s >= 60 else "%d s" % s


def errors_of(text, limit=12):
    \"\"\"The lines of a compiler's or CMake's output that say what went wrong (those naming a lab
    first), at most limit; make's own lines left out.\"\"\"
    keep = [l for l in text.splitlines() if re.search(r"error|Error|FAILED|fatal|undefined reference", l)
            and not re.match(r"g?make(\\[[0-9]+\\])?: ", l)]
    keep = [l for l in keep if "labs/" in l] + [l for l in keep if "labs/" not in l]
    return keep[:limit] or text.splitlines()[-limit:]


def cmake_error(text):
    \"\"\"The message of CMake's first error, on one line (at most 400 characters).\"\"\"
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("CMake Error"):
            message = []
            for l in lines[i + 1:]:
                if l.startswith(("Call Stack", "CMake ", "-- ")):
                    break
                if l.strip():
                    message.append(l.strip())
            return " ".join(message)[:400] or line
    return " / ".join(lines[-3:])


def edition_value(kit, name):
    \"\"\"A list set in the edition's edition.cmake, as numbers: set(KIT_RELEASED_STAGES 5 6 7 8).\"\"\"
    m = re.search(r"^set\\(%s ?([^)]*)\\)" % name, (kit / "edition.cmake").read_text(), re.M)
    return [int(k) for k in m.group(1).split()] if m else []


def without_no_gpu_line(text):
    \"\"\"reduce_ladder's output without its first line on the CPU emulator (no NVIDIA GPU here ...), said once already.\"\"\"
    return "\\n".join(l for l in text.splitlines() if not l.startswith("reduce_ladder: no NVIDIA GPU here"))


def print_lines(text, limit=40):
    lines = text.rstrip().splitlines()
    print("\\n".join(lines[:limit]))
    if len(lines) > limit:
        print("... (%d more lines)" % (len(lines) - limit))


print("Helpers ready%s." % (" (in Colab)" if IN_COLAB else " (not in Colab: no Drive, no upload)"))
"""

GPU_MD = """\
## 1. The GPU

`nvidia-smi` names the GPU and its compute capability; the kit is built for exactly that GPU
(sm_75 on a T4, sm_89 on an L4). Code built for another one would not run on it.
"""

GPU = """\
def find_gpu():
    \"\"\"(name, 'XY') of the first GPU nvidia-smi lists, or None.\"\"\"
    if not shutil.which("nvidia-smi"):
        return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    line = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""
    if "," not in line:
        return None
    name, capability = (s.strip() for s in line.rsplit(",", 1))
    return name, capability.replace(".", "")


GPU = find_gpu()
if GPU:
    print("GPU: %s, compute capability %s.%s: the kit is built for sm_%s." % (GPU[0], GPU[1][:-1], GPU[1][-1], GPU[1]))
else:
    print("No GPU in this runtime: switch one on with Runtime > Change runtime type > GPU, then Run all again.")
    print("Going on with the kit's CPU emulator: correctness and races are graded, speed is not.")
"""

KIT_MD = """\
## 2. The kit

The edition this notebook belongs to: the one around it, or the one already in this runtime
(`/content/reduction-lab-kit`), or one unpacked from Drive
(`MyDrive/reduction-lab-kit/reduction-lab-kit.tar.gz`), from `EDITION_SOURCE`, or from the
tarball you upload. Your labs are then synchronised with Drive.
"""

KIT = """\
start = time.time()
DRIVE = None  # MyDrive/reduction-lab-kit, where Drive keeps your labs (Colab only)
if IN_COLAB and USE_DRIVE:
    from google.colab import drive
    drive.mount("/content/drive")
    DRIVE = pathlib.Path("/content/drive/MyDrive/reduction-lab-kit")
    DRIVE.mkdir(parents=True, exist_ok=True)


def is_edition(path):
    return (path / "edition.cmake").is_file() and (path / "CMakeLists.txt").is_file()


def edition_below(top):
    \"\"\"The edition at top or up to two folders below it (a repository that holds it in a folder).\"\"\"
    for candidate in [top, *sorted(top.glob("*")), *sorted(top.glob("*/*"))]:
        if candidate.is_dir() and is_edition(candidate):
            return candidate
    return None


def unpack(tarball, into):
    \"\"\"Unpacks reduction-lab-kit.tar.gz (its folder reduction-lab-kit/) into the folder into.\"\"\"
    into.mkdir(parents=True, exist_ok=True)
    try:
        with tarfile.open(tarball) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(into, filter="data")
            else:
                tar.extractall(into)
    except (tarfile.TarError, OSError) as e:
        raise StepFailed("cannot unpack %s: %s" % (tarball, e))
    return edition_below(into)


def fetch_kit(local):
    \"\"\"Puts an edition at local (a folder that does not exist yet) and says where from.\"\"\"
    source = "" if EDITION_SOURCE.startswith("@") else EDITION_SOURCE.strip()
    saved = DRIVE / "reduction-lab-kit.tar.gz" if DRIVE else None
    if saved and saved.is_file():
        found = unpack(saved, local.parent)
        how = "unpacked from Drive (%s)" % saved
    elif re.search(r"\\.(tar\\.gz|tgz)$", source):
        tarball = pathlib.Path("/tmp/reduction-lab-kit.tar.gz")
        try:
            urllib.request.urlretrieve(source, tarball)
        except Exception as e:
            raise StepFailed("cannot download %s: %s" % (source, e))
        found = unpack(tarball, local.parent)
        how = "downloaded from %s" % source
        if DRIVE:
            shutil.copy(tarball, DRIVE / "reduction-lab-kit.tar.gz")
    elif source:
        url, _, branch = source.partition("#")
        clone = local.parent / (local.name + "-git")
        shutil.rmtree(clone, ignore_errors=True)
        code, text, log = run(["git", "clone", "--depth", "1", *(["-b", branch] if branch else []), url, clone], "clone")
        if code:
            raise StepFailed("git clone %s failed: %s (log: %s)" % (url, " / ".join(text.strip().splitlines()[-2:]), log))
        found = edition_below(clone)
        how = "cloned from %s" % source
    elif IN_COLAB:
        from google.colab import files
        print("Upload reduction-lab-kit.tar.gz, the edition your instructor gave you:")
        uploaded = files.upload()
        name = next((n for n in uploaded if n.endswith((".tar.gz", ".tgz"))), None)
        if not name:
            raise StepFailed("no .tar.gz was uploaded: upload reduction-lab-kit.tar.gz (run this cell again)")
        tarball = pathlib.Path("/tmp") / name
        tarball.write_bytes(uploaded[name])
        if DRIVE:
            shutil.copy(tarball, DRIVE / "reduction-lab-kit.tar.gz")
        found = unpack(tarball, local.parent)
        how = "unpacked from the upload" + (" (kept in Drive for the next runtime)" if DRIVE else "")
    else:
        raise StepFailed("no kit: open this notebook in a student edition's colab/ folder, or set KIT_DIR or EDITION_SOURCE")
    if not found:
        raise StepFailed("the kit from %s is not a student edition (no edition.cmake)" % (source or "the upload"))
    if found != local:
        if local.exists():
            shutil.rmtree(local)
        shutil.move(str(found), str(local))
    shutil.rmtree(local.parent / (local.name + "-git"), ignore_errors=True)  # the rest of a repository
    return how


if KIT_DIR:
    KIT = pathlib.Path(KIT_DIR).expanduser().resolve()
    how = "KIT_DIR"
else:
    here = pathlib.Path.cwd().resolve()
    KIT = next((d for d in [here, *here.parents] if is_edition(d)), None)
    how = "the edition this notebook is in"
    if KIT is None:
        KIT = pathlib.Path("/content/reduction-lab-kit") if IN_COLAB else here / "reduction-lab-kit"
        how = "already in this runtime"
if not is_edition(KIT):
    how = fetch_kit(KIT)
BUILD = KIT / "build"
LOGS = BUILD / "notebook-logs"
RELEASED = edition_value(KIT, "KIT_RELEASED_STAGES")
BATCH = edition_value(KIT, "KIT_BATCH_STAGES") or RELEASED
K = int(STAGE) if STAGE is not None else BATCH[0]
if K not in RELEASED:
    raise StepFailed("STAGE = %s: this edition has stages %s" % (K, ", ".join(map(str, RELEASED))))
print("Kit: %s (%s); stages %s; you work on stage %d%s." % (
    KIT, how, ", ".join(map(str, RELEASED)), K, "" if STAGE is not None else " (the first of this batch: set STAGE for another)"))


# Your labs and Drive, file by file: a file changed on one side since the last synchronisation
# goes to the other; a fresh kit (nothing synchronised yet) takes Drive's; a file changed on both
# sides keeps the newer, and the other copy goes to MyDrive/reduction-lab-kit/replaced/.
SYNCED = BUILD / "notebook-labs-synced.txt"  # each lab file's hash at the last synchronisation


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sync_labs():
    \"\"\"Synchronises KIT/labs and DRIVE/labs; returns (files, copied to the kit, copied to Drive).\"\"\"
    local, kept = KIT / "labs", DRIVE / "labs"
    last = {}
    if SYNCED.is_file():
        for line in SYNCED.read_text().splitlines():
            sha, name = line.split(" ", 1)
            last[name] = sha
    names = {p.relative_to(top).as_posix() for top in (local, kept) if top.is_dir() for p in top.rglob("*") if p.is_file()}
    to_kit = to_drive = 0
    for name in sorted(names):
        mine, saved = local / name, kept / name
        if mine.is_file() and saved.is_file():
            a, b = digest(mine), digest(saved)
            if a == b:
                continue
            base = last.get(name)
            if base == b:  # changed here only
                source, dest = mine, saved
            elif base is None or base == a:  # changed in Drive only, or a fresh kit
                source, dest = saved, mine
            else:  # changed on both sides: the newer wins, the other is kept
                source, dest = (mine, saved) if mine.stat().st_mtime > saved.stat().st_mtime else (saved, mine)
                stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
                backup = DRIVE / "replaced" / (name + "." + stamp)
                backup.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(dest, backup)
                print("%s changed both here and in Drive: kept the newer; the other is %s" % (name, backup))
        elif mine.is_file():
            source, dest = mine, saved
        else:
            source, dest = saved, mine
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest)
        to_drive += dest == saved
        to_kit += dest == mine
    BUILD.mkdir(parents=True, exist_ok=True)
    SYNCED.write_text("".join("%s %s\\n" % (digest(p), p.relative_to(local).as_posix())
                              for p in sorted(local.rglob("*")) if p.is_file()))
    return len(names), to_kit, to_drive


if DRIVE:
    n, to_kit, to_drive = sync_labs()
    print("Your labs: %s/labs in Drive (%d files; %d copied from Drive, %d to Drive). Edit them there." % (DRIVE, n, to_kit, to_drive))
else:
    print("Your labs: %s/labs%s." % (KIT, "" if IN_COLAB else " (not in Colab: no Drive; the last cell zips them)"))
"""

INSTALL_MD = """\
## 3. What the kit needs

The packages the kit's `setup.sh` installs (read from it), CMake, and nvcc, the CUDA
compiler. What is there already is left alone, so a second run, or a machine without a
network that has them all, installs nothing.
"""

INSTALL_CELL = """\
start = time.time()
setup = (KIT / "setup.sh").read_text()
packages = re.search(r"^packages=\\(([^)]*)\\)", setup, re.M).group(1).split()
need_cmake = re.search(r"cmake_minimum_required\\(VERSION ([0-9.]+)", (KIT / "CMakeLists.txt").read_text()).group(1)


def version(text):
    return tuple(int(x) for x in re.findall(r"[0-9]+", text)[:3])


def cmake_version():
    if not shutil.which("cmake"):
        return None
    out = subprocess.run(["cmake", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"cmake version ([0-9.]+)", out)
    return m.group(1) if m else None


def installed(package):
    \"\"\"dpkg says so; for CMake, a new enough cmake on PATH (Colab's comes from pip) is enough.\"\"\"
    if package == "cmake" and cmake_version() and version(cmake_version()) >= version(need_cmake):
        return True
    if not shutil.which("dpkg-query"):
        return True  # not Debian or Ubuntu: nothing to check it against
    out = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    return "install ok installed" in out.stdout


missing = [p for p in packages if not installed(p)]
if missing and not INSTALL:
    print("Missing, not installed (INSTALL = False): %s. The build may fail without them." % " ".join(missing))
elif missing:
    if os.geteuid() != 0 and not shutil.which("sudo"):
        raise StepFailed("%s missing, and apt-get needs root: as root, apt-get install %s" % (" ".join(missing), " ".join(missing)))
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    code, text, log = run(sudo + ["apt-get", "update", "-qq"], "apt-update")
    if code == 0:
        code, text, log = run(sudo + ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq",
                                      "--no-install-recommends", *missing], "apt-install")
    if code:
        raise StepFailed("apt-get could not install %s: %s (log: %s)" % (" ".join(missing), " / ".join(errors_of(text, 3)), log))
    print("Installed with apt-get: %s (%s)." % (" ".join(missing), took(start)))
else:
    print("The %d packages of setup.sh are installed." % len(packages))

have_cmake = cmake_version()
if not have_cmake or version(have_cmake) < version(need_cmake):
    if not INSTALL:
        raise StepFailed("CMake %s is older than the %s the kit needs (INSTALL = False)" % (have_cmake, need_cmake))
    code, text, log = run([sys.executable, "-m", "pip", "install", "-q", "cmake>=" + need_cmake], "pip-cmake")
    if code:
        raise StepFailed("pip could not install CMake %s: %s (log: %s)" % (need_cmake, " / ".join(errors_of(text, 3)), log))
    import site, sysconfig  # where pip puts cmake: first on PATH
    os.environ["PATH"] = os.pathsep.join([sysconfig.get_path("scripts"), os.path.join(site.USER_BASE, "bin"), os.environ["PATH"]])
    have_cmake = cmake_version()
    if not have_cmake or version(have_cmake) < version(need_cmake):
        raise StepFailed("pip installed CMake, but the cmake on PATH is still %s (log: %s)" % (have_cmake, log))

if not shutil.which("nvcc") and os.path.exists("/usr/local/cuda/bin/nvcc"):
    os.environ["PATH"] = "/usr/local/cuda/bin:" + os.environ["PATH"]
if not shutil.which("nvcc"):
    raise StepFailed("no nvcc, the CUDA compiler, on PATH or in /usr/local/cuda/bin: install the CUDA toolkit (12 or later)")
nvcc_version = re.search(r"release ([0-9.]+)", subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout)
print("CMake %s; nvcc %s (CUDA %s)." % (have_cmake, shutil.which("nvcc"), nvcc_version.group(1) if nvcc_version else "?"))
"""

BUILD_MD = """\
## 4. Build

`cmake -S . -B build` (with `-DCMAKE_CUDA_ARCHITECTURES` for the GPU found above), then
`cmake --build build`. The first build takes a few minutes; later ones rebuild what changed,
your lab among it. Run this cell again after every edit.
"""

BUILD_CELL = """\
start = time.time()
if DRIVE:
    sync_labs()
configure = ["cmake", "-S", KIT, "-B", BUILD]
if GPU:
    configure.append("-DCMAKE_CUDA_ARCHITECTURES=" + GPU[1])
code, text, log = run(configure, "configure")
if code:
    raise StepFailed("configuring the kit failed: %s (log: %s)" % (cmake_error(text), log))
code, text, log = run(["cmake", "--build", BUILD, "-j", str(os.cpu_count() or 2)], "build")
if code:
    errors = errors_of(text)
    print("\\n".join(errors))
    in_labs = any("labs/" in e for e in errors)
    raise StepFailed(("your lab does not compile (the compiler's messages are above)" if in_labs
                      else "the build failed (above: its error lines)") + "; log: %s" % log)
print("Built for %s in %s (log: %s)." % ("sm_" + GPU[1] if GPU else "the CPU emulator", took(start), log))
"""

LADDER_MD = """\
## 5. The ladder, and your stage

`./build/reduce_ladder` runs the reference solutions of this edition, checked and timed (on
the CPU emulator: checked only). Then `--stage K --impl labs` runs yours, and `--counters`
says why it is as fast as it is: hardware counters on a GPU (Nsight Compute), the emulator's
counts without one.
"""

LADDER = """\
LADDER = BUILD / "reduce_ladder"
code, text, log = run([LADDER], "ladder")
print_lines(text)
if code not in (0, 1):
    raise StepFailed("reduce_ladder failed (exit status %d; log: %s)" % (code, log))
print()
code, text, log = run([LADDER, "--stage", K, "--impl", "labs"], "ladder-stage%d" % K)
print_lines(without_no_gpu_line(text))
MINE_WORKS = code == 0
print("\\n" + ("Your stage %d gives the right sum." % K if MINE_WORKS else
              "Your stage %d does not give the right sum yet (above: why)." % K))
"""

COUNTERS = """\
# The counters of your stage where it works, else of the reference solution's.
impl = "labs" if MINE_WORKS else "solutions"
code, text, log = run([LADDER, "--stage", K, "--impl", impl, "--counters", "--no-baselines"], "counters-stage%d" % K)
if "ERR_NVGPUCTRPERM" in text:
    print("Hardware counters are blocked in this runtime (ERR_NVGPUCTRPERM): going on without them.")
elif code not in (0, 1):
    print("reduce_ladder --counters failed (exit status %d; log: %s): going on without them." % (code, log))
else:
    print("Counters of your stage %d:" % K if impl == "labs" else
          "Counters of the reference solution of stage %d (yours gives no right sum yet):" % K)
    print_lines(without_no_gpu_line(text))
"""

GRADE_MD = """\
## 6. Grade: make check-stageK

The grade the instructor's grader gives stage `STAGE`: correctness, speed (on a GPU only)
and the sanitizer or the emulator's race check. The full text is in
`build/grade/feedback-stageK.txt`.
"""

GRADE = """\
start = time.time()
code, text, log = run(["cmake", "--build", BUILD, "--target", "check-stage%d" % K], "check-stage%d" % K)
report = re.search(r"^Grade report for .*?(?=^check-stage[0-9]+: |^g?make(\\[[0-9]+\\])?: |^ninja: |\\Z)", text, re.M | re.S)
if not report:
    raise StepFailed("make check-stage%d gave no grade report: %s (log: %s)" % (K, " / ".join(errors_of(text, 4)), log))
# The report without colours and without the files that are for autograders (Gradescope's JSON, JUnit, the logs).
lines = re.sub(r"\\x1b\\[[0-9;]*m", "", report.group(0)).splitlines()
print_lines("\\n".join(l for l in lines if not l.startswith(("Gradescope results:", "Logs: "))), 50)
feedback = BUILD / "grade" / ("feedback-stage%d.txt" % K)
if feedback.is_file():
    print("\\n" + feedback.read_text().strip())
print("\\nmake check-stage%d: %s (%s)." % (K, "passed" if code == 0 else "not passed yet", took(start)))
"""

SAVE_MD = """\
## 7. Keep your work

Your labs go to Drive (in Colab), and into a zip, `labs-DATE.zip` in the kit's folder, which
Colab downloads where there is no Drive (or with `DOWNLOAD_ZIP = True`).
"""

SAVE = """\
if DRIVE:
    n, to_kit, to_drive = sync_labs()
    print("Drive: %s/labs holds your %d lab files (%d copied there now)." % (DRIVE, n, to_drive))
archive = KIT / ("labs-%s.zip" % datetime.datetime.now().strftime("%Y%m%d-%H%M"))
with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
    for p in sorted((KIT / "labs").rglob("*")):
        if p.is_file():
            z.write(p, p.relative_to(KIT).as_posix())
print("Zip of your labs: %s (%d files)." % (archive, len(z.namelist())))
if IN_COLAB and (DRIVE is None or DOWNLOAD_ZIP):
    from google.colab import files
    files.download(str(archive))
"""

CELLS = [("markdown", INTRO), ("code", SETTINGS), ("code", HELPERS),
         ("markdown", GPU_MD), ("code", GPU),
         ("markdown", KIT_MD), ("code", KIT),
         ("markdown", INSTALL_MD), ("code", INSTALL_CELL),
         ("markdown", BUILD_MD), ("code", BUILD_CELL),
         ("markdown", LADDER_MD), ("code", LADDER), ("code", COUNTERS),
         ("markdown", GRADE_MD), ("code", GRADE),
         ("markdown", SAVE_MD), ("code", SAVE)]


def notebook():
    """The notebook as nbformat 4.5 JSON text: cell ids cell-01..., the settings cell tagged
    'parameters' (where run_notebook.py puts its values), Colab asked for a GPU runtime."""
    cells = []
    for i, (kind, text) in enumerate(CELLS, 1):
        lines = text.splitlines(keepends=True)
        if lines and lines[-1].endswith("\n"):
            lines[-1] = lines[-1][:-1]
        cell = {"cell_type": kind, "id": "cell-%02d" % i, "metadata": {}, "source": lines}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
            if text is SETTINGS:
                cell["metadata"]["tags"] = ["parameters"]
        cells.append(cell)
    nb = {"cells": cells,
          "metadata": {"accelerator": "GPU",
                       "colab": {"gpuType": "T4", "provenance": []},
                       "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                       "language_info": {"name": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                              "reduction_lab.ipynb"))
    ap.add_argument("--check", action="store_true", help="exit 1 when OUTPUT differs from what this script writes")
    args = ap.parse_args(argv)
    text = notebook()
    for kind, cell in CELLS:  # every code cell must at least compile
        if kind == "code":
            compile(cell, "<cell>", "exec")
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as f:
                same = f.read() == text
        except OSError:
            same = False
        print("%s: %s" % (args.output, "up to date" if same else
                          "NOT what make_notebook.py writes: run python3 release/colab/make_notebook.py"))
        return 0 if same else 1
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %s (%d cells)" % (args.output, len(CELLS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks that every committed sweep shows stage 8 beating CUB where launch latency counts.

A sweep (docs/results/sweep-<GPU>-<date>.json, written by reduce_ladder --sweep --format json)
times stage 7, stage 8, CUB, a copy and an empty kernel at every n = 2^10 .. 2^28. Stage 8
does the sum in one launch; CUB's DeviceReduce::Sum launches twice above a small size, so
where the launch is most of the time stage 8 must be clearly faster, and nowhere clearly
slower. For every sweep file this script requires:
  - every n from 2^10 to 2^28, each with the rows 8 and CUB;
  - every row of every n with result "ok" (stage 7, the copy and the empty kernel too);
  - stage 8 at least MID_MIN times CUB's speed (CUB's median time / stage 8's) at every n
    from 2^14 to 2^20, and at least ALL_MIN times at every n from 2^10 to 2^28.
It reports every failing n of every file, not only the first. With no sweep committed it
fails, saying what to commit: the pages quote the sweeps, so a kit without one is unfinished.

Usage: check_sweeps.py SOURCE_DIR            check SOURCE_DIR/docs/results/
       check_sweeps.py --self-test           prove the check fails where it must (temporary files)
Exit 0 when every sweep passes, 1 otherwise.
"""
import glob
import json
import os
import re
import shutil
import sys
import tempfile

MID_MIN, MID_RANGE = 1.3, (14, 20)   # where latency counts: stage 8 >= 1.3x CUB's speed
ALL_MIN, ALL_RANGE = 0.97, (10, 28)  # everywhere: never clearly slower than CUB


def sweep_files(results):
    """The sweeps among results/*.json: named sweep-*.json, or saying "kind": "sweep"."""
    found = []
    for path in sorted(glob.glob(os.path.join(results, "*.json"))):
        if os.path.basename(path).startswith("sweep-"):
            found.append(path)
            continue
        try:
            with open(path, encoding="utf-8") as f:
                if json.load(f).get("kind") == "sweep":
                    found.append(path)
        except (OSError, ValueError, AttributeError):
            pass   # not a sweep; the docs' own checks report unreadable ladder files
    return found


def log2_exact(n):
    return n.bit_length() - 1 if isinstance(n, int) and n > 0 and n & (n - 1) == 0 else None


def check_sweep(path):
    """The problems of one sweep file, one line each (empty when it passes)."""
    name = "docs/results/" + os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        return ["%s: cannot be read as JSON (%s)" % (name, exc)]
    if not isinstance(data, dict) or data.get("kind") != "sweep" or not isinstance(data.get("sizes"), list):
        return ['%s: not a sweep (it needs "kind": "sweep" and a list "sizes")' % name]
    if data.get("emulated"):
        return ["%s: a sweep on the CPU emulator has no timings; commit one measured on a GPU" % name]
    gpu = (data.get("gpu") or {}).get("name", "?") if isinstance(data.get("gpu"), dict) else "?"
    problems, by_k = [], {}
    for size in data["sizes"]:
        n = size.get("n") if isinstance(size, dict) else None
        k = log2_exact(n)
        if k is None:
            problems.append("%s: a size with n = %r, not a power of two" % (name, n))
            continue
        rows = {}
        for r in size.get("rows") or []:
            if isinstance(r, dict):
                rows[str(r.get("row"))] = r
        by_k[k] = rows
    for k in range(ALL_RANGE[0], ALL_RANGE[1] + 1):
        if k not in by_k:
            problems.append("%s: n = 2^%d: no such size in the sweep" % (name, k))
    for k in sorted(by_k):
        rows = by_k[k]
        for row in ("8", "CUB"):
            if row not in rows:
                problems.append("%s: n = 2^%d: no row %s" % (name, k, row))
        for row, r in sorted(rows.items()):
            if r.get("result") != "ok":
                problems.append('%s: n = 2^%d: row %s (%s) has result "%s", not "ok"'
                                % (name, k, row, r.get("title", "?"), r.get("result")))
        t8 = rows.get("8", {}).get("median_ms")
        tc = rows.get("CUB", {}).get("median_ms")
        if not all(isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0 for t in (t8, tc)):
            if "8" in rows and "CUB" in rows:
                problems.append("%s: n = 2^%d: no positive median_ms for stage 8 (%r) or CUB (%r)" % (name, k, t8, tc))
            continue
        ratio = tc / t8
        if MID_RANGE[0] <= k <= MID_RANGE[1] and ratio < MID_MIN:
            problems.append("%s: n = 2^%d: stage 8 is %.2fx CUB's speed (CUB %.2f us / stage 8 %.2f us), below "
                            "the %.2fx required from 2^%d to 2^%d, where the launch is most of the time"
                            % (name, k, ratio, 1000 * tc, 1000 * t8, MID_MIN, MID_RANGE[0], MID_RANGE[1]))
        elif ALL_RANGE[0] <= k <= ALL_RANGE[1] and ratio < ALL_MIN:
            problems.append("%s: n = 2^%d: stage 8 is %.2fx CUB's speed (CUB %.2f us / stage 8 %.2f us), below "
                            "the %.2fx required at every n from 2^%d to 2^%d"
                            % (name, k, ratio, 1000 * tc, 1000 * t8, ALL_MIN, ALL_RANGE[0], ALL_RANGE[1]))
    if not problems:
        ratios = [by_k[k]["CUB"]["median_ms"] / by_k[k]["8"]["median_ms"] for k in range(MID_RANGE[0], MID_RANGE[1] + 1)]
        print("%s (%s, %s): stage 8 is %.2fx to %.2fx CUB's speed from 2^%d to 2^%d, and at least %.2fx everywhere"
              % (name, gpu, data.get("date", "?"), min(ratios), max(ratios), MID_RANGE[0], MID_RANGE[1],
                 min(by_k[k]["CUB"]["median_ms"] / by_k[k]["8"]["median_ms"] for k in by_k)))
    return problems


def check(source):
    """Prints the verdict on every sweep of SOURCE/docs/results; returns the number of problems."""
    results = os.path.join(source, "docs", "results")
    files = sweep_files(results)
    ladder_gpus = sorted(set(m.group(1) for m in (re.match(r"ladder-(.+)-\d{4}-\d\d-\d\d\.json$", os.path.basename(p))
                                                  for p in glob.glob(os.path.join(results, "ladder-*.json"))) if m))
    if not files:
        print("check_sweeps.py: no sweep is committed in docs/results/: run `./build/reduce_ladder --sweep --format "
              "json > docs/results/sweep-<GPU>-<date>.json` on each GPU the docs show (%s) and commit the files; the "
              "stage 8 page quotes them, and this test requires stage 8 at %.1fx CUB's speed from 2^%d to 2^%d ints "
              "and %.2fx from 2^%d to 2^%d" % (", ".join(ladder_gpus) or "every GPU measured", MID_MIN, MID_RANGE[0],
                                               MID_RANGE[1], ALL_MIN, ALL_RANGE[0], ALL_RANGE[1]))
        return 1
    swept = set(m.group(1) for m in (re.match(r"sweep-(.+)-\d{4}-\d\d-\d\d\.json$", os.path.basename(p))
                                     for p in files) if m)
    for gpu in ladder_gpus:
        if gpu not in swept:
            print("check_sweeps.py: note: the ladder has runs of the %s but no sweep-%s-<date>.json is committed "
                  "(the stage 8 page then shows the other GPUs' sweeps only)" % (gpu, gpu))
    problems = []
    for path in files:
        problems += check_sweep(path)
    for p in problems:
        print(p)
    print("check_sweeps.py: %d sweep file%s, %s" % (len(files), "" if len(files) == 1 else "s",
                                                     "%d problems" % len(problems) if problems else "all pass"))
    return len(problems)


def self_test():
    """Sweeps written to a temporary folder: a good one passes; each fault is reported, at
    every n it affects; an empty folder fails."""
    def sweep(ratio_at=None, result_at=None, drop=None, emulated=False):
        sizes = []
        for k in range(10, 29):
            if drop == k:
                continue
            t8 = 0.0072 if k < 22 else 0.0072 * 2 ** (k - 22)
            ratio = (ratio_at or {}).get(k, 1.8 if 14 <= k <= 20 else 1.01)
            rows = [{"row": "7", "title": "t", "result": "ok", "median_ms": t8 * 1.4, "gbps": 1.0},
                    {"row": "8", "title": "t", "result": "ok", "median_ms": t8, "gbps": 1.0},
                    {"row": "CUB", "title": "t", "result": "ok", "median_ms": t8 * ratio, "gbps": 1.0},
                    {"row": "copy", "title": "t", "result": "ok", "median_ms": t8, "gbps": 1.0},
                    {"row": "launch", "title": "an empty kernel (launch latency)", "result": "ok",
                     "median_ms": 0.0068, "gbps": 1.0}]
            if result_at and k in result_at:
                rows[1]["result"] = result_at[k]
            sizes.append({"n": 1 << k, "rows": rows})
        return {"kind": "sweep", "gpu": {"name": "NVIDIA H100 test"}, "emulated": emulated, "date": "2026-11-30",
                "sizes": sizes}

    cases = [("a good sweep", sweep(), []),
             ("1.2x at 2^16 and 2^18", sweep(ratio_at={16: 1.2, 18: 1.25}), ["n = 2^16:", "n = 2^18:"]),
             ("0.95x at 2^26 and 2^10", sweep(ratio_at={26: 0.95, 10: 0.9}), ["n = 2^10:", "n = 2^26:"]),
             ("a wrong sum at 2^12 and 2^24", sweep(result_at={12: "wrong", 24: "timeout"}),
              ['n = 2^12: row 8 (t) has result "wrong"', 'n = 2^24: row 8 (t) has result "timeout"']),
             ("2^20 missing", sweep(drop=20), ["n = 2^20: no such size"]),
             ("an emulated sweep", sweep(emulated=True), ["CPU emulator"])]
    failed = 0
    root = tempfile.mkdtemp(prefix="check_sweeps_")
    try:
        for what, data, expected in cases:
            folder = os.path.join(root, what.replace(" ", "_").replace("^", ""))
            os.makedirs(os.path.join(folder, "docs", "results"))
            with open(os.path.join(folder, "docs", "results", "sweep-H100-2026-11-30.json"), "w") as f:
                json.dump(data, f)
            problems = check_sweep(os.path.join(folder, "docs", "results", "sweep-H100-2026-11-30.json"))
            text = "\n".join(problems)
            ok = all(e in text for e in expected) and (bool(problems) == bool(expected)) and \
                len(problems) >= len(expected)
            print("self-test: %s: %s" % (what, "as expected" if ok else "WRONG:\n  " + (text or "(no problem found)")))
            failed += not ok
        empty = os.path.join(root, "empty")
        os.makedirs(os.path.join(empty, "docs", "results"))
        if check(empty) != 1:
            print("self-test: an empty results folder: WRONG, it passed")
            failed += 1
        else:
            print("self-test: an empty results folder: fails, as expected")
    finally:
        shutil.rmtree(root)
    print("check_sweeps.py --self-test: %s" % ("every case as expected" if not failed else "%d cases wrong" % failed))
    return 1 if failed else 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) != 1 or argv[0].startswith("--"):
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if check(os.path.abspath(argv[0])) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

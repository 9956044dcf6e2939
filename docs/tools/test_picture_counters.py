#!/usr/bin/env python3
"""The stage pictures and the CPU emulator count the same: for each stage's first pass.

Every stage picture ends with the counters of one launch (docs/tools/stage_picture.py, the
real 32-lane, 32-bank model; stages 1-4, drawn at 16 threads, count a launch of 64 threads).
This test runs the same launch on the emulator,
    reduce_ladder_emu --stage K --n N --threads T --counters --format json
and compares every counter the picture computes with the emulator's "counters" object of
stage K's row. Counts must be equal; a ratio must equal the model's rounded to the decimals
the emulator prints (15.98 for 15.9766).
Usage: test_picture_counters.py SOURCE_DIR REDUCE_LADDER_EMU [--stages 1,2,...]
(every stage of common/stages.def by default)
"""
import decimal
import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import stage_picture  # noqa: E402

USAGE = "usage: test_picture_counters.py SOURCE_DIR REDUCE_LADDER_EMU [--stages 1,2,...]"
ARGS = sys.argv[1:]
STAGES = None
if "--stages" in ARGS:
    k = ARGS.index("--stages")
    STAGES = [int(s) for s in ARGS[k + 1].split(",")]
    del ARGS[k:k + 2]
if len(ARGS) != 2:
    print(USAGE, file=sys.stderr)
    sys.exit(2)
SOURCE, EMULATOR = os.path.abspath(ARGS[0]), ARGS[1]


def stage_numbers():
    """Every stage of common/stages.def, in order."""
    with open(os.path.join(SOURCE, "common", "stages.def"), encoding="utf-8") as f:
        found = [int(k) for k in re.findall(r"^KIT_STAGE\((\d+),", f.read(), re.M)]
    if not found:
        raise SystemExit("test_picture_counters.py: no KIT_STAGE lines in %s/common/stages.def" % SOURCE)
    return found


if STAGES is None:
    STAGES = stage_numbers()

# Counts: equal. Ratios (the emulator prints them with a few decimals): close.
RATIOS = {"elements_per_thread", "global_loads_per_element", "global_load_width", "bank_conflicts_per_request"}


def stage_file(number):
    root = os.path.join(SOURCE, "solutions")
    for d in sorted(os.listdir(root)):
        if d.startswith("%02d_" % number):
            folder = os.path.join(root, d)
            return os.path.join(folder, [f for f in os.listdir(folder) if f.endswith(".cu")][0])
    raise AssertionError("no stage %d under %s" % (number, root))


def emulator_counters(number, n, threads):
    """The "counters" object of stage `number`'s row, or a failure saying what was printed."""
    cmd = [EMULATOR, "--stage", str(number), "--n", str(n), "--threads", str(threads), "--counters",
           "--format", "json"]
    shown = " ".join(cmd)
    try:
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                             timeout=300)
    except OSError as exc:
        raise AssertionError("cannot run %s: %s" % (shown, exc))
    if run.returncode != 0:
        raise AssertionError("%s exited with %d:\n%s%s" % (shown, run.returncode, run.stdout[-2000:],
                                                            run.stderr[-2000:]))
    try:
        data = json.loads(run.stdout, parse_float=decimal.Decimal)   # keeps the printed decimals
    except ValueError as exc:
        raise AssertionError("%s printed no JSON (%s):\n%s" % (shown, exc, run.stdout[:2000]))
    rows = [r for r in data.get("rows", []) if str(r.get("stage")) == str(number)]
    if len(rows) != 1:
        raise AssertionError("%s printed %d rows for stage %d" % (shown, len(rows), number))
    counters = rows[0].get("counters")
    if not isinstance(counters, dict):
        raise AssertionError("%s printed no \"counters\" object for stage %d (got %r): does this emulator "
                             "count yet?" % (shown, number, counters))
    return counters, shown


def differences(model, emu):
    """One line per counter that differs or that the emulator does not print."""
    out = []
    for key in stage_picture.COUNTER_KEYS:
        mine = model[key]
        if key not in emu:
            out.append("%-28s picture %-12s emulator: missing" % (key, mine))
            continue
        theirs = emu[key]
        if isinstance(theirs, float):
            theirs = decimal.Decimal(repr(theirs))
        if not isinstance(theirs, (int, decimal.Decimal)) or isinstance(theirs, bool):
            out.append("%-28s picture %-12s emulator %r (not a number)" % (key, mine, theirs))
        elif key in RATIOS:
            # equal at the precision printed: |model - printed| <= half a unit of its last decimal
            places = max(0, -theirs.as_tuple().exponent)
            if abs(decimal.Decimal(repr(float(mine))) - theirs) > decimal.Decimal(5) / 10 ** (places + 1) \
                    + decimal.Decimal("1e-12"):
                out.append("%-28s picture %-12.6g emulator %s" % (key, mine, theirs))
        elif mine != theirs:
            out.append("%-28s picture %-12s emulator %s" % (key, mine, theirs))
    return out


class PicturesAndEmulatorCountTheSame(unittest.TestCase):
    def test_each_stages_first_pass(self):
        for k in STAGES:
            with self.subTest(stage=k):
                launch = stage_picture.launch_counters(stage_file(k))
                emu, shown = emulator_counters(k, launch.get("ladder_n", launch["n"]), launch["threads"])
                diff = differences(launch["counters"], emu)
                if diff:
                    self.fail("stage %d, n = %d, %d threads: the picture's model and `%s` differ:\n  %s"
                              % (k, launch["n"], launch["threads"], shown, "\n  ".join(diff)))

    def test_the_comparison_catches_a_difference(self):
        """The check above can fail: a counter off by one, a ratio off by 1%, a missing key."""
        launch = stage_picture.launch_counters(stage_file(STAGES[0]))
        model = launch["counters"]
        self.assertEqual(differences(model, dict(model)), [])
        off = dict(model, shared_requests=model["shared_requests"] + 1)
        self.assertEqual(len(differences(model, off)), 1)
        off = dict(model, elements_per_thread=model["elements_per_thread"] * 1.01)
        self.assertEqual(len(differences(model, off)), 1)
        printed = "%.2f" % model["elements_per_thread"]
        self.assertEqual(differences(model, dict(model, elements_per_thread=decimal.Decimal(printed))), [])
        wrong = decimal.Decimal(printed) + decimal.Decimal("0.01")
        self.assertEqual(len(differences(model, dict(model, elements_per_thread=wrong))), 1)
        off = dict(model)
        del off["warp_meetings"]
        self.assertIn("missing", differences(model, off)[0])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])

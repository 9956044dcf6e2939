#!/usr/bin/env python3
"""The generated tables of the stages beyond the int sums come from committed runs, and only from them.

Runs docs/tools/docs_assets.py's table functions on results folders this test writes itself:
  - without an accuracy run, the float page says that no GPU run is committed (and shows no number);
    with one (docs/results/accuracy-<GPU>-<date>.json), its errors, in a table and a chart; a file
    whose name has no date (a sample) is never shown;
  - without ladder rows for stages 13-15, the matrices' table says "not measured yet"; with them, the
    three layouts side by side, each as a multiple of stage 13's speed, computed from the times;
  - the main page's ladder stays the int sums' (stages 1-8), and \\last_stage is its last step;
  - a row of common/stages.def without the ten columns stops the build, naming them.
Usage: test_docs_assets.py SOURCE_DIR
"""
import copy
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import docs_assets  # noqa: E402

SOURCE = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(HERE))


def accuracy_run(gpu="NVIDIA H100 80GB HBM3", date="2026-12-01", reproducible=True):
    """An accuracy run as reduce_ladder --accuracy --format json writes it (made-up errors)."""
    rows = []
    for k in (10, 12, 14, 16):
        n = 1 << k
        rows.append({"n": n, "pattern": "random", "exact": n / 2.0, "sequential": 3.1e-8 * n / 64,
                     "pairwise": 2.0e-8 * k / 10, "kahan": 3.0e-8, "neumaier": 2.9e-8, "stage9": 2.5e-8 * k / 10,
                     "cub": 0.0, "stage9_reproducible": reproducible})
    rows.append({"n": 10000, "pattern": "positional", "exact": 50005000.0, "sequential": 2104 / 50005000.0,
                 "pairwise": 0.0, "kahan": 0.0, "neumaier": 0.0, "stage9": 0.0, "cub": 0.0,
                 "stage9_reproducible": True, "values": {"sequential": 50002896.0, "stage9": 50005000.0}})
    return {"kind": "accuracy", "gpu": {"name": gpu}, "emulated": False, "date": date, "threads": 256, "reps": 3,
            "rows": rows}


class Tree:
    """A source folder with common/ (stages.def, kit.h, and what describes the kit: problems.c,
    kit_description.cmake), tests/grader/grading.conf and docs/results/ of the committed ladder runs."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="docs_assets_")
        os.makedirs(os.path.join(self.root, "common"))
        os.makedirs(os.path.join(self.root, "tests", "grader"))
        for name in ("stages.def", "kit.h", "problems.c", "kit_description.cmake"):
            shutil.copy(os.path.join(SOURCE, "common", name), os.path.join(self.root, "common", name))
        shutil.copy(os.path.join(SOURCE, "tests", "grader", "grading.conf"),
                    os.path.join(self.root, "tests", "grader", "grading.conf"))
        self.results = os.path.join(self.root, "docs", "results")
        os.makedirs(self.results)
        for path in glob.glob(os.path.join(SOURCE, "docs", "results", "ladder-*.json")):
            shutil.copy(path, self.results)

    def write(self, name, data):
        with open(os.path.join(self.results, name), "w", encoding="utf-8") as f:
            json.dump(data, f)

    def newest_ladder(self, gpu="H100"):
        paths = sorted(glob.glob(os.path.join(self.results, "ladder-%s-*.json" % gpu)))
        with open(paths[-1], encoding="utf-8") as f:
            return json.load(f)

    def remove(self):
        shutil.rmtree(self.root)


def float_pages(stage):
    """The float stage's page and its studies (docs/studies/stage<K>_*.md), where the accuracy run is quoted."""
    paths = [os.path.join(SOURCE, "docs", "stages", "stage%d.md" % stage)]
    paths += sorted(glob.glob(os.path.join(SOURCE, "docs", "studies", "stage%d_*.md" % stage)))
    text = ""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text += f.read() + "\n"
    return text


class TheFloatPagesTable(unittest.TestCase):
    def setUp(self):
        self.tree = Tree()
        self.stages = docs_assets.read_stages(self.tree.root)
        self.float_stage = [s for s in self.stages if s["type"] == "KIT_FLOAT"][0]["number"]
        self.run = docs_assets.kit_float_run(self.tree.root)

    def tearDown(self):
        self.tree.remove()

    def table(self, edition="instructor"):
        runs = docs_assets.newest_accuracy(docs_assets.load_accuracy(self.tree.root, self.float_stage))
        return runs, docs_assets.accuracy_html(runs, edition, self.float_stage, self.run)

    def test_without_a_run_the_page_says_so_and_shows_no_figure(self):
        sample = accuracy_run()
        sample["sample"] = "a made-up run"
        self.tree.write("accuracy-SAMPLE.json", sample)   # no date in its name: never shown
        runs, text = self.table()
        self.assertEqual(runs, [])
        self.assertIn("No GPU run of the accuracy measurement is committed yet", text)
        self.assertNotRegex(text, r"10<sup>-?\d")
        self.assertIn("accuracy-&lt;GPU&gt;-&lt;date&gt;.json", text)
        _, student = self.table("student")
        self.assertNotIn("docs/results", student)
        # the ladder's loaders and the quoted-figures check leave accuracy files alone
        self.assertTrue(docs_assets.load_results(self.tree.root))

    def test_a_committed_run_gives_the_table_the_chart_and_the_figures(self):
        self.tree.write("accuracy-H100-2026-12-01.json", accuracy_run())
        self.tree.write("accuracy-H100-2026-11-30.json", accuracy_run(date="2026-11-30", reproducible=False))
        runs, text = self.table()
        self.assertEqual([r["date"] for r in runs], ["2026-12-01"], "the newest run of each GPU")
        self.assertIn("docs/results/accuracy-H100-2026-12-01.json", text)
        self.assertIn("<svg", text)
        self.assertIn("2<sup>16</sup>", text)
        self.assertIn("3.2&#8239;&#215;&#8239;10<sup>-5</sup>", text, "sequential at 2^16: 3.1e-8 x 1024")
        self.assertIn("1, 2, ..., 10000: the course&#x27;s example", text)
        self.assertIn("50,002,896", text, "the sum the run recorded, under its error")
        self.assertIn("yes", text)
        # the grader's bound, from common/kit.h: gamma_h with h = 16 + KIT_FLOAT_RUN at 2^16
        h = 16 + self.run
        gamma = h * 2.0 ** -24 / (1 - h * 2.0 ** -24)
        self.assertIn(docs_assets.sci_html(gamma), text)
        aliases = docs_assets.figure_aliases(docs_assets.newest_runs(docs_assets.load_results(self.tree.root)),
                                             (), [], runs, self.float_stage, self.run)
        self.assertIn('ALIASES += H100_acc_sequential_last="3.2 &times; 10<sup>-5</sup>"', aliases)
        self.assertIn('ALIASES += H100_acc_reproducible="every input"', aliases)
        self.assertIn('ALIASES += kit_float_run="%d"' % self.run, aliases)
        self.assertIn("accuracy_H100", aliases)
        self.assertIn('ALIASES += acc_gpu="H100"', aliases)
        self.assertIn('ALIASES += acc_last_n="2<sup>16</sup>"', aliases)
        # every \acc_ alias the float page names is defined when a run is committed
        page = float_pages(self.float_stage)
        stalled = re.findall(r"\\if acc_neumaier_stalled\n(.*?)\\endif", page, re.S)
        named = set(re.findall(r"\\(acc_\w+)", re.sub(r"\\if acc_neumaier_stalled\n.*?\\endif", "", page, flags=re.S)))
        defined = set(re.findall(r"ALIASES \+= (acc_\w+)=", aliases))
        self.assertTrue(named)
        self.assertLessEqual(named, defined)
        # Neumaier's no worse than Kahan's here: no section that explains why it is
        self.assertTrue(stalled)
        self.assertNotIn("acc_neumaier_stalled", aliases.splitlines()[-1])
        self.assertNotIn("acc_neumaier_sum", aliases)

    def test_neumaier_worse_than_kahan_where_the_sum_stalls_is_explained_from_the_runs_sums(self):
        """The committed H100 run's last row: 2^26 random floats, the running sum stuck at 2^24. The float
        page's section acc_neumaier_stalled quotes Neumaier's parts, computed from the row's values."""
        run = accuracy_run()
        run["rows"][3].update({"n": 1 << 26, "exact": 33554138.830814838, "kahan": 2.47604e-08, "neumaier": 8.7372e-06,
                               "values": {"sequential": 16777216.0, "kahan": 33554138.0, "neumaier": 33554432.0}})
        self.tree.write("accuracy-H100-2026-12-01.json", run)
        runs, _ = self.table()
        aliases = docs_assets.figure_aliases([], (), [], runs, self.float_stage, self.run)
        self.assertIn('ALIASES += acc_neumaier_sum="16,777,216"', aliases)
        self.assertIn('ALIASES += acc_neumaier_lost="16,776,922.8"', aliases)
        self.assertIn('ALIASES += acc_neumaier_correction="16,777,216"', aliases)
        self.assertIn('ALIASES += acc_neumaier_correction_off="293"', aliases)
        self.assertIn(" acc_neumaier_stalled", aliases.splitlines()[-1])
        section = re.findall(r"\\if acc_neumaier_stalled\n(.*?)\\endif", float_pages(self.float_stage), re.S)
        self.assertEqual(len(section), 1)
        named = set(re.findall(r"\\(acc_\w+)", section[0]))
        self.assertIn("acc_neumaier_correction", named)
        self.assertLessEqual(named, set(re.findall(r"ALIASES \+= (acc_\w+)=", aliases)))
        # Neumaier worse but the running sum below 2^24 (not the page's reason): no section
        run["rows"][3]["values"]["sequential"] = 8388608.0
        self.tree.write("accuracy-H100-2026-12-01.json", run)
        runs, _ = self.table()
        aliases = docs_assets.figure_aliases([], (), [], runs, self.float_stage, self.run)
        self.assertNotIn("acc_neumaier_stalled", aliases.splitlines()[-1])
        self.assertNotIn("acc_neumaier_sum", aliases)

    def test_the_ladders_own_output_is_read_as_it_is_written(self):
        """reduce_ladder --accuracy --format json adds a bound per row, stage_runs and stage9_result, and
        writes null for CUB on the emulator; its run on a GPU is shown, on the emulator it is not."""
        run = accuracy_run()
        run.pop("reps")
        run["stage_runs"] = 3
        for r in run["rows"]:
            r["bound"] = 3.125e-05
            r["stage9_result"] = "ok"
        run["rows"][0]["cub"] = None
        run["rows"][1]["stage9_result"] = "wrong"
        self.tree.write("accuracy-H100-2026-12-01.json", run)
        emulated = dict(run, emulated=True, gpu={"name": "the kit's CPU emulator (no GPU)"})
        self.tree.write("accuracy-emulator-2026-12-03.json", emulated)
        runs, text = self.table()
        self.assertEqual([r["short"] for r in runs], ["H100"])
        self.assertIn("stage 9 run 3 times per input", text)
        self.assertIn("3.1&#8239;&#215;&#8239;10<sup>-5</sup>", text)
        self.assertIn('(wrong)', text)
        self.assertIn("<td>-</td>", text, "CUB not measured")

    def test_a_stage_above_the_bound_is_marked(self):
        run = accuracy_run()
        run["rows"][0]["stage9"] = 1e-3
        self.tree.write("accuracy-H100-2026-12-01.json", run)
        _, text = self.table()
        self.assertIn('<td class="kit-bad">1.0&#8239;&#215;&#8239;10<sup>-3</sup></td>', text)

    def test_a_broken_run_stops_the_build_with_its_name(self):
        run = accuracy_run()
        del run["rows"][1]["exact"]
        self.tree.write("accuracy-H100-2026-12-01.json", run)
        with self.assertRaises(SystemExit) as ctx:
            self.table()
        self.assertIn("accuracy-H100-2026-12-01.json", str(ctx.exception))

    def test_the_course_example_is_computed_not_typed(self):
        course = docs_assets.course_example()
        self.assertEqual(course["sequential"], "50002896", "the slides of seed 002 print 50002896.000000")
        self.assertEqual(course["exact"], "50005000")
        self.assertEqual(course["pairwise"], "50005000")


class TheMatricesTable(unittest.TestCase):
    def setUp(self):
        self.tree = Tree()
        self.stages = docs_assets.read_stages(self.tree.root)
        self.mats = docs_assets.matrix_stages(self.stages)

    def tearDown(self):
        self.tree.remove()

    def runs(self):
        return docs_assets.newest_runs(docs_assets.load_results(self.tree.root))

    def without_matrix_rows(self):
        """The tree's copies of the committed ladder runs, their stage 13-15 rows (and CUB's, copy's) taken out."""
        numbers = set(str(s["number"]) for s in self.mats)
        for path in glob.glob(os.path.join(self.tree.results, "ladder-*.json")):
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            data["rows"] = [r for r in data["rows"] if str(r["stage"]).split("-")[-1] not in numbers]
            self.tree.write(os.path.basename(path), data)

    def test_not_measured_yet_without_rows(self):
        self.without_matrix_rows()
        text = docs_assets.matrices_html(self.stages, self.runs(), self.mats[0]["number"],
                                         set(s["number"] for s in self.stages))
        self.assertIn("Not measured yet", text)
        self.assertNotIn("GB/s</td>", text)
        result = docs_assets.problem_results_html(self.mats[0], self.runs(), self.stages)
        self.assertIn("Not measured yet", result)

    def test_the_three_layouts_side_by_side_from_the_times(self):
        ladder = self.tree.newest_ladder()
        data = copy.deepcopy(ladder)
        data["date"] = "2026-12-02"
        for s, ms in zip(self.mats, (0.2, 0.1, 0.08)):
            data["rows"].append({"stage": str(s["number"]), "title": s["title"], "result": "ok", "median_ms": ms,
                                 "gbps": 2400.0 / ms / 10, "n": 7456540, "percent_of_cub": "-"})
        self.tree.write("ladder-H100-2026-12-02.json", data)
        runs = self.runs()
        text = docs_assets.matrices_html(self.stages, runs, self.mats[1]["number"],
                                         set(s["number"] for s in self.stages))
        for s in self.mats:
            self.assertIn("stage %d" % s["number"], text)
        self.assertIn(">2.00x</td>", text, "0.2 ms / 0.1 ms")
        self.assertIn(">2.50x</td>", text, "0.2 ms / 0.08 ms")
        self.assertIn("1200", text)
        self.assertIn("7,456,540 matrices", text)
        del data["rows"][-1]["n"]
        data["sections"] = [{"baseline": 13, "problem": "matrices", "n": 1234567, "stages": [13, 15]}]
        self.tree.write("ladder-H100-2026-12-02.json", data)
        self.assertIn("1,234,567 matrices", docs_assets.problem_results_html(self.mats[-1], self.runs(), self.stages))
        self.assertIn('class="kit-this"', text)
        result = docs_assets.problem_results_html(self.mats[-1], runs, self.stages)
        self.assertIn("vs stage %d" % self.mats[-1]["baseline"], result)
        self.assertIn("<td>2.50x</td>", result)
        # the main page's ladder: the int sums only
        ladder_text = docs_assets.ladder_html(runs, [s for s in self.stages if docs_assets.is_int_sum(s)],
                                              set(), "instructor", [])
        self.assertNotIn("stage %d</text>" % self.mats[0]["number"], ladder_text)
        aliases = docs_assets.figure_aliases(runs, (), [s for s in self.stages if docs_assets.is_int_sum(s)])
        last = [s for s in self.stages if docs_assets.is_int_sum(s)][-1]["number"]
        self.assertIn('ALIASES += last_stage="%d"' % last, aliases)


class TheStagesTable(unittest.TestCase):
    def test_every_row_has_ten_columns(self):
        tree = Tree()
        try:
            stages = docs_assets.read_stages(tree.root)
            self.assertTrue(all(s["type"].startswith("KIT_") and s["op"].startswith("KIT_") for s in stages))
            path = os.path.join(tree.root, "common", "stages.def")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            text = re.sub(r"(KIT_STAGE\(2,.*?), KIT_INT,\s*KIT_SUM,\s*1\)", r"\1)", text, count=1)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            with self.assertRaises(SystemExit) as ctx:  # the kit's own generator refuses the row
                docs_assets.read_stages(tree.root)
            self.assertIn("cannot read this row", str(ctx.exception))
        finally:
            tree.remove()

    def test_every_page_beyond_the_int_sums_starts_from_a_stage_that_exists(self):
        stages = docs_assets.read_stages(SOURCE)
        for s in stages:
            before = docs_assets.compared_with(s, stages)
            if s["number"] != stages[0]["number"]:
                self.assertIsNotNone(before)
                self.assertLess(before["number"], s["number"])

    def test_each_page_says_the_stage_its_difference_and_counters_start_from(self):
        """The generated difference and counters of stage K start from compared_with(K): the page's
        headings name that stage."""
        stages = docs_assets.read_stages(SOURCE)
        for s in stages[1:]:
            path = os.path.join(SOURCE, "docs", "stages", "stage%d.md" % s["number"])
            if not os.path.exists(path):
                continue
            with self.subTest(stage=s["number"]):
                with open(path, encoding="utf-8") as f:
                    page = f.read()
                before = docs_assets.compared_with(s, stages)["number"]
                m = re.search(r"^## What changed from (?:the previous stage|stage (\d+))", page, re.M)
                self.assertIsNotNone(m, "stage%d.md has no 'What changed from' heading" % s["number"])
                if m.group(1):
                    self.assertEqual(int(m.group(1)), before)
                m = re.search(r"^### Hardware counters: stage (\d+) and stage (\d+)", page, re.M)
                if m:
                    self.assertEqual((int(m.group(1)), int(m.group(2))), (before, s["number"]))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])

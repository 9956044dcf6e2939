#!/usr/bin/env python3
"""The class report (tests/class/class_report.py) counts what the grading of a class found, and shows it
safely: the points per stage, one row per failure however many students had it, the speedups within
the grader's noise margin of the requirement, the submissions not graded and the Slurm tasks that
never ran, in a page where a student's name is text and never markup. Its leaderboards rank the
stages that passed correctness by GB/s, one board per GPU, say so where the CPU emulator graded
(no times, no numbers), and show stable pseudonyms on request that only the key can tell.

The records are built here as tests/class/grade_class.py writes them; the messages are the grader's own
(tests/grader/report.c decides each part's status and message in the grade record, grade.json). No GPU, no build: Python 3's standard library only.
Usage: test_class_report.py   (ctest: class_report_counts_points_failures_near_misses_and_ranks_correct_stages_per_gpu)
"""
import contextlib
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # ctest runs this in the source tree: leave no __pycache__ there
import class_report  # noqa: E402

UNFILLED = ("stage %d wrote no result: fill in the TODO in %s (the one block of pass 1 did not write "
            "out[blockIdx.x]; stage %d (labs), n = 1, 64 threads, ones input, seed 1)")
LOST = ("stage 5 failed %d of 600 runs. With all ones, n = %d and %d threads gave %d: %d elements lost. First "
        "failure: stage 5 (labs), n = %d, %d threads, ones input, seed %d: expected %d, got %d: with all ones "
        "that is %d elements lost")
RACE = ("ThreadSanitizer found %d data race report(s) in stage 7 on the CPU emulator (a missing __syncthreads() or "
        "__syncwarp()?). First: write by block(0) thread(%d) at %s:%d, previous read by block(0) thread(0) at %s:%d")
NO_GPU_SPEED = ("not measured (no GPU): not graded: no CUDA GPU (no CUDA GPU found (cudaGetDeviceCount: CUDA driver "
                "version is insufficient for CUDA runtime version))")
CLEAN_RACES = ("no race (emulated)\nemulated-races: no race: ThreadSanitizer reported nothing and every thread order "
               "gave the same results (CPU emulator, inputs up to 2^16 ints' worth)")


def graded_test(stage, part, score, max_score, output):
    """One part of a grade record (grade.json's points, as tests/class/grade_class.py keeps them),
    written here the way the report shows it: "FAIL (emulated): why", "pass 1.80x / 1.50x: ...",
    "not measured (no GPU): ...", or a summary line and the tool's message below it."""
    first, _, below = output.partition("\n")
    words = (("FAIL", "fail"), ("pass", "pass"), ("clean", "pass"), ("no race", "pass"),
             ("not measured", "not measured"), ("not graded", "not graded"))
    status = next((word for prefix, word in words if first.startswith(prefix)), "fail")
    if below:
        message = below.partition(": ")[2] if below.startswith("emulated-races: ") else below
    elif status == "not graded":
        message = first
    else:
        message = first.partition(": ")[2] or first
    return {"stage": stage, "part": part, "score": score, "max_score": max_score, "status": status,
            "message": message}


def full_marks_tests(stage):
    return [graded_test(stage, "correctness", 6, 6, "pass: every run gave the exact sum"),
            graded_test(stage, "speedup", 2, 2, "pass 1.80x / 1.50x: stage %d is 1.80x faster" % stage),
            graded_test(stage, "sanitizer", 2, 2, "clean (4 tools)")]


def record(student, points, tests=(), speed=None, outcome="graded", notes="", gpu="0"):
    """A record as tests/class/grade_class.py writes it; points {stage: points} (10 the maximum)."""
    graded = outcome == "graded"
    return {"student": student, "fingerprint": "0" * 64, "outcome": outcome, "notes": notes,
            "stages": sorted(points) if points else [7, 8],
            "points": {str(k): float(v) for k, v in points.items()} if graded else {},
            "max_points": {str(k): 10.0 for k in points} if graded else {},
            "total": float(sum(points.values())) if graded else None,
            "max_total": 10.0 * len(points) if graded else None,
            "grade": list(tests), "speed": speed or {},
            "seconds": {"build": 40.0, "grade": 50.0, "total": 90.0},
            "where": {"host": "node1", "gpu": gpu, "slurm": None}, "finished": "2026-11-23T14:20:00Z"}


def speed(achieved, required, spread, status):
    return {"status": status, "message": "stage 7 is %.2fx faster than reference stage 1" % achieved,
            "achieved": achieved, "required": required, "reference": required / 0.8, "spread": spread}


def timed_speed(gbps, percent, device="NVIDIA H100 80GB HBM3", status="pass", n=67108864):
    """A speed case as grade_class.py keeps it from grade.json: the speedups, GB/s and the GPU."""
    reference = 2.0
    return {"status": status, "message": "stage 7 is %.2fx faster" % (reference * percent / 100), "achieved":
            reference * percent / 100, "required": 1.6, "reference": reference, "spread": 0.01, "gbps": gbps,
            "reference_gbps": gbps * 100 / percent, "student_ms": 0.1, "reference_ms": 0.1, "device": device, "n": n}


def on_the_board(student, stage, gbps, percent, device="NVIDIA H100 80GB HBM3", correct=True):
    """A graded record whose stage passed correctness (or not) and was timed on DEVICE."""
    tests = full_marks_tests(stage) if correct else [graded_test(stage, "correctness", 0, 6, "FAIL: wrong sum")]
    r = record(student, {stage: 10 if correct else 0}, tests, speed={str(stage): timed_speed(gbps, percent, device)})
    r["graded_on"] = device
    return r


def csv_rows(text, section):
    return [row for row in csv.DictReader(io.StringIO(text)) if row["section"] == section]


class ClassReportTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory(prefix="class_report_test.")
        self.addCleanup(self.folder.cleanup)
        self.html = os.path.join(self.folder.name, "class-report.html")
        self.csv = os.path.join(self.folder.name, "class-report.csv")

    def write(self, records, failed_to_run=(), title="Class report"):
        class_report.write_report(records, self.html, self.csv, title, failed_to_run)
        with open(self.html, encoding="utf-8") as f:
            page = f.read()
        with open(self.csv, encoding="utf-8") as f:
            table = f.read()
        return page, table

    # ------------------------------------------------------------------------------ the points
    def test_each_points_value_of_a_stage_is_counted_with_its_mean_and_median(self):
        records = [record("alice", {7: 10, 8: 4}), record("bob", {7: 10, 8: 0}), record("carol", {7: 6, 8: 4}),
                   record("dave", {}, outcome="build failed")]
        _, table = self.write(records)
        points = {(row["stage"], row["points"]): int(row["students"]) for row in csv_rows(table, "points")}
        self.assertEqual(points, {("7", "6"): 1, ("7", "10"): 2, ("8", "0"): 1, ("8", "4"): 2})
        summary = {row["stage"]: row for row in csv_rows(table, "stage-summary")}
        self.assertEqual((summary["7"]["mean"], summary["7"]["median"], summary["7"]["students"]), ("8.67", "10", "3"))
        self.assertEqual((summary["8"]["mean"], summary["8"]["median"], summary["8"]["max_points"]),
                         ("2.67", "4", "10"))
        counts = {row["outcome"]: int(row["students"]) for row in csv_rows(table, "summary")}
        self.assertEqual((counts["students"], counts["graded"], counts["build failed"]), (4, 3, 1))

    # ---------------------------------------------------------------------------- the failures
    def test_the_same_failure_of_two_students_is_counted_once_with_both_names(self):
        # The same unfilled stage, in each student's own copy of it, and reported twice for bob.
        alice = record("alice", {7: 0}, [graded_test(7, "correctness", 0, 6, "FAIL (emulated): " + UNFILLED % (
            7, "/scratch/class/alice/labs/07_multi_element/reduce_multi_element.cu", 7))])
        bob_failure = "FAIL: " + UNFILLED % (7, "build-class/bob-patched/07_multi_element/reduce_multi_element.cu", 7)
        bob = record("bob", {7: 0}, [graded_test(7, "correctness", 0, 6, bob_failure)] * 2)
        _, table = self.write([bob, alice])
        failures = csv_rows(table, "failure")
        self.assertEqual(len(failures), 1, failures)
        self.assertEqual((failures[0]["stage"], failures[0]["part"], failures[0]["students"]),
                         ("7", "correctness", "2"))
        self.assertEqual(failures[0]["examples"], "alice;bob")
        self.assertIn(".../07_multi_element/reduce_multi_element.cu", failures[0]["message"])

    def test_a_file_graded_as_the_skeleton_fails_for_being_missing_or_not_compiling_not_for_the_todo(self):
        # grade_class.py grades a missing or broken stage file as the unfilled skeleton, and says so
        # in "replaced": the failure to count is that, not the skeleton's "fill in the TODO".
        unfilled = [graded_test(8, "correctness", 0, 6, "FAIL: " + UNFILLED % (8, "labs/08_one_pass/reduce_one_pass.cu", 8))]
        carol = record("carol", {8: 0}, unfilled)
        carol["replaced"] = {"8": "08_one_pass/reduce_one_pass.cu does not compile"}
        dave = record("dave", {8: 0}, unfilled)
        dave["replaced"] = {"8": "08_one_pass/reduce_one_pass.cu is missing"}
        erin = record("erin", {8: 0}, unfilled)  # left the TODO unfilled herself
        _, table = self.write([carol, dave, erin])
        messages = {row["message"]: row["examples"] for row in csv_rows(table, "failure")}
        self.assertEqual(messages.pop("08_one_pass/reduce_one_pass.cu does not compile: graded as the unfilled skeleton"),
                         "carol")
        self.assertEqual(messages.pop("08_one_pass/reduce_one_pass.cu is missing: graded as the unfilled skeleton"),
                         "dave")
        self.assertEqual(list(messages.values()), ["erin"], messages)
        self.assertIn("fill in the TODO", list(messages)[0])

    def test_a_student_lent_a_gpu_but_graded_on_the_emulator_is_counted_as_graded_there(self):
        on_gpu = record("alice", {8: 10}, full_marks_tests(8))
        on_gpu["graded_on"] = "NVIDIA H100 80GB HBM3"
        fell_back = record("bob", {8: 8}, gpu="5")
        fell_back["graded_on"] = "emulator"
        page, _ = self.write([on_gpu, fell_back])
        self.assertIn("1 graded on the kit's CPU emulator", page)

    def test_messages_that_differ_only_in_counts_sizes_seeds_lines_and_paths_group_together(self):
        lost_a = LOST % (480, 31, 64, 6, 25, 31, 64, 1, 31, 6, 25)
        lost_b = LOST % (125, 1000, 128, 896, 104, 1000, 128, 7, 1000, 896, 104)
        race_a = RACE % (1, 1, "/home/a/labs/07_multi_element/reduce_multi_element.cu", 20,
                         "/home/a/labs/07_multi_element/reduce_multi_element.cu", 19)
        race_b = RACE % (3, 5, "/tmp/b/labs/07_multi_element/reduce_multi_element.cu", 41,
                         "/tmp/b/labs/07_multi_element/reduce_multi_element.cu", 40)
        self.assertEqual(class_report.normalize_message(lost_a), class_report.normalize_message(lost_b))
        self.assertEqual(class_report.normalize_message(race_a), class_report.normalize_message(race_b))
        self.assertEqual(class_report.normalize_message(lost_a),
                         "stage 5 failed N of N runs. With all ones, n = N and N threads gave N: N elements lost. "
                         "First failure: stage 5 (labs), n = N, N threads, ones input, seed N: expected N, got N: "
                         "with all ones that is N elements lost")
        # hex values, signs, speedups and percentages; the names with digits in them stay as they are
        poison = ("expected 1, got -1515870810: the sum plus the poison (0xA5A5A5A5) the harness leaves in out; "
                  "int4 loads, 1.62x at 2.3%, n = 1,048,583 < 2^20 + 7")
        self.assertEqual(class_report.normalize_message(poison),
                         "expected N, got -N: the sum plus the poison (0x...) the harness leaves in out; "
                         "int4 loads, Nx at N%, n = N < 2^20 + 7")

    def test_a_students_own_name_in_a_message_does_not_split_the_group(self):
        message = "stage 7 wrote no result (stage 7 (%s), n = 1)"
        self.assertEqual(class_report.normalize_message(message % "alice", "alice"),
                         class_report.normalize_message(message % "bobby", "bobby"))

    def test_different_failures_stay_apart_and_the_most_common_comes_first(self):
        unfilled = graded_test(7, "correctness", 0, 6, "FAIL: " + UNFILLED % (7, "labs/07_x/reduce_x.cu", 7))
        wrong = graded_test(7, "correctness", 0, 6, "FAIL: stage 7 failed 25 of 630 runs. First failure: stage 7 "
                           "(labs), n = 65536, 64 threads, last-only input, seed 1: expected 7, got 65536")
        records = [record("alice", {7: 0}, [unfilled]), record("bob", {7: 0}, [unfilled]),
                   record("carol", {7: 0}, [wrong])]
        _, table = self.write(records)
        failures = csv_rows(table, "failure")
        self.assertEqual([row["students"] for row in failures], ["2", "1"])
        self.assertIn("wrote no result", failures[0]["message"])
        self.assertIn("last-only input", failures[1]["message"])

    def test_speed_and_race_points_lost_only_because_the_stage_was_not_correct_are_not_failures(self):
        unfilled = UNFILLED % (8, "labs/08_one_pass/reduce_one_pass.cu", 8)
        tests = [graded_test(8, "correctness", 0, 6, "FAIL: " + unfilled),
                 graded_test(8, "speedup", 0, 2, "FAIL: not timed, because the stage is not correct at n = 1: ..."),
                 graded_test(8, "sanitizer", 0, 2, "clean (4 tools)"),
                 # an unfilled lab's race check stops before ThreadSanitizer: a failure, but not a race
                 graded_test(8, "races", 0, 2, "not checked (no result)\nemulated-races: not checked for races: "
                             "stage 8 wrote no result in any run of the race check (fill in the TODO first)"),
                 graded_test(7, "correctness", 6, 6, "pass (emulated): every run gave the exact sum"),
                 graded_test(7, "speedup", 0, 2, NO_GPU_SPEED),
                 graded_test(7, "races", 2, 2, CLEAN_RACES)]
        _, table = self.write([record("alice", {7: 8, 8: 0}, tests, gpu="emulator")])
        failures = csv_rows(table, "failure")
        self.assertEqual([(row["stage"], row["part"]) for row in failures], [("8", "correctness")])

    def test_a_race_is_a_failure_of_its_own_and_its_message_is_the_tools(self):
        race = RACE % (1, 1, "labs/07_multi_element/reduce_multi_element.cu", 20,
                       "labs/07_multi_element/reduce_multi_element.cu", 19)
        tests = [graded_test(7, "correctness", 6, 6, "pass (emulated): every run gave the exact sum"),
                 graded_test(7, "races", 0, 2, "FAIL: race (emulated)\nemulated-races: " + race)]
        _, table = self.write([record("alice", {7: 6}, tests, gpu="emulator")])
        failures = csv_rows(table, "failure")
        self.assertEqual(len(failures), 1)
        self.assertEqual(failures[0]["part"], "races")
        self.assertTrue(failures[0]["message"].startswith("ThreadSanitizer found N data race"),
                        failures[0]["message"])

    def test_a_missed_speedup_is_grouped_without_its_measured_numbers(self):
        def missed(achieved, spread, seed):
            return graded_test(7, "speedup", 0, 2, "FAIL %.2fx / 5.06x: stage 7 is %.2fx faster than reference stage 1 "
                              "(naive); required 5.06x (0.8 x reference stage 7's 6.32x in this run). Timed at "
                              "n = 67108000, seed %d, 256 threads, median of 15 interleaved samples each, spread "
                              "%.1f%%, 1 attempt(s)" % (achieved, achieved, seed, 100 * spread))
        records = [record("alice", {7: 8}, [missed(3.70, 0.012, 12345)]),
                   record("bob", {7: 8}, [missed(2.05, 0.031, 999)])]
        _, table = self.write(records)
        failures = csv_rows(table, "failure")
        self.assertEqual(len(failures), 1)
        self.assertEqual((failures[0]["part"], failures[0]["students"]), ("speedup", "2"))
        self.assertIn("than reference stage 1 (naive); required Nx", failures[0]["message"])

    # --------------------------------------------------------------------- near the threshold
    def near(self, *speeds):
        records = [record("s%d" % i, {7: 10 if s["status"] == "pass" else 8}, speed={"7": s})
                   for i, s in enumerate(speeds)]
        _, table = self.write(records)
        return {row["student"]: row for row in csv_rows(table, "near-threshold")}

    def test_a_shortfall_just_inside_the_spread_is_near_the_threshold_and_one_just_outside_is_not(self):
        # spread 5%, required 1.50: the grader's clear miss starts below 1.50 x (1 - 0.05) = 1.425
        near = self.near(speed(1.43, 1.50, 0.05, "pass"), speed(1.42, 1.50, 0.05, "fail"))
        self.assertEqual(sorted(near), ["s0"])
        self.assertEqual(near["s0"]["verdict"], "pass within noise")
        self.assertEqual((near["s0"]["achieved"], near["s0"]["required"], near["s0"]["spread"]),
                         ("1.4300", "1.5000", "0.0500"))

    def test_the_margin_is_never_below_the_graders_minimum_of_two_percent(self):
        # spread 0: KIT_MIN_MARGIN (2%) still counts as noise: 1.50 x 0.98 = 1.47
        near = self.near(speed(1.475, 1.50, 0.0, "fail"), speed(1.46, 1.50, 0.0, "fail"))
        self.assertEqual(sorted(near), ["s0"])
        self.assertEqual(near["s0"]["verdict"], "fail")

    def test_a_pass_just_above_the_requirement_is_near_and_a_clear_pass_is_not(self):
        near = self.near(speed(1.57, 1.50, 0.05, "pass"), speed(1.58, 1.50, 0.05, "pass"),
                         speed(3.00, 1.50, 0.05, "pass"))
        self.assertEqual(sorted(near), ["s0"])
        self.assertEqual(near["s0"]["verdict"], "pass")

    def test_the_near_threshold_rule_is_the_graders_rule(self):
        rule = class_report.near_threshold
        self.assertTrue(rule(1.425, 1.50, 0.05))   # exactly required x (1 - spread): not a clear miss
        self.assertFalse(rule(1.4249, 1.50, 0.05))
        self.assertTrue(rule(1.20, 1.50, 0.25))    # a noisy measurement: its spread is the margin
        self.assertFalse(rule(None, 1.50, 0.05))   # not measured (no GPU)

    # --------------------------------------------------------------------------- leaderboards
    def test_the_leaderboard_ranks_correct_stages_by_gbps_with_one_board_per_gpu(self):
        records = [on_the_board("alice", 7, 2500.0, 96.0), on_the_board("bob", 7, 2610.4, 101.2),
                   on_the_board("carol", 7, 3000.0, 110.0, correct=False),  # fast and wrong: not ranked
                   on_the_board("dave", 7, 3650.0, 99.0, device="NVIDIA H200"),
                   on_the_board("erin", 7, 2500.0, 96.0)]  # as fast as alice: the same rank
        page, table = self.write(records)
        board = [(row["gpu"], row["rank"], row["student"], row["gbps"], row["percent_of_reference"])
                 for row in csv_rows(table, "leaderboard")]
        self.assertEqual(board, [("NVIDIA H100 80GB HBM3", "1", "bob", "2610.4", "101.2"),
                                 ("NVIDIA H100 80GB HBM3", "2", "alice", "2500.0", "96.0"),
                                 ("NVIDIA H100 80GB HBM3", "2", "erin", "2500.0", "96.0"),
                                 ("NVIDIA H200", "1", "dave", "3650.0", "99.0")])
        section = page[page.index("<h2>Leaderboards</h2>"):page.index("<h2>Most common failures</h2>")]
        self.assertIn("on NVIDIA H100 80GB HBM3", section)
        self.assertIn("on NVIDIA H200", section)
        self.assertIn("2610.4", section)
        self.assertNotIn("carol", section)
        self.assertLess(section.index("bob"), section.index("alice"))

    def test_on_the_emulator_the_board_says_there_are_no_times_and_shows_no_number(self):
        tests = [graded_test(7, "correctness", 6, 6, "pass (emulated): every run gave the exact sum"),
                 graded_test(7, "speedup", 0, 2, NO_GPU_SPEED), graded_test(7, "races", 2, 2, CLEAN_RACES)]
        records = [record(name, {7: 8}, tests, gpu="emulator") for name in ("alice", "bob")]
        for r in records:
            r["graded_on"] = "emulator"
        page, table = self.write(records)
        rows = csv_rows(table, "leaderboard")
        self.assertEqual([(r["stage"], r["outcome"], r["students"], r["gbps"], r["rank"]) for r in rows],
                         [("7", "no times", "2", "", "")])
        self.assertIn("CPU emulator, which does not time kernels", rows[0]["notes"])
        section = page[page.index("<h2>Leaderboards</h2>"):page.index("<h2>Most common failures</h2>")]
        self.assertIn("No times, so no ranking: 2 correct submission(s) were graded on the CPU emulator", section)
        self.assertNotIn("<table", section)

    def test_pseudonyms_are_stable_unique_and_not_to_be_guessed_without_the_key(self):
        students = ["alice", "bob", "carol"] + ["student%03d" % i for i in range(300)]
        key = os.urandom(32)
        first = class_report.pseudonyms(students, key)
        self.assertEqual(first, class_report.pseudonyms(list(reversed(students)), key))  # the class's order: no matter
        self.assertEqual(first["alice"], class_report.pseudonyms(["alice"], key)["alice"])  # nor who else is in it
        self.assertEqual(len(set(first.values())), len(students))
        other = class_report.pseudonyms(students, os.urandom(32))
        self.assertGreater(sum(first[s] != other[s] for s in students), 290)  # another key, other pseudonyms
        for student, name in first.items():
            self.assertRegex(name, r"^[a-z]+-[a-z]+-\d{3}(-[0-9a-f]{6})?$")
            self.assertNotIn(student, name)
        # Students with the same pseudonym both get more of their digest, so each stays unique: with one
        # adjective and one animal, 100 students share 1000 numbers and several of them clash.
        with mock.patch.object(class_report, "ADJECTIVES", ("amber",)), mock.patch.object(class_report, "ANIMALS",
                                                                                             ("otter",)):
            crowded = class_report.pseudonyms(students[:100], b"a fixed key: clashes every run" + bytes(2))
        longer = [name for name in crowded.values() if name.count("-") == 3]
        self.assertTrue(longer, "no clash among 100 students in 1000 numbers: the test proves nothing")
        self.assertEqual(len(set(crowded.values())), 100)

    def test_a_pseudonym_never_spells_out_the_login_of_its_student(self):
        # CI drew "wise-bobcat-352" for bob once: half the animals here would show him.
        with mock.patch.object(class_report, "ANIMALS", ("bobcat", "otter")):
            names = [class_report.pseudonyms(["bob", "Bobby"], bytes([k]) * 32) for k in range(40)]
            self.assertFalse([n for n in names if "bob" in n["bob"] or "bobby" in n["Bobby"]])
            self.assertTrue([n for n in names if "bobcat" in n["Bobby"]], "the rule must not hide every bobcat")
        # nor do the hex digits that keep two clashing pseudonyms apart ("amber-otter-417-cafe01")
        hex_logins = ["bad", "cafe", "fad", "dab", "abe", "ace", "bed", "bee", "cab", "dad", "fed", "add"]
        with mock.patch.object(class_report, "ADJECTIVES", ("amber",)), mock.patch.object(class_report, "ANIMALS",
                                                                                             ("otter",)):
            crowded = class_report.pseudonyms(hex_logins + ["s%03d" % i for i in range(90)], bytes([52, 0]) * 16)
        self.assertTrue(crowded["fed"].startswith("amber-otter-326-"))  # where the first 6 digits were b51fed
        self.assertEqual([s for s in hex_logins if s in crowded[s]], [])
        self.assertEqual(len(set(crowded.values())), len(crowded))
        with mock.patch.object(class_report, "ANIMALS", ("bobcat",)):
            with self.assertRaisesRegex(SystemExit, "every pseudonym drawn for 'bob' contains the login"):
                class_report.pseudonyms(["bob"], bytes(32))

    def test_the_leaderboards_by_pseudonym_name_no_student_and_the_key_file_is_made_once_and_private(self):
        results = os.path.join(self.folder.name, "results")
        os.mkdir(results)
        for r in (on_the_board("alice", 7, 2500.0, 96.0), on_the_board("bob", 7, 2610.4, 101.2)):
            with open(os.path.join(results, r["student"] + ".json"), "w", encoding="utf-8") as f:
                json.dump(r, f)
        done = self.run_cli(results, self.html, self.csv, "--pseudonyms")
        self.assertEqual(done.returncode, 0, done.stderr)
        key_file = os.path.join(self.folder.name, "pseudonym-key")
        self.assertEqual(os.stat(key_file).st_mode & 0o777, 0o600)
        with open(os.path.join(self.folder.name, "class-report-pseudonyms.csv"), encoding="utf-8") as f:
            names = {row["student"]: row["pseudonym"] for row in csv.DictReader(f)}
        self.assertEqual(sorted(names), ["alice", "bob"])
        with open(os.path.join(self.folder.name, "class-report-leaderboard.html"), encoding="utf-8") as f:
            shared = f.read()
        # A pseudonym may hold a name ("bobcat" holds "bob"): the names are looked for in what is
        # left once the pseudonyms are taken out (the test failed about once in 30 runs before).
        unnamed = shared
        for name in names.values():
            unnamed = unnamed.replace(name, "")
        for student, name in names.items():
            self.assertNotIn(student, unnamed)
            self.assertIn(name, shared)
        self.assertLess(shared.index(names["bob"]), shared.index(names["alice"]))  # bob is faster
        with open(self.html, encoding="utf-8") as f:
            page = f.read()
        section = page[page.index("<h2>Leaderboards</h2>"):page.index("<h2>Most common failures</h2>")]
        self.assertNotIn("alice", section.replace(names["alice"], "").replace(names["bob"], ""))
        self.assertIn(names["alice"], section)
        again = self.run_cli(results, self.html, self.csv, "--pseudonyms")  # the same key: the same pseudonyms
        self.assertEqual(again.returncode, 0, again.stderr)
        with open(os.path.join(self.folder.name, "class-report-pseudonyms.csv"), encoding="utf-8") as f:
            self.assertEqual(names, {row["student"]: row["pseudonym"] for row in csv.DictReader(f)})
        with open(key_file, "w") as f:
            f.write("not hex\n")
        broken = self.run_cli(results, self.html, self.csv, "--pseudonyms")
        self.assertNotEqual(broken.returncode, 0)
        self.assertIn("is not a pseudonym key", broken.stderr)

    # ---------------------------------------------------------------------------------- HTML
    def test_the_page_escapes_a_student_named_script_and_the_messages(self):
        name = "<script>alert('x')</script>"
        tests = [graded_test(7, "correctness", 0, 6, 'FAIL: stage 7 failed: <img src=x onerror="alert(1)">')]
        records = [record(name, {7: 0}, tests, speed={"7": speed(1.49, 1.50, 0.05, "pass")}),
                   record("<b>bold</b>", {}, outcome="build failed", notes="<i>see</i> the log")]
        page, table = self.write(records, [{"student": "<u>u</u>", "task": "1234_5", "state": "CANCELLED",
                                            "reason": "<s>cancelled</s>"}], title="Class <7>")
        for markup in ("<script>", "<img", "<b>bold", "<i>see", "<u>u", "<s>cancelled", "<7>"):
            self.assertNotIn(markup, page)
        self.assertIn("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;", page)
        self.assertIn("&lt;img src=x onerror=&quot;alert(N)&quot;&gt;", page)
        self.assertIn(name, table)  # the CSV holds the name as it is: csv quotes it

    def test_the_page_is_one_self_contained_file(self):
        page, _ = self.write([record("alice", {7: 10, 8: 4})])
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        for external in ("<script", "<link", "src=", "http://", "https://", "@import"):
            self.assertNotIn(external, page)
        self.assertIn("<style>", page)

    def test_the_report_does_not_depend_on_the_order_of_the_records(self):
        records = [record("carol", {7: 6}), record("alice", {7: 10}), record("Bob", {7: 0}, outcome="timed out")]
        first = self.write(records)
        second = self.write(list(reversed(records)))
        self.assertEqual(first, second)
        page = first[0]
        self.assertLess(page.index(">alice<"), page.index(">carol<"))

    def test_an_empty_class_gives_a_report_that_says_so(self):
        page, table = self.write([])
        self.assertIn("no student records", page)
        counts = {row["outcome"]: row["students"] for row in csv_rows(table, "summary")}
        self.assertEqual(counts["students"], "0")
        self.assertEqual(csv_rows(table, "points"), [])

    def test_failed_to_run_tasks_are_listed_apart_from_build_failures(self):
        records = [record("alice", {7: 10}), record("bob", {}, outcome="build failed", notes="does not compile")]
        failed = [{"student": "carol", "task": "1234_2", "state": "NODE_FAIL", "reason": "node node7 failed"},
                  {"student": "dave", "task": "1234_3", "state": "TIMEOUT", "reason": "past the Slurm time limit"}]
        page, table = self.write(records, failed)
        self.assertEqual([(row["student"], row["outcome"]) for row in csv_rows(table, "not-graded")],
                         [("bob", "build failed")])
        self.assertEqual([(row["student"], row["task"], row["state"]) for row in csv_rows(table, "failed-to-run")],
                         [("carol", "1234_2", "NODE_FAIL"), ("dave", "1234_3", "TIMEOUT")])
        counts = {row["outcome"]: int(row["students"]) for row in csv_rows(table, "summary")}
        self.assertEqual((counts["students"], counts["graded"], counts["build failed"], counts["failed to run"]),
                         (4, 1, 1, 2))
        not_graded = page[page.index("<h2>Not graded</h2>"):page.index("<h2>Failed to run</h2>")]
        failed_part = page[page.index("<h2>Failed to run</h2>"):page.index("<h2>Students</h2>")]
        self.assertIn("bob", not_graded)
        self.assertNotIn("carol", not_graded)
        self.assertIn("carol", failed_part)
        self.assertIn("NODE_FAIL", failed_part)
        self.assertNotIn("bob", failed_part)

    # ---------------------------------------------------------------------------------- files
    def test_writing_leaves_the_two_files_and_no_temporary_one(self):
        self.write([record("alice", {7: 10})])
        self.write([record("alice", {7: 4})])  # over the previous report
        self.assertEqual(sorted(os.listdir(self.folder.name)), ["class-report.csv", "class-report.html"])

    def test_a_write_that_fails_leaves_the_previous_file_and_no_temporary_one(self):
        self.write([record("alice", {7: 10})])
        with open(self.html, encoding="utf-8") as f:
            before = f.read()
        with self.assertRaises(TypeError):
            class_report.write_atomically(self.html, b"not text")
        with open(self.html, encoding="utf-8") as f:
            self.assertEqual(f.read(), before)
        self.assertEqual(sorted(os.listdir(self.folder.name)), ["class-report.csv", "class-report.html"])

    def test_csv_cells_from_a_submission_cannot_become_spreadsheet_formulas(self):
        _, table = self.write([record("=HYPERLINK(\"x\")", {}, outcome="build failed", notes="@SUM(A1)")])
        row = csv_rows(table, "not-graded")[0]
        self.assertEqual((row["student"], row["notes"]), ("'=HYPERLINK(\"x\")", "'@SUM(A1)"))

    # ------------------------------------------------------------------------------ regrades
    def test_a_regrade_says_what_changed_per_student_and_stage_from_the_records(self):
        # bob's stage 8 raced last time and is clean now, as grade.json's "changes" says it
        # (tests/grader/report.c); carol's build failed last time; dave was graded again and nothing
        # changed; alice is graded for the first time.
        bob = record("bob", {7: 10, 8: 8}, gpu="emulator")
        bob["previous"] = {"finished": "2026-11-20T10:00:00Z", "outcome": "graded", "total": 10.0, "max_total": 20.0,
                           "points": {"7": 10.0, "8": 0.0}, "kept": "history/bob/20261120T100000Z.json"}
        bob["changes"] = [{"stage": 8, "score_before": 0, "score": 8, "max_score": 10, "parts": [
            {"part": "sanitizer", "cell_before": "FAIL: race (emulated)", "cell": "no race (emulated)",
             "status_before": "fail", "status": "pass", "score_before": 0, "score": 2,
             "message_before": "race between\nline 36 and line 40"}]}]
        carol = record("carol", {7: 10, 8: 0})
        carol["previous"] = {"finished": "2026-11-20T10:05:00Z", "outcome": "build failed", "points": {}}
        dave = record("dave", {7: 10, 8: 10})
        dave["previous"] = {"finished": "2026-11-20T10:10:00Z", "outcome": "graded", "points": {"7": 10.0, "8": 10.0}}
        dave["changes"] = []
        alice = record("alice", {7: 10, 8: 10})
        self.assertEqual(class_report.change_note(bob),
                         "changed since the last grade (2026-11-20T10:00:00Z): stage 8: 0 -> 8 points (sanitizer "
                         "FAIL: race (emulated) -> no race (emulated); was: race between line 36 and line 40)")
        self.assertEqual(class_report.change_note(carol),
                         "changed since the last grade (2026-11-20T10:05:00Z): outcome build failed -> graded")
        self.assertEqual(class_report.change_note(dave), "regraded: nothing changed since the last grade "
                                                         "(2026-11-20T10:10:00Z)")
        self.assertEqual(class_report.change_note(alice), "")
        # without grade.json's changes (the earlier grading left no result files): the points
        del dave["changes"]
        dave["previous"]["points"]["8"] = 4.0
        self.assertEqual(class_report.change_note(dave), "changed since the last grade (2026-11-20T10:10:00Z): "
                                                         "stage 8: 4 -> 10 points")
        dave["previous"]["points"]["8"] = 10.0
        # a stage file that did not compile last time was graded as the skeleton: why comes first
        erin = record("erin", {8: 8})
        erin["previous"] = {"finished": "2026-11-20T10:15:00Z", "outcome": "graded", "points": {"8": 0.0},
                            "replaced": {"8": "08_one_pass/reduce_one_pass.cu does not compile; the compiler said: x"}}
        erin["changes"] = [{"stage": 8, "score_before": 0, "score": 8, "max_score": 10, "parts": [
            {"part": "correctness", "cell_before": "FAIL", "cell": "pass", "status_before": "fail", "status": "pass",
             "score_before": 0, "score": 6, "message_before": "stage 8 wrote no result: fill in the TODO"}]}]
        self.assertEqual(class_report.change_note(erin),
                         "changed since the last grade (2026-11-20T10:15:00Z): stage 8: 0 -> 8 points (correctness "
                         "FAIL -> pass; was: 08_one_pass/reduce_one_pass.cu does not compile; the compiler said: x "
                         "(graded as unfilled))")
        page, table = self.write([alice, bob, carol, dave])
        rows = {(row["student"], row["stage"]): (row["points_before"], row["points"], row["max_points"], row["notes"],
                                                 row["message"]) for row in csv_rows(table, "changed")}
        self.assertEqual(rows, {("bob", "8"): ("0", "8", "10", "sanitizer FAIL: race (emulated) -> no race (emulated)",
                                               "race between line 36 and line 40"),
                                ("carol", ""): ("", "", "", "build failed -> graded", "")})
        self.assertIn("<h2>Changed since the last grade</h2>", page)
        self.assertIn("3 student(s) graded again", page)
        self.assertIn('<tr><td>bob</td><td class="num">8</td><td class="num">0 &rarr; 8</td><td>sanitizer FAIL: race '
                      '(emulated) -&gt; no race (emulated)</td><td class="notes">race between line 36 and line 40</td></tr>',
                      page)
        self.assertIn("outcome build failed -&gt; graded", page)
        self.assertNotIn("<h2>Changed since the last grade</h2>", self.write([alice])[0])

    def test_grade_class_keeps_the_earlier_record_and_the_files_the_kit_compares_with(self):
        import grade_class  # tests/class/grade_class.py
        root = os.path.join(self.folder.name, "root")
        settings = {"build_root": root, "stages": [8], "kit": None}
        grader = grade_class.Grader(settings, None)
        p = grader.paths("bob")
        os.makedirs(os.path.join(p["grade"], "previous"))
        os.makedirs(os.path.dirname(p["record"]))
        earlier = record("bob", {8: 0}, gpu="emulator")
        earlier["finished"] = "2026-11-20T10:00:00Z"
        with open(p["record"], "w", encoding="utf-8") as f:
            json.dump(earlier, f)
        for name in ("stage8.emulated", "stage8.emulated-races", "feedback.txt", "previous/stage8.emulated"):
            with open(os.path.join(p["grade"], name), "w", encoding="utf-8") as f:
                f.write("status=fail\nmessage=%s\n" % name)
        kept, files = grader.keep_earlier("bob", p)
        self.assertEqual(kept["kept"], os.path.join("history", "bob", "20261120T100000Z.json"))
        with open(os.path.join(root, kept["kept"]), encoding="utf-8") as f:
            self.assertEqual(json.load(f), earlier)
        self.assertEqual(sorted(files), ["stage8.emulated", "stage8.emulated-races"])
        self.assertEqual(grade_class.Grader.previous_of(kept)["total"], 0.0)
        self.assertEqual(grader.keep_earlier("alice", grader.paths("alice")), (None, {}))
        # The new grade record's changes and what it could reach come with the record (grade.json)
        grade = {"format": 1, "graded_on": "no GPU", "score": 8, "max_score": 10, "reachable": 8,
                 "previous": {"score": 0, "max_score": 10, "reachable": 8},
                 "changes": [{"stage": 8, "score_before": 0, "score": 8, "max_score": 10, "parts": []}],
                 "stages": [{"stage": 8, "score": 8, "max_score": 10, "reachable": 8, "points": {
                     part: {"score": 0, "max_score": 0, "status": "pass", "message": ""}
                     for part in ("correctness", "speedup", "sanitizer")}}]}
        os.makedirs(os.path.join(root, "graded"))
        with open(os.path.join(root, "graded", "grade.json"), "w", encoding="utf-8") as f:
            json.dump(grade, f)
        new = record("bob", {8: 0}, gpu="emulator")
        new.update(outcome=None, previous=grade_class.Grader.previous_of(kept))
        grader.read_grade(os.path.join(root, "graded"), new, [])
        self.assertEqual((new["outcome"], new["reachable_total"], new["reachable"], new["changes"]),
                         ("graded", 8.0, {"8": 8.0}, grade["changes"]))
        self.assertEqual(class_report.change_note(new), "changed since the last grade (2026-11-20T10:00:00Z): "
                                                        "stage 8: 0 -> 8 points")

    def test_every_stage_file_that_does_not_compile_is_graded_as_its_skeleton_without_a_second_configure(self):
        # A make that keeps going names both of carol's broken files in its first build: both get
        # their skeletons, the kit is not configured again, and the second build is the last.
        import grade_class  # tests/class/grade_class.py
        root = os.path.join(self.folder.name, "root")
        names = {2: "02_divergence_free/reduce_divergence_free.cu", 8: "08_one_pass/reduce_one_pass.cu"}
        settings = {"build_root": root, "stages": [2, 8], "stage_files": names, "build_jobs": 2, "grade_jobs": 2,
                    "cmake_args": [], "skeletons": {name: b"/* skeleton */\n" for name in names.values()}}
        nvcc = "labs/02_divergence_free/reduce_divergence_free.cu(40): error: expected a \";\"\n"
        gcc = "labs/08_one_pass/reduce_one_pass.cu:71:35: error: expected ',' before 'stride'\n"

        class Builds:  # each build's log, in turn; a build with a log fails
            def __init__(self, logs):
                self.logs, self.commands = list(logs), []

            def run(self, command, log_path, deadline, env=None):
                self.commands.append(command)
                if "--build" not in command:
                    return 0
                text = self.logs.pop(0)
                with open(log_path, "a", encoding="utf-8") as log:
                    log.write(text)
                return 2 if text else 0

        # make keeps going: one build names both files; and a build that stops at the first: one each
        for logs in ([nvcc + gcc, ""], [nvcc, gcc, ""]):
            builds = Builds(logs)
            grader = grade_class.Grader(settings, builds)
            p = grader.paths("carol")
            shutil.rmtree(p["top"], ignore_errors=True)
            os.makedirs(p["logs"])
            for name in names.values():
                os.makedirs(os.path.dirname(os.path.join(p["labs"], name)), exist_ok=True)
                with open(os.path.join(p["labs"], name), "w", encoding="utf-8") as f:
                    f.write("broken\n")
            replaced, notes = {}, []
            ok, _ = grader.build_with_skeletons_for_what_does_not_compile(p, time.monotonic() + 60, replaced, notes)
            self.assertTrue(ok)
            self.assertEqual(sorted(replaced), ["2", "8"])
            self.assertEqual(len(notes), 2)
            self.assertEqual([c[1] for c in builds.commands], ["-S"] + ["--build"] * len(logs))  # configured once
            self.assertIn("-k", builds.commands[1])
            for name in names.values():
                with open(os.path.join(p["labs"], name), "rb") as f:
                    self.assertEqual(f.read(), b"/* skeleton */\n")

    # ------------------------------------------------------------------------ what was reachable
    def test_every_total_says_what_it_could_reach_where_it_was_graded(self):
        emulated = {"correctness": 6, "speedup": 0, "sanitizer": 2, "total": 8}
        kit = {"format": 1, "stages": [{"number": k, "problem": "int sum", "emulated_points": emulated,
                                        "points": {"correctness": 6, "speedup": 2, "sanitizer": 2}} for k in (1, 2, 3)]}
        # alice's record has grade.json's reachable; bob's (an older kit's) has none: kit.json's
        # emulated points say it; carol was graded on a GPU, where all 30 are reachable
        alice = record("alice", {1: 8, 2: 8, 3: 8}, gpu="emulator")
        alice.update(graded_on="emulator", reachable_total=24.0, reachable={"1": 8.0, "2": 8.0, "3": 8.0})
        bob = record("bob", {1: 8, 2: 0, 3: 0}, gpu="emulator")
        bob["graded_on"] = "emulator"
        carol = record("carol", {1: 10, 2: 10, 3: 10})
        carol.update(graded_on="NVIDIA H100", reachable_total=30.0)
        self.assertEqual([class_report.reachable_total(r, kit) for r in (alice, bob, carol)], [24.0, 24.0, 30.0])
        page = class_report.render_html([alice, bob, carol], "Class", (), kit)
        self.assertIn(">24 / 30 (24 of 30 reachable on the emulator)<", page)
        self.assertIn(">8 / 30 (24 of 30 reachable on the emulator)<", page)
        self.assertIn(">30 / 30<", page)
        self.assertNotIn("reachable on the emulator: speed", page)  # carol's GPU reached every stage's 10
        self.assertIn("median 8 of 10 points (8 of 10 reachable on the emulator: speed is graded on a GPU)",
                      class_report.render_html([alice, bob], "Class", (), kit))
        summary = {row["stage"]: row for row in csv_rows(class_report.render_csv([alice, bob], (), kit), "stage-summary")}
        self.assertEqual((summary["1"]["max_points"], summary["1"]["reachable_points"]), ("10", "8"))
        import grade_class  # tests/class/grade_class.py: the class table
        rows = list(csv.DictReader(io.StringIO(grade_class.class_csv({"stages": [1, 2, 3], "kit": kit},
                                                                     {"alice": alice, "bob": bob, "carol": carol}))))
        self.assertEqual([(r["total"], r["max_total"], r["reachable_total"]) for r in rows],
                         [("24", "30", "24"), ("8", "30", "24"), ("30", "30", "30")])
        # and the line grade_class.py prints as each student is done
        progress, said = grade_class.Progress(2), io.StringIO()
        with contextlib.redirect_stdout(said):
            progress.finished(alice)
            progress.finished(carol)
        progress.close()
        self.assertIn("alice: 24/30 points (24 reachable) in 1 min 30 s on the CPU emulator", said.getvalue())
        self.assertIn("carol: 30/30 points in 1 min 30 s on GPU 0", said.getvalue())

    # ------------------------------------------------------------------------- the command line
    def run_cli(self, *args):
        return subprocess.run([sys.executable, os.path.join(HERE, "class_report.py")] + list(args),
                              capture_output=True, text=True)

    def test_the_command_line_reads_every_record_and_skips_an_unreadable_one_with_a_warning(self):
        results = os.path.join(self.folder.name, "results")
        os.mkdir(results)
        for r in (record("alice", {7: 10}), record("bob", {7: 4})):
            with open(os.path.join(results, r["student"] + ".json"), "w", encoding="utf-8") as f:
                json.dump(r, f)
        with open(os.path.join(results, "half.json"), "w", encoding="utf-8") as f:
            f.write('{"student": "half", "outc')
        done = self.run_cli(results, self.html, self.csv, "--title", "CS 431")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("skipping", done.stderr)
        self.assertIn("half.json", done.stderr)
        with open(self.csv, encoding="utf-8") as f:
            counts = {row["outcome"]: row["students"] for row in csv_rows(f.read(), "summary")}
        self.assertEqual(counts["graded"], "2")
        with open(self.html, encoding="utf-8") as f:
            self.assertIn("<title>CS 431</title>", f.read())

    def test_the_command_line_exits_2_with_its_usage_on_bad_arguments(self):
        for args in ((), (self.folder.name,), (os.path.join(self.folder.name, "none"), self.html, self.csv),
                     (self.folder.name, self.html, self.csv, "--colour")):
            done = self.run_cli(*args)
            self.assertEqual(done.returncode, 2, args)
            self.assertIn("usage:", done.stderr)
        self.assertFalse(os.path.exists(self.html))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)

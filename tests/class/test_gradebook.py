#!/usr/bin/env python3
"""The gradebook export (tests/class/gradebook.py) and what grade_class.py writes after grading:
the export's CSV, read back as Canvas or Moodle would, holds the roster's IDs, each on the right
student's points; a student of the class missing from the roster is named in one line, never
dropped in silence; a roster that cannot be used is refused in one line before any grading.

The records are made up here as tests/class/grade_class.py writes them: no build, no grading, no
GPU; Python 3's standard library only. A few seconds.
Usage: test_gradebook.py   (ctest: gradebook_export_carries_the_roster_ids_and_names_the_students_it_leaves_out)
"""
import contextlib
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # ctest runs this in the source tree: leave no __pycache__ there
import grade_class  # noqa: E402
import gradebook  # noqa: E402

POINTS = {"correctness": 6, "speedup": 2, "sanitizer": 2}
KIT = {"format": 1, "stages": [{"number": 7, "problem": "int sum", "points": POINTS},
                               {"number": 8, "problem": "int sum", "points": POINTS}]}
# A roster made from Canvas's own gradebook export: its identity columns, the folder in SIS Login ID.
CANVAS = ('"Student","ID","SIS User ID","SIS Login ID","Section"\n'
          '"Lovelace, Ada","10001","S-1","alice","CS 431 001"\n'
          '"Babbage, Charles","10002","S-2","bob","CS 431 001"\n'
          '"Hopper, Grace","10003","S-3","carol","CS 431 002"\n'
          '"Liskov, Barbara","10005","S-5","erin","CS 431 002"\n')


def record(student, points, outcome="graded"):
    graded = outcome == "graded"
    return {"student": student, "outcome": outcome, "stages": [7, 8],
            "points": {str(k): float(v) for k, v in points.items()} if graded else {},
            "max_points": {"7": 10.0, "8": 10.0} if graded else {},
            "total": float(sum(points.values())) if graded else None, "max_total": 20.0 if graded else None,
            "grade": [], "speed": {}, "notes": "", "where": {"gpu": "emulator"}, "graded_on": "emulator"}


RECORDS = {"alice": record("alice", {7: 8, 8: 10}), "bob": record("bob", {7: 4.5, 8: 0}),
           "carol": record("carol", {}, outcome="build failed"), "dave": record("dave", {7: 8, 8: 8})}


class GradebookTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory(prefix="gradebook_test.")
        self.addCleanup(self.folder.cleanup)

    def path(self, name):
        return os.path.join(self.folder.name, name)

    def roster(self, text, name="roster.csv"):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)
        return self.path(name)

    def export(self, roster_text, columns=("SIS Login ID", "ID"), records=RECORDS, students=()):
        roster = gradebook.read_roster(self.roster(roster_text), columns)
        lines = gradebook.export(roster, records, [7, 8], self.path("gradebook.csv"), KIT, students)
        with open(self.path("gradebook.csv"), encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f)), lines

    def test_the_export_reads_back_with_each_roster_id_on_its_own_students_points(self):
        rows, _ = self.export(CANVAS)
        by_id = {row["ID"]: row for row in rows}
        self.assertEqual(sorted(by_id), ["10001", "10002", "10003", "10005"])
        self.assertEqual((by_id["10001"]["SIS Login ID"], by_id["10001"]["Stage 7 (int sum)"],
                          by_id["10001"]["Stage 8 (int sum)"], by_id["10001"]["Total"]), ("alice", "8", "10", "18"))
        self.assertEqual((by_id["10002"]["SIS Login ID"], by_id["10002"]["Stage 7 (int sum)"],
                          by_id["10002"]["Stage 8 (int sum)"], by_id["10002"]["Total"]), ("bob", "4.5", "0", "4.5"))
        # not graded (carol's build failed; erin handed nothing in): empty cells, which import as no grade
        for ident in ("10003", "10005"):
            self.assertEqual([by_id[ident][c] for c in ("Stage 7 (int sum)", "Stage 8 (int sum)", "Total")], ["", "", ""])
        # the roster's columns arrive as they were, first and in order: Canvas matches on them
        with open(self.path("gradebook.csv"), encoding="utf-8") as f:
            header = next(csv.reader(f))
        self.assertEqual(header, ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Stage 7 (int sum)",
                                  "Stage 8 (int sum)", "Total"])
        self.assertEqual(by_id["10001"]["Student"], "Lovelace, Ada")

    def test_a_student_missing_from_the_roster_is_named_in_one_line_not_dropped_in_silence(self):
        rows, lines = self.export(CANVAS, students=["alice", "bob", "carol", "dave", "frank"])
        self.assertNotIn("dave", [row["SIS Login ID"] for row in rows])
        missing = [line for line in lines if "not in the roster" in line]
        self.assertEqual(len(missing), 1, lines)
        self.assertIn("2 student(s) of the class are not in the roster", missing[0])
        self.assertIn("dave, frank", missing[0])  # dave graded, frank not graded yet: both named
        empty = [line for line in lines if "have no grade" in line]
        self.assertEqual(len(empty), 1, lines)
        self.assertIn("carol, erin", empty[0])

    def test_the_default_columns_are_student_and_id_in_any_case_and_a_bom_is_no_problem(self):
        rows, lines = self.export("\ufeffStudent,ID Number,Email\nalice,A17,ada@example.edu\nbob,B22,cb@example.edu\n"
                                  "carol,C3,gh@example.edu\ndave,D4,bl@example.edu\n",
                                  columns=gradebook.parse_columns("student,id number"))
        self.assertEqual([(row["Student"], row["ID Number"], row["Total"]) for row in rows],
                         [("alice", "A17", "18"), ("bob", "B22", "4.5"), ("carol", "C3", ""), ("dave", "D4", "16")])
        self.assertEqual([line for line in lines if "not in the roster" in line], [])
        self.assertEqual(gradebook.read_roster(self.roster("STUDENT,Id\nx,1\n"))["rows"], {"x": ["x", "1"]})

    def test_a_roster_that_cannot_be_used_is_refused_in_one_line(self):
        cases = {"": "is empty",
                 "name,id\nalice,1\n": "has no column named 'student'",
                 "student,id,ID\nalice,1,2\n": "more than one column named 'id'",
                 "student,id\nalice,1\nbob,\n": "line 3: bob has no id",
                 "student,id\nalice,1\nalice,2\n": "lists alice twice (lines 2 and 3)",
                 "student,id\nalice,1\nbob,1\n": "gives the id 1 to both alice and bob",
                 "student,id\n,7\n": "line 2: the student column is empty"}
        for text, words in cases.items():
            with self.assertRaises(gradebook.RosterProblem) as caught:
                gradebook.read_roster(self.roster(text))
            self.assertIn(words, str(caught.exception))
            self.assertNotIn("\n", str(caught.exception))
        with self.assertRaisesRegex(gradebook.RosterProblem, "does not exist"):
            gradebook.read_roster(self.path("nowhere.csv"))
        with self.assertRaisesRegex(gradebook.RosterProblem, "two column names"):
            gradebook.parse_columns("student")
        with open(self.path("latin1.csv"), "wb") as f:
            f.write("student,id\nJos\xe9,1\n".encode("latin-1"))
        with self.assertRaisesRegex(gradebook.RosterProblem, "cannot be read as a UTF-8 CSV"):
            gradebook.read_roster(self.path("latin1.csv"))

    # ------------------------------------------------------------------ the command lines
    def test_gradebook_py_exports_from_a_folder_of_records_and_exits_2_on_a_bad_roster(self):
        results = self.path("results")
        os.mkdir(results)
        for r in RECORDS.values():
            with open(os.path.join(results, r["student"] + ".json"), "w", encoding="utf-8") as f:
                json.dump(r, f)
        script = os.path.join(HERE, "gradebook.py")
        done = subprocess.run([sys.executable, script, results, self.roster(CANVAS), self.path("out.csv"),
                               "--roster-columns", "SIS Login ID,ID"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(len([l for l in done.stdout.splitlines() if "dave" in l]), 1, done.stdout)
        with open(self.path("out.csv"), encoding="utf-8") as f:
            self.assertEqual({row["ID"]: row["Total"] for row in csv.DictReader(f)},
                             {"10001": "18", "10002": "4.5", "10003": "", "10005": ""})
        bad = subprocess.run([sys.executable, script, results, self.roster("name,id\nalice,1\n"), self.path("bad.csv")],
                             capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("has no column named 'student'", bad.stderr)
        self.assertFalse(os.path.exists(self.path("bad.csv")))

    def test_grade_class_writes_the_gradebook_and_the_pseudonym_board_beside_the_class_csv(self):
        settings = {"csv": self.path("class.csv"), "build_root": self.path("root"), "submissions": self.path("class"),
                    "stages": [7, 8], "students": ["alice", "bob", "carol", "dave"], "kit": KIT,
                    "roster": gradebook.read_roster(self.roster(CANVAS), ("SIS Login ID", "ID")),
                    "pseudonyms": True, "pseudonym_key": None, "similarity": None}
        os.makedirs(settings["build_root"])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            grade_class.write_outputs(settings, dict(RECORDS))
        for name in ("class.csv", "class-report.html", "class-report.csv", "class-gradebook.csv",
                     "class-leaderboard.html", "class-pseudonyms.csv"):
            self.assertTrue(os.path.isfile(self.path(name)), name)
        self.assertTrue(os.path.isfile(os.path.join(settings["build_root"], "pseudonym-key")))
        said = out.getvalue().splitlines()
        self.assertEqual(len([line for line in said if "not in the roster" in line and "dave" in line]), 1, said)
        with open(self.path("class-gradebook.csv"), encoding="utf-8") as f:
            self.assertEqual({row["SIS Login ID"]: row["ID"] for row in csv.DictReader(f)},
                             {"alice": "10001", "bob": "10002", "carol": "10003", "erin": "10005"})

    def test_grade_class_refuses_bad_options_of_what_comes_after_grading_before_grading(self):
        os.makedirs(self.path("class/alice"))
        script = os.path.join(HERE, "grade_class.py")
        cases = [(["--roster", self.path("nowhere.csv")], "--roster: the roster .* does not exist"),
                 (["--roster", self.roster("name,id\na,1\n")], "has no column named 'student'"),
                 (["--roster-columns", "a,b"], "--roster-columns goes with --roster"),
                 (["--archive", self.folder.name], "--archive goes with --similarity"),
                 (["--similarity-threshold", "0.3"], "--similarity-threshold goes with --similarity"),
                 (["--pseudonym-key", self.path("key")], "--pseudonym-key goes with --pseudonyms")]
        for args, words in cases:
            done = subprocess.run([sys.executable, script, self.path("class"), self.path("c.csv"), self.path("root")]
                                  + args, capture_output=True, text=True, timeout=120)
            self.assertEqual(done.returncode, 2, (args, done.stdout, done.stderr))
            self.assertRegex(done.stderr, words)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertFalse(os.path.exists(self.path("root")), "grading started before the options were checked")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)

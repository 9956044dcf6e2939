#!/usr/bin/env python3
"""What a student page's "What changed" shows (docs_assets.lab_changes_html), on the kit's own
labs and solutions: the change this stage makes, its TODO marked as the student's part, and no
answer of a stage that is still open.

Usage: test_student_diffs.py [KIT]   (KIT: the kit's folder, by default two above this file)"""
import html
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import docs_assets  # noqa: E402

KIT = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.path.normpath(os.path.join(HERE, "..", ".."))


def text(fragment):
    return html.unescape(re.sub(r"<[^>]+>", "\n", fragment))


def answer_lines(stage):
    """The code lines of a stage's TODO answer (solution minus lab), whitespace normalised."""
    norm = lambda path: {" ".join(ln.split()) for ln in open(path, encoding="utf-8")}
    sol = norm(os.path.join(KIT, "solutions", stage["dir"], stage["name"] + ".cu"))
    lab = norm(os.path.join(KIT, "labs", stage["dir"], stage["name"] + ".cu"))
    return {ln for ln in sol - lab if len(ln) >= 10 and not ln.startswith(("//", "/*", "*"))}


class StudentDiffs(unittest.TestCase):
    def setUp(self):
        self.stages = {s["number"]: s for s in docs_assets.read_stages(KIT)}

    def diff(self, prev, cur, closed):
        return docs_assets.lab_changes_html(self.stages[prev], self.stages[cur], KIT, prev, closed=closed)

    def test_from_an_open_stage_the_diff_shows_none_of_its_answer(self):
        for prev, cur in ((1, 2), (2, 3), (5, 6), (9, 10), (10, 11), (13, 14), (14, 15)):
            shown = {" ".join(ln.split()) for ln in text(self.diff(prev, cur, False)).split("\n")}
            shown |= {ln[2:].strip() for ln in shown if ln.startswith(("+ ", "- "))}
            leaked = answer_lines(self.stages[prev]) & shown
            self.assertFalse(leaked, "stage %d's page shows stage %d's answer: %s" % (cur, prev, sorted(leaked)))

    def test_from_a_closed_stage_the_diff_starts_from_its_answer_and_marks_the_todo(self):
        page = self.diff(3, 4, True)
        self.assertIn("stage 3&#x27;s reference answer", page.replace("'", "&#x27;"))
        shown = text(page)
        self.assertRegex(shown, r"-\s+sdata\[tid\] = \(i < n\) \? in\[i\] : 0;",
                         "stage 4 replaces stage 3's load: the diff must show it removed")
        self.assertRegex(page, r'<span class="todo">&#9654; // TODO\(student\)',
                         "the TODO must be marked as the student's part")
        self.assertNotIn("[todo", shown, "the [todo] tag is for the tools, not the page")
        self.assertNotIn("+ // [todo]", shown, "a TODO line is the student's part, not added code")

    def test_a_stage_whose_change_is_all_inside_the_todo_says_so_instead_of_0_and_0(self):
        shown = text(self.diff(2, 3, False))
        self.assertIn("0 lines removed, 0 added", shown)
        self.assertIn("the change is all yours to write", shown)


if __name__ == "__main__":
    unittest.main()

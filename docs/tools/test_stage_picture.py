#!/usr/bin/env python3
"""The stage pictures follow the kernel code: change an index formula, the picture changes.

Runs docs/tools/stage_picture.py on the real solution files and on edited copies of them.
Usage: test_stage_picture.py SOURCE_DIR
"""
import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import stage_picture  # noqa: E402

SOURCE = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(HERE))


def stage_file(number):
    for d in sorted(os.listdir(os.path.join(SOURCE, "solutions"))):
        if d.startswith("%02d_" % number):
            folder = os.path.join(SOURCE, "solutions", d)
            return os.path.join(folder, [f for f in os.listdir(folder) if f.endswith(".cu")][0])
    raise AssertionError("no stage %d under solutions/" % number)


class EditedCopy:
    """A copy of a stage file with one piece of text replaced (it must be there exactly once)."""

    def __init__(self, number, old, new):
        self.src, self.old, self.new = stage_file(number), old, new

    def __enter__(self):
        with open(self.src, encoding="utf-8") as f:
            text = f.read()
        assert text.count(self.old) == 1, "%r is not in %s exactly once" % (self.old, self.src)
        self.dir = tempfile.mkdtemp(prefix="stage_picture_")
        path = os.path.join(self.dir, os.path.basename(self.src))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(self.old, self.new))
        return path

    def __exit__(self, *exc):
        shutil.rmtree(self.dir)


def draw(path, number=0):
    svg, rows, problems = stage_picture.picture(path, number, "test")
    return svg, [r["summary"] for r in rows], problems


class PicturesFollowTheCode(unittest.TestCase):
    def test_every_solution_draws_a_correct_block(self):
        for k in range(1, 8):
            with self.subTest(stage=k):
                svg, steps, problems = draw(stage_file(k), k)
                self.assertEqual(problems, [], "stage %d's own picture reports a wrong sum" % k)
                self.assertIn("exactly once", svg)
                self.assertGreaterEqual(len(steps), 3)

    def test_stage_1_steps_halve_the_working_threads_and_diverge(self):
        _, steps, _ = draw(stage_file(1), 1)
        tree = [s for s in steps if s.startswith("step")]
        self.assertEqual(len(tree), 4, "16 threads need log2(16) = 4 steps")
        self.assertIn("8 of 16 threads work", tree[0])
        self.assertIn("4 divergent", tree[0])
        self.assertIn("1 of 16 threads work", tree[3])

    def test_stage_2_has_bank_conflicts_and_stage_3_has_none(self):
        _, steps2, _ = draw(stage_file(2), 2)
        _, steps3, _ = draw(stage_file(3), 3)
        self.assertIn("bank conflicts: 4-way", steps2[2])
        self.assertTrue(all("bank conflicts: none" in s or "shuffle" in s or "write" in s for s in steps3))

    def test_changing_stage_2s_index_formula_changes_its_picture(self):
        original, steps, _ = draw(stage_file(2), 2)
        with EditedCopy(2, "unsigned int index = 2 * s * tid;", "unsigned int index = 4 * s * tid;") as path:
            edited, edited_steps, problems = draw(path, 2)
        self.assertNotEqual(original, edited)
        self.assertNotEqual(steps, edited_steps)
        self.assertIn("8 of 16 threads work", steps[1])
        self.assertIn("4 of 16 threads work", edited_steps[1])
        self.assertTrue(any("in no block's sum" in p for p in problems),
                        "the edited tree skips inputs; the picture must say so")

    def test_changing_stage_3s_fold_changes_its_picture(self):
        original, _, _ = draw(stage_file(3), 3)
        with EditedCopy(3, "sdata[tid] += sdata[tid + s];", "sdata[tid] += sdata[2 * s - 1 - tid];") as path:
            edited, _, problems = draw(path, 3)
        self.assertNotEqual(original, edited)
        self.assertEqual(problems, [], "folding from the far end is still a correct sum")

    def test_changing_stage_5s_shuffle_offsets_changes_its_picture(self):
        original, steps, _ = draw(stage_file(5), 5)
        with EditedCopy(5, "sum += __shfl_down_sync(FULL_WARP, sum, 16);",
                        "sum += __shfl_down_sync(FULL_WARP, sum, 15);") as path:
            edited, edited_steps, problems = draw(path, 5)
        self.assertNotEqual(original, edited)
        self.assertTrue(problems, "offset 15 double-counts lanes; the picture must say so")

    def test_changing_stage_7s_load_loop_changes_its_input_strip(self):
        original, _, _ = draw(stage_file(7), 7)
        with EditedCopy(7, "for (; i < n4; i += stride) {", "for (; i < n4; i += 2 * stride) {") as path:
            edited, _, problems = draw(path, 7)
        self.assertNotEqual(original, edited)
        self.assertTrue(any("never read" in p for p in problems))

    def test_an_equivalent_formula_draws_the_same_picture(self):
        original, _, _ = draw(stage_file(1), 1)
        with EditedCopy(1, "if (tid % (2 * s) == 0)", "if ((tid & (2 * s - 1)) == 0)") as path:
            same, _, _ = draw(path, 1)
        self.assertEqual(original, same)

    def test_code_it_cannot_read_is_refused_with_a_message(self):
        with EditedCopy(3, "if (tid < s)", "__threadfence_block();\n        if (tid < s)") as path:
            with self.assertRaises(stage_picture.SimError) as ctx:
                draw(path, 3)
        self.assertIn("__threadfence_block", str(ctx.exception))
        with EditedCopy(3, "if (tid < s)", "if (tid < s && (s++ || 1))") as path:
            with self.assertRaises(stage_picture.StageCodeError):
                draw(path, 3)
        with EditedCopy(3, "sdata[tid] += sdata[tid + s];", "sdata[tid] += sdata[tid + 2 * s];") as path:
            with self.assertRaises(stage_picture.SimError) as ctx:
                draw(path, 3)
        self.assertIn("outside", str(ctx.exception))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])

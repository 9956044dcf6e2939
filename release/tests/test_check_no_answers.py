#!/usr/bin/env python3
"""Unit tests of release/check_no_answers.py on a kit of three small stages made up here.

Stage 1's answer is a loop; lab 2 is stage 1's solution plus a TODO of its own (as the kit's
labs are built), so it shows stage 1's answer; stage 3 is a one-pass stage with a macro and a
key expression. Each test writes pages into a fresh folder and runs the check's main()."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import check_no_answers  # noqa: E402

STAGES = """KIT_STAGE(1, 01_loop, reduce_loop, "a loop", 64, 1024, KIT_PASSES_MANY, KIT_INT, KIT_SUM, 1)
KIT_STAGE(2, 02_more, reduce_more, "more", 64, 1024, KIT_PASSES_MANY, KIT_INT, KIT_SUM, 1)
KIT_STAGE(3, 03_key, reduce_key, "a key", 64, 1024, KIT_PASSES_ONE, KIT_INT, KIT_MIN, 3)
"""
STAGE1_GIVEN = """static __global__ void reduce_loop(const int *in, int *out, unsigned int n)
{
    unsigned int tid = threadIdx.x;
    // [todo] TODO(student): the tree, in shared memory.
%s    // [todo] end of TODO
}
"""
STAGE1_ANSWER = """    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            partial[tid] += partial[tid + stride];
        __syncthreads();
    }
"""
STAGE2_GIVEN = STAGE1_GIVEN.replace("// [todo] TODO(student): the tree, in shared memory.\n%s    // [todo] end of TODO",
                                    "%s    // [todo] TODO(student): the first add on load.\n%s    // [todo] end of TODO")
STAGE2_ANSWER = "    int first_pair = in[blockIdx.x * 2 * blockDim.x + tid] + in[blockIdx.x * 2 * blockDim.x + tid + blockDim.x];\n"
STAGE3 = """#define COUNT_SHIFT 48
static __global__ void reduce_key(const int *in, int *out, unsigned long long key)
{
    // [todo] TODO(student): the value back from the key.
%s    // [todo] end of TODO
}
"""
STAGE3_ANSWER = """    const unsigned long long mine = (1ull << COUNT_SHIFT) + (unsigned int)in[0];
    out[0] = (int)((unsigned int)(key >> 32) ^ 0x80000000u);
"""
PLACEHOLDER = "    return; /* delete this line once your code is in place */\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class CheckNoAnswers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        r = self.root
        write(os.path.join(r, "stages.def"), STAGES)
        write(os.path.join(r, "solutions/01_loop/reduce_loop.cu"), STAGE1_GIVEN % STAGE1_ANSWER)
        write(os.path.join(r, "labs/01_loop/reduce_loop.cu"), STAGE1_GIVEN % PLACEHOLDER)
        write(os.path.join(r, "solutions/02_more/reduce_more.cu"), STAGE2_GIVEN % (STAGE1_ANSWER, STAGE2_ANSWER))
        write(os.path.join(r, "labs/02_more/reduce_more.cu"), STAGE2_GIVEN % (STAGE1_ANSWER, PLACEHOLDER))
        write(os.path.join(r, "solutions/03_key/reduce_key.cu"), STAGE3 % STAGE3_ANSWER)
        write(os.path.join(r, "labs/03_key/reduce_key.cu"), STAGE3 % PLACEHOLDER)
        self.edition = os.path.join(r, "edition")
        os.makedirs(self.edition)

    def tearDown(self):
        self.tmp.cleanup()

    def check(self, *args):
        r = self.root
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = check_no_answers.main(["--solutions", os.path.join(r, "solutions"), "--labs", os.path.join(r, "labs"),
                                          "--stages-def", os.path.join(r, "stages.def")] + list(args))
        return code, out.getvalue()

    def page(self, name, text):
        write(os.path.join(self.edition, name), text)

    def lab(self, k, folder):
        src = os.path.join(self.root, "labs", folder)
        for name in os.listdir(src):
            with open(os.path.join(src, name), encoding="utf-8") as f:
                self.page(os.path.join("labs", folder, name), f.read())

    def test_a_lab_that_shows_an_open_stage_answer_is_refused_naming_the_lab_and_the_stage(self):
        self.lab(1, "01_loop")
        self.lab(2, "02_more")
        code, out = self.check("--stages", "1,2", self.edition)
        self.assertEqual(code, 1, out)
        self.assertIn("reduce_more.cu:", out)
        self.assertIn("answer line of stage 1: partial[tid] += partial[tid + stride];", out)
        self.assertIn("lab 2 shows the answers of open stages 1", out)

    def test_the_same_lab_passes_once_the_stage_it_shows_is_closed(self):
        self.lab(2, "02_more")
        code, out = self.check("--stages", "2", "--closed", "1", self.edition)
        self.assertEqual(code, 0, out)
        self.assertIn("no answer found", out)

    def test_a_hint_that_writes_an_answer_expression_in_a_sentence_is_found(self):
        self.page("hint.md", "Take the value back as `(int)((unsigned int)(key >> 32) ^ 0x80000000u)`, then the index.\n")
        code, out = self.check("--stages", "3", self.edition)
        self.assertEqual(code, 1, out)
        self.assertIn("answer expression of stage 3: (int)((unsigned int)(key>>32)^0x80000000u)", out)

    def test_an_expression_with_the_stage_macro_spelled_out_is_found(self):
        self.page("words.md", "A block adds (1ull << 48) + (unsigned int)in[0] to the word.\n")
        code, out = self.check("--stages", "3", self.edition)
        self.assertEqual(code, 1, out)
        self.assertIn("answer expression of stage 3: (1ull<<48)+(unsigned int)in[0]", out)

    def test_a_tooltip_in_an_html_attribute_is_read(self):
        self.page("chart.svg", '<svg><rect title="adds partial[tid + stride] when tid &lt; stride"/></svg>\n')
        code, out = self.check("--stages", "1", self.edition)
        self.assertEqual(code, 1, out)
        self.assertIn("chart.svg:1: answer expression of stage 1: partial[tid+stride]", out)

    def test_a_coloured_diff_line_split_over_spans_is_found(self):
        self.page("stage2.html", '<div class="line"><span class="add">+ </span><span>partial[tid]</span> '
                                 '+= <span>partial[tid + stride];</span></div>\n')
        code, out = self.check("--stages", "1", self.edition)
        self.assertEqual(code, 1, out)
        self.assertIn("answer line of stage 1", out)

    def test_code_a_handed_out_lab_gives_is_no_secret_of_a_later_stage(self):
        # blockIdx.x * 2 * blockDim.x + tid is stage 2's answer; lab 1 does not have it, so a
        # page that quotes it is found, but the first add's idea in words is not.
        self.page("ok.md", "Each thread adds two values as it loads them: the first add on load.\n")
        code, out = self.check("--stages", "2", "--closed", "1", self.edition)
        self.assertEqual(code, 0, out)

    def test_the_batches_follow_what_each_lab_shows(self):
        code, out = self.check("--batches")
        self.assertEqual(code, 0, out)
        self.assertEqual(out.splitlines(), [
            'batch 1: KIT_RELEASE_STAGES=1 KIT_CLOSED_STAGES=""',
            "batch 2: KIT_RELEASE_STAGES=2-3 KIT_CLOSED_STAGES=1"])

    def test_a_stage_both_handed_out_and_closed_or_unknown_is_a_usage_error(self):
        self.assertEqual(self.check("--stages", "1", "--closed", "1", self.edition)[0], 2)
        code, out = self.check("--stages", "9", self.edition)
        self.assertEqual(code, 2)
        self.assertIn("'9' is not a stage", out)


if __name__ == "__main__":
    unittest.main()

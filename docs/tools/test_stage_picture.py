#!/usr/bin/env python3
"""The stage pictures follow the kernel code: change an index formula, the picture changes.

Runs docs/tools/stage_picture.py on the real solution files and on edited copies of them.
Usage: test_stage_picture.py SOURCE_DIR
"""
import html
import io
import json
import os
import re
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import stage_picture  # noqa: E402

SOURCE = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(HERE))


def stage_rows():
    """{stage: (type, op)} of common/stages.def, in order."""
    with open(os.path.join(SOURCE, "common", "stages.def"), encoding="utf-8") as f:
        found = [(int(k), (t, o)) for k, t, o in re.findall(
            r'^KIT_STAGE\((\d+),\s*\w+,\s*\w+,\s*"[^"]*",\s*\d+,\s*\d+,\s*\w+,\s*(\w+),\s*(\w+),', f.read(), re.M)]
    assert found, "no KIT_STAGE lines in common/stages.def"
    return dict(found)


PROBLEMS = stage_rows()
STAGES = sorted(PROBLEMS)
INT_SUMS = [k for k in STAGES if PROBLEMS[k] == ("KIT_INT", "KIT_SUM")]


def stage_with(kind, op):
    """The first stage of common/stages.def that reduces this type with this operator."""
    found = [k for k in STAGES if PROBLEMS[k] == (kind, op)]
    assert found, "common/stages.def has no stage of %s %s" % (kind, op)
    return found[0]


def stage_file(number):
    for d in sorted(os.listdir(os.path.join(SOURCE, "solutions"))):
        if d.startswith("%02d_" % number):
            folder = os.path.join(SOURCE, "solutions", d)
            return os.path.join(folder, [f for f in os.listdir(folder) if f.endswith(".cu")][0])
    raise AssertionError("no stage %d under solutions/" % number)


class EditedCopy:
    """A copy of a stage file with pieces of text replaced (each must be there exactly once):
    EditedCopy(k, old, new) or EditedCopy(k, [(old, new), ...])."""

    def __init__(self, number, old, new=None):
        self.src = stage_file(number)
        self.edits = [(old, new)] if isinstance(old, str) else list(old)

    def __enter__(self):
        with open(self.src, encoding="utf-8") as f:
            text = f.read()
        for old, new in self.edits:
            assert text.count(old) == 1, "%r is not in %s exactly once" % (old, self.src)
            text = text.replace(old, new)
        self.dir = tempfile.mkdtemp(prefix="stage_picture_")
        path = os.path.join(self.dir, os.path.basename(self.src))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def __exit__(self, *exc):
        shutil.rmtree(self.dir)


def draw(path, number=0, results_dir=None):
    with redirect_stderr(io.StringIO()):   # stage 6 without results says so on stderr
        svg, rows, problems = stage_picture.picture(path, number, "test", results_dir=results_dir,
                                                    problem=PROBLEMS.get(number))
    return svg, [r["summary"] for r in rows], problems


def texts(svg):
    """(attributes, text) of every <text> of an SVG."""
    return re.findall(r"<text ([^>]*)>([^<]*)</text>", svg)


def plain(svg):
    """The SVG's words in order, lines joined by spaces: what a reader sees."""
    return " ".join(html.unescape(t).replace("\u00a0", " ") for _, t in texts(svg))


def attr(attrs, name):
    m = re.search(r'\b%s="([^"]*)"' % name, attrs)
    return m.group(1) if m else None


def gpu_run(folder, gpu, date, counters5, counters6, gbps=(2000.0, 2050.0), emulated=False):
    """Writes a ladder result like reduce_ladder --counters --format json into folder."""
    rows = [{"stage": str(k), "title": "t", "result": "ok", "gbps": g, "counters": c}
            for k, c, g in ((5, counters5, gbps[0]), (6, counters6, gbps[1]))]
    rows.append({"stage": "copy", "title": "copy", "result": "ok", "gbps": 2900.0, "counters": None})
    data = {"gpu": {"name": "NVIDIA %s test GPU" % gpu, "sm_count": 132}, "emulated": emulated, "date": date,
            "n": 1 << 26, "threads": 256, "rows": rows}
    with open(os.path.join(folder, "ladder-%s-%s.json" % (gpu, date)), "w", encoding="utf-8") as f:
        json.dump(data, f)


def counters(per_element, branches):
    return {"kernels": 3, "warp_instructions": int(per_element * (1 << 26)), "warp_instructions_per_element":
            per_element, "branch_instructions": branches, "bank_conflicts_per_request": 0.07}


class PicturesFollowTheCode(unittest.TestCase):
    def test_every_solution_draws_a_correct_block(self):
        for k in STAGES:
            with self.subTest(stage=k):
                svg, steps, problems = draw(stage_file(k), k)
                self.assertEqual(problems, [], "stage %d's own picture reports a wrong result" % k)
                self.assertIn("exactly once" if PROBLEMS[k][1] == "KIT_SUM" else "Check:", svg)
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


class PicturesAreReadable(unittest.TestCase):
    """The pages show a picture as wide as their text, about 900 px (stage_picture.SHOWN_AT)."""

    def test_every_text_is_10_px_or_more_at_page_width(self):
        for k in STAGES:
            with self.subTest(stage=k):
                svg, _, _ = draw(stage_file(k), k)
                width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
                sizes = [float(attr(a, "font-size")) for a, _ in texts(svg)]
                self.assertGreaterEqual(min(sizes) * stage_picture.SHOWN_AT / width, 10.0)

    def test_every_number_fits_its_cell(self):
        for k in STAGES:
            with self.subTest(stage=k):
                svg, _, _ = draw(stage_file(k), k)
                cells = [(a, t) for a, t in texts(svg) if attr(a, "class") == "v"]
                self.assertGreater(len(cells), 64)
                for a, t in cells:
                    width = len(t) * stage_picture.DIGIT_EM * float(attr(a, "font-size"))
                    self.assertLessEqual(width, float(attr(a, "data-cell-width")), "%r does not fit" % t)

    def test_stage_7_shows_the_blocks_sum_in_its_cell(self):
        svg, steps, problems = draw(stage_file(7), 7)
        self.assertEqual(problems, [])
        total = re.search(r"writes out\[0\] = the sum of (\d+) inputs", svg).group(1)
        self.assertGreaterEqual(len(total), 4, "n was chosen so that block 0 sums over a thousand inputs")
        numbers = [t for a, t in texts(svg) if attr(a, "class") == "v"]
        self.assertGreaterEqual(numbers.count(total), 2, "the last shuffle's lane 0 and the write show %s" % total)

    def test_threads_and_lanes_are_labelled(self):
        for k, last in ((1, 15), (5, 63), (7, 63)):
            with self.subTest(stage=k):
                svg, _, _ = draw(stage_file(k), k)
                labels = set(t for _, t in texts(svg))
                self.assertTrue(all("t%d" % t in labels for t in range(last + 1)))
        svg, _, _ = draw(stage_file(7), 7)
        shuffle_rows = svg.count(">sum += the sum of lane t + ")
        self.assertEqual(shuffle_rows, 5)
        self.assertGreaterEqual(len(re.findall(r">t31<", svg)), 1 + 5, "lane 31 labelled in every warp row")


class PicturesShowTheCounters(unittest.TestCase):
    def test_each_picture_prints_its_launchs_counters(self):
        for k in STAGES:
            with self.subTest(stage=k):
                svg, _, _ = draw(stage_file(k), k)
                launch = stage_picture.launch_counters(stage_file(k))
                c = launch["counters"]
                self.assertEqual(launch["threads"], 64)
                self.assertEqual(c["blocks"], 2)
                words = plain(svg)
                for needle in ("%d block barriers" % c["block_barriers"], "%d warp meetings" % c["warp_meetings"],
                               "%d requests" % c["shared_requests"],
                               "%d bank conflicts, %s per request" % (
                                   c["shared_bank_conflicts"], stage_picture.fmt_num(c["bank_conflicts_per_request"])),
                               "reduce_ladder_emu --stage %d --n %d --threads 64 --counters" % (
                                   k, launch.get("ladder_n", launch["n"]))):
                    self.assertIn(needle, words)

    def test_the_counters_tell_the_stages_apart(self):
        c = dict((k, stage_picture.launch_counters(stage_file(k))["counters"]) for k in STAGES)
        self.assertGreater(c[2]["bank_conflicts_per_request"], 0.5, "stage 2: 2-way conflicts in every step")
        self.assertEqual(c[3]["shared_bank_conflicts"], 0)
        self.assertGreater(c[1]["divergent_shared_requests"], c[3]["divergent_shared_requests"])
        self.assertEqual(c[5]["warp_meetings"], 2 * 5, "two blocks, five shuffles each")
        self.assertEqual(c[5]["shared_idle_lanes"], 0)
        self.assertEqual(c[7]["global_loads"], 2045 // 4 + 1, "int4 loads and one int of the tail")
        self.assertEqual(c[7]["global_load_bytes"], 4 * 2045)
        # stages 1-4: one int per load; 1 and 2 differ only in shared memory
        self.assertEqual(c[1]["global_load_width"], 4.0)
        self.assertEqual(c[1]["block_barriers"], c[2]["block_barriers"])
        # stage 8: stage 7's loads; one barrier per block; per block 2 x 5 shuffle meetings in
        # level 2 and 5 in level 3; 3 shared requests per block (2 stores, 1 read by warp 0)
        self.assertEqual((c[8]["global_loads"], c[8]["global_load_bytes"]), (c[7]["global_loads"], c[7]["global_load_bytes"]))
        self.assertEqual(c[8]["block_barriers"], 2)
        self.assertEqual(c[8]["warp_meetings"], 2 * (2 * 5 + 5))
        self.assertEqual((c[8]["shared_requests"], c[8]["shared_active_lanes"]), (6, 8))

    def test_counters_json_prints_the_same_counters(self):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = stage_picture.main([stage_file(2), "--number", "2", "--counters-json"])
        self.assertEqual(rc, 0)
        printed = json.loads(out.getvalue())
        self.assertEqual(printed["counters"], stage_picture.launch_counters(stage_file(2))["counters"])
        self.assertEqual((printed["n"], printed["threads"]), (125, 64))


class Stage8ShowsItsFourLevelsAndTheWord(unittest.TestCase):
    """Stage 8 (one pass): a thread's loop, a warp's shuffles, the block's values per warp in
    shared memory, and one atomicAdd per block on a word of count and sum."""

    def test_the_four_levels_are_drawn_in_order(self):
        svg, steps, problems = draw(stage_file(8), 8)
        self.assertEqual(problems, [])
        words = plain(svg)
        at = [words.find("Level %d, %s." % (k, name)) for k, name in
              ((1, "in a thread"), (2, "in a warp"), (3, "in the block"), (4, "between blocks"))]
        self.assertTrue(all(a >= 0 for a in at), words[:400])
        self.assertEqual(at, sorted(at))
        kinds = [s.split(" | ")[0] for s in steps]
        self.assertEqual(kinds, ["load"] + ["shuffle"] * 5 + ["store", "registers"] + ["shuffle"] * 5 + ["atomicAdd"])
        self.assertIn("64 of 64 threads work; 2 of 2 warps busy", steps[1], "level 2: every warp shuffles")
        self.assertIn("32 of 64 threads work; 1 of 2 warps busy", steps[8], "level 3: warp 0 alone")
        self.assertIn("lane 0 of each warp: warp_sums[warp] = its warp's sum", words)
        self.assertIn("sum += the sum of lane t xor 16", words)

    def test_the_xor_shuffles_are_a_butterfly_every_lane_keeps_a_sum(self):
        svg, _, _ = draw(stage_file(8), 8)
        words = plain(svg)
        self.assertIn("a butterfly, after which every lane holds its warp's sum", words)
        self.assertIn("Drawn for warp 0 (lanes 0-31)", words)
        all_texts = texts(svg)
        band = lambda k: [i for i, (_, t) in enumerate(all_texts) if t.startswith("Level %d," % k)][0]
        numbers = lambda a, b: [t for x, t in all_texts[a:b] if attr(x, "class") == "v"]
        block0 = re.search(r"block 0 adds \(1 << 48\) \+ (\d+) inputs", words).group(1)
        # level 2: five rows of the 32 lanes of warp 0 (17 + 31 x 16 inputs), every lane numbered
        level2 = numbers(band(2), band(3))
        self.assertEqual(len(level2), 5 * 32)
        for k in range(5):
            row = level2[32 * k:32 * (k + 1)]
            each = 16 * 2 ** (k + 1)
            self.assertLessEqual(set(row), {str(each), str(each + 1)},
                             "after shuffle %d every lane holds %d or %d inputs" % (k + 1, each, each + 1))
        self.assertEqual(level2[-32:], ["513"] * 32, "after the last one every lane holds the warp's 513")
        # level 3's last shuffle: every lane of warp 0 holds the block's sum (then the atomic's lane 0)
        level3 = numbers(band(3), band(4))
        self.assertEqual(level3[-32:], [block0] * 32)

    def test_the_word_counts_the_blocks_and_the_last_one_writes(self):
        svg, _, _ = draw(stage_file(8), 8)
        words = plain(svg)
        launch = stage_picture.launch_counters(stage_file(8))
        n = launch["n"]
        self.assertIn("bits 63-48: blocks counted", words)
        self.assertIn("thread 0: blocks_and_sum += (1 << 48) + (unsigned int)sum", words)
        self.assertIn("fewer than 2^16 blocks add less than 2^48", words)
        self.assertIn("count 1 of 2: not the last", words)
        self.assertIn("count 2 = gridDim.x: this block is the last", words)
        self.assertIn("block 1 writes out[0] = %d inputs bits 31-0 the word's low 32 bits: the whole sum" % n, words)
        self.assertIn("Block 1, the last to add, writes out[0] = the sum of %d inputs." % n, words)
        self.assertIn("block 1 sets blocks_and_sum = 0", words)
        self.assertIn("the word is back to 0 for the next launch", words)

    def test_a_word_never_reset_is_reported(self):
        with EditedCopy(8, "blocks_and_sum = 0; /*", "/*") as path:
            _, _, problems = draw(path, 8)
        self.assertTrue(any("not back to 0" in p for p in problems), problems)

    def test_a_block_that_writes_too_early_is_reported(self):
        with EditedCopy(8, "if ((after >> COUNT_SHIFT) == gridDim.x) {", "if ((after >> COUNT_SHIFT) == 1) {") as path:
            _, _, problems = draw(path, 8)
        self.assertTrue(any("in no block's sum" in p for p in problems), problems)

    def test_a_count_read_from_the_old_word_is_reported(self):
        # without + mine, atomicAdd's return is the word before this block's add: one short
        with EditedCopy(8, "atomicAdd(&blocks_and_sum, mine) + mine;", "atomicAdd(&blocks_and_sum, mine);") as path:
            svg, _, problems = draw(path, 8)
        self.assertIn("no block writes out[0]", problems)
        self.assertTrue(any("not back to 0" in p for p in problems), problems)
        self.assertIn("count 1 of 2: not the last", plain(svg))

    def test_a_sign_extended_sum_is_refused_without_rounding(self):
        # (long long)sum: a negative block sum would borrow from the count, and after >> 48 reads it
        with EditedCopy(8, "(unsigned int)sum;", "(unsigned long long)(long long)sum;") as path:
            with self.assertRaises(stage_picture.SimError) as ctx:
                draw(path, 8)
        self.assertIn("sign-extended", str(ctx.exception))
        self.assertIn("borrows", str(ctx.exception))

    def test_sign_extension_with_rounding_is_right_too(self):
        # the earlier form of stage 8: sign-extended sums, the count rounded, the count taken off
        old = [("(unsigned int)sum;", "(unsigned long long)(long long)sum;"),
               ("const unsigned long long after = atomicAdd(&blocks_and_sum, mine) + mine;",
                "const long long after = (long long)(atomicAdd(&blocks_and_sum, mine) + mine);\n"
                "        const long long counted = (after + (1ll << (COUNT_SHIFT - 1))) >> COUNT_SHIFT;"),
               ("if ((after >> COUNT_SHIFT) == gridDim.x) {", "if (counted == gridDim.x) {"),
               ("out[0] = (int)(unsigned int)after;", "out[0] = (int)(after - (counted << COUNT_SHIFT));")]
        with EditedCopy(8, old) as path:
            svg, _, problems = draw(path, 8)
        self.assertEqual(problems, [])
        self.assertIn("thread 0: blocks_and_sum += (1 << 48) + sum", plain(svg))
        self.assertIn("the word minus the count: the whole sum", plain(svg))

    def test_the_low_32_bits_however_written_draw_the_same_picture(self):
        original, _, _ = draw(stage_file(8), 8)
        for other in ("out[0] = (int)after;", "out[0] = after;"):
            with self.subTest(other=other):
                with EditedCopy(8, "out[0] = (int)(unsigned int)after;", other) as path:
                    same, _, _ = draw(path, 8)
                self.assertEqual(original, same)

    def test_the_word_model_knows_when_sums_carry_into_the_count(self):
        zext = lambda k: stage_picture.cast_u32(stage_picture.V(frozenset([k])))
        word = 0
        for k in range(3):
            word = word + ((1 << 48) + zext(k))
        self.assertEqual(word >> 48, 3)
        self.assertEqual(sorted(word.low32().leaves), [0, 1, 2])
        # fewer than 2^16 zero-extended sums stay below 2^48; 2^16 + 1 of them could carry into the count
        fewer = stage_picture.Word(word.c, word.v, 0, ((1 << 16) - 1) * ((1 << 32) - 1))
        self.assertEqual(fewer >> 48, 3)
        many = stage_picture.Word(word.c, word.v, 0, ((1 << 16) + 1) * ((1 << 32) - 1))
        with self.assertRaises(stage_picture.SimError) as ctx:
            many >> 48
        self.assertIn("carry", str(ctx.exception))
        # a sign-extended sum: exact only with the rounding 2^47 added below the count
        signed = (1 << 48) + stage_picture.V(frozenset([5]))
        with self.assertRaises(stage_picture.SimError):
            signed >> 48
        self.assertEqual((signed + (1 << 47)) >> 48, 1)

    def test_other_atomics_are_refused_by_name(self):
        with EditedCopy(8, "atomicAdd(&blocks_and_sum, mine)", "atomicCAS(&blocks_and_sum, 0, mine)") as path:
            with self.assertRaises(stage_picture.StageCodeError) as ctx:
                draw(path, 8)
        self.assertIn("atomicCAS", str(ctx.exception))

    def test_the_scaled_model_is_not_used_for_32_lane_shuffles(self):
        svg, _, _ = draw(stage_file(8), 8)
        self.assertIn("one block of 64 threads", plain(svg))
        self.assertIn("Real model: a warp is 32 lanes", plain(svg))


class BeyondIntSumsPicturesFollowTheCode(unittest.TestCase):
    """Stages 9-15: a float sum's roundings, min and max from their identity, argmin's ties and key,
    the matrices' loads."""

    def test_the_float_picture_counts_roundings_and_computes_the_course_example(self):
        k = stage_with("KIT_FLOAT", "KIT_SUM")
        svg, _, problems = draw(stage_file(k), k)
        self.assertEqual(problems, [])
        words = plain(svg)
        # the course's example, added float by float when the picture is drawn (seed 002's figure)
        self.assertIn("It ends at 50,002,896, 2,104 short of 50,005,000", words)
        self.assertIn("the same numbers give 50,005,000", words)
        self.assertIn("at k = 5,793 it reaches 16,782,321, past 2^24", words)
        most = int(re.search(r"both passes \(2 blocks, then 1\): (?:\d+ to )?(\d+)", words).group(1))
        self.assertLessEqual(most, 20, "a tree rounds each input about log2 n times")
        self.assertIn("The grader allows ceil(log2 n) + 512 = 523 per input", words)

    def test_a_left_to_right_iteration_rounds_more(self):
        k = stage_with("KIT_FLOAT", "KIT_SUM")
        tree, _, _ = draw(stage_file(k), k)
        with EditedCopy(k, "sum += (add4(a) + add4(b)) + (add4(c) + add4(d));",
                        "sum += add4(a) + add4(b) + add4(c) + add4(d);") as path:
            chain, _, problems = draw(path, k)
        most = lambda svg: int(re.search(r"both passes \(2 blocks, then 1\): (?:\d+ to )?(\d+)", plain(svg)).group(1))
        self.assertEqual(problems, [])
        self.assertGreater(most(chain), most(tree))

    def test_a_minimum_started_from_0_is_reported(self):
        for op, identity in (("KIT_MIN", "INT_MAX"), ("KIT_MAX", "INT_MIN")):
            k = stage_with("KIT_INT", op)
            with self.subTest(stage=k):
                with EditedCopy(k, "#define IDENTITY %s" % identity, "#define IDENTITY 0") as path:
                    svg, _, problems = draw(path, k)
                self.assertTrue(any("the constant 0 takes part" in p for p in problems), problems)
                self.assertIn("start from the identity, %s" % identity, plain(svg))

    def test_a_minimum_that_skips_inputs_is_reported(self):
        k = stage_with("KIT_INT", "KIT_MIN")
        with EditedCopy(k, "for (; i < n4; i += stride) {", "for (; i < n4; i += 2 * stride) {") as path:
            _, _, problems = draw(path, k)
        self.assertTrue(any("never read" in p for p in problems), problems)

    def test_argmin_keeps_the_first_index_and_meets_in_a_key(self):
        k = stage_with("KIT_INT", "KIT_ARGMIN")
        svg, steps, problems = draw(stage_file(k), k)
        self.assertEqual(problems, [])
        words = plain(svg)
        places = sorted(p for p in stage_picture.ARGMIN_PLANTS)
        self.assertIn("Check: out[0] = (-8, %d)" % places[0], words)
        self.assertIn("block 1: ticket 1 of 2: the last", words)
        self.assertIn("and puts the identity back", words)
        self.assertIn("bits 63-32: value ^ 0x80000000", words)
        # block 0's warp 0: lane 0 holds index 1536, lane 2 index 520, both -8: the index decides
        shuffles = [s for s in steps if s.startswith("shuffle")]
        self.assertEqual(len(shuffles), 10, "five shuffle steps in the warps, five in warp 0 (one row per pair)")

    def test_the_argmin_page_tells_the_pictures_story(self):
        """docs/stages/stage12.md walks through the picture's planted ties by their indices."""
        k = stage_with("KIT_INT", "KIT_ARGMIN")
        with open(os.path.join(SOURCE, "docs", "stages", "stage%d.md" % k), encoding="utf-8") as f:
            page = f.read()
        story = page[page.index("Open the picture on its own"):page.index("## Your task")]
        plants = sorted(stage_picture.ARGMIN_PLANTS)
        for index in re.findall(r"\b(\d{3,4})\b", story):
            self.assertIn(int(index), plants, "stage%d.md names index %s, which the picture does not plant" % (k, index))
        words = {7: "seven"}
        self.assertIn("of the %s places that hold the minimum" % words.get(len(plants), str(len(plants))), story)
        self.assertIn("writes (-8, %d)" % plants[0], story)

    def test_an_argmin_that_loses_ties_is_reported(self):
        k = stage_with("KIT_INT", "KIT_ARGMIN")
        with EditedCopy(k, "first = v < best || (v == best && i < best_i);", "first = v <= best;") as path:
            _, _, problems = draw(path, k)
        self.assertTrue(any("the first smallest value is -8 at index 300" in p for p in problems), problems)

    def test_an_argmin_key_without_the_flipped_sign_is_reported(self):
        k = stage_with("KIT_INT", "KIT_ARGMIN")
        with EditedCopy(k, "((unsigned int)v ^ 0x80000000u) << 32 | i", "((unsigned int)v) << 32 | i") as path:
            _, _, problems = draw(path, k)
        self.assertTrue(problems, "a negative value's key would be larger than every positive one's")

    def test_the_matrices_loads_show_the_layouts(self):
        aos, soa = stage_with("KIT_MAT3", "KIT_MIN"), stage_with("KIT_MAT3_SOA", "KIT_MIN")
        coalesced = [k for k in STAGES if PROBLEMS[k] == ("KIT_MAT3", "KIT_MIN")][-1]
        self.assertNotEqual(aos, coalesced)
        svg, _, problems = draw(stage_file(aos), aos)
        self.assertEqual(problems, [])
        self.assertIn("load 1 lane l reads word 0 + 9 l: 9 lines, 32 sectors, 1,024 bytes moved for 128 asked for",
                      plain(svg))
        svg, _, problems = draw(stage_file(soa), soa)
        self.assertEqual(problems, [])
        self.assertIn("load 1 lane l reads word 0 + l: 1 line, 4 sectors, 128 bytes moved for 128 asked for",
                      plain(svg))
        svg, _, problems = draw(stage_file(coalesced), coalesced)
        self.assertEqual(problems, [])
        words = plain(svg)
        self.assertIn("bytes moved for 1,152 bytes asked for (100%)", words)
        self.assertIn("lane l takes matrix l, words 9 l to 9 l + 8, with no bank conflict", words)
        self.assertIn("Check: for each of the 9 components", words)

    def test_a_matrix_loop_that_skips_matrices_is_reported(self):
        aos = stage_with("KIT_MAT3", "KIT_MIN")
        with EditedCopy(aos, "i < n; i += stride)", "i < n; i += 2 * stride)") as path:
            _, _, problems = draw(path, aos)
        self.assertTrue(any("never read" in p for p in problems), problems)
        self.assertTrue(any("in no block's minimum" in p for p in problems), problems)


class Stage6ShowsTheInstructionsItSaves(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="stage_picture_results_")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_stage_6_differs_from_stage_5(self):
        gpu_run(self.dir, "H100", "2026-11-30", counters(0.9139, 4333857), counters(0.6791, 1181961))
        svg5, steps5, _ = draw(stage_file(5), 5, self.dir)
        svg6, steps6, problems = draw(stage_file(6), 6, self.dir)
        self.assertEqual(problems, [])
        self.assertEqual(steps5, steps6, "at 64 threads the two blocks make the same steps")
        self.assertNotIn("warp instructions per input", plain(svg5))
        self.assertIn("warp instructions per input", plain(svg6))
        self.assertIn("0.9139", plain(svg6))
        self.assertIn("0.6791 (-26%)", plain(svg6))
        self.assertIn("0.01761 (-73%)", plain(svg6))   # 1181961 / 2^26 branch instructions per input
        self.assertIn("Stage 5 gets there through its loop: 3 loop tests per thread", plain(svg6))
        self.assertIn("no loop test", plain(svg6))
        self.assertIn("makes exactly stage 5's steps", plain(svg6))

    def test_the_newest_run_of_each_gpu_is_shown(self):
        gpu_run(self.dir, "H100", "2026-11-30", counters(0.9, 400), counters(0.7, 100))
        gpu_run(self.dir, "H100", "2026-12-02", counters(0.8, 400), counters(0.6, 100))
        gpu_run(self.dir, "H200", "2026-12-01", None, None)
        gpu_run(self.dir, "CPU", "2026-12-03", counters(5.0, 1), counters(5.0, 1), emulated=True)
        svg, _, _ = draw(stage_file(6), 6, self.dir)
        self.assertIn("0.6 (-25%)", plain(svg))
        self.assertNotIn("0.7 (", plain(svg))
        self.assertIn("H200: the newest run (2026-12-01) has no counters", plain(svg))
        self.assertNotIn("CPU stage", plain(svg))

    def test_without_counters_the_picture_says_so_or_fails_when_asked(self):
        gpu_run(self.dir, "H100", "2026-11-30", None, None)
        svg, _, _ = draw(stage_file(6), 6, self.dir)
        self.assertIn("No GPU counters yet", plain(svg))
        svg, _, _ = draw(stage_file(6), 6, None)
        self.assertIn("not given the results folder", plain(svg))
        with self.assertRaises(stage_picture.CountersError) as ctx:
            stage_picture.picture(stage_file(6), 6, "test", results_dir=self.dir, require_counters=True)
        self.assertIn("reduce_ladder --counters", str(ctx.exception))
        err = io.StringIO()
        with redirect_stderr(err):
            rc = stage_picture.main([stage_file(6), "--number", "6", "-o", os.path.join(self.dir, "x.svg"),
                                     "--results", os.path.join(self.dir, "nowhere")])
        self.assertEqual(rc, 1)
        self.assertIn("no results folder", err.getvalue())

    def test_counters_without_a_key_name_the_file(self):
        broken = counters(0.9, 400)
        del broken["branch_instructions"]
        gpu_run(self.dir, "H100", "2026-11-30", counters(0.9, 400), broken)
        with self.assertRaises(stage_picture.CountersError) as ctx:
            draw(stage_file(6), 6, self.dir)
        self.assertIn("ladder-H100-2026-11-30.json", str(ctx.exception))
        self.assertIn("branch_instructions", str(ctx.exception))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])

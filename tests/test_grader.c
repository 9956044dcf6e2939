/**
 * \file test_grader.c
 * \brief The grader's host-side logic, without a GPU: the rules file, the diagnosis of
 * failed runs, reproducibility, kit_grade's own judgement of every problem's answers, the
 * stages' problems and baselines, the speedup rule (noise included), result files, the report
 * formats, the grade_report program and the known-wrong corpus list. Runs in CI.
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "grader.h"

/* ------------------------------------------------------------ rules file */

START_TEST(config_defaults_are_0_8_of_the_reference_and_10_points_a_stage)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    ck_assert(c.speedup_fraction == 0.8);
    ck_assert(c.speedup_n == (size_t)1 << 26);
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        ck_assert(c.points[k][0] + c.points[k][1] + c.points[k][2] == 10);
        ck_assert(c.min_speedup[k] == 0);
    }
}
END_TEST

START_TEST(config_applies_global_and_per_stage_keys)
{
    kit_grade_config c;
    kit_error err = {KIT_OK, ""};
    kit_grade_config_default(&c);
    const char *text = "# comment\n\nspeedup.fraction = 0.7\npoints.speedup = 3  # all stages\n"
                       "stage7.points.speedup = 5\nstage7.min_speedup = 4.5\nspeedup.n = 2^24\n"
                       "speedup.attempts=2\nspeedup.rounds = 9\nspeedup.reps = 4\nspeedup.threads = 512\n"
                       "stage8.latency_n = 2^18\nstage3.latency_n = 0\nstage15.max_sectors_per_request = 1.5\n";
    ck_assert_int_eq(kit_grade_config_parse(&c, text, "test.conf", &err), KIT_OK);
    ck_assert(c.speedup_fraction == 0.7);
    ck_assert(c.points[1][1] == 3 && c.points[6][1] == 3 && c.points[7][1] == 5);
    ck_assert(c.min_speedup[7] == 4.5 && c.min_speedup[6] == 0);
    ck_assert(c.speedup_n == (size_t)1 << 24);
    ck_assert_int_eq(c.speedup_attempts, 2);
    ck_assert_int_eq(c.speedup_rounds, 9);
    ck_assert_int_eq(c.speedup_reps, 4);
    ck_assert_uint_eq(c.speedup_threads, 512);
    ck_assert(c.latency_n[8] == (size_t)1 << 18 && c.latency_n[3] == 0 && c.latency_n[7] == 0);
    ck_assert(c.max_sectors_per_request[15] == 1.5 && c.max_sectors_per_request[13] == 0);
}
END_TEST

static const struct {
    const char *text, *says;
} bad_configs[] = {
    {"speedup.fraction = fast\n", "test.conf:1: 'fast' is not a valid value for speedup.fraction"},
    {"\nspeedup.fractoin = 0.5\n", "test.conf:2: unknown key 'speedup.fractoin'"},
    {"stage99.min_speedup = 2\n", "unknown key 'stage99.min_speedup'"},
    {"stage8.latency_n = small\n", "not a valid value for stage8.latency_n"},
    {"stage8.latency_n = 2^31\n", "not a valid value for stage8.latency_n"},
    {"stage3.points.elegance = 2\n", "unknown key"},
    {"points.correctness\n", "expected 'key = value'"},
    {"speedup.threads = 100\n", "not a valid value for speedup.threads"},
    {"stage15.max_sectors_per_request = 0.5\n", "not a valid value for stage15.max_sectors_per_request"},
    {"stage15.max_sectors_per_request = many\n", "not a valid value"},
    {"speedup.attempts = 0\n", "not a valid value"},
    {"points.speedup = -1\n", "not a valid value"},
};

START_TEST(config_refuses_bad_lines_naming_file_and_line)
{
    kit_grade_config c;
    kit_error err = {KIT_OK, ""};
    kit_grade_config_default(&c);
    ck_assert_int_eq(kit_grade_config_parse(&c, bad_configs[_i].text, "test.conf", &err), KIT_BAD_ARGUMENT);
    ck_assert_msg(strstr(err.message, bad_configs[_i].says) != NULL, "got: %s", err.message);
}
END_TEST

START_TEST(shipped_grading_conf_parses)
{
    kit_grade_config c;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_grade_config_load(&c, KIT_SOURCE_DIR "/tests/grader/grading.conf", &err) == KIT_OK, "%s",
                  err.message);
    ck_assert(c.speedup_fraction > 0 && c.speedup_fraction <= 1);
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) /* every stage of stages.def, the new ones too: 10 points */
        ck_assert_msg(c.points[k][0] + c.points[k][1] + c.points[k][2] == 10, "stage %d: %g + %g + %g points", k,
                      c.points[k][0], c.points[k][1], c.points[k][2]);
    /* the emulator's load rule: the coalesced 3x3 matrices' stage, and no other */
    const int coalesced = 15;
    ck_assert(kit_grade_problem(coalesced).type == KIT_MAT3 && kit_grade_baseline(coalesced) == 13);
    for (int k = 1; k <= KIT_STAGE_COUNT; k++)
        ck_assert_msg((c.max_sectors_per_request[k] > 0) == (k == coalesced), "stage %d: max_sectors_per_request %g",
                      k, c.max_sectors_per_request[k]);
    ck_assert_int_eq(kit_grade_config_load(&c, "/nonexistent/grading.conf", &err), KIT_BAD_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/grading.conf"));
}
END_TEST

/* ------------------------------------------------------------ diagnosis */

static kit_case_log log_;

static void add(size_t n, unsigned threads, kit_pattern pattern, int repeat, kit_status status, int got,
                int expected, const char *message)
{
    kit_case c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.threads = threads;
    c.pattern = pattern;
    c.seed = 1;
    c.repeat = repeat;
    c.status = status;
    c.got.w[0] = got;
    c.expected.w[0] = expected;
    snprintf(c.message, sizeof c.message, "%s", message);
    ck_assert(kit_case_log_add(&log_, &c));
}

static const char *diagnose(void)
{
    static char out[4096];
    kit_diagnose(3, log_.cases, log_.count, out, sizeof out);
    kit_case_log_free(&log_);
    return out;
}

static int is_pow2(size_t n) { return (n & (n - 1)) == 0; }

START_TEST(diagnosis_is_empty_when_every_run_passed)
{
    add(1000, 256, KIT_PATTERN_RANDOM, 0, KIT_OK, 5, 5, "");
    char out[64];
    ck_assert_int_eq(kit_diagnose(3, log_.cases, log_.count, out, sizeof out), 0);
    ck_assert_str_eq(out, "");
    kit_case_log_free(&log_);
}
END_TEST

START_TEST(diagnosis_of_an_unfilled_skeleton_is_the_fill_in_message_alone)
{
    const char *msg = "stage 3 wrote no result: fill in the TODO in labs/03_x/x.cu (none of the 4 blocks...)";
    for (unsigned t = 64; t <= 1024; t *= 2)
        add(1000, t, KIT_PATTERN_ONES, 0, KIT_NO_RESULT, 0, 1000, msg);
    ck_assert_str_eq(diagnose(), msg);
}
END_TEST

START_TEST(diagnosis_names_a_hard_coded_block_size)
{
    for (unsigned t = 64; t <= 1024; t *= 2)
        for (size_t n = 1000; n < 5000; n += 1000)
            add(n, t, KIT_PATTERN_RANDOM, 0, t == 256 ? KIT_OK : KIT_WRONG_RESULT, 1, t == 256 ? 1 : 2,
                "expected 2, got 1");
    const char *out = diagnose();
    ck_assert_msg(strstr(out, "passes with 256 threads only") && strstr(out, "hard-coded"), "%s", out);
    ck_assert_msg(strstr(out, "First failure: expected 2, got 1"), "%s", out);
}
END_TEST

START_TEST(diagnosis_suspects_a_missing_barrier_when_only_the_smallest_block_passes)
{
    for (unsigned t = 64; t <= 1024; t *= 2)
        for (size_t n = 1000; n < 5000; n += 1000)
            add(n, t, KIT_PATTERN_RANDOM, 0, t == 64 ? KIT_OK : KIT_WRONG_RESULT, 1, t == 64 ? 1 : 2, "x");
    const char *out = diagnose();
    ck_assert_msg(strstr(out, "passes with 64 threads only (the fewest warps)") && strstr(out, "__syncthreads()") &&
                      !strstr(out, "hard-coded"),
                  "%s", out);
    /* and when repeats disagree, the race is the whole story */
    for (unsigned t = 64; t <= 1024; t *= 2)
        for (int r = 0; r < 4; r++)
            add(6149, t, KIT_PATTERN_RANDOM, r, t == 256 || r == 0 ? KIT_OK : KIT_WRONG_RESULT, t == 256 || r == 0 ? 1 : 2 + r,
                1, "x");
    out = diagnose();
    ck_assert_msg(strstr(out, "a race") && !strstr(out, "threads only"), "%s", out);
    /* two runs per block size say nothing about block sizes */
    for (unsigned t = 64; t <= 1024; t *= 2)
        for (int p = 0; p < 2; p++)
            add((size_t)1 << 26, t, (kit_pattern)p, 0, t == 128 ? KIT_OK : KIT_WRONG_RESULT, 1, 2, "x");
    out = diagnose();
    ck_assert_msg(!strstr(out, "threads only"), "%s", out);
}
END_TEST

START_TEST(diagnosis_names_sizes_that_are_not_powers_of_two)
{
    const size_t sizes[] = {1, 2, 3, 32, 33, 1000, 1024, 65536, 1000003};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (unsigned t = 64; t <= 256; t *= 2)
            add(sizes[s], t, KIT_PATTERN_POSITIONAL, 0, is_pow2(sizes[s]) ? KIT_OK : KIT_WRONG_RESULT, 1, 2, "x");
    const char *out = diagnose();
    ck_assert_msg(strstr(out, "power of two"), "%s", out);
    ck_assert_msg(strstr(out, "hard-coded") == NULL, "%s", out);
}
END_TEST

START_TEST(diagnosis_names_a_race_when_repeats_disagree)
{
    add(6149, 256, KIT_PATTERN_RANDOM, 0, KIT_OK, 10, 10, "");
    add(6149, 256, KIT_PATTERN_RANDOM, 1, KIT_WRONG_RESULT, 7, 10, "expected 10, got 7");
    const char *out = diagnose();
    ck_assert_msg(strstr(out, "a race") && strstr(out, "10, then 7") && strstr(out, "__syncwarp"), "%s", out);
}
END_TEST

START_TEST(diagnosis_counts_lost_and_doubled_elements_with_all_ones)
{
    add(1000, 64, KIT_PATTERN_ONES, 0, KIT_WRONG_RESULT, 896, 1000, "expected 1000, got 896");
    const char *out = diagnose();
    ck_assert_msg(strstr(out, "104 elements lost"), "%s", out);
    add(1000, 64, KIT_PATTERN_ONES, 0, KIT_WRONG_RESULT, 1064, 1000, "expected 1000, got 1064");
    out = diagnose();
    ck_assert_msg(strstr(out, "64 elements counted twice") && strstr(out, "overlap"), "%s", out);
    add(65, 64, KIT_PATTERN_ONES, 0, KIT_WRONG_RESULT, 64, 65, "expected 65, got 64");
    out = diagnose();
    ck_assert_msg(strstr(out, "gave 64: 1 element lost."), "%s", out);
    /* garbage is not a count: more than n extra elements cannot be "counted twice" */
    add(1000, 64, KIT_PATTERN_ONES, 0, KIT_WRONG_RESULT, 1330334538, 1000, "expected 1000, got 1330334538");
    out = diagnose();
    ck_assert_msg(strstr(out, "counted twice") == NULL, "%s", out);
    /* a read past the end adds 2^20 per value: the harness's message says so, not "counted twice" */
    add(1, 64, KIT_PATTERN_ONES, 0, KIT_WRONG_RESULT, 1 + (1 << 20), 1, "it read 1 values past the end");
    out = diagnose();
    ck_assert_msg(strstr(out, "counted twice") == NULL && strstr(out, "past the end"), "%s", out);
}
END_TEST

START_TEST(diagnosis_names_the_tail_of_vector_loads_when_only_multiples_of_4_pass)
{
    /* stage 7 with int4 loads and no tail: every n that is not a multiple of 4 fails */
    const size_t sizes[] = {1, 2, 3, 31, 32, 33, 100, 1000, 1003, 1024, 1025, 786432, 1000003};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        add(sizes[s], 256, KIT_PATTERN_POSITIONAL, 0, sizes[s] % 4 ? KIT_WRONG_RESULT : KIT_OK, 1, 2, "x");
    const char *out = diagnose();
    ck_assert_msg(strstr(out, "divided by 4") && strstr(out, "n % 4") && !strstr(out, "power of two"), "%s", out);
}
END_TEST

START_TEST(diagnosis_names_no_size_rule_when_repeats_show_a_race)
{
    /* a race that happens to bite only at sizes that are not powers of two: say race, not tail */
    add(4096, 256, KIT_PATTERN_RANDOM, 0, KIT_OK, 10, 10, "");
    add(1000, 256, KIT_PATTERN_LAST_ONLY, 0, KIT_WRONG_RESULT, 0, 1, "lost; check the tail bound");
    add(6149, 256, KIT_PATTERN_RANDOM, 0, KIT_OK, 10, 10, "");
    add(6149, 256, KIT_PATTERN_RANDOM, 1, KIT_WRONG_RESULT, 7, 10, "expected 10, got 7");
    const char *out = diagnose();
    ck_assert_msg(strstr(out, "a race") && !strstr(out, "power of two") && !strstr(out, "partly filled"), "%s", out);
    ck_assert_msg(strstr(out, "a race") < strstr(out, "tail bound"), "%s", out);
}
END_TEST

START_TEST(diagnosis_after_a_hang_says_the_rest_was_skipped)
{
    add(1, 64, KIT_PATTERN_ONES, 0, KIT_TIMEOUT, 0, 1, "pass 1 did not finish within 5 s");
    const char *out = diagnose();
    ck_assert_msg(strstr(out, "did not finish within 5 s") && strstr(out, "skipped"), "%s", out);
    add(1, 64, KIT_PATTERN_ONES, 0, KIT_TIMEOUT, 0, 1, "an endless loop?");
    out = diagnose();
    ck_assert_msg(strstr(out, "an endless loop? ") && !strstr(out, "?."), "%s", out);
}
END_TEST

/* ------------------------------------------------------------ speedup rule */

static kit_speedup measured(double baseline_ms, double reference_ms, double student_ms, double spread)
{
    kit_speedup s;
    memset(&s, 0, sizeof s);
    s.baseline_ms = baseline_ms;
    s.reference_ms = reference_ms;
    s.student_ms = student_ms;
    s.spread = spread;
    return s;
}

START_TEST(speedup_passes_a_stage_as_fast_as_the_reference_and_fails_a_slow_one)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    /* H200 figures at 2^26: stage 1 0.66 ms, stage 7 ~8x faster. */
    kit_speedup s = measured(0.66, 0.0825, 0.083, 0.02);
    ck_assert_int_eq(kit_speedup_decide(&c, 7, &s, 0), KIT_VERDICT_PASS);
    ck_assert(s.reference > 7.9 && s.reference < 8.1);
    ck_assert(s.required > 0.79 * s.reference && s.required < 0.81 * s.reference);
    s = measured(0.66, 0.0825, 0.31, 0.02); /* stage 3's speed in stage 7's slot */
    ck_assert_int_eq(kit_speedup_decide(&c, 7, &s, 0), KIT_VERDICT_FAIL);
    ck_assert(s.achieved < 2.2);
}
END_TEST

START_TEST(speedup_measures_again_when_noisy_or_close_and_gives_the_benefit_of_the_doubt_at_the_end)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    /* Clearly too slow, but the timings are all over the place: measure again. */
    kit_speedup s = measured(0.66, 0.0825, 0.31, 0.40);
    ck_assert_int_eq(kit_speedup_decide(&c, 7, &s, 0), KIT_VERDICT_MEASURE_AGAIN);
    ck_assert_int_eq(kit_speedup_decide(&c, 7, &s, 1), KIT_VERDICT_FAIL);
    /* Just below the requirement, within the spread: measure again, then pass. */
    s = measured(1.0, 0.2, 0.2 / 0.8 * 1.03, 0.05); /* 3% short of required */
    ck_assert_int_eq(kit_speedup_decide(&c, 5, &s, 0), KIT_VERDICT_MEASURE_AGAIN);
    ck_assert_int_eq(kit_speedup_decide(&c, 5, &s, 1), KIT_VERDICT_PASS);
    ck_assert_int_eq(s.within_noise, 1);
}
END_TEST

START_TEST(speedup_never_fails_the_reference_itself_however_noisy)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    /* The reference graded against itself: the student's median can be off by the noise. */
    for (int k = 1; k <= KIT_STAGE_COUNT; k++)
        for (double noise = 0.0; noise <= 0.5; noise += 0.05) {
            kit_speedup s = measured(0.66, 0.66 / (k + 1), 0.66 / (k + 1) * (1 + noise / 2), noise);
            ck_assert_int_ne(kit_speedup_decide(&c, k, &s, 1), KIT_VERDICT_FAIL);
        }
}
END_TEST

START_TEST(speedup_uses_the_absolute_minimum_when_it_is_higher)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    c.min_speedup[6] = 6.0;
    kit_speedup s = measured(0.66, 0.66 / 5.3, 0.66 / 5.3, 0.01); /* H200: stage 6 at 5.30x */
    ck_assert_int_eq(kit_speedup_decide(&c, 6, &s, 0), KIT_VERDICT_FAIL);
    ck_assert(s.required == 6.0);
}
END_TEST

START_TEST(median_and_spread_are_the_middle_and_the_relative_iqr)
{
    double v[] = {5, 1, 4, 2, 3};
    double spread = 0;
    ck_assert(kit_median_spread(v, 5, &spread) == 3);
    ck_assert(spread > 0.66 && spread < 0.67); /* (4 - 2) / 3 */
}
END_TEST


/* ------------------------------------------------------------ the problems of stages 9 to 15 */

/* A case of stage \p stage with an answer of words. */
static void add_value(size_t n, unsigned threads, kit_pattern pattern, int repeat, kit_status status,
                      const kit_value *got, const char *message)
{
    kit_case c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.threads = threads;
    c.pattern = pattern;
    c.seed = 3;
    c.repeat = repeat;
    c.status = status;
    c.got = *got;
    snprintf(c.message, sizeof c.message, "%s", message);
    ck_assert(kit_case_log_add(&log_, &c));
}

static kit_value float_value(float f)
{
    kit_value v;
    memset(&v, 0, sizeof v);
    memcpy(&v.w[0], &f, sizeof f);
    return v;
}

/* The first stage of stages.def that reduces \p problem (0 if none). */
static int stage_of(kit_problem problem)
{
    for (int k = 1; k <= KIT_STAGE_COUNT; k++)
        if (kit_problem_equal(kit_grade_problem(k), problem))
            return k;
    return 0;
}

START_TEST(stages_know_their_problem_baseline_and_speed_case_size)
{
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        const int b = kit_grade_baseline(k);
        ck_assert_msg(b >= 1 && b <= k, "stage %d: baseline %d", k, b);
        ck_assert_msg(kit_problem_equal(kit_grade_problem(b), kit_grade_problem(k)) ||
                          kit_problem_equal(kit_grade_problem(k), KIT_INT_SUM),
                      "stage %d's baseline %d reduces another problem", k, b);
        ck_assert(kit_grade_title(k)[0] != '\0');
        /* the speed case reads the same bytes for every problem: 2^26 ints */
        const size_t n = kit_grade_elements(k, (size_t)1 << 26);
        ck_assert_uint_eq(n, ((size_t)1 << 26) / kit_in_words(kit_grade_problem(k)));
    }
    ck_assert_int_eq(kit_grade_baseline(7), 1);
    const int float_stage = stage_of((kit_problem){KIT_FLOAT, KIT_SUM});
    const int matrices = stage_of((kit_problem){KIT_MAT3, KIT_MIN});
    ck_assert(float_stage > 0 && matrices > 0);
    ck_assert_int_eq(kit_grade_baseline(float_stage), float_stage);
    ck_assert_uint_eq(kit_grade_elements(matrices, (size_t)1 << 26), 7456540);
    ck_assert(kit_grade_one_pass(8) && !kit_grade_one_pass(7));
}
END_TEST

START_TEST(answers_travel_as_words_and_nothing_else_is_read)
{
    const kit_problem argmin = {KIT_INT, KIT_ARGMIN}, mat = {KIT_MAT3, KIT_MIN};
    kit_value v, back;
    memset(&v, 0, sizeof v);
    v.w[0] = -8;
    v.w[1] = 12345;
    char text[128];
    kit_value_to_words(argmin, &v, text, sizeof text);
    ck_assert_str_eq(text, "fffffff8,3039");
    ck_assert_uint_eq(kit_value_from_words(argmin, "fffffff8,3039 message=x", &back), 13);
    ck_assert(back.w[0] == -8 && back.w[1] == 12345 && back.w[2] == 0);
    for (int c = 0; c < 9; c++)
        v.w[c] = c - 4;
    kit_value_to_words(mat, &v, text, sizeof text);
    ck_assert_uint_eq(kit_value_from_words(mat, text, &back), strlen(text));
    ck_assert(memcmp(&v, &back, sizeof v) == 0);
    /* too few words, too many digits, not hex, a sign: not an answer */
    ck_assert_uint_eq(kit_value_from_words(argmin, "fffffff8", &back), 0);
    ck_assert_uint_eq(kit_value_from_words(KIT_INT_SUM, "123456789", &back), 0);
    ck_assert_uint_eq(kit_value_from_words(KIT_INT_SUM, "zz", &back), 0);
    ck_assert_uint_eq(kit_value_from_words(KIT_INT_SUM, "-1", &back), 0);
    ck_assert_uint_eq(kit_value_from_words(KIT_INT_SUM, "7b", &back), 2);
    ck_assert_int_eq(back.w[0], 123);
}
END_TEST

/* kit_grade judges each problem's answers from (problem, n, pattern, seed) alone. */
START_TEST(the_grader_judges_every_problem_from_its_own_reference)
{
    char why[700];
    kit_value got, expected;
    const size_t n = 5000;
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        const kit_problem p = kit_grade_problem(k);
        for (int pattern = 0; pattern < KIT_PATTERN_COUNT; pattern++) {
            /* the reference the harness would compute: right */
            int32_t *words = malloc(n * kit_in_words(p) * sizeof *words);
            ck_assert_ptr_nonnull(words);
            kit_fill_problem(p, words, n, (kit_pattern)pattern, 77);
            kit_reference ref;
            kit_reference_compute(p, words, n, &ref);
            free(words);
            ck_assert_int_eq(kit_grade_judge(p, n, (kit_pattern)pattern, 77, &ref.answer, &expected, why, sizeof why),
                             1);
            ck_assert(memcmp(expected.w, ref.answer.w, kit_out_words(p) * sizeof(int32_t)) == 0);
            /* one word off: wrong, and said why (a float far beyond the bound) */
            got = ref.answer;
            if (p.type == KIT_FLOAT)
                got = float_value(1e9f);
            else
                got.w[kit_out_words(p) - 1] ^= 0x40;
            ck_assert_int_eq(kit_grade_judge(p, n, (kit_pattern)pattern, 77, &got, &expected, why, sizeof why), 0);
            ck_assert_msg(strstr(why, "expected") != NULL, "stage %d: %s", k, why);
        }
    }
    /* a float sum within the error bound is right though not the nearest float */
    const kit_problem fsum = {KIT_FLOAT, KIT_SUM};
    ck_assert_int_eq(kit_grade_judge(fsum, 10000, KIT_PATTERN_POSITIONAL, 1, &got, &expected, why, sizeof why), 0);
    float exact;
    memcpy(&exact, &expected.w[0], sizeof exact);
    ck_assert(exact == 50005000.0f);
    got = float_value(nextafterf(exact, 0.0f));
    ck_assert_int_eq(kit_grade_judge(fsum, 10000, KIT_PATTERN_POSITIONAL, 1, &got, &expected, why, sizeof why), 1);
    got = float_value(50002896.0f); /* the course's running sum: far outside */
    ck_assert_int_eq(kit_grade_judge(fsum, 10000, KIT_PATTERN_POSITIONAL, 1, &got, &expected, why, sizeof why), 0);
    /* argmin: all ones tie everywhere, index 0 wins; a later index gets the tie message */
    const kit_problem argmin = {KIT_INT, KIT_ARGMIN};
    memset(&got, 0, sizeof got);
    got.w[0] = 1;
    got.w[1] = 4095;
    ck_assert_int_eq(kit_grade_judge(argmin, n, KIT_PATTERN_ONES, 1, &got, &expected, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "ties must go to the smallest index") != NULL, "%s", why);
    ck_assert(expected.w[0] == 1 && expected.w[1] == 0);
    /* min from 0 instead of the identity */
    const kit_problem min = {KIT_INT, KIT_MIN};
    memset(&got, 0, sizeof got);
    ck_assert_int_eq(kit_grade_judge(min, n, KIT_PATTERN_POSITIONAL, 2, &got, &expected, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "started from 0 instead of the identity") != NULL, "%s", why);
}
END_TEST

START_TEST(a_float_stage_that_gives_other_bits_on_a_repeat_is_not_reproducible)
{
    const int k = stage_of((kit_problem){KIT_FLOAT, KIT_SUM});
    ck_assert(k > 0);
    kit_value a = float_value(524288.5f), b = float_value(524288.4375f);
    add_value(1048583, 256, KIT_PATTERN_RANDOM, 0, KIT_OK, &a, "");
    add_value(1048583, 256, KIT_PATTERN_RANDOM, 1, KIT_OK, &a, "");
    add_value(1048583, 256, KIT_PATTERN_RANDOM, 2, KIT_OK, &b, "");
    add_value(6149, 256, KIT_PATTERN_RANDOM, 0, KIT_OK, &a, "");
    add_value(6149, 256, KIT_PATTERN_RANDOM, 1, KIT_OK, &a, "");
    ck_assert_int_eq(kit_check_reproducible(k, log_.cases, log_.count), 1);
    ck_assert_int_eq(log_.cases[2].status, KIT_WRONG_RESULT);
    const char *message = log_.cases[2].message;
    ck_assert_msg(strstr(message, "not reproducible: run 1 gave 524288.5 (bits 0x49000008), run 3 gave 524288.438 "
                                  "(bits 0x49000007) (bits differ)") &&
                      strstr(message, "atomicAdd") && strstr(message, "multi-pass tree"),
                  "%s", message);
    char out[4096];
    ck_assert_int_eq(kit_diagnose(k, log_.cases, log_.count, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "different bits") && strstr(out, "not reproducible") && !strstr(out, "elements"), "%s",
                  out);
    kit_case_log_free(&log_);
    /* the same in an int stage: all right, nothing to say */
    kit_value one = {{1}};
    add_value(1000, 256, KIT_PATTERN_RANDOM, 0, KIT_OK, &one, "");
    add_value(1000, 256, KIT_PATTERN_RANDOM, 1, KIT_OK, &one, "");
    ck_assert_int_eq(kit_check_reproducible(3, log_.cases, log_.count), 0);
    kit_case_log_free(&log_);
}
END_TEST

START_TEST(diagnosis_counts_elements_only_for_the_int_sum)
{
    const int k = stage_of((kit_problem){KIT_INT, KIT_MIN});
    ck_assert(k > 0);
    kit_value zero = {{0}};
    add_value(1000, 64, KIT_PATTERN_ONES, 0, KIT_WRONG_RESULT, &zero, "expected 1, got 0: 0 is in no element");
    char out[4096];
    kit_diagnose(k, log_.cases, log_.count, out, sizeof out);
    ck_assert_msg(!strstr(out, "lost") && !strstr(out, "counted twice") && strstr(out, "0 is in no element"), "%s",
                  out);
    kit_case_log_free(&log_);
    /* and a race in an argmin says answers, shown as such */
    const int a = stage_of((kit_problem){KIT_INT, KIT_ARGMIN});
    ck_assert(a > 0);
    kit_value x = {{-8, 3}}, y = {{-8, 17}};
    add_value(6149, 256, KIT_PATTERN_RANDOM, 0, KIT_OK, &x, "");
    add_value(6149, 256, KIT_PATTERN_RANDOM, 1, KIT_WRONG_RESULT, &y, "expected -8 at index 3, got -8 at index 17");
    kit_diagnose(a, log_.cases, log_.count, out, sizeof out);
    ck_assert_msg(strstr(out, "different answers") && strstr(out, "-8 at index 3, then -8 at index 17"), "%s", out);
    kit_case_log_free(&log_);
}
END_TEST

START_TEST(a_stage_that_is_its_own_baseline_must_reach_the_fraction_of_the_references_speed)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    const int k = stage_of((kit_problem){KIT_MAT3, KIT_MIN});
    ck_assert(k > 0 && kit_grade_baseline(k) == k);
    /* the runner times the reference once, as both: baseline = reference */
    kit_speedup s = measured(1.0, 1.0, 1.2, 0.01); /* 0.83x the reference's speed */
    ck_assert_int_eq(kit_speedup_decide(&c, k, &s, 0), KIT_VERDICT_PASS);
    ck_assert(s.reference == 1.0 && s.required == 0.8);
    s = measured(1.0, 1.0, 1.6, 0.01); /* 0.62x: the strided AoS read where the reference is coalesced */
    ck_assert_int_eq(kit_speedup_decide(&c, k, &s, 0), KIT_VERDICT_FAIL);
}
END_TEST

/* The counts of a first pass's global loads that loads() makes: \p requests warp loads of
 * \p sectors sectors each, whose bytes fill \p needed sectors. */
static kit_load_counts loads(unsigned long long requests, unsigned long long sectors, unsigned long long needed)
{
    kit_load_counts l = {requests, requests * sectors, requests * needed};
    return l;
}

START_TEST(the_emulators_load_rule_rejects_strided_reads_and_passes_coalesced_loads_of_any_width)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    c.max_sectors_per_request[15] = 1.25;
    char message[2048];
    /* the reference stage 15: two int4 loads of 16 sectors and one of 4 (8 distinct int4s), per 32 matrices */
    kit_load_counts reference = {3 * 1000, 36 * 1000, 36 * 1000};
    /* stage 13's loop: 9 ints a lane, 36 bytes apart: 32 sectors a request for 4 sectors' worth */
    kit_load_counts strided = loads(9000, 32, 4);
    ck_assert_int_eq(kit_loads_decide(&c, 15, 1048583, 256, &strided, &reference, message, sizeof message),
                     KIT_OUTCOME_FAIL);
    ck_assert_msg(strstr(message, "stage 15 asks L1 for 32.0 sectors per warp load where the reference "
                                  "asks for 12.0 (8.00 times") &&
                      strstr(message, "its lanes read 36 bytes apart (each thread its own kit_mat3)") &&
                      strstr(message, "288 consecutive ints") && strstr(message, "n = 1,048,583, 256 threads") &&
                      strstr(message, "stage15.max_sectors_per_request"),
                  "%s", message);
    /* coalesced, whatever the width: 32 ints (4 sectors), 32 int4s (16: more a request than the reference's 12) */
    kit_load_counts ints = loads(9000, 4, 4), int4s = loads(2250, 16, 16);
    ck_assert_int_eq(kit_loads_decide(&c, 15, 1048583, 256, &ints, &reference, message, sizeof message),
                     KIT_OUTCOME_PASS);
    ck_assert_msg(strstr(message, "4.0 sectors per warp load, 1.00 times") != NULL, "%s", message);
    ck_assert_int_eq(kit_loads_decide(&c, 15, 1048583, 256, &int4s, &reference, message, sizeof message),
                     KIT_OUTCOME_PASS);
    ck_assert_int_eq(kit_loads_decide(&c, 15, 1048583, 256, &reference, &reference, message, sizeof message),
                     KIT_OUTCOME_PASS);
    /* at the limit: 1.25 x passes, just above fails (ints 2 apart: 8 sectors for 4 sectors' worth is 2x) */
    kit_load_counts limit = {4, 20, 16}, above = {4, 21, 16}, spread = loads(100, 8, 4);
    kit_load_counts one = {1, 16, 16};
    ck_assert_int_eq(kit_loads_decide(&c, 15, 4096, 256, &limit, &one, message, sizeof message), KIT_OUTCOME_PASS);
    ck_assert_int_eq(kit_loads_decide(&c, 15, 4096, 256, &above, &one, message, sizeof message), KIT_OUTCOME_FAIL);
    ck_assert_int_eq(kit_loads_decide(&c, 15, 4096, 256, &spread, &one, message, sizeof message), KIT_OUTCOME_FAIL);
    ck_assert_msg(strstr(message, "spread over more sectors") != NULL, "%s", message);
    /* no rule for stage 13, or with the key at 0; no loads counted: nothing to decide */
    ck_assert_int_eq(kit_loads_decide(&c, 13, 4096, 256, &strided, &reference, message, sizeof message),
                     KIT_OUTCOME_MISSING);
    ck_assert_str_eq(message, "");
    kit_load_counts none = {0, 0, 0};
    ck_assert_int_eq(kit_loads_decide(&c, 15, 4096, 256, &none, &reference, message, sizeof message),
                     KIT_OUTCOME_MISSING);
    c.max_sectors_per_request[15] = 0;
    ck_assert_int_eq(kit_loads_decide(&c, 15, 4096, 256, &strided, &reference, message, sizeof message),
                     KIT_OUTCOME_MISSING);
}
END_TEST

/* ------------------------------------------------------------ result files and report */

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/kit_grader_test.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void put(int stage, kit_part part, kit_outcome outcome, const char *message)
{
    kit_result r;
    memset(&r, 0, sizeof r);
    r.outcome = outcome;
    snprintf(r.message, sizeof r.message, "%s", message);
    if (part == KIT_PART_SPEEDUP) {
        r.achieved = 2.07;
        r.required = 1.66;
        r.reference = 2.08;
        r.spread = 0.012;
        r.student_ms = 0.1;
        r.reference_ms = 0.08;
        r.bytes = 268435456; /* 2^26 ints */
        snprintf(r.gpu, sizeof r.gpu, "NVIDIA H200");
    }
    ck_assert(kit_result_write(dir, stage, part, &r));
}

static void clean_dir(void)
{
    kit_result_clear(dir, 0);
    ck_assert_int_eq(rmdir(dir), 0); /* clearing removed every file */
}

START_TEST(result_files_round_trip)
{
    make_dir();
    put(3, KIT_PART_SPEEDUP, KIT_OUTCOME_PASS, "line one\nline two");
    kit_result r;
    kit_result_read(dir, 3, KIT_PART_SPEEDUP, &r);
    ck_assert_int_eq(r.outcome, KIT_OUTCOME_PASS);
    ck_assert_str_eq(r.message, "line one line two");
    ck_assert(r.achieved == 2.07 && r.required == 1.66);
    ck_assert(r.student_ms == 0.1 && r.reference_ms == 0.08 && r.bytes == 268435456);
    ck_assert_str_eq(r.gpu, "NVIDIA H200");
    kit_result_read(dir, 4, KIT_PART_SPEEDUP, &r);
    ck_assert_int_eq(r.outcome, KIT_OUTCOME_MISSING);
    clean_dir();
}
END_TEST

START_TEST(scores_give_speed_and_sanitizer_points_only_on_top_of_a_correct_stage)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    make_dir();
    for (int p = 0; p < KIT_PART_COUNT; p++) {
        put(1, (kit_part)p, KIT_OUTCOME_PASS, "ok");
        put(2, (kit_part)p, p == KIT_PART_CORRECTNESS ? KIT_OUTCOME_FAIL : KIT_OUTCOME_PASS, "wrong");
        put(3, (kit_part)p, p == KIT_PART_RACECHECK ? KIT_OUTCOME_FAIL : KIT_OUTCOME_PASS, "hazard");
        put(4, (kit_part)p, KIT_OUTCOME_SKIP, "not graded: no CUDA GPU");
    }
    kit_stage_grade g[5];
    for (int k = 1; k <= 5; k++)
        kit_grade_stage(&c, dir, k, &g[k - 1]);
    ck_assert(g[0].score == 10 && g[0].passed);
    ck_assert(g[1].score == 0 && !g[1].passed);  /* an unfilled lab is race-free, but earns nothing */
    ck_assert(g[2].score == 8 && !g[2].passed);  /* correct and fast, with a race */
    ck_assert(g[3].score == 0 && !g[3].passed);  /* skipped is never passed */
    ck_assert(g[4].score == 0 && g[4].max_score == 10); /* nothing ran */

    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    kit_report_table(f, g, 5, "Grade report for labs");
    fclose(f);
    ck_assert_msg(strstr(text, "NVIDIA H200") && strstr(text, "18 / 50") && strstr(text, "FAIL: racecheck") &&
                      strstr(text, "pass 2.07x / 1.66x") && strstr(text, "stage 3 racecheck: hazard") &&
                      strstr(text, "not graded") && strstr(text, "not run"),
                  "%s", text);
    /* Each stage's problem heads its rows (once for stages of the same problem), and the table
     * fits an 80-column terminal, the widest cells and a scaled 7.5 included. */
    ck_assert_msg(strstr(text, "\nstage correctness ") && strstr(text, "\nint sum:\n1     pass "), "%s", text);
    {
        kit_stage_grade wide[2] = {g[2], g[2]};
        wide[0].stage = 15; /* element-wise min of 3x3 int matrices */
        wide[0].load_rule_missing = 1;      /* "FAIL (no load rule ran)" */
        wide[0].score = 7.5;
        wide[1].emulated_races = 0;
        char *table = NULL;
        size_t table_size = 0;
        FILE *t = open_memstream(&table, &table_size);
        kit_report_table(t, wide, 2, "Grade report for labs");
        fclose(t);
        ck_assert_msg(strstr(table, "\nelement-wise min of 3x3 int matrices:\n15    ") &&
                          strstr(table, "FAIL (no load rule ran)") && strstr(table, "\nint sum:\n3     "),
                      "%s", table);
        for (const char *line = strstr(table, "\nstage "); line && line[1] && strncmp(line, "\nWhat", 5) != 0;
             line = strchr(line + 1, '\n')) {
            const char *end = strchr(line + 1, '\n');
            ck_assert_msg(end && end - line - 1 <= 80, "a line of the table is wider than 80 columns:\n%.*s",
                          end ? (int)(end - line - 1) : 200, line + 1);
        }
        free(table);
    }
    free(text);

    f = open_memstream(&text, &size);
    kit_report_json(f, g, 5, "Grade report for labs");
    fclose(f);
    ck_assert_msg(strstr(text, "\"score\": 18") && strstr(text, "\"name\": \"stage 1: correctness\", \"score\": 6, "
                  "\"max_score\": 6, \"status\": \"passed\"") &&
                      strstr(text, "\"name\": \"stage 3: races and memory errors (compute-sanitizer)\", \"score\": 0, "
                                   "\"max_score\": 2, \"status\": \"failed\""),
                  "%s", text);
    free(text);

    /* The record the other views and the class tools come from: every part as it ran, the points. */
    f = open_memstream(&text, &size);
    kit_report_record(f, g, 5, "Grade report for labs", NULL);
    fclose(f);
    ck_assert_msg(strstr(text, "\"graded_on\": \"NVIDIA H200\"") && strstr(text, "\"score\": 18,\n  \"max_score\": 50") &&
                      strstr(text, "{\"stage\": 3, \"problem\": \"int sum\", \"score\": 8, \"max_score\": 10, "
                                   "\"reachable\": 10, \"passed\": false") &&
                      strstr(text, "\"racecheck\": {\"outcome\": \"fail\", \"message\": \"hazard\"") &&
                      strstr(text, "\"speedup\": {\"outcome\": \"pass\", \"message\": \"ok\", \"device\": \"NVIDIA H200\", "
                                   "\"achieved\": 2.07, \"required\": 1.66") &&
                      /* GB/s for the leaderboards: 2^26 ints in 0.1 ms, the reference in 0.08 ms */
                      strstr(text, "\"student_ms\": 0.1, \"reference_ms\": 0.08, \"gbps\": 2684.35, "
                                   "\"reference_gbps\": 3355.44") &&
                      strstr(text, "\"sanitizer\": {\"score\": 0, \"max_score\": 2, \"status\": \"fail\", "
                                   "\"cell\": \"FAIL: racecheck\", \"message\": \"hazard\"}"),
                  "%s", text);
    free(text);

    /* A regrade: stage 1 failed last time (as stage 2 does now) and passes now; nothing else changed. */
    kit_stage_grade before[5];
    memcpy(before, g, sizeof before);
    before[0] = g[1];
    before[0].stage = 1;
    f = open_memstream(&text, &size);
    ck_assert_int_eq(kit_report_changes(f, g, before, 5), 1);
    fclose(f);
    ck_assert_msg(strstr(text, "Changed since the last grade:\n  stage 1: 0 -> 10 points (correctness FAIL -> pass") &&
                      !strstr(text, "stage 3:"),
                  "%s", text);
    free(text);
    /* The record says the same, for the class tools (they never parse the lines above): the total
     * then, and each changed stage's categories, with the message that explained them then. */
    f = open_memstream(&text, &size);
    kit_report_record(f, g, 5, "Grade report for labs", before);
    fclose(f);
    ck_assert_msg(strstr(text, "\"previous\": {\"score\": 8, \"max_score\": 50, \"reachable\": 50},\n  \"changes\": [\n"
                               "    {\"stage\": 1, \"score_before\": 0, \"score\": 10, \"max_score\": 10, \"parts\": [\n"
                               "      {\"part\": \"correctness\", \"cell_before\": \"FAIL\", \"cell\": \"pass\", "
                               "\"status_before\": \"fail\", \"status\": \"pass\", \"score_before\": 0, \"score\": 6,\n"
                               "       \"message_before\": \"wrong\"}") &&
                      !strstr(text, "{\"stage\": 3, \"score_before\""),
                  "%s", text);
    free(text);

    /* The student's feedback: what passed, what failed and why, what to try, from the same grades. */
    f = open_memstream(&text, &size);
    kit_report_feedback(f, g, 5, "alice");
    fclose(f);
    ck_assert_msg(strstr(text, "Feedback for alice: 18 of 50 points, graded on NVIDIA H200.") &&
                      strstr(text, "Stage 3: 8 of 10 points.\n") &&
                      strstr(text, "  - sanitizer: FAIL: racecheck (0 of 2). Why: hazard\n    What to try: Look between") &&
                      strstr(text, "  - correctness: FAIL (0 of 6). Why: wrong\n    What to try: Rebuild with `cmake --build "
                                   "build` (a grade builds only the grader's copy of your file), then run the failing "
                                   "case alone, `./build/reduce_ladder --stage 2 --impl labs`") &&
                      strstr(text, "  - speedup: no points until the stage is correct.") &&
                      strstr(text, "  - sanitizer: clean (4 tools, emulator), but no points until the stage is correct."),
                  "%s", text);
    free(text);

    /* A race the emulator's thread orders found (no ThreadSanitizer report, so no two lines to
     * look between): the hint says the answer changed with the order and names emu_check. */
    kit_stage_grade by_order = g[2];
    by_order.emulated_races = 1;
    by_order.parts[KIT_PART_EMULATED_RACES].outcome = KIT_OUTCOME_FAIL;
    snprintf(by_order.parts[KIT_PART_EMULATED_RACES].message, sizeof by_order.parts[KIT_PART_EMULATED_RACES].message,
             "stage 3 (labs), n = 1000, 64 threads: the result depends on the order of the threads: forward sum 1, "
             "reverse sum 2");
    f = open_memstream(&text, &size);
    kit_report_feedback(f, &by_order, 1, "alice");
    fclose(f);
    ck_assert_msg(strstr(text, "What to try: The answer changed with the order the threads or blocks ran in.") &&
                      strstr(text, "`./build/emu/tests/emu_check --impl labs --stage 3`") && !strstr(text, "Look between"),
                  "%s", text);
    free(text);

    f = open_memstream(&text, &size);
    kit_report_csv_header(f);
    kit_report_csv_row(f, "alice", g, 5);
    fclose(f);
    /* a column per stage of stages.def, empty for those not graded */
    char expected[1024] = "student";
    for (int k = 1; k <= KIT_STAGE_COUNT; k++)
        snprintf(expected + strlen(expected), sizeof expected - strlen(expected), ",stage%d", k);
    snprintf(expected + strlen(expected), sizeof expected - strlen(expected), ",total,max_total\nalice,10,0,8,0,0");
    for (int k = 6; k <= KIT_STAGE_COUNT; k++)
        snprintf(expected + strlen(expected), sizeof expected - strlen(expected), ",");
    snprintf(expected + strlen(expected), sizeof expected - strlen(expected), ",18,50\n");
    ck_assert_str_eq(text, expected);
    free(text);
    clean_dir();
}
END_TEST

/* make status: one line per lab, from the lab file and the last grades, without grading. */
START_TEST(status_says_per_lab_not_started_not_graded_changed_fails_or_passes)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    make_dir();
    char labs[128], folder[256], file[512];
    snprintf(labs, sizeof labs, "%s/labs", dir);
    ck_assert_int_eq(mkdir(labs, 0755), 0);
    const int stages[4] = {1, 2, 3, 4};
    for (int i = 0; i < 4; i++) {
        snprintf(folder, sizeof folder, "%s/%s", labs, kit_grade_file(stages[i]));
        *strrchr(folder, '/') = '\0';
        ck_assert_int_eq(mkdir(folder, 0755), 0);
        snprintf(file, sizeof file, "%s/%s", labs, kit_grade_file(stages[i]));
        FILE *f = fopen(file, "w");
        ck_assert_ptr_nonnull(f);
        fputs(stages[i] == 1 ? "    return; /* delete this line once your code is in place */\n" : "/* done */\n", f);
        fclose(f);
    }
    /* stage 1 untouched; stage 2 written, never graded; stage 3 graded correct on the emulator;
     * stage 4 graded wrong, then its file changed */
    put(3, KIT_PART_EMULATED, KIT_OUTCOME_PASS, "every run gave the exact sum");
    put(3, KIT_PART_EMULATED_RACES, KIT_OUTCOME_PASS, "no race");
    put(4, KIT_PART_EMULATED, KIT_OUTCOME_FAIL, "stage 4 failed 3 of 600 runs");
    snprintf(file, sizeof file, "%s/%s", labs, kit_grade_file(4));
    struct timespec later[2] = {{time(NULL) + 60, 0}, {time(NULL) + 60, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, file, later, 0), 0);
    kit_stage_grade g[4];
    for (int i = 0; i < 4; i++)
        kit_grade_stage(&c, dir, stages[i], &g[i]);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    kit_report_status(f, g, 4, labs, dir, NULL);
    fclose(f);
    ck_assert_msg(strstr(text, "stage 1   not started: the TODO's placeholder return is still in labs/01_naive/") &&
                      strstr(text, "stage 2   not graded yet: cmake --build build --target check-stage2") &&
                      strstr(text, "stage 3   passes on the CPU emulator: 8 / 10") &&
                      strstr(text, "stage 4   changed since its last grade (0 / 10 then)"),
                  "%s", text);
    free(text);
    /* the same stage 4 graded after the change: the failure, in a few words */
    struct timespec earlier[2] = {{time(NULL) - 600, 0}, {time(NULL) - 600, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, file, earlier, 0), 0);
    f = open_memstream(&text, &size);
    kit_report_status(f, &g[3], 1, labs, dir, NULL);
    fclose(f);
    ck_assert_msg(strstr(text, "stage 4   fails: stage 4 failed 3 of 600 runs"), "%s", text);
    free(text);
    /* By content where the grade kept the graded file's SHA-256 (check.cmake, stageK.lab-sha256):
     * a file saved again unchanged (newer) is not "changed"; an edit that kept its old time is. */
    char kept[512];
    snprintf(kept, sizeof kept, "%s/stage4.lab-sha256", dir);
    f = fopen(kept, "w");
    ck_assert_ptr_nonnull(f);
    fputs("aaaa\n", f);
    fclose(f);
    ck_assert_int_eq(utimensat(AT_FDCWD, file, later, 0), 0);
    f = open_memstream(&text, &size);
    kit_report_status(f, &g[3], 1, labs, dir, "3=bbbb,4=aaaa");
    fclose(f);
    ck_assert_msg(strstr(text, "stage 4   fails: stage 4 failed 3 of 600 runs"), "%s", text);
    free(text);
    ck_assert_int_eq(utimensat(AT_FDCWD, file, earlier, 0), 0);
    f = open_memstream(&text, &size);
    kit_report_status(f, &g[3], 1, labs, dir, "4=cccc,3=aaaa");
    fclose(f);
    ck_assert_msg(strstr(text, "stage 4   changed since its last grade (0 / 10 then)"), "%s", text);
    free(text);
    remove(kept);
    for (int i = 0; i < 4; i++) {
        snprintf(file, sizeof file, "%s/%s", labs, kit_grade_file(stages[i]));
        remove(file);
        *strrchr(file, '/') = '\0';
        rmdir(file);
    }
    rmdir(labs);
    clean_dir();
}
END_TEST

/* Without a GPU, speed is not measured: the total says what was reachable; emulated.full_marks =
 * scale makes the emulator's grade reach full marks instead. */
START_TEST(an_emulated_grade_says_what_was_reachable_and_scales_to_full_marks_when_configured)
{
    kit_grade_config keep, scale;
    kit_grade_config_default(&keep);
    kit_grade_config_default(&scale);
    kit_error err = {KIT_OK, ""};
    ck_assert_int_eq(kit_grade_config_parse(&scale, "emulated.full_marks = scale\n", "test", &err), KIT_OK);
    ck_assert_int_ne(kit_grade_config_parse(&scale, "emulated.full_marks = maybe\n", "test", &err), KIT_OK);
    make_dir();
    put(6, KIT_PART_EMULATED, KIT_OUTCOME_PASS, "every run gave the exact sum");
    put(6, KIT_PART_EMULATED_RACES, KIT_OUTCOME_PASS, "no race");
    put(6, KIT_PART_CORRECTNESS, KIT_OUTCOME_SKIP, "not graded: no NVIDIA GPU here");
    kit_stage_grade g;
    kit_grade_stage(&keep, dir, 6, &g);
    ck_assert(g.score == 8 && g.max_score == 10 && g.reachable == 8);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    kit_report_table(f, &g, 1, "Grade report");
    fclose(f);
    ck_assert_msg(strstr(text, "\ntotal (8 reachable here: speed is graded on a GPU)  ") && strstr(text, "  8 / 10\n"),
                  "%s", text);
    free(text);
    f = open_memstream(&text, &size); /* the student's feedback says it too */
    kit_report_feedback(f, &g, 1, "alice");
    fclose(f);
    ck_assert_msg(strstr(text, "Feedback for alice: 8 of 10 points (8 reachable here: speed is graded on a GPU)"), "%s",
                  text);
    free(text);
    kit_grade_stage(&scale, dir, 6, &g);
    ck_assert_msg(g.score == 10 && g.max_score == 10 && g.reachable == 10 && g.part_max[1] == 0 &&
                      g.part_score[0] == 7.5 && g.part_score[2] == 2.5,
                  "scaled: %g of %g (%g, %g, %g)", g.score, g.max_score, g.part_score[0], g.part_score[1],
                  g.part_score[2]);
    clean_dir();
}
END_TEST

START_TEST(emulated_results_earn_correctness_and_race_points_without_a_gpu_and_never_speed_points)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    make_dir();
    for (int k = 1; k <= 4; k++) {
        put(k, KIT_PART_SPEEDUP, KIT_OUTCOME_SKIP, "not graded: no CUDA GPU");
        for (int p = KIT_PART_RACECHECK; KIT_PART_IS_SANITIZER(p); p++)
            put(k, (kit_part)p, KIT_OUTCOME_SKIP, "compute-sanitizer not run: no CUDA GPU");
    }
    put(1, KIT_PART_CORRECTNESS, KIT_OUTCOME_SKIP, "not graded: no CUDA GPU");
    put(1, KIT_PART_EMULATED, KIT_OUTCOME_PASS, "every run gave the exact sum on the CPU emulator");
    put(1, KIT_PART_EMULATED_RACES, KIT_OUTCOME_PASS, "no race");
    put(2, KIT_PART_CORRECTNESS, KIT_OUTCOME_SKIP, "not graded: no CUDA GPU");
    put(2, KIT_PART_EMULATED, KIT_OUTCOME_PASS, "every run gave the exact sum on the CPU emulator");
    put(2, KIT_PART_EMULATED_RACES, KIT_OUTCOME_FAIL, "ThreadSanitizer found 3 data race report(s)");
    put(3, KIT_PART_CORRECTNESS, KIT_OUTCOME_SKIP, "not graded: no CUDA GPU");
    put(3, KIT_PART_EMULATED, KIT_OUTCOME_FAIL, "stage 3 wrote no result: fill in the TODO");
    /* an unfilled lab's race check stops before ThreadSanitizer (grade.c): not a race */
    put(3, KIT_PART_EMULATED_RACES, KIT_OUTCOME_FAIL,
        "not checked for races: stage 3 wrote no result in any run of the race check (fill in the TODO first)");
    /* KIT_REQUIRE_GPU=1: the GPU's failure decides, whatever the emulator said. */
    put(4, KIT_PART_CORRECTNESS, KIT_OUTCOME_FAIL, "not graded: no CUDA GPU");
    put(4, KIT_PART_EMULATED, KIT_OUTCOME_PASS, "every run gave the exact sum on the CPU emulator");
    kit_stage_grade g[4];
    for (int k = 1; k <= 4; k++)
        kit_grade_stage(&c, dir, k, &g[k - 1]);
    ck_assert(g[0].score == 8 && !g[0].passed && g[0].emulated_correctness && g[0].emulated_races);
    ck_assert(g[1].score == 6 && !g[1].passed);
    ck_assert(g[2].score == 0 && g[2].emulated_correctness);
    ck_assert(g[3].score == 0 && !g[3].emulated_correctness);

    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    kit_report_table(f, g, 4, "Grade report for labs");
    fclose(f);
    ck_assert_msg(strstr(text, "pass (emulated)") && strstr(text, "FAIL (emulated)") &&
                      strstr(text, "not measured (no GPU)") && strstr(text, "no race (emulated)") &&
                      strstr(text, "FAIL: race (emulated)") && strstr(text, "not checked (no result)") &&
                      strstr(text, "14 / 40") &&
                      strstr(text, "checked on the kit's CPU emulator") &&
                      strstr(text, "stage 2 emulated-races: ThreadSanitizer"),
                  "%s", text);
    free(text);
    f = open_memstream(&text, &size);
    kit_report_json(f, g, 4, "Grade report for labs");
    fclose(f);
    ck_assert_msg(strstr(text, "\"name\": \"stage 1: correctness\", \"score\": 6, \"max_score\": 6, \"status\": "
                               "\"passed\", \"output\": \"pass (emulated): every run") &&
                      /* not measured without a GPU: no failed test, and it says what it is worth on one */
                      strstr(text, "\"name\": \"stage 1: speedup\", \"score\": 0, \"max_score\": 0, \"status\": "
                                   "\"passed\", \"output\": \"not measured (no GPU)") &&
                      strstr(text, "Speed is graded on a GPU, where it is worth 2 points."),
                  "%s", text);
    free(text);
    clean_dir();
}
END_TEST

START_TEST(a_failed_load_rule_takes_the_speed_points_a_gpu_gave_and_shows_without_one)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    make_dir();
    const char *strided = "stage 15's first pass asks L1 for 32.0 sectors per warp load where the reference asks "
                          "for 12.0 (8.00 times the sectors its bytes fill, the reference's 1.00 times)";
    /* stage 13 on a GPU, every part passed, no load rule; stage 15 the same but the load rule failed;
     * stage 14: passed with the load rule too */
    for (int k = 13; k <= 15; k++)
        for (int p = 0; p < KIT_PART_COUNT; p++)
            if (p != KIT_PART_EMULATED_SPEED || k != 13)
                put(k, (kit_part)p, p == KIT_PART_EMULATED_SPEED && k == 15 ? KIT_OUTCOME_FAIL : KIT_OUTCOME_PASS,
                    p == KIT_PART_EMULATED_SPEED && k == 15 ? strided : "ok");
    /* stage 12 on the emulator alone: speed not measured, the load rule failed */
    put(12, KIT_PART_CORRECTNESS, KIT_OUTCOME_SKIP, "not graded: no CUDA GPU");
    put(12, KIT_PART_SPEEDUP, KIT_OUTCOME_SKIP, "not graded: no CUDA GPU");
    put(12, KIT_PART_EMULATED, KIT_OUTCOME_PASS, "every run gave the right answer on the CPU emulator");
    put(12, KIT_PART_EMULATED_RACES, KIT_OUTCOME_PASS, "no race");
    put(12, KIT_PART_EMULATED_SPEED, KIT_OUTCOME_FAIL, strided);
    kit_stage_grade g[4];
    for (int k = 12; k <= 15; k++)
        kit_grade_stage(&c, dir, k, &g[k - 12]);
    ck_assert(g[1].score == 10 && g[1].passed);  /* no load rule ran */
    ck_assert(g[2].score == 10 && g[2].passed);  /* the load rule passed */
    ck_assert(g[3].score == 8 && !g[3].passed && g[3].part_score[1] == 0); /* fast on the GPU's clock, strided */
    ck_assert(g[0].score == 8 && !g[0].passed);  /* no GPU: no speed points to take */

    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    kit_report_table(f, g, 4, "Grade report for labs");
    fclose(f);
    ck_assert_msg(strstr(text, "FAIL (emulator: loads)") && strstr(text, "pass 2.07x / 1.66x") &&
                      strstr(text, "stage 15 emulated-speed: stage 15's first pass asks L1 for 32.0 sectors") &&
                      strstr(text, "stage 12 emulated-speed: ") && !strstr(text, "stage 14 emulated-speed") &&
                      strstr(text, "36 / 40"),
                  "%s", text);
    free(text);
    f = open_memstream(&text, &size);
    kit_report_json(f, g, 4, "Grade report for labs");
    fclose(f);
    ck_assert_msg(strstr(text, "\"name\": \"stage 15: speedup\", \"score\": 0, \"max_score\": 2, \"status\": "
                               "\"failed\", \"output\": \"FAIL (emulator: loads): ok\\nemulated-speed: stage 15's") &&
                      strstr(text, "\"name\": \"stage 14: speedup\", \"score\": 2, \"max_score\": 2, \"status\": "
                                   "\"passed\""),
                  "%s", text);
    free(text);
    clean_dir();
}
END_TEST

START_TEST(grade_report_program_prints_the_table_and_writes_json_and_csv)
{
    make_dir();
    put(2, KIT_PART_CORRECTNESS, KIT_OUTCOME_FAIL, "stage 2 wrote no result: fill in the TODO");
    char command[1024], json[128], csv[128];
    snprintf(json, sizeof json, "%s/results.json", dir);
    snprintf(csv, sizeof csv, "%s/row.csv", dir);
    snprintf(command, sizeof command, "%s --results %s --config %s/tests/grader/grading.conf --json %s --csv %s "
             "--student bob > %s/out.txt", KIT_GRADE_REPORT, dir, KIT_SOURCE_DIR, json, csv, dir);
    ck_assert_int_eq(system(command), 0);
    char row[256] = "bob"; /* every stage 0 of 10, total 0 of 10 a stage */
    for (int k = 1; k <= KIT_STAGE_COUNT; k++)
        snprintf(row + strlen(row), sizeof row - strlen(row), ",0");
    snprintf(row + strlen(row), sizeof row - strlen(row), ",0,%d", 10 * KIT_STAGE_COUNT);
    snprintf(command, sizeof command, "grep -q 'stage 2 correctness: stage 2 wrote no result' %s/out.txt && "
             "grep -q '\"tests\"' %s && grep -q '^%s$' %s", dir, json, row, csv);
    ck_assert_int_eq(system(command), 0);
    snprintf(command, sizeof command, "%s --results %s --stage %d 2>/dev/null", KIT_GRADE_REPORT, dir,
             KIT_STAGE_COUNT + 1);
    ck_assert_int_ne(system(command), 0);
    /* A student edition with stages 1 to 3 handed out: the others are not in its report or total. */
    snprintf(command, sizeof command, "%s --results %s --config %s/tests/grader/grading.conf --stages 1,2,3 --json %s "
             "> %s/out.txt", KIT_GRADE_REPORT, dir, KIT_SOURCE_DIR, json, dir);
    ck_assert_int_eq(system(command), 0);
    snprintf(command, sizeof command, "grep -q '^total .* 0 / 30$' %s/out.txt && ! grep -q '^4 ' %s/out.txt && "
             "! grep -q 'stage 4' %s", dir, dir, json);
    ck_assert_int_eq(system(command), 0);
    snprintf(command, sizeof command, "%s --results %s --stages 1,%d 2>/dev/null", KIT_GRADE_REPORT, dir,
             KIT_STAGE_COUNT + 1);
    ck_assert_int_ne(system(command), 0);
    /* A regrade (check.cmake kept the last grading's result files in previous/): stage 2 wrote no
     * result then and passes on the CPU emulator now. The report, the student's feedback and the
     * record each say what changed. */
    snprintf(command, sizeof command, "mkdir %s/previous && mv %s/stage2.* %s/previous/", dir, dir, dir);
    ck_assert_int_eq(system(command), 0);
    put(2, KIT_PART_EMULATED, KIT_OUTCOME_PASS, "every run gave the right answer on the CPU emulator");
    put(2, KIT_PART_EMULATED_RACES, KIT_OUTCOME_PASS, "no race");
    snprintf(command, sizeof command, "%s --results %s --config %s/tests/grader/grading.conf --stages 1,2 --previous "
             "%s/previous --record %s/grade.json --feedback %s/feedback.txt > %s/out.txt", KIT_GRADE_REPORT, dir,
             KIT_SOURCE_DIR, dir, dir, dir, dir);
    ck_assert_int_eq(system(command), 0);
    snprintf(command, sizeof command, "grep -q '^  stage 2: 0 -> 8 points (correctness FAIL -> pass (emulated)' %s/out.txt "
             "&& grep -q '^  stage 2: 0 -> 8 points (correctness FAIL -> pass (emulated)' %s/feedback.txt && "
             "grep -q '\"previous\": {\"score\": 0, \"max_score\": 20, \"reachable\": 20}' %s/grade.json && "
             "grep -q '\"message_before\": \"stage 2 wrote no result: fill in the TODO\"' %s/grade.json",
             dir, dir, dir, dir);
    ck_assert_int_eq(system(command), 0);
    snprintf(command, sizeof command, "rm -rf %s/previous %s/grade.json %s/feedback.txt", dir, dir, dir);
    ck_assert_int_eq(system(command), 0);
    snprintf(command, sizeof command, "rm -f %s/results.json %s/row.csv %s/out.txt", dir, dir, dir);
    ck_assert_int_eq(system(command), 0);
    clean_dir();
}
END_TEST

/* ------------------------------------------------------------ the corpora */

/* Reads the KIT_GRADED rows of a corpus file; checks each names a file and a slot. */
static int read_corpus(const char *def, char names[][64], int capacity)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/%s", KIT_SOURCE_DIR, def);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s is missing", path);
    int entries = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char dir[64], name[64];
        int slot = 0, gpu = -1, emu = -1;
        if (sscanf(line, "KIT_GRADED(%63[a-z_], %63[a-z0-9_], %d, %d, %d,", dir, name, &slot, &gpu, &emu) != 5)
            continue;
        ck_assert_msg(slot >= 1 && slot <= KIT_STAGE_COUNT, "%s: slot %d", name, slot);
        ck_assert_msg(gpu >= 0 && gpu <= 10 && emu >= 0 && emu <= 8, "%s: points %d/%d out of range", name, gpu, emu);
        ck_assert_msg(strchr(line, '"') != NULL, "%s: no expected words", name);
        snprintf(path, sizeof path, "%s/tests/%s/%s.cu", KIT_SOURCE_DIR, dir, name);
        ck_assert_msg(access(path, R_OK) == 0, "%s is missing", path);
        if (entries < capacity)
            snprintf(names[entries], 64, "%s", name);
        entries++;
    }
    fclose(f);
    return entries;
}

static int listed(char names[][64], int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

START_TEST(corpora_list_every_kind_of_mistake_cheat_and_valid_alternative_with_a_file)
{
    static char names[256][64];
    int count = read_corpus("wrong_kernels/corpus.def", names, 256);
    count += read_corpus("graded_corpus.def", names + count, 256 - count);
    const char *required[] = {"missing_syncthreads", "warp_unroll_no_volatile", "warp_unroll_volatile_only",
                              "tail_read_past_n", "power_of_two_only", "hard_coded_block_size", "grid_drops_elements",
                              "double_counting", "endless_loop", "illegal_address", "static_shared_256",
                              "every_thread_writes_block_sum", "int_byte_offset_overflow", "cub_device_reduce",
                              "thrust_reduce", "calls_reference_stage", "memoizes_sum", "fast_only_for_speed_case",
                              "constructor_writes_results", "constructor_exits", "copies_to_host", "side_stream",
                              "graph_launch", "detects_emulator", "cg_reduce", "reduce_add_sync", "atomic_block_sums",
                              "int2_loads"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        ck_assert_msg(listed(names, count, required[i]), "the corpora lack %s", required[i]);
}
END_TEST


/* ---------------------------------------------------------------- the plan */

static int plan_has(const kit_plan *plan, unsigned threads, kit_pattern pattern)
{
    for (int i = 0; i < plan->count; i++)
        if (plan->cases[i].threads == threads && plan->cases[i].pattern == pattern)
            return 1;
    return 0;
}

START_TEST(the_plan_covers_every_block_size_and_pattern_with_seeds_drawn_anew_each_grading)
{
    kit_random first = {1}, second = {2};
    kit_plan a = {NULL, 0, 0}, b = {NULL, 0, 0};
    kit_error err;
    ck_assert_int_eq(kit_plan_correctness(&a, 10, 0, &first, &err), KIT_OK);
    ck_assert_int_eq(kit_plan_correctness(&b, 10, 0, &second, &err), KIT_OK);
    for (unsigned t = 64; t <= 1024; t *= 2)
        for (int p = 0; p < KIT_PATTERN_COUNT; p++)
            ck_assert_msg(plan_has(&a, t, (kit_pattern)p), "no case at %u threads with %s input", t,
                          kit_pattern_name((kit_pattern)p));
    int same_seeds = 0, seeded = 0;
    for (int i = 0; i < a.count && i < b.count; i++)
        if (a.cases[i].pattern != KIT_PATTERN_ONES && a.cases[i].pattern != KIT_PATTERN_LAST_ONLY) {
            seeded++;
            same_seeds += a.cases[i].seed == b.cases[i].seed;
            ck_assert_int_eq(a.cases[i].id, i);
        }
    ck_assert_msg(seeded > 100 && same_seeds == 0, "%d of %d seeds repeated between two gradings", same_seeds, seeded);
    kit_plan_free(&a);
    kit_plan_free(&b);
    /* the emulator's plan stays below its limit, and a float stage adds its reproducibility runs */
    kit_plan e = {NULL, 0, 0};
    ck_assert_int_eq(kit_plan_correctness(&e, 9, 4096, &first, &err), KIT_OK);
    int repeated = 0;
    for (int i = 0; i < e.count; i++) {
        ck_assert(e.cases[i].n >= 1 && e.cases[i].n <= 4096);
        repeated += e.cases[i].repeats == KIT_REPRODUCIBLE_RUNS;
    }
    ck_assert_int_eq(repeated, 2 * 5);
    kit_plan_free(&e);
}
END_TEST

/* The GPU plan of 3x3 matrices (9 words each) goes up to 2^21 words' worth, with that size in it;
 * an int stage's keeps its fixed sizes up to 2^20 + 7 and draws up to 2^21. */
START_TEST(a_gpu_plan_of_matrices_runs_sizes_up_to_2_21_words_and_that_size_itself)
{
    const size_t matrices_top = ((size_t)1 << 21) / 9;
    for (unsigned long long grading = 1; grading <= 4; grading++) {
        kit_random random = {grading};
        kit_plan matrices = {NULL, 0, 0}, ints = {NULL, 0, 0};
        kit_error err;
        ck_assert_int_eq(kit_plan_correctness(&matrices, 13, 0, &random, &err), KIT_OK);
        ck_assert_int_eq(kit_plan_correctness(&ints, 1, 0, &random, &err), KIT_OK);
        int at_top = 0, ints_at_largest_fixed = 0;
        for (int i = 0; i < matrices.count; i++) {
            ck_assert_msg(matrices.cases[i].n <= matrices_top, "a matrices case of n = %zu, above %zu",
                          matrices.cases[i].n, matrices_top);
            at_top += matrices.cases[i].n == matrices_top;
        }
        for (int i = 0; i < ints.count; i++)
            ints_at_largest_fixed += ints.cases[i].n == ((size_t)1 << 20) + 7;
        ck_assert_msg(at_top > 0, "the matrices plan has no case at its largest size, %zu", matrices_top);
        ck_assert_msg(ints_at_largest_fixed > 0, "the int plan lost its fixed size 2^20 + 7");
        kit_plan_free(&matrices);
        kit_plan_free(&ints);
    }
}
END_TEST

START_TEST(a_thinned_emulated_plan_keeps_every_size_and_runs_each_large_one_once_with_all_ones)
{
    const size_t above = (size_t)1 << 17;
    unsigned drawn_threads = 0; /* the block sizes drawn over the gradings below, as bits */
    for (unsigned long long grading = 1; grading <= 8; grading++) {
        kit_random random = {grading};
        kit_plan full = {NULL, 0, 0}, thin = {NULL, 0, 0};
        kit_error err;
        ck_assert_int_eq(kit_plan_correctness(&full, 3, KIT_EMULATED_MAX_N, &random, &err), KIT_OK);
        for (int i = 0; i < full.count; i++)
            ck_assert(kit_plan_append(&thin, &full.cases[i]));
        kit_plan_thin_large_sizes(&thin, above, &random);
        /* the cases up to the limit, unchanged and in order; every case numbered by its index */
        int t = 0;
        for (int i = 0; i < full.count; i++)
            if (full.cases[i].n <= above) {
                while (t < thin.count && thin.cases[t].n > above)
                    t++;
                ck_assert_int_lt(t, thin.count);
                ck_assert(thin.cases[t].n == full.cases[i].n && thin.cases[t].threads == full.cases[i].threads &&
                          thin.cases[t].pattern == full.cases[i].pattern && thin.cases[t].seed == full.cases[i].seed);
                t++;
            }
        for (int i = 0; i < thin.count; i++)
            ck_assert_int_eq(thin.cases[i].id, i);
        /* each size above it: still there, once, all ones, at a block size the full plan had */
        int large_sizes = 0;
        for (int i = 0; i < full.count; i++) {
            const size_t n = full.cases[i].n;
            int first = 1, in_thin = 0;
            for (int j = 0; j < i; j++)
                first &= full.cases[j].n != n;
            if (n <= above || !first)
                continue;
            large_sizes++;
            for (int j = 0; j < thin.count; j++)
                if (thin.cases[j].n == n) {
                    in_thin++;
                    ck_assert_int_eq(thin.cases[j].pattern, KIT_PATTERN_ONES);
                    ck_assert(thin.cases[j].threads >= 64 && thin.cases[j].threads <= 1024);
                    drawn_threads |= thin.cases[j].threads;
                }
            ck_assert_msg(in_thin == 1, "n = %zu runs %d times in the thinned plan", n, in_thin);
        }
        ck_assert_int_eq(large_sizes, 4); /* 3 * 2^18, 1000003, 2^20 and 2^20 + 7 */
        ck_assert_int_eq(thin.count, full.count - 4 * (2 * 5 - 1));
        kit_plan_free(&full);
        kit_plan_free(&thin);
    }
    ck_assert_msg(__builtin_popcount(drawn_threads) >= 3, "the block sizes drawn: 0x%x", drawn_threads);
}
END_TEST

START_TEST(the_plan_travels_to_the_runner_as_lines_it_reads_back)
{
    kit_random random = {3};
    kit_plan plan = {NULL, 0, 0};
    kit_error err;
    ck_assert_int_eq(kit_plan_repeats(&plan, 12, &random, &err), KIT_OK);
    char *text = kit_plan_text(&plan);
    int lines = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        kit_planned_case c;
        ck_assert_msg(kit_plan_parse_line(line, &c), "%s", line);
        const kit_planned_case *p = &plan.cases[lines];
        ck_assert(c.id == p->id && c.n == p->n && c.threads == p->threads && c.pattern == p->pattern &&
                  c.seed == p->seed && c.repeats == 10);
    }
    ck_assert_int_eq(lines, plan.count);
    kit_planned_case c;
    ck_assert(!kit_plan_parse_line("case id=0 n=0 threads=256 pattern=ones seed=1 repeats=1", &c));
    ck_assert(!kit_plan_parse_line("case id=0 n=5 threads=256 pattern=nothing seed=1 repeats=1", &c));
    free(text);
    kit_plan_free(&plan);
}
END_TEST

static kit_case answer_to(const kit_planned_case *p, int repeat, kit_status status)
{
    kit_case c;
    memset(&c, 0, sizeof c);
    c.id = p->id;
    c.n = p->n;
    c.threads = p->threads;
    c.pattern = p->pattern;
    c.seed = p->seed;
    c.repeat = repeat;
    c.status = status;
    return c;
}

START_TEST(the_answers_must_match_the_plan_one_for_each_run_no_more_no_less)
{
    kit_random random = {4};
    kit_plan plan = {NULL, 0, 0};
    kit_error err;
    ck_assert_int_eq(kit_plan_large(&plan, 3, &random, &err), KIT_OK);
    kit_case_log log = {NULL, 0, 0};
    for (int i = 0; i < plan.count; i++) {
        kit_case c = answer_to(&plan.cases[i], 0, KIT_OK);
        kit_case_log_add(&log, &c);
    }
    char why[512];
    ck_assert_msg(kit_plan_check(&plan, &log, 0, why, sizeof why) == 0, "%s", why);
    /* one missing */
    log.count--;
    ck_assert_int_eq(kit_plan_check(&plan, &log, 0, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "gave no answer for 1 of the"), "%s", why);
    /* ...unless a case failed: that decides the part on its own */
    log.cases[0].status = KIT_WRONG_RESULT;
    ck_assert_int_eq(kit_plan_check(&plan, &log, 0, why, sizeof why), 0);
    log.cases[0].status = KIT_OK;
    log.count++;
    /* one twice */
    kit_case twice = log.cases[2];
    kit_case_log_add(&log, &twice);
    ck_assert_int_eq(kit_plan_check(&plan, &log, 0, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "more than once"), "%s", why);
    log.count--;
    /* one the grader never asked for, and one that names another input */
    log.cases[1].id = plan.count;
    ck_assert_int_eq(kit_plan_check(&plan, &log, 0, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "never asked for"), "%s", why);
    log.cases[1].id = 1;
    log.cases[1].seed ^= 1;
    ck_assert_int_eq(kit_plan_check(&plan, &log, 0, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "names another case"), "%s", why);
    kit_case_log_free(&log);
    kit_plan_free(&plan);
}
END_TEST

START_TEST(speed_cases_are_drawn_from_half_to_twice_the_size_at_any_supported_block_size)
{
    kit_random random = {5};
    int seen[11] = {0};
    size_t low = (size_t)-1, high = 0;
    for (int i = 0; i < 2000; i++) {
        size_t n;
        unsigned threads;
        unsigned long long seed;
        kit_plan_speed_case(7, (size_t)1 << 26, &random, &n, &threads, &seed);
        ck_assert(n >= (size_t)1 << 25 && n <= (size_t)1 << 27);
        ck_assert(threads >= 64 && threads <= 1024 && (threads & (threads - 1)) == 0);
        seen[__builtin_ctz(threads)] = 1;
        low = n < low ? n : low;
        high = n > high ? n : high;
    }
    for (int k = 6; k <= 10; k++)
        ck_assert_msg(seen[k], "never timed at %d threads", 1 << k);
    ck_assert(low < ((size_t)1 << 25) + ((size_t)1 << 22) && high > ((size_t)1 << 27) - ((size_t)1 << 23));
    /* the load rule's case: the upper half of the emulator's range, two different block sizes */
    for (int i = 0; i < 200; i++) {
        size_t n;
        unsigned two[2];
        int count;
        kit_plan_load_case(15, 116509, &random, &n, two, &count);
        ck_assert(n >= 116509 / 2 && n <= 116509 && count == 2 && two[0] != two[1]);
        ck_assert(two[0] >= 64 && two[0] <= 1024 && two[1] >= 64 && two[1] <= 1024);
    }
}
END_TEST

START_TEST(a_file_only_the_emulator_cannot_build_is_graded_by_the_gpu_alone_with_a_note)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    make_dir();
    for (int p = 0; p < KIT_PART_COUNT; p++)
        if (p != KIT_PART_EMULATED_SPEED)
            put(8, (kit_part)p, KIT_OUTCOME_PASS, "ok");
    kit_result r;
    memset(&r, 0, sizeof r);
    r.outcome = KIT_OUTCOME_FAIL;
    r.not_built = 1;
    snprintf(r.message, sizeof r.message, "stage 8's file x.cu does not compile for the CPU emulator");
    kit_result_write(dir, 8, KIT_PART_EMULATED, &r);
    kit_result back;
    kit_result_read(dir, 8, KIT_PART_EMULATED, &back);
    ck_assert(back.not_built);
    put(8, KIT_PART_EMULATED_RACES, KIT_OUTCOME_FAIL, "stage 8's program ended before the grader got a verdict");
    kit_stage_grade g;
    kit_grade_stage(&c, dir, 8, &g);
    ck_assert_msg(g.score == 10 && g.emulator_not_built, "%g", g.score);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    kit_report_table(f, &g, 1, "Grade report");
    fclose(f);
    ck_assert_msg(strstr(text, "compiles with nvcc but not on the kit's CPU emulator") && strstr(text, "no points lost") &&
                      !strstr(text, "FAIL") && strstr(text, "10 / 10"),
                  "%s", text);
    free(text);
    /* without a GPU there is nothing else to grade it: no points */
    put(8, KIT_PART_CORRECTNESS, KIT_OUTCOME_SKIP, "not graded: no CUDA GPU");
    kit_grade_stage(&c, dir, 8, &g);
    ck_assert(g.score == 0 && !g.emulator_not_built);
}
END_TEST

START_TEST(a_load_rule_that_did_not_run_earns_no_speed_points)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    c.max_sectors_per_request[15] = 1.25; /* as tests/grader/grading.conf has it */
    make_dir();
    for (int p = 0; p < KIT_PART_COUNT; p++)
        if (p != KIT_PART_EMULATED_SPEED)
            put(15, (kit_part)p, KIT_OUTCOME_PASS, "ok");
    kit_stage_grade g;
    kit_grade_stage(&c, dir, 15, &g);
    ck_assert_msg(g.score == 8 && g.part_score[1] == 0 && g.load_rule_missing, "%g", g.score);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    kit_report_table(f, &g, 1, "Grade report");
    fclose(f);
    ck_assert_msg(strstr(text, "FAIL (no load rule ran)") && strstr(text, "did not run here"), "%s", text);
    free(text);
}
END_TEST

/* ------------------------------------------------------------ a picture of a failed emulated grade */

/* Issue 25: lab 8 with a plain += on its block count failed at n = 1025, 64 threads (two blocks);
 * the picture was drawn at n = 131 (2 x 64 + 3: one block, where no block meets another), right. */
START_TEST(a_picture_of_a_failed_grade_draws_a_failing_case_where_a_trace_holds_it)
{
    kit_picture_case p;
    /* the first failing case fits a trace: it, as graded */
    add(131, 64, KIT_PATTERN_ONES, 0, KIT_OK, 131, 131, "");
    add(1025, 64, KIT_PATTERN_ONES, 0, KIT_NO_RESULT, 0, 1025, "wrote no result");
    add(3000, 128, KIT_PATTERN_RANDOM, 0, KIT_WRONG_RESULT, 1, 2, "wrong");
    log_.cases[1].seed = 77;
    ck_assert_int_eq(kit_choose_picture_case(log_.cases, log_.count, (size_t)1 << 14, 64, 256, &p),
                     KIT_PICTURE_FIRST_FAILURE);
    ck_assert_msg(p.n == 1025 && p.threads == 64 && p.pattern == KIT_PATTERN_ONES && p.seed == 77, "n %zu, %u threads",
                  p.n, p.threads);
    ck_assert(p.failed_n == 1025 && p.failed_threads == 64);
    kit_case_log_free(&log_);
    /* the first is too large (n or block size): the smallest failing case that fits */
    add(1 << 20, 64, KIT_PATTERN_RANDOM, 0, KIT_WRONG_RESULT, 1, 2, "wrong");
    add(5000, 1024, KIT_PATTERN_RANDOM, 0, KIT_WRONG_RESULT, 1, 2, "wrong");
    add(9000, 256, KIT_PATTERN_POSITIONAL, 0, KIT_WRONG_RESULT, 1, 2, "wrong");
    add(4100, 128, KIT_PATTERN_ONES, 0, KIT_WRONG_RESULT, 1, 2, "wrong");
    add(100, 128, KIT_PATTERN_ONES, 0, KIT_OK, 100, 100, "");
    ck_assert_int_eq(kit_choose_picture_case(log_.cases, log_.count, (size_t)1 << 14, 64, 256, &p),
                     KIT_PICTURE_SMALLEST_FAILURE);
    ck_assert_msg(p.n == 4100 && p.threads == 128 && p.pattern == KIT_PATTERN_ONES, "n %zu, %u threads", p.n, p.threads);
    kit_case_log_free(&log_);
    /* none fits: a failing case's block size, pattern and seed at the largest n a trace holds */
    add(1 << 20, 1024, KIT_PATTERN_RANDOM, 0, KIT_WRONG_RESULT, 1, 2, "wrong");
    add(1 << 19, 128, KIT_PATTERN_POSITIONAL, 0, KIT_WRONG_RESULT, 1, 2, "wrong");
    log_.cases[1].seed = 9;
    ck_assert_int_eq(kit_choose_picture_case(log_.cases, log_.count, (size_t)1 << 14, 64, 256, &p),
                     KIT_PICTURE_LIKE_A_FAILURE);
    ck_assert_msg(p.n == (size_t)1 << 14 && p.threads == 128 && p.pattern == KIT_PATTERN_POSITIONAL && p.seed == 9 &&
                      p.failed_n == (size_t)1 << 19,
                  "n %zu, %u threads", p.n, p.threads);
    kit_case_log_free(&log_);
    add(1 << 20, 1024, KIT_PATTERN_RANDOM, 0, KIT_WRONG_RESULT, 1, 2, "wrong");
    ck_assert_int_eq(kit_choose_picture_case(log_.cases, log_.count, (size_t)1 << 14, 64, 256, &p),
                     KIT_PICTURE_LIKE_A_FAILURE);
    ck_assert(p.n == (size_t)1 << 14 && p.threads == 256 && p.failed_threads == 1024);
    kit_case_log_free(&log_);
    /* no failing case logged: the picture's own n (0), 64 threads */
    add(131, 64, KIT_PATTERN_ONES, 0, KIT_OK, 131, 131, "");
    ck_assert_int_eq(kit_choose_picture_case(log_.cases, log_.count, (size_t)1 << 14, 64, 256, &p),
                     KIT_PICTURE_NO_FAILURE);
    ck_assert(p.n == 0 && p.threads == 64);
    kit_case_log_free(&log_);
}
END_TEST

/* The report's words say what was drawn: the failing case where the drawn run went wrong, and
 * never the failing case where it went right. */
START_TEST(the_report_calls_a_picture_the_failing_case_only_where_the_drawn_run_went_wrong)
{
    kit_grade_config c;
    kit_grade_config_default(&c);
    make_dir();
    put(8, KIT_PART_EMULATED, KIT_OUTCOME_FAIL, "stage 8 failed 30 of 849 runs. First failure: stage 8 wrote no "
        "result (n = 1025, 64 threads, ones input, seed 1)");
    char page[256], note[256];
    snprintf(page, sizeof page, "%s/stage8-picture.html", dir);
    snprintf(note, sizeof note, "%s/stage8.picture", dir);
    FILE *f = fopen(page, "w");
    ck_assert_ptr_nonnull(f);
    fputs("<html></html>\n", f);
    fclose(f);
    static const struct {
        const char *drawn, *says, *never;
    } notes[] = {
        {"first", "Picture of your kernel in the failing case (n = 1025, 64 threads, pattern ones), which went wrong "
                  "again", "right answer"},
        {"smallest", "the smallest failing case small enough to draw (n = 1025", "right answer"},
        {"like", "at a failing case's block size, pattern and seed", "right answer"},
        {"right", "at n = 1025, 64 threads, pattern ones, which gave the right answer when drawn on the CPU emulator: "
                  "not a failing case", "in the failing case"},
    };
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
        f = fopen(note, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "%s\t1025\t64\tones\t%s\n", page, notes[i].drawn);
        fclose(f);
        kit_stage_grade g;
        kit_grade_stage(&c, dir, 8, &g);
        const char *m = g.parts[KIT_PART_EMULATED].message;
        ck_assert_msg(strstr(m, notes[i].says) && strstr(m, page) && !strstr(m, notes[i].never) &&
                          !strstr(m, "small run of that case"),
                      "%s: %s", notes[i].drawn, m);
    }
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("grader");
    TCase *config = tcase_create("config");
    tcase_add_test(config, config_defaults_are_0_8_of_the_reference_and_10_points_a_stage);
    tcase_add_test(config, config_applies_global_and_per_stage_keys);
    tcase_add_loop_test(config, config_refuses_bad_lines_naming_file_and_line, 0,
                        (int)(sizeof bad_configs / sizeof bad_configs[0]));
    tcase_add_test(config, shipped_grading_conf_parses);
    suite_add_tcase(suite, config);
    TCase *diagnosis = tcase_create("diagnosis");
    tcase_add_test(diagnosis, diagnosis_is_empty_when_every_run_passed);
    tcase_add_test(diagnosis, diagnosis_of_an_unfilled_skeleton_is_the_fill_in_message_alone);
    tcase_add_test(diagnosis, diagnosis_names_a_hard_coded_block_size);
    tcase_add_test(diagnosis, diagnosis_suspects_a_missing_barrier_when_only_the_smallest_block_passes);
    tcase_add_test(diagnosis, diagnosis_names_sizes_that_are_not_powers_of_two);
    tcase_add_test(diagnosis, diagnosis_names_a_race_when_repeats_disagree);
    tcase_add_test(diagnosis, diagnosis_counts_lost_and_doubled_elements_with_all_ones);
    tcase_add_test(diagnosis, diagnosis_after_a_hang_says_the_rest_was_skipped);
    tcase_add_test(diagnosis, diagnosis_names_the_tail_of_vector_loads_when_only_multiples_of_4_pass);
    tcase_add_test(diagnosis, diagnosis_names_no_size_rule_when_repeats_show_a_race);
    suite_add_tcase(suite, diagnosis);
    TCase *problems = tcase_create("problems");
    tcase_add_test(problems, stages_know_their_problem_baseline_and_speed_case_size);
    tcase_add_test(problems, answers_travel_as_words_and_nothing_else_is_read);
    tcase_add_test(problems, the_grader_judges_every_problem_from_its_own_reference);
    tcase_add_test(problems, a_float_stage_that_gives_other_bits_on_a_repeat_is_not_reproducible);
    tcase_add_test(problems, diagnosis_counts_elements_only_for_the_int_sum);
    suite_add_tcase(suite, problems);
    TCase *speedup = tcase_create("speedup");
    tcase_add_test(speedup, speedup_passes_a_stage_as_fast_as_the_reference_and_fails_a_slow_one);
    tcase_add_test(speedup, speedup_measures_again_when_noisy_or_close_and_gives_the_benefit_of_the_doubt_at_the_end);
    tcase_add_test(speedup, speedup_never_fails_the_reference_itself_however_noisy);
    tcase_add_test(speedup, speedup_uses_the_absolute_minimum_when_it_is_higher);
    tcase_add_test(speedup, median_and_spread_are_the_middle_and_the_relative_iqr);
    tcase_add_test(speedup, a_stage_that_is_its_own_baseline_must_reach_the_fraction_of_the_references_speed);
    tcase_add_test(speedup, the_emulators_load_rule_rejects_strided_reads_and_passes_coalesced_loads_of_any_width);
    suite_add_tcase(suite, speedup);
    TCase *report = tcase_create("report");
    tcase_add_test(report, result_files_round_trip);
    tcase_add_test(report, scores_give_speed_and_sanitizer_points_only_on_top_of_a_correct_stage);
    tcase_add_test(report, status_says_per_lab_not_started_not_graded_changed_fails_or_passes);
    tcase_add_test(report, an_emulated_grade_says_what_was_reachable_and_scales_to_full_marks_when_configured);
    tcase_add_test(report, emulated_results_earn_correctness_and_race_points_without_a_gpu_and_never_speed_points);
    tcase_add_test(report, a_failed_load_rule_takes_the_speed_points_a_gpu_gave_and_shows_without_one);
    tcase_add_test(report, a_file_only_the_emulator_cannot_build_is_graded_by_the_gpu_alone_with_a_note);
    tcase_add_test(report, a_load_rule_that_did_not_run_earns_no_speed_points);
    tcase_add_test(report, a_picture_of_a_failed_grade_draws_a_failing_case_where_a_trace_holds_it);
    tcase_add_test(report, the_report_calls_a_picture_the_failing_case_only_where_the_drawn_run_went_wrong);
    tcase_add_test(report, grade_report_program_prints_the_table_and_writes_json_and_csv);
    tcase_add_test(report, corpora_list_every_kind_of_mistake_cheat_and_valid_alternative_with_a_file);
    suite_add_tcase(suite, report);
    TCase *plan = tcase_create("plan");
    tcase_add_test(plan, the_plan_covers_every_block_size_and_pattern_with_seeds_drawn_anew_each_grading);
    tcase_add_test(plan, a_gpu_plan_of_matrices_runs_sizes_up_to_2_21_words_and_that_size_itself);
    tcase_add_test(plan, a_thinned_emulated_plan_keeps_every_size_and_runs_each_large_one_once_with_all_ones);
    tcase_add_test(plan, the_plan_travels_to_the_runner_as_lines_it_reads_back);
    tcase_add_test(plan, the_answers_must_match_the_plan_one_for_each_run_no_more_no_less);
    tcase_add_test(plan, speed_cases_are_drawn_from_half_to_twice_the_size_at_any_supported_block_size);
    suite_add_tcase(suite, plan);

    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

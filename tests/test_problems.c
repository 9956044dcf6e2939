/**
 * \file test_problems.c
 * \brief Host-only unit tests of common/problems.c: what each type and operator of
 * common/stages.def means (inputs, exact references, the float error bound, judging, the
 * varied inputs of timed runs), and that the stage table agrees with it. No CUDA call.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"

static const kit_problem float_sum = {KIT_FLOAT, KIT_SUM};
static const kit_problem int_min = {KIT_INT, KIT_MIN};
static const kit_problem int_max = {KIT_INT, KIT_MAX};
static const kit_problem int_argmin = {KIT_INT, KIT_ARGMIN};
static const kit_problem matrices = {KIT_MAT3, KIT_MIN};
static const kit_problem matrix_planes = {KIT_MAT3_SOA, KIT_MIN};

static int32_t word_of(float f)
{
    int32_t w;
    memcpy(&w, &f, sizeof w);
    return w;
}

static float float_of(int32_t w)
{
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
}

/* The exact sum of some floats, rounded to float by the long accumulator. */
static float exact_float(const float *values, size_t n)
{
    int32_t *words = malloc(n * sizeof *words);
    for (size_t i = 0; i < n; i++)
        words[i] = word_of(values[i]);
    kit_reference ref;
    kit_reference_compute(float_sum, words, n, &ref);
    free(words);
    return float_of(ref.answer.w[0]);
}

static int32_t *filled(kit_problem p, size_t n, kit_pattern pattern, uint64_t seed, kit_reference *ref)
{
    int32_t *words = malloc(n * kit_in_words(p) * sizeof *words);
    kit_fill_problem(p, words, n, pattern, seed);
    kit_reference_compute(p, words, n, ref);
    return words;
}

/* ------------------------------------------------------------ the exact float sum */

START_TEST(the_course_example_sums_to_50005000_exactly_where_a_running_float_sum_gives_50002896)
{
    kit_reference ref;
    int32_t *words = filled(float_sum, 10000, KIT_PATTERN_POSITIONAL, 1, &ref);
    float running = 0.0f;
    for (size_t i = 0; i < 10000; i++)
        running += float_of(words[i]);
    ck_assert_float_eq(float_of(ref.answer.w[0]), 50005000.0f);
    ck_assert_float_eq(running, 50002896.0f);
    kit_value got = {{word_of(running)}};
    char why[800];
    ck_assert_int_eq(kit_judge(&ref, KIT_PATTERN_POSITIONAL, words, &got, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "expected 50005000"));
    free(words);
}
END_TEST

START_TEST(exact_float_sum_rounds_to_nearest_even_and_keeps_what_cancels)
{
    const float tie_down[] = {0x1p24f, 1.0f};       /* 16777217: halfway, to even 16777216 */
    const float tie_up[] = {0x1p24f, 1.0f, 2.0f};    /* 16777219: halfway, to even 16777220 */
    const float cancel[] = {1e30f, 1.0f, -1e30f};    /* 1, which any float order but one loses */
    const float tiny[] = {0x1p-149f, 0x1p-149f};     /* two of the smallest subnormal: 2^-148 */
    const float negative[] = {-1.5f, 0.25f, -0x1p-30f};
    ck_assert_float_eq(exact_float(tie_down, 2), 16777216.0f);
    ck_assert_float_eq(exact_float(tie_up, 3), 16777220.0f);
    ck_assert_float_eq(exact_float(cancel, 3), 1.0f);
    ck_assert_float_eq(exact_float(tiny, 2), 0x1p-148f);
    ck_assert_float_eq(exact_float(negative, 3), -1.25f - 0x1p-30f);
}
END_TEST

/* ------------------------------------------------------------ the float error bound */

START_TEST(a_running_sum_over_2_24_then_ones_is_rejected_and_the_rounded_exact_sum_is_accepted)
{
    kit_reference ref;
    const size_t n = 1 << 16;
    int32_t *words = filled(float_sum, n, KIT_PATTERN_ONES, 1, &ref);
    float running = 0.0f;
    for (size_t i = 0; i < n; i++)
        running += float_of(words[i]);
    ck_assert_float_eq(running, 0x1p24f); /* every one was lost */
    char why[800];
    kit_value got = {{word_of(running)}};
    ck_assert_int_eq(kit_judge(&ref, KIT_PATTERN_ONES, words, &got, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "as a tree"));
    ck_assert_int_eq(kit_judge(&ref, KIT_PATTERN_ONES, words, &ref.answer, why, sizeof why), 1);
    kit_value nan = {{word_of(NAN)}};
    ck_assert_int_eq(kit_judge(&ref, KIT_PATTERN_ONES, words, &nan, why, sizeof why), 0);
    free(words);
}
END_TEST

START_TEST(float_bound_grows_with_log_n_and_the_sum_of_magnitudes)
{
    const double u = 0x1p-24;
    ck_assert(fabs(kit_float_bound(1024, 1.0) - (10 + KIT_FLOAT_RUN) * u / (1 - (10 + KIT_FLOAT_RUN) * u)) < 1e-15);
    ck_assert(kit_float_bound(1 << 20, 1.0) > kit_float_bound(1 << 10, 1.0));
    ck_assert(kit_float_bound(1 << 20, 2.0) == 2 * kit_float_bound(1 << 20, 1.0));
    ck_assert(kit_float_bound(1 << 26, 1.0) < 1e-4); /* far below a running sum's error at that size */
}
END_TEST

/* ------------------------------------------------------------ min, max, argmin, matrices */

START_TEST(min_and_max_patterns_leave_zero_out_so_a_wrong_identity_shows)
{
    kit_reference ref;
    for (int p = 0; p < KIT_PATTERN_COUNT; p++) {
        if (p == KIT_PATTERN_RANDOM)
            continue; /* random has zeros, negatives and positives */
        int32_t *mins = filled(int_min, 1000, (kit_pattern)p, 7, &ref);
        for (int i = 0; i < 1000; i++)
            ck_assert_int_gt(mins[i], 0);
        free(mins);
        int32_t *maxs = filled(int_max, 1000, (kit_pattern)p, 7, &ref);
        for (int i = 0; i < 1000; i++)
            ck_assert_int_lt(maxs[i], 0);
        free(maxs);
    }
    int32_t *words = filled(int_min, 1000, KIT_PATTERN_POSITIONAL, 7, &ref);
    kit_value zero = {{0}};
    char why[800];
    ck_assert_int_eq(kit_judge(&ref, KIT_PATTERN_POSITIONAL, words, &zero, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "identity"));
    free(words);
}
END_TEST

START_TEST(last_only_puts_the_minimum_in_the_very_last_element)
{
    kit_reference ref;
    int32_t *words = filled(int_min, 777, KIT_PATTERN_LAST_ONLY, 1, &ref);
    ck_assert_int_eq(ref.answer.w[0], 1);
    ck_assert_int_eq(words[776], 1);
    ck_assert_int_eq(words[775], 7);
    free(words);
    words = filled(int_argmin, 777, KIT_PATTERN_LAST_ONLY, 1, &ref);
    ck_assert_int_eq(ref.answer.w[1], 776);
    free(words);
}
END_TEST

START_TEST(argmin_answers_the_first_index_of_a_tie_and_explains_a_later_one)
{
    kit_reference ref;
    int32_t *words = filled(int_argmin, 5000, KIT_PATTERN_RANDOM, 3, &ref);
    int ties = 0, first = -1;
    for (int i = 0; i < 5000; i++)
        if (words[i] == -8) {
            ties++;
            if (first < 0)
                first = i;
        }
    ck_assert_int_gt(ties, 100); /* "inputs full of ties" */
    ck_assert_int_eq(ref.answer.w[0], -8);
    ck_assert_int_eq(ref.answer.w[1], first);
    kit_value later = ref.answer;
    for (int i = 4999; i >= 0; i--)
        if (words[i] == -8) {
            later.w[1] = i;
            break;
        }
    char why[800];
    ck_assert_int_eq(kit_judge(&ref, KIT_PATTERN_RANDOM, words, &later, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "smallest index"));
    free(words);
    words = filled(int_argmin, 100, KIT_PATTERN_ONES, 3, &ref);
    ck_assert_int_eq(ref.answer.w[1], 0); /* all equal: index 0 */
    free(words);
}
END_TEST

START_TEST(matrices_as_structures_and_as_planes_hold_the_same_matrices)
{
    kit_reference aos_ref, soa_ref;
    const size_t n = 1001;
    int32_t *aos = filled(matrices, n, KIT_PATTERN_POSITIONAL, 9, &aos_ref);
    int32_t *soa = filled(matrix_planes, n, KIT_PATTERN_POSITIONAL, 9, &soa_ref);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < 9; c++)
            ck_assert_int_eq(aos[9 * i + c], soa[c * n + i]);
    ck_assert_mem_eq(aos_ref.answer.w, soa_ref.answer.w, 9 * sizeof(int32_t));
    free(aos);
    free(soa);
    int32_t *last = filled(matrices, n, KIT_PATTERN_LAST_ONLY, 9, &aos_ref);
    for (size_t c = 0; c < 9; c++)
        ck_assert_int_eq(aos_ref.answer.w[c], 1);
    free(last);
}
END_TEST

START_TEST(reading_past_the_end_is_named_for_min_and_argmin)
{
    kit_reference ref;
    int32_t *words = filled(int_min, 100, KIT_PATTERN_RANDOM, 1, &ref);
    kit_value guard = {{kit_guard_word(int_min)}};
    char why[800];
    ck_assert_int_eq(kit_judge(&ref, KIT_PATTERN_RANDOM, words, &guard, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "past the end"));
    free(words);
    words = filled(int_argmin, 100, KIT_PATTERN_RANDOM, 1, &ref);
    kit_value beyond = {{kit_guard_word(int_argmin), 100}};
    ck_assert_int_eq(kit_judge(&ref, KIT_PATTERN_RANDOM, words, &beyond, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "past the end"));
    free(words);
}
END_TEST

/* ------------------------------------------------------------ timed runs' varied inputs */

START_TEST(varied_inputs_change_every_answer_and_match_their_reference)
{
    const kit_problem problems[] = {float_sum, int_min, int_max, int_argmin, matrices, matrix_planes};
    for (size_t p = 0; p < sizeof problems / sizeof problems[0]; p++) {
        for (int pattern = 0; pattern < KIT_PATTERN_COUNT; pattern++) {
            const size_t n = 3000;
            kit_reference first, ref, previous;
            int32_t *words = filled(problems[p], n, (kit_pattern)pattern, 11, &first);
            int32_t *original = malloc(n * kit_in_words(problems[p]) * sizeof *original);
            memcpy(original, words, n * kit_in_words(problems[p]) * sizeof *original);
            previous = first;
            for (uint64_t run = 1; run <= 6; run++) {
                ref = first;
                size_t at[KIT_MAX_WORDS];
                int32_t before[KIT_MAX_WORDS];
                int count = kit_vary_problem(&ref, &first, words, 11, run, at, before);
                ck_assert_int_ge(count, 1);
                kit_reference recomputed;
                kit_reference_compute(problems[p], words, n, &recomputed);
                char why[800];
                /* The incremental reference is the input's, and no earlier answer passes for it. */
                ck_assert_msg(kit_judge(&recomputed, (kit_pattern)pattern, words, &ref.answer, why, sizeof why),
                              "%s, run %d: %s", kit_problem_name(problems[p]), (int)run, why);
                ck_assert_int_eq(kit_judge(&recomputed, (kit_pattern)pattern, words, &first.answer, why, sizeof why),
                                 0);
                ck_assert_int_eq(
                    kit_judge(&recomputed, (kit_pattern)pattern, words, &previous.answer, why, sizeof why), 0);
                previous = recomputed;
                while (count-- > 0)
                    words[at[count]] = before[count];
                ck_assert_mem_eq(words, original, n * kit_in_words(problems[p]) * sizeof *original);
            }
            free(words);
            free(original);
        }
    }
}
END_TEST

/* ------------------------------------------------------------ the table */

START_TEST(every_stage_names_a_problem_the_kit_can_reduce_with_launchers_of_its_types)
{
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        const kit_stage *stage = kit_find_stage(kit_solutions_stages, k);
        kit_error err;
        ck_assert_msg(kit_problem_check(stage->problem, &err) == KIT_OK, "stage %d: %s", k, err.message);
        const kit_stage *baseline = kit_find_stage(kit_solutions_stages, stage->baseline);
        ck_assert_msg(baseline && kit_problem_equal(baseline->problem, stage->problem),
                      "stage %d: its baseline must be a stage of the same problem", k);
        if (stage->passes == KIT_PASSES_MANY)
            ck_assert_msg(kit_in_words(stage->problem) == kit_out_words(stage->problem) &&
                              stage->problem.op != KIT_ARGMIN,
                          "stage %d: a launcher called again on its partial results must read what it writes", k);
        const char *in_type, *out_type;
        kit_problem_ctypes(stage->problem, &in_type, &out_type);
        ck_assert_ptr_nonnull(stage->signature);
        ck_assert_str_eq(stage->signature->in_type, in_type);
        ck_assert_str_eq(stage->signature->out_type, out_type);
    }
    kit_error err;
    ck_assert_int_eq(kit_problem_check((kit_problem){KIT_FLOAT, KIT_ARGMIN}, &err), KIT_BAD_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "float sum"));
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("problems");
    TCase *floats = tcase_create("floats");
    tcase_add_test(floats, the_course_example_sums_to_50005000_exactly_where_a_running_float_sum_gives_50002896);
    tcase_add_test(floats, exact_float_sum_rounds_to_nearest_even_and_keeps_what_cancels);
    tcase_add_test(floats, a_running_sum_over_2_24_then_ones_is_rejected_and_the_rounded_exact_sum_is_accepted);
    tcase_add_test(floats, float_bound_grows_with_log_n_and_the_sum_of_magnitudes);
    suite_add_tcase(suite, floats);
    TCase *extremes = tcase_create("extremes");
    tcase_add_test(extremes, min_and_max_patterns_leave_zero_out_so_a_wrong_identity_shows);
    tcase_add_test(extremes, last_only_puts_the_minimum_in_the_very_last_element);
    tcase_add_test(extremes, argmin_answers_the_first_index_of_a_tie_and_explains_a_later_one);
    tcase_add_test(extremes, matrices_as_structures_and_as_planes_hold_the_same_matrices);
    tcase_add_test(extremes, reading_past_the_end_is_named_for_min_and_argmin);
    suite_add_tcase(suite, extremes);
    TCase *timed = tcase_create("timed");
    tcase_add_test(timed, varied_inputs_change_every_answer_and_match_their_reference);
    tcase_add_test(timed, every_stage_names_a_problem_the_kit_can_reduce_with_launchers_of_its_types);
    suite_add_tcase(suite, timed);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

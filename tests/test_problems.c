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

#include "accuracy.h"
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
    /* random, full-range and ties hold both signs; the min's all-negative and the max's
     * all-positive have the right extreme whatever the start */
    const kit_pattern no_zero[] = {KIT_PATTERN_POSITIONAL, KIT_PATTERN_ONES, KIT_PATTERN_LAST_ONLY};
    for (size_t k = 0; k <= sizeof no_zero / sizeof no_zero[0]; k++) {
        const int small = k < sizeof no_zero / sizeof no_zero[0];
        int32_t *mins = filled(int_min, 1000, small ? no_zero[k] : KIT_PATTERN_ALL_POSITIVE, 7, &ref);
        for (int i = 0; i < 1000; i++)
            ck_assert_int_gt(mins[i], 0);
        free(mins);
        int32_t *maxs = filled(int_max, 1000, small ? no_zero[k] : KIT_PATTERN_ALL_NEGATIVE, 7, &ref);
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

/* ------------------------------------------------------------ full-range inputs */

static const kit_pattern full_range[] = {KIT_PATTERN_FULL_RANGE, KIT_PATTERN_ALL_NEGATIVE, KIT_PATTERN_ALL_POSITIVE,
                                         KIT_PATTERN_TIES, KIT_PATTERN_LONE_SIGN};
#define FULL_RANGE_COUNT (sizeof full_range / sizeof full_range[0])
static const kit_problem int_sum = {KIT_INT, KIT_SUM};

/* Where a stage finds component c of element i. */
static size_t word_at(kit_problem p, size_t n, size_t i, size_t c)
{
    return p.type == KIT_MAT3_SOA ? c * n + i : i * kit_in_words(p) + c;
}

/* What a min, max, argmin or matrix min returns that never reads the input words whose index is
 * `residue` mod `modulus`: w of every int4 is 3 mod 4, one int of each 16-int load r mod 16. */
static kit_value reduce_skipping(kit_problem p, const int32_t *words, size_t n, size_t modulus, size_t residue)
{
    kit_value out;
    memset(&out, 0, sizeof out);
    for (size_t c = 0; c < kit_in_words(p); c++) {
        int32_t best = p.op == KIT_MAX ? INT32_MIN : INT32_MAX;
        size_t at = 0;
        for (size_t i = 0; i < n; i++) {
            const size_t w = word_at(p, n, i, c);
            if (w % modulus == residue)
                continue;
            if (p.op == KIT_MAX ? words[w] > best : words[w] < best) {
                best = words[w];
                at = i;
            }
        }
        out.w[c] = best;
        if (p.op == KIT_ARGMIN)
            out.w[1] = (int32_t)at;
    }
    return out;
}

/* A float converted back to int as the GPU's cvt.rzi.s32.f32 does: saturating. */
static int32_t int_of_float(float f)
{
    return f >= 0x1p31f ? INT32_MAX : f < -0x1p31f ? INT32_MIN : (int32_t)f;
}

/* A min or max that compares the ints as floats (fminf, fmaxf) and converts the result back. */
static kit_value reduce_as_floats(kit_problem p, const int32_t *words, size_t n)
{
    kit_value out;
    memset(&out, 0, sizeof out);
    for (size_t c = 0; c < kit_in_words(p); c++) {
        float best = p.op == KIT_MAX ? -INFINITY : INFINITY;
        for (size_t i = 0; i < n; i++) {
            const float v = (float)words[word_at(p, n, i, c)];
            best = p.op == KIT_MAX ? fmaxf(best, v) : fminf(best, v);
        }
        out.w[c] = int_of_float(best);
    }
    return out;
}

/* An argmin over 64-bit keys (value in the high half, index in the low), compared as unsigned:
 * right only if the value's sign bit is flipped first. */
static kit_value argmin_by_key(const int32_t *words, size_t n, int flip_sign)
{
    const uint32_t flip = flip_sign ? 0x80000000u : 0u;
    uint64_t best = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        const uint64_t key = (uint64_t)((uint32_t)words[i] ^ flip) << 32 | (uint32_t)i;
        if (key < best)
            best = key;
    }
    kit_value out;
    memset(&out, 0, sizeof out);
    const uint32_t bits = (uint32_t)(best >> 32) ^ flip;
    memcpy(&out.w[0], &bits, sizeof bits);
    out.w[1] = (int32_t)(uint32_t)best;
    return out;
}

static int same_answer(kit_problem p, const kit_value *a, const kit_value *b)
{
    return memcmp(a->w, b->w, kit_out_words(p) * sizeof(int32_t)) == 0;
}

START_TEST(words_asked_for_one_by_one_are_the_words_filled)
{
    const kit_problem problems[] = {int_sum, float_sum, int_min, int_max, int_argmin, matrices, matrix_planes};
    const size_t sizes[] = {1, 10, 257};
    for (size_t p = 0; p < sizeof problems / sizeof problems[0]; p++)
        for (int pattern = 0; pattern < KIT_PATTERN_COUNT; pattern++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                const size_t n = sizes[s];
                kit_reference ref;
                int32_t *words = filled(problems[p], n, (kit_pattern)pattern, 5 + n, &ref);
                for (size_t i = 0; i < n; i++)
                    for (size_t c = 0; c < kit_in_words(problems[p]); c++)
                        ck_assert_int_eq(kit_pattern_word(problems[p], n, (kit_pattern)pattern, 5 + n, i, c),
                                         words[word_at(problems[p], n, i, c)]);
                free(words);
            }
}
END_TEST

/* The grader's large inputs (2^24 words and more) are made and checked on every core, a piece each
 * (common/input.c): the words are those asked for one by one, on both sides of every piece's edge,
 * and the reference is the one a single scan gives, the first index of a tie included. */
START_TEST(large_inputs_made_on_every_core_hold_the_words_and_the_reference_of_one_scan)
{
    const kit_problem problems[] = {int_sum, float_sum, int_min, int_max, int_argmin, matrices, matrix_planes};
    for (size_t p = 0; p < sizeof problems / sizeof problems[0]; p++) {
        const kit_problem problem = problems[p];
        const size_t components = kit_in_words(problem);
        const size_t n = ((size_t)1 << 24) / components + 1001; /* 2^24 words and more: in pieces */
        const int pieces = kit_input_pieces(n * components);
        /* Three patterns a problem, each pattern for two problems or more, chosen for what the
         * pieces must get right: the int sum's full-range sum made in pieces (kit_pattern_sum),
         * ties of the argmin and the extremes that lie in one piece only. Every problem at every
         * pattern (63 inputs of 2^24 words) was 22 CPU-s of a 2-core make check (2026-11-27). */
        static const kit_pattern chosen[][3] = {
            {KIT_PATTERN_FULL_RANGE, KIT_PATTERN_ALL_NEGATIVE, KIT_PATTERN_RANDOM},   /* int sum */
            {KIT_PATTERN_ONES, KIT_PATTERN_FULL_RANGE, KIT_PATTERN_LAST_ONLY},        /* float sum */
            {KIT_PATTERN_LONE_SIGN, KIT_PATTERN_ALL_POSITIVE, KIT_PATTERN_TIES},      /* int min */
            {KIT_PATTERN_LONE_SIGN, KIT_PATTERN_ALL_NEGATIVE, KIT_PATTERN_POSITIONAL}, /* int max */
            {KIT_PATTERN_TIES, KIT_PATTERN_FULL_RANGE, KIT_PATTERN_LONE_SIGN},        /* int argmin */
            {KIT_PATTERN_TIES, KIT_PATTERN_RANDOM, KIT_PATTERN_LAST_ONLY},            /* matrices */
            {KIT_PATTERN_ALL_POSITIVE, KIT_PATTERN_POSITIONAL, KIT_PATTERN_ONES},     /* matrix planes */
        };
        for (int j = 0; j < 3; j++) {
            const int pattern = (int)chosen[p][j];
            const uint64_t seed = 11 + (uint64_t)pattern;
            kit_reference ref;
            int32_t *words = filled(problem, n, (kit_pattern)pattern, seed, &ref);
            for (int k = 0; k <= pieces; k++) { /* each piece's first and last element, and the ends */
                const size_t edge = k == pieces ? n : n / (size_t)pieces * (size_t)k;
                for (size_t i = edge >= 2 ? edge - 2 : 0; i < edge + 2 && i < n; i++)
                    for (size_t c = 0; c < components; c++)
                        ck_assert_int_eq(kit_pattern_word(problem, n, (kit_pattern)pattern, seed, i, c),
                                         words[word_at(problem, n, i, c)]);
            }
            for (size_t i = 0; i < n; i += 9973)
                ck_assert_int_eq(kit_pattern_word(problem, n, (kit_pattern)pattern, seed, i, 0),
                                 words[word_at(problem, n, i, 0)]);
            if (problem.op == KIT_SUM && problem.type == KIT_INT) {
                int64_t sum = 0;
                for (size_t i = 0; i < n; i++)
                    sum += words[i];
                ck_assert(ref.int_sum == sum);
                ck_assert(kit_pattern_sum(n, (kit_pattern)pattern, seed) == sum);
                ck_assert_int_eq(ref.answer.w[0], kit_expected_int(sum));
            } else if (problem.op == KIT_ARGMIN) {
                size_t at = 0;
                for (size_t i = 1; i < n; i++)
                    if (words[i] < words[at])
                        at = i;
                ck_assert_int_eq(ref.answer.w[0], words[at]);
                ck_assert_int_eq(ref.answer.w[1], (int32_t)at);
            } else if (problem.type == KIT_FLOAT) { /* against its two halves, each checked on one core */
                kit_reference low, high;
                kit_reference_compute(problem, words, n / 2, &low);
                kit_reference_compute(problem, words + n / 2, n - n / 2, &high);
                const double total = kit_exact_to_double(&low.float_sum) + kit_exact_to_double(&high.float_sum);
                ck_assert_int_eq(ref.answer.w[0], word_of((float)total));
                /* running sums of doubles, added in other pieces: within n u = 1e-9 of each other */
                ck_assert(fabs(ref.abs_sum - (low.abs_sum + high.abs_sum)) <= 1e-9 * ref.abs_sum);
                ck_assert(ref.abs_max == fmax(low.abs_max, high.abs_max));
            } else {
                for (size_t c = 0; c < components; c++) {
                    int32_t best = words[word_at(problem, n, 0, c)];
                    for (size_t i = 1; i < n; i++) {
                        const int32_t v = words[word_at(problem, n, i, c)];
                        if (problem.op == KIT_MAX ? v > best : v < best)
                            best = v;
                    }
                    ck_assert_int_eq(ref.answer.w[c], best);
                }
            }
            free(words);
        }
    }
}
END_TEST

/* Every listed element holds the extreme, every other is strictly beyond it, and the reference
 * (an argmin's index too) says the same. */
START_TEST(the_extreme_index_agrees_with_the_filled_data)
{
    const kit_problem problems[] = {int_sum, float_sum, int_min, int_max, int_argmin, matrices, matrix_planes};
    const size_t sizes[] = {1, 2, 9, 10, 1000, 4099};
    for (size_t p = 0; p < sizeof problems / sizeof problems[0]; p++)
        for (size_t k = 0; k < FULL_RANGE_COUNT; k++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                for (uint64_t seed = 0; seed < 40; seed += 13) {
                    const kit_problem problem = problems[p];
                    const size_t n = sizes[s];
                    kit_reference ref;
                    int32_t *words = filled(problem, n, full_range[k], seed, &ref);
                    ck_assert_uint_eq(kit_pattern_extreme_index(problem, n, full_range[k], seed), seed % n);
                    for (size_t c = 0; c < kit_in_words(problem); c++) {
                        size_t at[KIT_PATTERN_MAX_TIES];
                        const size_t count = kit_pattern_extremes(problem, n, full_range[k], seed, c, at);
                        ck_assert_uint_ge(count, 1);
                        const int32_t extreme = words[word_at(problem, n, at[0], c)];
                        size_t listed = 0;
                        for (size_t i = 0; i < n; i++) {
                            const int32_t v = words[word_at(problem, n, i, c)];
                            const int holds = listed < count && at[listed] == i;
                            listed += holds;
                            if (holds) {
                                ck_assert_int_eq(v, extreme);
                            } else if (problem.type == KIT_FLOAT) {
                                ck_assert(fabsf(float_of(v)) < fabsf(float_of(extreme)));
                            } else if (problem.op == KIT_MAX) {
                                ck_assert_int_lt(v, extreme);
                            } else {
                                ck_assert_int_gt(v, extreme); /* min, argmin, matrices and the int sum's values */
                            }
                        }
                        ck_assert_uint_eq(listed, count); /* in increasing order, inside the input */
                        if (problem.type != KIT_FLOAT && problem.op != KIT_SUM)
                            ck_assert_int_eq(ref.answer.w[c], extreme);
                        if (problem.op == KIT_ARGMIN)
                            ck_assert_int_eq(ref.answer.w[1], (int32_t)at[0]);
                        if (full_range[k] == KIT_PATTERN_TIES && n - at[0] >= KIT_PATTERN_MAX_TIES)
                            ck_assert_uint_eq(count, KIT_PATTERN_MAX_TIES);
                        else if (full_range[k] != KIT_PATTERN_TIES)
                            ck_assert_uint_eq(count, 1);
                    }
                    free(words);
                }
}
END_TEST

/* The grader picks where the extreme goes: any index, so every residue of any load width, the
 * last element and the edges of blocks, and other values for each variant. */
START_TEST(a_seed_puts_the_extreme_at_any_index_the_grader_asks_for)
{
    const size_t n = 5003;
    const size_t wanted[] = {0, 1, 2, 3, 15, 16, 255, 256, 1023, 1024, n - 2, n - 1};
    for (size_t k = 0; k < FULL_RANGE_COUNT; k++)
        for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++)
            for (uint64_t variant = 0; variant < 3; variant++) {
                const uint64_t seed = kit_pattern_seed_at(n, wanted[w], variant);
                ck_assert_uint_eq(kit_pattern_extreme_index(int_argmin, n, full_range[k], seed), wanted[w]);
                ck_assert_uint_eq(kit_pattern_extreme_index(float_sum, n, full_range[k], seed), wanted[w]);
                kit_reference ref;
                int32_t *words = filled(int_argmin, n, full_range[k], seed, &ref);
                ck_assert_int_eq(ref.answer.w[1], (int32_t)wanted[w]);
                /* another variant, other values around the same place */
                int32_t other = kit_pattern_word(int_argmin, n, full_range[k], kit_pattern_seed_at(n, wanted[w], 9),
                                                 (wanted[w] + 1) % n, 0);
                ck_assert_int_ne(other, words[(wanted[w] + 1) % n]);
                free(words);
            }
    /* the small patterns plant nothing, but last-only's extreme is the last element */
    ck_assert_uint_eq(kit_pattern_extreme_index(int_min, n, KIT_PATTERN_RANDOM, 1), KIT_NO_EXTREME);
    ck_assert_uint_eq(kit_pattern_extreme_index(int_min, n, KIT_PATTERN_LAST_ONLY, 1), n - 1);
}
END_TEST

START_TEST(full_range_ints_reach_both_ends_of_the_type_and_beyond_2_24)
{
    const size_t n = 20000;
    const kit_problem problems[] = {int_sum, int_min, int_max, int_argmin, matrices};
    for (size_t p = 0; p < sizeof problems / sizeof problems[0]; p++)
        for (size_t k = 0; k < FULL_RANGE_COUNT; k++) {
            kit_reference ref;
            const size_t count = n * kit_in_words(problems[p]);
            int32_t *words = filled(problems[p], n, full_range[k], 3, &ref);
            size_t negative = 0, positive = 0, beyond_2_24 = 0, near_min = 0, near_max = 0;
            for (size_t i = 0; i < count; i++) {
                negative += words[i] < 0;
                positive += words[i] > 0;
                beyond_2_24 += words[i] > (1 << 24) || words[i] < -(1 << 24);
                near_min += words[i] < INT32_MIN + 8192;
                near_max += words[i] > INT32_MAX - 8192;
            }
            const int sign = full_range[k] == KIT_PATTERN_ALL_NEGATIVE ? -1 : full_range[k] == KIT_PATTERN_ALL_POSITIVE;
            ck_assert_uint_gt(beyond_2_24, count * 3 / 4);
            if (full_range[k] == KIT_PATTERN_LONE_SIGN) {
                /* one extreme per component alone on its side of zero, the rest on the other */
                const int max = problems[p].op == KIT_MAX;
                ck_assert_uint_eq(max ? positive : negative, kit_in_words(problems[p]));
                ck_assert_uint_eq(max ? negative : positive, count - kit_in_words(problems[p]));
                ck_assert_uint_gt(max ? near_min : near_max, count / 20);
                free(words);
                continue;
            }
            ck_assert_uint_eq(negative, sign > 0 ? 0 : sign < 0 ? count : negative);
            ck_assert_uint_eq(positive, sign < 0 ? 0 : sign > 0 ? count : positive);
            if (sign == 0)
                ck_assert(negative > count / 3 && positive > count / 3);
            if (sign <= 0)
                ck_assert_uint_gt(near_min, count / 20);
            if (sign >= 0)
                ck_assert_uint_gt(near_max, count / 20);
            free(words);
        }
}
END_TEST

/* A kernel that never reads one int of each 16 (or w of each int4, or one component of each
 * matrix) is right on inputs whose extreme it happens to read; a seed that puts the extreme on
 * the int it skips makes it wrong, whichever int that is, for every problem and full-range
 * pattern; kit_judge names the element it never compared. */
START_TEST(a_reduction_that_skips_one_int_of_each_load_is_wrong_on_a_seed_of_every_residue)
{
    const kit_problem problems[] = {int_min, int_max, int_argmin, matrices, matrix_planes};
    const size_t moduli[] = {16, 4, 9};
    const size_t n = 1000; /* not a multiple of 16: the tail has its residues too */
    for (size_t p = 0; p < sizeof problems / sizeof problems[0]; p++)
        for (size_t k = 0; k < FULL_RANGE_COUNT; k++)
            for (size_t m = 0; m < sizeof moduli / sizeof moduli[0]; m++)
                for (size_t residue = 0; residue < moduli[m]; residue++) {
                    const kit_problem problem = problems[p];
                    if (full_range[k] == KIT_PATTERN_TIES && problem.op != KIT_ARGMIN)
                        continue; /* its copies keep the value: only an argmin's index shows a skip */
                    /* as the grader would: the first seed from index 480 on whose extreme (of some
                     * component) is a word of this residue */
                    uint64_t seed = 0;
                    int found = 0;
                    for (size_t index = 480; index < n && !found; index++) {
                        seed = kit_pattern_seed_at(n, index, 1);
                        for (size_t c = 0; c < kit_in_words(problem) && !found; c++) {
                            size_t at[KIT_PATTERN_MAX_TIES];
                            kit_pattern_extremes(problem, n, full_range[k], seed, c, at);
                            found = word_at(problem, n, at[0], c) % moduli[m] == residue;
                        }
                    }
                    ck_assert(found);
                    kit_reference ref;
                    int32_t *words = filled(problem, n, full_range[k], seed, &ref);
                    const kit_value got = reduce_skipping(problem, words, n, moduli[m], residue);
                    ck_assert_msg(!same_answer(problem, &got, &ref.answer), "%s, %s, a kernel that skips words %zu mod "
                                  "%zu passes", kit_problem_name(problem), kit_pattern_name(full_range[k]), residue,
                                  moduli[m]);
                    char why[800];
                    ck_assert_int_eq(kit_judge(&ref, full_range[k], words, &got, why, sizeof why), 0);
                    const int whole_component = problem.type == KIT_MAT3 && moduli[m] == 9; /* every matrix's */
                    ck_assert_msg(strstr(why, full_range[k] == KIT_PATTERN_TIES ? "smallest index"
                                              : whole_component              ? "the identity, came out"
                                                                             : "never compared"),
                                  "%s", why);
                    free(words);
                }
}
END_TEST

START_TEST(an_int_sum_that_skips_one_int_of_16_is_wrong_at_every_residue)
{
    const size_t n = 4099;
    for (size_t k = 0; k < FULL_RANGE_COUNT; k++) {
        kit_reference ref;
        int32_t *words = filled(int_sum, n, full_range[k], 11, &ref);
        for (size_t residue = 0; residue < 16; residue++) {
            uint32_t wrapped = 0; /* the GPU's adds: modulo 2^32 */
            for (size_t i = 0; i < n; i++)
                wrapped += i % 16 == residue ? 0u : (uint32_t)words[i];
            ck_assert_int_ne(kit_expected_int((int64_t)wrapped), ref.answer.w[0]);
        }
        free(words);
    }
}
END_TEST

/* fmaxf holds ints exactly up to 2^24; every full-range extreme is beyond that and no float, so
 * a max (or min) that compares as floats returns a rounded value, which the small patterns
 * cannot show. */
START_TEST(comparing_ints_as_floats_fails_on_every_full_range_pattern)
{
    const kit_problem problems[] = {int_min, int_max, matrices, matrix_planes};
    for (size_t p = 0; p < sizeof problems / sizeof problems[0]; p++) {
        for (size_t k = 0; k < FULL_RANGE_COUNT; k++)
            for (uint64_t seed = 0; seed < 50; seed += 7) {
                kit_reference ref;
                int32_t *words = filled(problems[p], 777, full_range[k], seed, &ref);
                const kit_value got = reduce_as_floats(problems[p], words, 777);
                ck_assert(!same_answer(problems[p], &got, &ref.answer));
                char why[800];
                ck_assert_int_eq(kit_judge(&ref, full_range[k], words, &got, why, sizeof why), 0);
                ck_assert_msg(strstr(why, "rounded to a float") != NULL, "%s", why);
                free(words);
            }
        kit_reference ref;
        int32_t *words = filled(problems[p], 777, KIT_PATTERN_RANDOM, 1, &ref);
        const kit_value got = reduce_as_floats(problems[p], words, 777);
        ck_assert(same_answer(problems[p], &got, &ref.answer)); /* why the small patterns are not enough */
        free(words);
    }
}
END_TEST

/* The corpus's wrong argmin (tests/wrong_kernels/argmin_key_without_sign_flip.cu): each block
 * finds the first smallest (value, index) of its grid-stride share right, then the blocks meet
 * in keys compared as unsigned, without the sign flip. */
static kit_value argmin_blocks_meet_by_unflipped_key(const int32_t *words, size_t n, size_t blocks, size_t threads)
{
    uint64_t best = UINT64_MAX;
    for (size_t b = 0; b < blocks; b++) {
        int32_t value = INT32_MAX;
        size_t at = SIZE_MAX;
        for (size_t t = 0; t < threads; t++)
            for (size_t i = b * threads + t; i < n; i += blocks * threads)
                if (words[i] < value || (words[i] == value && i < at)) {
                    value = words[i];
                    at = i;
                }
        const uint64_t key = (uint64_t)(uint32_t)value << 32 | (uint32_t)at;
        if (at != SIZE_MAX && key < best)
            best = key;
    }
    kit_value out;
    memset(&out, 0, sizeof out);
    const uint32_t bits = (uint32_t)(best >> 32);
    memcpy(&out.w[0], &bits, sizeof bits);
    out.w[1] = (int32_t)(uint32_t)best;
    return out;
}

/* As unsigned numbers every negative int is above every positive one: an argmin key (value,
 * index) must flip the value's sign bit; without it a non-negative value wins. */
START_TEST(an_argmin_key_without_the_sign_flip_is_wrong_where_signs_mix)
{
    const kit_pattern mixed[] = {KIT_PATTERN_FULL_RANGE, KIT_PATTERN_TIES, KIT_PATTERN_LONE_SIGN};
    for (size_t k = 0; k < 3; k++)
        for (uint64_t seed = 0; seed < 30; seed += 3) {
            kit_reference ref;
            int32_t *words = filled(int_argmin, 3000, mixed[k], seed, &ref);
            const kit_value unflipped = argmin_by_key(words, 3000, 0);
            ck_assert(!same_answer(int_argmin, &unflipped, &ref.answer));
            char why[800];
            ck_assert_int_eq(kit_judge(&ref, mixed[k], words, &unflipped, why, sizeof why), 0);
            ck_assert_msg(strstr(why, "sign bit") != NULL, "%s", why);
            free(words);
        }
    /* Where keys only meet between blocks, each block's own minimum must be non-negative for the
     * mistake to show: with both signs everywhere every block holds a negative, and it passes;
     * lone-sign leaves all but one block without one, whatever the grid. */
    const size_t n = 20000;
    const size_t grids[][2] = {{2, 64}, {5, 1024}, {132, 256}, {1000, 64}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
        for (uint64_t seed = 0; seed < 20; seed += 3) {
            kit_reference ref;
            int32_t *words = filled(int_argmin, n, KIT_PATTERN_FULL_RANGE, seed, &ref);
            kit_value got = argmin_blocks_meet_by_unflipped_key(words, n, grids[g][0], grids[g][1]);
            if (n / (grids[g][0] * grids[g][1]) >= 64) /* every block reads 64 values or more */
                ck_assert(same_answer(int_argmin, &got, &ref.answer));
            free(words);
            words = filled(int_argmin, n, KIT_PATTERN_LONE_SIGN, kit_pattern_seed_at(n, seed * 997, 1), &ref);
            got = argmin_blocks_meet_by_unflipped_key(words, n, grids[g][0], grids[g][1]);
            ck_assert(!same_answer(int_argmin, &got, &ref.answer));
            char why[800];
            ck_assert_int_eq(kit_judge(&ref, KIT_PATTERN_LONE_SIGN, words, &got, why, sizeof why), 0);
            ck_assert_msg(strstr(why, "sign bit") != NULL, "%s", why);
            free(words);
        }
    /* the flipped key is right on every pattern, ties to the first index included */
    for (int pattern = 0; pattern < KIT_PATTERN_COUNT; pattern++) {
        kit_reference ref;
        int32_t *words = filled(int_argmin, 3000, (kit_pattern)pattern, 8, &ref);
        const kit_value flipped = argmin_by_key(words, 3000, 1);
        ck_assert_msg(same_answer(int_argmin, &flipped, &ref.answer), "%s", kit_pattern_name((kit_pattern)pattern));
        free(words);
    }
}
END_TEST

/* The minimum at several indices, each in its own block of 1024 once n is large: blocks must
 * settle the tie, and the lowest index must win. */
START_TEST(ties_put_the_minimum_far_apart_and_the_first_index_wins)
{
    const size_t n = (size_t)1 << 16;
    for (uint64_t seed = 0; seed < 5; seed++) {
        const uint64_t s = kit_pattern_seed_at(n, (size_t)(seed * 977), seed);
        kit_reference ref;
        int32_t *words = filled(int_argmin, n, KIT_PATTERN_TIES, s, &ref);
        size_t at[KIT_PATTERN_MAX_TIES];
        ck_assert_uint_eq(kit_pattern_extremes(int_argmin, n, KIT_PATTERN_TIES, s, 0, at), KIT_PATTERN_MAX_TIES);
        for (size_t j = 1; j < KIT_PATTERN_MAX_TIES; j++)
            ck_assert_uint_ge(at[j] / 1024, at[j - 1] / 1024 + 1);
        ck_assert_int_eq(ref.answer.w[1], (int32_t)at[0]);
        /* a reduction that lets a later equal value win (<= instead of <) */
        kit_value later = ref.answer;
        later.w[1] = (int32_t)at[KIT_PATTERN_MAX_TIES - 1];
        char why[800];
        ck_assert_int_eq(kit_judge(&ref, KIT_PATTERN_TIES, words, &later, why, sizeof why), 0);
        ck_assert_msg(strstr(why, "smallest index") != NULL, "%s", why);
        free(words);
    }
    /* the matrices' components tie in their own matrices */
    kit_reference ref;
    int32_t *words = filled(matrices, 9000, KIT_PATTERN_TIES, 4, &ref);
    for (size_t c = 0; c < 9; c++) {
        size_t at[KIT_PATTERN_MAX_TIES];
        ck_assert_uint_eq(kit_pattern_extremes(matrices, 9000, KIT_PATTERN_TIES, 4, c, at), KIT_PATTERN_MAX_TIES);
        ck_assert_uint_eq(at[0], (4 + c * 1000) % 9000);
        for (size_t j = 0; j < KIT_PATTERN_MAX_TIES; j++)
            ck_assert_int_eq(words[9 * at[j] + c], ref.answer.w[c]);
    }
    free(words);
}
END_TEST

/* Sum of x[t], x[t + threads], ... for each thread (a grid-stride loop), then a tree over the
 * threads' sums: the order stage 9 is written for. */
static float sum_runs_then_tree(const float *x, size_t n, size_t threads)
{
    float *partial = calloc(threads, sizeof *partial);
    for (size_t t = 0; t < threads; t++)
        for (size_t i = t; i < n; i += threads)
            partial[t] += x[i];
    const float sum = kit_float_sum_pairwise(partial, threads);
    free(partial);
    return sum;
}

static float sum_reversed(const float *x, size_t n)
{
    float sum = 0.0f;
    for (size_t i = n; i-- > 0;)
        sum += x[i];
    return sum;
}

/*
 * kit_float_bound() proves gamma_h sum|x| for any order of depth h = ceil(log2 n) + KIT_FLOAT_RUN
 * (no overflow): a running sum of up to KIT_FLOAT_RUN + 1 values, forwards or backwards, a tree,
 * or runs of KIT_FLOAT_RUN per thread under a tree. The new patterns hold no infinity and stay
 * far from overflow, so each of these orders is within it; and the sum does not cancel, so the
 * bound stays small against it.
 */
START_TEST(the_float_bound_holds_for_sequential_reversed_and_tree_orders_of_the_new_patterns)
{
    const size_t running[] = {1, 2, 7, 100, 513};
    const size_t trees[] = {4096, (size_t)1 << 20};
    for (size_t k = 0; k < FULL_RANGE_COUNT; k++)
        for (uint64_t seed = 0; seed < 4; seed++) {
            for (size_t s = 0; s < sizeof running / sizeof running[0] + sizeof trees / sizeof trees[0]; s++) {
                const int tree_only = s >= sizeof running / sizeof running[0];
                const size_t n = tree_only ? trees[s - sizeof running / sizeof running[0]] : running[s];
                kit_reference ref;
                int32_t *words = filled(float_sum, n, full_range[k], seed * 1000 + n, &ref);
                const float *x = (const float *)(const void *)words;
                const double exact = kit_exact_to_double(&ref.float_sum);
                const double bound = kit_float_bound(n, ref.abs_sum);
                ck_assert(fabs(exact) >= ref.abs_sum / 4); /* the bound means something against the sum */
                float sums[4];
                int count = 0;
                sums[count++] = kit_float_sum_pairwise(x, n);
                sums[count++] = sum_runs_then_tree(x, n, n / KIT_FLOAT_RUN + 1);
                if (!tree_only) {
                    sums[count++] = kit_float_sum_sequential(x, n);
                    sums[count++] = sum_reversed(x, n);
                }
                for (int j = 0; j < count; j++) {
                    ck_assert_msg(fabs((double)sums[j] - exact) <= bound, "%s, n = %zu, order %d: off by %g, bound %g",
                                  kit_pattern_name(full_range[k]), n, j, fabs((double)sums[j] - exact), bound);
                    kit_value got = {{word_of(sums[j])}};
                    char why[800];
                    ck_assert_msg(kit_judge(&ref, full_range[k], words, &got, why, sizeof why), "%s", why);
                }
                free(words);
            }
        }
}
END_TEST

/* The float sum's planted value is far beyond the bound: a sum that never reads it is wrong,
 * whichever float of its loads that is. */
START_TEST(a_float_sum_that_skips_one_float_of_16_is_wrong_on_a_seed_of_every_residue)
{
    const size_t n = 1000;
    float *kept = malloc(n * sizeof *kept);
    for (size_t k = 0; k < FULL_RANGE_COUNT; k++)
        for (size_t residue = 0; residue < 16; residue++) {
            const uint64_t seed = kit_pattern_seed_at(n, 496 + residue, 2);
            kit_reference ref;
            int32_t *words = filled(float_sum, n, full_range[k], seed, &ref);
            size_t count = 0;
            for (size_t i = 0; i < n; i++)
                if (i % 16 != residue)
                    kept[count++] = float_of(words[i]);
            kit_value got = {{word_of(kit_float_sum_pairwise(kept, count))}};
            char why[800];
            ck_assert_int_eq(kit_judge(&ref, full_range[k], words, &got, why, sizeof why), 0);
            ck_assert_msg(strstr(why, "largest value") != NULL, "%s", why);
            free(words);
        }
    free(kept);
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
    TCase *full = tcase_create("full range");
    tcase_set_timeout(full, 120);
    tcase_add_test(full, words_asked_for_one_by_one_are_the_words_filled);
    tcase_add_test(full, large_inputs_made_on_every_core_hold_the_words_and_the_reference_of_one_scan);
    tcase_add_test(full, the_extreme_index_agrees_with_the_filled_data);
    tcase_add_test(full, a_seed_puts_the_extreme_at_any_index_the_grader_asks_for);
    tcase_add_test(full, full_range_ints_reach_both_ends_of_the_type_and_beyond_2_24);
    tcase_add_test(full, a_reduction_that_skips_one_int_of_each_load_is_wrong_on_a_seed_of_every_residue);
    tcase_add_test(full, an_int_sum_that_skips_one_int_of_16_is_wrong_at_every_residue);
    tcase_add_test(full, comparing_ints_as_floats_fails_on_every_full_range_pattern);
    tcase_add_test(full, an_argmin_key_without_the_sign_flip_is_wrong_where_signs_mix);
    tcase_add_test(full, ties_put_the_minimum_far_apart_and_the_first_index_wins);
    tcase_add_test(full, the_float_bound_holds_for_sequential_reversed_and_tree_orders_of_the_new_patterns);
    tcase_add_test(full, a_float_sum_that_skips_one_float_of_16_is_wrong_on_a_seed_of_every_residue);
    suite_add_tcase(suite, full);
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

/**
 * \file test_host.c
 * \brief Host-only unit tests: the CPU reference, the input patterns, option parsing, the
 * stage table and the ladder's sections, the reading of Nsight Compute's output, the ladder's
 * CPU rows and the float sums of `reduce_ladder --accuracy` (accuracy.c). They need no GPU and
 * make no CUDA call, so they run everywhere, CI included.
 */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accuracy.h"
#include "counters.h"
#include "kit.h"
#include "options.h"

/* ------------------------------------------------------------ reference */

START_TEST(reference_sum_adds_signed_values_exactly)
{
    const int values[] = {1, 2, 3, -4, 10};
    ck_assert_int_eq(kit_reference_sum(values, 5), 12);
    ck_assert_int_eq(kit_reference_sum(values, 1), 1);
    ck_assert_int_eq(kit_reference_sum(values, 0), 0);
}
END_TEST

START_TEST(reference_sum_does_not_overflow_where_int32_would)
{
    const int values[] = {INT_MAX, INT_MAX, INT_MAX, INT_MIN};
    ck_assert(kit_reference_sum(values, 3) == 3LL * INT_MAX);
    ck_assert(kit_reference_sum(values, 4) == 3LL * INT_MAX + INT_MIN);
}
END_TEST

START_TEST(expected_int_wraps_like_the_gpu_adds)
{
    ck_assert_int_eq(kit_expected_int(-1), -1);
    ck_assert_int_eq(kit_expected_int(123456), 123456);
    ck_assert_int_eq(kit_expected_int(2147483648LL), INT_MIN);
    ck_assert_int_eq(kit_expected_int(4294967296LL + 5), 5);
}
END_TEST

/* ------------------------------------------------------------ input patterns */

enum { SAMPLE = 4096 };

START_TEST(random_input_is_small_signed_and_repeatable_per_seed)
{
    static int a[SAMPLE], b[SAMPLE], c[SAMPLE];
    kit_fill_input(a, SAMPLE, KIT_PATTERN_RANDOM, 42);
    kit_fill_input(b, SAMPLE, KIT_PATTERN_RANDOM, 42);
    kit_fill_input(c, SAMPLE, KIT_PATTERN_RANDOM, 43);
    ck_assert_mem_eq(a, b, sizeof a);
    ck_assert(memcmp(a, c, sizeof a) != 0);
    int negative = 0, positive = 0;
    for (int i = 0; i < SAMPLE; i++) {
        ck_assert_int_ge(a[i], -8);
        ck_assert_int_le(a[i], 8);
        negative += a[i] < 0;
        positive += a[i] > 0;
    }
    ck_assert_int_gt(negative, SAMPLE / 4);
    ck_assert_int_gt(positive, SAMPLE / 4);
}
END_TEST

START_TEST(positional_input_changes_the_sum_when_any_element_is_dropped_or_doubled)
{
    static int a[SAMPLE];
    kit_fill_input(a, SAMPLE, KIT_PATTERN_POSITIONAL, 7);
    int64_t sum = kit_reference_sum(a, SAMPLE);
    int distinct_neighbours = 0;
    for (int i = 0; i < SAMPLE; i++) {
        ck_assert_int_ge(a[i], 1);
        ck_assert_int_le(a[i], 15);
        ck_assert(sum - a[i] != sum); /* dropped */
        ck_assert(sum + a[i] != sum); /* doubled */
        distinct_neighbours += i > 0 && a[i] != a[i - 1];
    }
    ck_assert_int_gt(distinct_neighbours, SAMPLE / 2);
    /* The largest n the kit takes cannot overflow 32 bits with this pattern up to 2^27. */
    ck_assert(15LL * (1LL << 27) <= INT_MAX);
}
END_TEST

START_TEST(ones_input_sums_to_n)
{
    static int a[SAMPLE];
    kit_fill_input(a, 1000, KIT_PATTERN_ONES, 3);
    ck_assert_int_eq(kit_reference_sum(a, 1000), 1000);
}
END_TEST

START_TEST(last_only_input_has_one_value_in_the_last_slot)
{
    static int a[SAMPLE];
    for (size_t n = 1; n <= 33; n += 16) {
        memset(a, 0x55, sizeof a);
        kit_fill_input(a, n, KIT_PATTERN_LAST_ONLY, 3);
        ck_assert_int_eq(a[n - 1], 7);
        ck_assert_int_eq(kit_reference_sum(a, n), 7);
    }
}
END_TEST

START_TEST(pattern_names_round_trip_and_unknown_names_are_refused)
{
    kit_error err;
    for (int p = 0; p < KIT_PATTERN_COUNT; p++) {
        kit_pattern parsed = KIT_PATTERN_RANDOM;
        ck_assert_int_eq(kit_pattern_parse(kit_pattern_name((kit_pattern)p), &parsed, &err), KIT_OK);
        ck_assert_int_eq(parsed, p);
    }
    kit_pattern parsed;
    ck_assert_int_eq(kit_pattern_parse("zeros", &parsed, &err), KIT_BAD_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "zeros"));
    ck_assert_ptr_nonnull(strstr(err.message, "random, positional, ones, last-only, full-range, all-negative, "
                                              "all-positive, ties or lone-sign")); /* every row of the table */
    ck_assert_ptr_nonnull(strstr(kit_usage(), "ties or lone-sign"));
}
END_TEST

/* The grader recomputes an int sum's answer without storing its input: the two must agree for
 * every pattern, the full-range ones (whose int64 sums pass INT_MAX many times over) included. */
START_TEST(pattern_sum_equals_the_sum_of_the_filled_input_for_every_pattern)
{
    static int a[65537];
    const size_t sizes[] = {1, 2, 17, 1000, 65537};
    for (int p = 0; p < KIT_PATTERN_COUNT; p++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (uint64_t seed = 0; seed < 3; seed++) {
                kit_fill_input(a, sizes[s], (kit_pattern)p, seed * 1000003);
                ck_assert_msg(kit_pattern_sum(sizes[s], (kit_pattern)p, seed * 1000003) == kit_reference_sum(a, sizes[s]),
                              "%s, n = %zu", kit_pattern_name((kit_pattern)p), sizes[s]);
            }
}
END_TEST

/* The GPU's int adds wrap; the expected int must be the wrapped exact sum, which the int32 adds
 * of a kernel reach in any order. */
START_TEST(full_range_int_sums_wrap_and_the_expected_int_is_what_wrapping_adds_give)
{
    static int a[SAMPLE];
    const kit_pattern full[] = {KIT_PATTERN_FULL_RANGE, KIT_PATTERN_ALL_NEGATIVE, KIT_PATTERN_ALL_POSITIVE,
                                KIT_PATTERN_TIES, KIT_PATTERN_LONE_SIGN};
    for (size_t k = 0; k < sizeof full / sizeof full[0]; k++) {
        kit_fill_input(a, SAMPLE, full[k], 9);
        const int64_t exact = kit_reference_sum(a, SAMPLE);
        uint32_t forwards = 0, backwards = 0;
        for (int i = 0; i < SAMPLE; i++) {
            forwards += (uint32_t)a[i];
            backwards += (uint32_t)a[SAMPLE - 1 - i];
        }
        ck_assert_uint_eq((uint32_t)kit_expected_int(exact), forwards);
        ck_assert_uint_eq(forwards, backwards);
        if (full[k] != KIT_PATTERN_FULL_RANGE && full[k] != KIT_PATTERN_TIES)
            ck_assert(exact < INT_MIN || exact > INT_MAX); /* one sign: far outside int32 */
        int large = 0;
        for (int i = 0; i < SAMPLE; i++)
            large += a[i] > (1 << 24) || a[i] < -(1 << 24);
        ck_assert_int_gt(large, SAMPLE * 3 / 4);
    }
    /* n = 2^30 values of magnitude up to 2^31 sum within int64 */
    ck_assert(((uint64_t)1 << 30) * ((uint64_t)1 << 31) <= (uint64_t)INT64_MAX);
}
END_TEST

/* ------------------------------------------------------------ options */

static kit_status parse(kit_options *o, kit_error *err, const char *a, const char *b, const char *c)
{
    char *argv[] = {"reduce_ladder", (char *)a, (char *)b, (char *)c, NULL};
    int argc = 1 + (a != NULL) + (b != NULL) + (c != NULL);
    return kit_parse_options(argc, argv, o, err);
}

START_TEST(options_default_to_all_solutions_at_2_26_with_256_threads)
{
    kit_options o;
    kit_error err;
    ck_assert_int_eq(parse(&o, &err, NULL, NULL, NULL), KIT_OK);
    ck_assert_int_eq(o.stage, 0);
    ck_assert_int_eq(o.use_labs, 0);
    ck_assert(o.n == (size_t)1 << 26);
    ck_assert_uint_eq(o.threads, 256);
    ck_assert_int_ge(o.reps, KIT_MIN_REPS);
    ck_assert_int_eq(o.baselines, 1);
}
END_TEST

START_TEST(options_accept_every_form_they_document)
{
    kit_options o;
    kit_error err;
    ck_assert_int_eq(parse(&o, &err, "--stage", "3", "--impl=labs"), KIT_OK);
    ck_assert_int_eq(o.stage, 3);
    ck_assert_int_eq(o.use_labs, 1);
    ck_assert_int_eq(parse(&o, &err, "--n", "2^20", "--threads=1024"), KIT_OK);
    ck_assert(o.n == (size_t)1 << 20);
    ck_assert_uint_eq(o.threads, 1024);
    ck_assert_int_eq(parse(&o, &err, "--n=1<<10", "--format", "json"), KIT_OK);
    ck_assert(o.n == 1024);
    ck_assert_int_eq(o.format, KIT_FORMAT_JSON);
    ck_assert_int_eq(parse(&o, &err, "--n", "1", "--stage=all"), KIT_OK);
    ck_assert(o.n == 1);
    ck_assert_int_eq(o.stage, 0);
    ck_assert_int_eq(parse(&o, &err, "--seed", "99", "--no-baselines"), KIT_OK);
    ck_assert(o.seed == 99);
    ck_assert_int_eq(o.baselines, 0);
    ck_assert_int_eq(o.emulate, 0);
    ck_assert_int_eq(parse(&o, &err, "--emulate", NULL, NULL), KIT_OK);
    ck_assert_int_eq(o.emulate, 1);
    ck_assert_int_eq(parse(&o, &err, "--pattern", "last-only", "--help"), KIT_OK);
    ck_assert_int_eq(o.pattern, KIT_PATTERN_LAST_ONLY);
    ck_assert_int_eq(o.help, 1);
}
END_TEST

/* Each bad command line is refused with a message naming the option. */
static const struct {
    const char *a, *b;
    const char *says;
} bad_lines[] = {
    {"--n", "0", "--n"},             {"--n", "2^31", "--n"},         {"--n", "12abc", "--n"},
    {"--n", "-5", "--n"},            {"--n", "3^4", "--n"},          {"--n", NULL, "--n"},
    {"--threads", "100", "power"},   {"--threads", "32", "power"},   {"--threads", "2048", "power"},
    {"--stage", "99", "stage"},      {"--stage", "0", "stage"},      {"--stage", "two", "stage"},
    {"--impl", "mine", "--impl"},    {"--reps", "5", "--reps"},      {"--format", "xml", "--format"},
    {"--pattern", "zeros", "zeros"}, {"--frobnicate", NULL, "unknown option"},
    {"--seed", "-1", "--seed"},      {"--timeout", "0", "--timeout"},
    {"--stage", "--impl", "--stage needs a value"}, /* the next option is not a value */
    {"--timeout", "-1", "whole number, not"},       /* no --n example for a timeout */
    {"--from", "1000", "--from must be a power of two"}, {"--from", "2^9", "--from must be a power of two"},
    {"--to", "2^29", "--to must be a power of two"},     {"--to", "lots", "--to must be a power of two"},
    {"--from", NULL, "--from must be a power of two"},   {"--to", "-4096", "--to must be a power of two"},
    {"--from", "2^12", "--from and --to set the sizes of --sweep"}, /* no --sweep (or --accuracy) */
};

START_TEST(bad_options_are_refused_with_a_message_naming_them)
{
    kit_options o;
    kit_error err = {KIT_OK, ""};
    ck_assert_int_eq(parse(&o, &err, bad_lines[_i].a, bad_lines[_i].b, NULL), KIT_BAD_ARGUMENT);
    ck_assert_msg(strstr(err.message, bad_lines[_i].says) != NULL, "'%s %s' gave: %s", bad_lines[_i].a,
                  bad_lines[_i].b ? bad_lines[_i].b : "", err.message);
}
END_TEST

/* The sweep's options, and what does not go with them. */
START_TEST(sweep_and_host_options_are_parsed_and_checked_together)
{
    kit_options o;
    kit_error err = {KIT_OK, ""};
    ck_assert_int_eq(parse(&o, &err, NULL, NULL, NULL), KIT_OK);
    ck_assert_int_eq(o.sweep, 0);
    ck_assert_int_eq(o.host, -1); /* the host rows: with the full ladder only */
    ck_assert(o.sweep_from == KIT_SWEEP_MIN_N && o.sweep_from == (size_t)1 << 10);
    ck_assert(o.sweep_to == KIT_SWEEP_MAX_N && o.sweep_to == (size_t)1 << 28);
    ck_assert_int_eq(parse(&o, &err, "--no-host", NULL, NULL), KIT_OK);
    ck_assert_int_eq(o.host, 0);
    ck_assert_int_eq(parse(&o, &err, "--stage", "8", "--host"), KIT_OK);
    ck_assert_int_eq(o.host, 1);
    ck_assert_int_eq(o.stage, 8);
    ck_assert_int_eq(parse(&o, &err, "--sweep", NULL, NULL), KIT_OK);
    ck_assert_int_eq(o.sweep, 1);
    ck_assert_int_eq(o.sweep_to_given, 0);
    ck_assert_int_eq(parse(&o, &err, "--sweep", "--from=2^12", "--to=1<<16"), KIT_OK);
    ck_assert(o.sweep_from == 4096 && o.sweep_to == 65536);
    ck_assert_int_eq(o.sweep_to_given, 1);
    ck_assert_int_eq(parse(&o, &err, "--sweep", "--from=1024", "--to=1024"), KIT_OK); /* one size */
    ck_assert(o.sweep_from == 1024 && o.sweep_to == 1024);
    ck_assert_int_eq(parse(&o, &err, "--sweep", "--to=268435456", "--stage=all"), KIT_OK);
    ck_assert(o.sweep_to == (size_t)1 << 28);
    ck_assert_int_eq(parse(&o, &err, "--sweep", "--no-host", "--no-baselines"), KIT_OK);

    static const struct {
        const char *a, *b, *c;
        const char *says;
    } refused[] = {
        {"--sweep", "--from=2^20", "--to=2^12", "--from (2^20) is larger than --to (2^12)"},
        {"--sweep", "--stage", "3", "it takes no --stage"},
        {"--sweep", "--n", "2^20", "it takes no --n"},
        {"--sweep", "--counters", NULL, "--counters goes with the ladder"},
        {"--sweep", "--host", NULL, "--host goes with the ladder"},
        {"--to", "2^16", NULL, "--from and --to set the sizes of --sweep or --accuracy, and neither was given"},
        {"--sweep", "--from", "3000", "--from must be a power of two from 2^10 to 2^28"},
        {"--sweep", "--to", "2^30", "--to must be a power of two from 2^10 to 2^28"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        err.message[0] = '\0';
        ck_assert_int_eq(parse(&o, &err, refused[i].a, refused[i].b, refused[i].c), KIT_BAD_ARGUMENT);
        ck_assert_msg(strstr(err.message, refused[i].says) != NULL, "'%s %s %s' gave: %s", refused[i].a,
                      refused[i].b, refused[i].c ? refused[i].c : "", err.message);
        ck_assert_ptr_null(strchr(err.message, '\n'));
    }
    /* --help lists them */
    ck_assert_ptr_nonnull(strstr(kit_usage(), "--sweep"));
    ck_assert_ptr_nonnull(strstr(kit_usage(), "--from N"));
    ck_assert_ptr_nonnull(strstr(kit_usage(), "--to N"));
    ck_assert_ptr_nonnull(strstr(kit_usage(), "--no-host"));
    ck_assert_ptr_nonnull(strstr(kit_usage(), "--host "));
}
END_TEST

/* --accuracy, and the ladder's sections */
START_TEST(accuracy_options_are_parsed_and_checked_together)
{
    kit_options o;
    kit_error err = {KIT_OK, ""};
    ck_assert_int_eq(parse(&o, &err, NULL, NULL, NULL), KIT_OK);
    ck_assert_int_eq(o.accuracy, 0);
    ck_assert_int_eq(parse(&o, &err, "--accuracy", NULL, NULL), KIT_OK);
    ck_assert_int_eq(o.accuracy, 1);
    ck_assert_int_eq(o.sweep_to_given, 0); /* --to defaults to KIT_ACCURACY_MAX_N there */
    ck_assert(KIT_ACCURACY_MAX_N == (size_t)1 << 26);
    ck_assert_int_eq(parse(&o, &err, "--accuracy", "--to=2^12", "--impl=labs"), KIT_OK);
    ck_assert(o.sweep_to == 4096 && o.sweep_to_given && o.use_labs);
    ck_assert_int_eq(parse(&o, &err, "--accuracy", "--from=2^14", "--format=json"), KIT_OK);
    ck_assert(o.sweep_from == (size_t)1 << 14 && o.format == KIT_FORMAT_JSON);
    ck_assert_int_eq(parse(&o, &err, "--stage", "9", NULL), KIT_OK); /* any stage of stages.def */
    ck_assert_int_eq(o.stage, 9);
    ck_assert_int_eq(parse(&o, &err, "--stage", "3", "--host"), KIT_OK);

    static const struct {
        const char *a, *b, *c;
        const char *says;
    } refused[] = {
        {"--accuracy", "--sweep", NULL, "--sweep and --accuracy are two different runs"},
        {"--accuracy", "--stage", "9", "it takes no --stage"},
        {"--accuracy", "--n", "2^20", "it takes no --n"},
        {"--accuracy", "--counters", NULL, "--counters goes with the ladder, not with --accuracy"},
        {"--accuracy", "--host", NULL, "--host goes with the ladder"},
        {"--accuracy", "--from=2^16", "--to=2^12", "--from (2^16) is larger than --to (2^12)"},
        {"--accuracy", "--from=2^28", NULL, "--from (2^28) is larger than --to (2^26)"},
        {"--stage", "9", "--host", "--host adds the int sum's CPU and copy rows"},
        {"--stage", "14", "--host", "stage 14 computes the element-wise min of 3x3 int matrices stored as 9 planes"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        err.message[0] = '\0';
        ck_assert_int_eq(parse(&o, &err, refused[i].a, refused[i].b, refused[i].c), KIT_BAD_ARGUMENT);
        ck_assert_msg(strstr(err.message, refused[i].says) != NULL, "'%s %s %s' gave: %s", refused[i].a,
                      refused[i].b, refused[i].c ? refused[i].c : "", err.message);
        ck_assert_ptr_null(strchr(err.message, '\n'));
    }
    ck_assert_ptr_nonnull(strstr(kit_usage(), "--accuracy"));
    ck_assert_ptr_nonnull(strstr(kit_usage(), "Kahan"));
}
END_TEST

/* The ladder's sections: one per problem, the 3x3 matrices' layouts side by side. */
START_TEST(ladder_sections_follow_the_stage_table)
{
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        const kit_stage *s = kit_find_stage(kit_solutions_stages, k);
        ck_assert(kit_problem_equal(kit_stage_problem(k), s->problem));
        const int section = kit_ladder_section(k);
        ck_assert_int_ge(section, 1);
        ck_assert_int_le(section, k);
        /* a section's baseline reduces the same data with the same operator */
        const kit_problem base = kit_stage_problem(section);
        ck_assert_int_eq(base.op, s->problem.op);
        ck_assert_int_eq(kit_in_words(base), kit_in_words(s->problem));
        if (kit_problem_equal(s->problem, KIT_INT_SUM))
            ck_assert_int_eq(section, 1);
        else
            ck_assert_int_eq(section, kit_ladder_section(s->baseline)); /* and its own baseline's */
    }
    ck_assert_int_eq(kit_ladder_section(0), 0);
    ck_assert_int_eq(kit_ladder_section(KIT_STAGE_COUNT + 1), 0);
    /* the lesson of the 3x3 exercise: AoS, SoA and coalesced AoS in one section */
    for (int k = 1; k <= KIT_STAGE_COUNT; k++)
        if (kit_stage_problem(k).type == KIT_MAT3 || kit_stage_problem(k).type == KIT_MAT3_SOA)
            ck_assert_int_eq(kit_ladder_section(k), 13);
    ck_assert_int_eq(kit_ladder_section(9), 9);
    ck_assert_ptr_nonnull(strstr(kit_usage(), "stages 13, 14, 15"));
    ck_assert_ptr_nonnull(strstr(kit_usage(), "stages 1-8"));
}
END_TEST

/* ------------------------------------------------------------ float sums (accuracy.c) */

START_TEST(course_example_in_float_loses_2104_sequentially_and_nothing_otherwise)
{
    /* the course's example, as the float sum's positional pattern makes it: 1, 2, ..., 10000 */
    enum { N = 10000 };
    const kit_problem float_sum = {KIT_FLOAT, KIT_SUM};
    static int32_t words[N];
    static float x[N];
    kit_fill_problem(float_sum, words, N, KIT_PATTERN_POSITIONAL, 1);
    memcpy(x, words, sizeof x);
    for (int i = 0; i < N; i++)
        ck_assert(x[i] == (float)(i + 1));
    kit_reference ref;
    kit_reference_compute(float_sum, words, N, &ref);
    ck_assert(kit_exact_to_double(&ref.float_sum) == 50005000.0);
    ck_assert(kit_float_sum_sequential(x, N) == 50002896.0f); /* the seed's figure */
    ck_assert(kit_float_sum_pairwise(x, N) == 50005000.0f);
    ck_assert(kit_float_sum_kahan(x, N) == 50005000.0f);
    ck_assert(kit_float_sum_neumaier(x, N) == 50005000.0f);
    ck_assert_double_eq_tol(kit_relative_error(50002896.0, 50005000.0), 2104.0 / 50005000.0, 1e-15);
}
END_TEST

START_TEST(neumaier_keeps_what_kahan_loses_when_a_value_outgrows_the_sum)
{
    const float x[] = {1e8f, 1.0f, -1e8f}; /* 1e8 is a float; 1e8 + 1 is not (spacing 8) */
    ck_assert(kit_float_sum_sequential(x, 3) == 0.0f);
    ck_assert(kit_float_sum_pairwise(x, 3) == 0.0f);
    ck_assert(kit_float_sum_kahan(x, 3) == 0.0f); /* the 1 was in the sum's lost bits, not the value's */
    ck_assert(kit_float_sum_neumaier(x, 3) == 1.0f);
    /* nothing, one value */
    ck_assert(kit_float_sum_sequential(x, 0) == 0.0f && kit_float_sum_pairwise(x, 0) == 0.0f &&
              kit_float_sum_kahan(x, 0) == 0.0f && kit_float_sum_neumaier(x, 0) == 0.0f);
    ck_assert(kit_float_sum_sequential(x, 1) == 1e8f && kit_float_sum_pairwise(x, 1) == 1e8f &&
              kit_float_sum_kahan(x, 1) == 1e8f && kit_float_sum_neumaier(x, 1) == 1e8f);
    /* 2^24 then ones: the running sum cannot grow by 1; the compensated sums can */
    static float ones[1025];
    ones[0] = 0x1p24f;
    for (int i = 1; i < 1025; i++)
        ones[i] = 1.0f;
    ck_assert(kit_float_sum_sequential(ones, 1025) == 0x1p24f);
    ck_assert(kit_float_sum_kahan(ones, 1025) == 0x1p24f + 1024.0f);
    ck_assert(kit_float_sum_neumaier(ones, 1025) == 0x1p24f + 1024.0f);
    ck_assert(kit_relative_error(0.0, 0.0) == 0.0);
    ck_assert(kit_relative_error(-2.0, 0.0) == 2.0);
}
END_TEST

START_TEST(pairwise_error_grows_with_log_n_and_sequential_with_n)
{
    const size_t n = (size_t)1 << 20;
    const kit_problem float_sum = {KIT_FLOAT, KIT_SUM};
    int32_t *words = malloc(n * sizeof *words);
    float *x = malloc(n * sizeof *x);
    ck_assert(words && x);
    kit_fill_problem(float_sum, words, n, KIT_PATTERN_RANDOM, 1);
    memcpy(x, words, n * sizeof *x);
    kit_reference ref;
    kit_reference_compute(float_sum, words, n, &ref);
    const double exact = kit_exact_to_double(&ref.float_sum), u = 0x1p-24;
    const double sequential = kit_relative_error(kit_float_sum_sequential(x, n), exact);
    const double pairwise = kit_relative_error(kit_float_sum_pairwise(x, n), exact);
    const double kahan = kit_relative_error(kit_float_sum_kahan(x, n), exact);
    const double neumaier = kit_relative_error(kit_float_sum_neumaier(x, n), exact);
    /* all x >= 0, so sum|x| = exact: the bounds are relative errors */
    ck_assert_msg(pairwise <= 20 * u, "pairwise %.3g above log2(n) u = %.3g", pairwise, 20 * u);
    ck_assert_msg(sequential > 30 * pairwise, "sequential %.3g is not far above pairwise %.3g", sequential, pairwise);
    ck_assert_msg(kahan <= 2 * u && neumaier <= 2 * u, "Kahan %.3g, Neumaier %.3g above 2u", kahan, neumaier);
    ck_assert(pairwise <= kit_float_bound(n, ref.abs_sum) / exact); /* stage 9's bound holds for a tree */
    free(words);
    free(x);
}
END_TEST

/* Neumaier's sum never feeds its correction back: its running sum is the sequential sum, and c
 * a second running sum of what that one lost. Once the running sum stalls, c carries the rest
 * with a running sum's error, and Kahan's (fed back) is the better one. Small first: 2^24, then
 * 2^20 of the kit's random floats in [0, 1), each lost whole (floats are 2 apart at 2^24). */
START_TEST(neumaier_correction_is_a_running_sum_of_its_own_once_the_sum_stalls)
{
    const size_t tail = (size_t)1 << 20, n = tail + 1;
    const kit_problem float_sum = {KIT_FLOAT, KIT_SUM};
    int32_t *words = malloc(n * sizeof *words);
    float *x = malloc(n * sizeof *x);
    ck_assert(words && x);
    kit_fill_problem(float_sum, words + 1, tail, KIT_PATTERN_RANDOM, 1);
    memcpy(x + 1, words + 1, tail * sizeof *x);
    x[0] = 0x1p24f;
    memcpy(&words[0], &x[0], sizeof *x);
    kit_reference ref;
    kit_reference_compute(float_sum, words, n, &ref);
    const double exact = kit_exact_to_double(&ref.float_sum);
    ck_assert(kit_float_sum_sequential(x, n) == 0x1p24f);                      /* nothing got in */
    const float correction = kit_float_sum_sequential(x + 1, tail);            /* c, bit for bit */
    ck_assert(kit_float_sum_neumaier(x, n) == 0x1p24f + correction);
    const double neumaier = kit_relative_error(kit_float_sum_neumaier(x, n), exact);
    const double kahan = kit_relative_error(kit_float_sum_kahan(x, n), exact);
    ck_assert_msg(kahan <= 2 * 0x1p-24, "Kahan %.3g above 2u", kahan);
    ck_assert_msg(neumaier > 4 * kahan, "Neumaier %.3g not above Kahan %.3g", neumaier, kahan);
    free(words);
    free(x);
}
END_TEST

/* The committed accuracy table's last row (docs/results/accuracy-*.json, 2^26 random floats, seed
 * 1): these are its CPU sums, bit for bit. The running sum stops at 2^24; Neumaier's, whose own
 * running sum is that one, ends at 2^25, its correction 293 above what it had to carry; Kahan's is
 * within an ulp. About 0.8 s and 512 MiB at the peak. */
START_TEST(neumaier_is_worse_than_kahan_at_2_26_random_floats_as_the_table_says)
{
    const size_t n = (size_t)1 << 26;
    const kit_problem float_sum = {KIT_FLOAT, KIT_SUM};
    int32_t *words = malloc(n * sizeof *words);
    float *x = malloc(n * sizeof *x);
    ck_assert(words && x);
    kit_fill_problem(float_sum, words, n, KIT_PATTERN_RANDOM, 1);
    memcpy(x, words, n * sizeof *x);
    free(words);
    double exact = 0.0; /* exact: each x is a multiple of 2^-24 below 1, the sum needs 50 bits */
    for (size_t i = 0; i < n; i++)
        exact += x[i];
    const float sequential = kit_float_sum_sequential(x, n), kahan = kit_float_sum_kahan(x, n);
    const float neumaier = kit_float_sum_neumaier(x, n);
    ck_assert_msg(sequential == 0x1p24f, "sequential %.1f", sequential);
    ck_assert_msg(neumaier == 0x1p25f, "Neumaier %.1f", neumaier);
    ck_assert_msg(kahan == 33554138.0f, "Kahan %.1f", kahan);
    ck_assert(fabs(exact - 33554138.83) < 0.01);
    ck_assert(kit_relative_error(neumaier, exact) > 8e-6 && kit_relative_error(kahan, exact) < 3e-8);
    free(x);
}
END_TEST

/* ------------------------------------------------------------ the CPU rows */

START_TEST(cpu_sums_on_one_thread_and_with_openmp_are_exact_checked_and_timed)
{
    enum { N = (1 << 20) + 3 };
    int *values = malloc(N * sizeof *values);
    ck_assert_ptr_nonnull(values);
    kit_fill_input(values, N, KIT_PATTERN_RANDOM, 5);
    values[N - 1] = INT_MAX; /* two large values: the sum passes INT_MAX, so it must be added in 64 bits */
    values[N - 2] = INT_MAX;
    const int64_t exact = kit_reference_sum(values, N);
    ck_assert(exact > INT_MAX);
#ifdef KIT_TEST_HAVE_OPENMP
    ck_assert_int_ge(kit_cpu_threads(), 1); /* CMake found OpenMP: the build must use it */
    const int parallel_ways = 2;
#else
    const int parallel_ways = kit_cpu_threads() > 0 ? 2 : 1;
#endif
    for (int parallel = 0; parallel < parallel_ways; parallel++) {
        kit_timing t;
        kit_error err = {KIT_OK, ""};
        ck_assert_int_eq(kit_time_cpu_sum(values, N, parallel, exact, 1, 5, &t, &err), KIT_OK);
        ck_assert_int_eq(t.reps, 5);
        ck_assert(t.min_ms > 0 && t.min_ms <= t.median_ms && t.median_ms <= t.max_ms);
        ck_assert(t.q1_ms <= t.median_ms && t.median_ms <= t.q3_ms);
        /* every run is checked: a wrong expected sum fails and says both */
        ck_assert_int_eq(kit_time_cpu_sum(values, N, parallel, exact + 1, 0, 3, &t, &err), KIT_WRONG_RESULT);
        ck_assert_ptr_nonnull(strstr(err.message, parallel ? "OpenMP" : "one thread"));
        ck_assert_ptr_nonnull(strstr(err.message, "expected"));
        /* reps = 0: checked once, not timed (the CPU emulator's ladder) */
        ck_assert_int_eq(kit_time_cpu_sum(values, N, parallel, exact, 1, 0, &t, &err), KIT_OK);
        ck_assert_int_eq(t.reps, 0);
        ck_assert(t.median_ms == 0.0);
        ck_assert_int_eq(kit_time_cpu_sum(values, N, parallel, exact - 1, 1, 0, &t, &err), KIT_WRONG_RESULT);
        /* a few elements, fewer than threads */
        ck_assert_int_eq(kit_time_cpu_sum(values, 1, parallel, values[0], 0, 1, &t, &err), KIT_OK);
    }
    if (kit_cpu_threads() == 0) {
        kit_timing t;
        kit_error err = {KIT_OK, ""};
        ck_assert_int_eq(kit_time_cpu_sum(values, N, 1, exact, 0, 1, &t, &err), KIT_BAD_ARGUMENT);
        ck_assert_ptr_nonnull(strstr(err.message, "OpenMP"));
    }
    free(values);
    char model[256];
    int known = kit_cpu_model(model, sizeof model);
    ck_assert_int_eq(known, model[0] != '\0');
    ck_assert_ptr_null(strchr(model, '\n'));
    FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
    if (cpuinfo) { /* where the file names the model, it is found */
        char line[512];
        int named = 0;
        while (fgets(line, sizeof line, cpuinfo))
            named |= strncmp(line, "model name", 10) == 0;
        fclose(cpuinfo);
        ck_assert_int_eq(known, named);
    }
}
END_TEST

/* ------------------------------------------------------------ stage table */

START_TEST(stage_tables_list_every_stage_in_order_with_existing_files)
{
    const kit_stage *tables[] = {kit_solutions_stages, kit_labs_stages};
    for (int t = 0; t < 2; t++) {
        for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
            const kit_stage *s = kit_find_stage(tables[t], k);
            ck_assert_ptr_nonnull(s);
            ck_assert_int_eq(s->number, k);
            ck_assert_int_eq(s->dir[0] - '0', k / 10);
            ck_assert_int_eq(s->dir[1] - '0', k % 10);
            ck_assert_ptr_nonnull(s->pass);
            ck_assert_ptr_nonnull(*s->pass);
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", KIT_SOURCE_DIR, s->source);
            if (s->source[0] == '/')
                snprintf(path, sizeof path, "%s", s->source);
            ck_assert_msg(access(path, R_OK) == 0, "stage %d's file %s is missing", k, path);
        }
        ck_assert_ptr_null(kit_find_stage(tables[t], KIT_STAGE_COUNT + 1));
    }
    ck_assert_str_eq(kit_solutions_stages[0].impl, "solutions");
    ck_assert_str_eq(kit_labs_stages[0].impl, "labs");
}
END_TEST

START_TEST(block_sizes_outside_a_stage_range_are_refused)
{
    kit_error err;
    const kit_stage *s = kit_find_stage(kit_solutions_stages, 5);
    ck_assert_int_eq(kit_check_threads(s, 64, &err), KIT_OK);
    ck_assert_int_eq(kit_check_threads(s, 1024, &err), KIT_OK);
    ck_assert_int_eq(kit_check_threads(s, 32, &err), KIT_BAD_ARGUMENT);
    ck_assert_int_eq(kit_check_threads(s, 96, &err), KIT_BAD_ARGUMENT);
    ck_assert_int_eq(kit_check_threads(s, 2048, &err), KIT_BAD_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "stage 5"));
}
END_TEST

/* ------------------------------------------------------------ Nsight Compute's output */

/* What `reduce_ladder --counters` read from ncu for stage 2 at n = 2^22 on the lent H100
 * (2026-11-23): three kernels, one per pass. */
#define NCU_FIXTURE KIT_SOURCE_DIR "/tests/fixtures/ncu_h100_stage2_n2e22.csv"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    ck_assert_int_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    fclose(f);
    return text;
}

START_TEST(ncu_output_from_an_h100_is_summed_over_every_pass_of_the_run)
{
    char *text = read_text(NCU_FIXTURE);
    kit_hw_counters c;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_ncu_parse(text, &c, &err) == KIT_OK, "%s", err.message);
    ck_assert_int_eq(c.kernels, 3);
    /* the three kernels' columns, thousands separators and all, added up */
    ck_assert_double_eq(c.warp_instructions, 17825792.0 + 69632.0 + 1088.0);
    ck_assert_double_eq(c.shared_bank_conflicts, 1178899.0 + 4480.0 + 70.0 + 574746.0 + 2240.0 + 35.0);
    ck_assert_double_eq(c.shared_requests, 409600.0 + 1600.0 + 25.0 + 327680.0 + 1280.0 + 20.0);
    ck_assert_double_eq(c.dram_bytes_read, 16780544.0 + 68864.0 + 3584.0);
    ck_assert_double_eq_tol(kit_hw_conflicts_per_request(&c), 1760470.0 / 740205.0, 1e-9); /* stage 2's strided index */
    ck_assert_str_eq(c.top_stall, "short_scoreboard");
    ck_assert(c.top_stall_percent > 0 && c.top_stall_percent < 100);
    ck_assert(c.occupancy_percent > 0 && c.occupancy_percent <= 100);
    ck_assert(kit_hw_active_threads(&c) > 1 && kit_hw_active_threads(&c) <= 32);
    /* measured before the kit asked for the global load metrics: absent, not an error */
    ck_assert_int_eq(c.has_global_loads, 0);
    ck_assert_double_eq(c.global_load_requests, 0);
    ck_assert_double_eq(c.global_load_sectors, 0);
    ck_assert_double_eq(kit_hw_sectors_per_request(&c), 0);
    free(text);
}
END_TEST

/* Made by hand (not measured) in ncu's --csv --page raw layout with the global load metrics:
 * two kernels of a stage-13-like run, 2^20 matrices of 36 bytes read 9 ints a thread, each
 * lane's int in a sector of its own (32 sectors per request), then a small second pass. */
#define NCU_GLOBAL_LOADS_FIXTURE KIT_SOURCE_DIR "/tests/fixtures/ncu_synthetic_global_loads.csv"

START_TEST(ncu_global_load_sectors_and_requests_are_summed_and_divided)
{
    char *text = read_text(NCU_GLOBAL_LOADS_FIXTURE);
    kit_hw_counters c;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_ncu_parse(text, &c, &err) == KIT_OK, "%s", err.message);
    ck_assert_int_eq(c.kernels, 2);
    ck_assert_int_eq(c.has_global_loads, 1);
    ck_assert_double_eq(c.global_load_requests, 294912.0 + 81.0);
    ck_assert_double_eq(c.global_load_sectors, 9437184.0 + 1944.0);
    ck_assert_double_eq_tol(kit_hw_sectors_per_request(&c), (9437184.0 + 1944.0) / (294912.0 + 81.0), 1e-12);
    ck_assert(kit_hw_sectors_per_request(&c) > 31.9 && kit_hw_sectors_per_request(&c) <= 32);
    /* the rest of the table is read as before */
    ck_assert_double_eq(c.dram_bytes_read, 37748736.0 + 9728.0);
    ck_assert_double_eq(c.shared_requests, 19008.0 * 2 + 72.0 * 2);
    ck_assert_str_eq(c.top_stall, "long_scoreboard");
    ck_assert_ptr_nonnull(strstr(kit_ncu_metrics(), ",l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"));
    ck_assert_ptr_nonnull(strstr(kit_ncu_metrics(), ",l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));

    /* "n/a" in one kernel's row: no sum for the run, and no error */
    char *na = read_text(NCU_GLOBAL_LOADS_FIXTURE);
    char *at = strstr(na, "\"81\"");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "\"na\"", 4);
    ck_assert_msg(kit_ncu_parse(na, &c, &err) == KIT_OK, "%s", err.message);
    ck_assert_int_eq(c.has_global_loads, 0);
    ck_assert_double_eq(c.global_load_requests, 0);
    ck_assert_double_eq(kit_hw_sectors_per_request(&c), 0);
    ck_assert_int_eq(c.kernels, 2);
    free(na);

    /* one of the two columns missing (an older ncu output): absent too */
    at = strstr(text, "\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\"");
    ck_assert_ptr_nonnull(at);
    at[1] = 'x';
    ck_assert_msg(kit_ncu_parse(text, &c, &err) == KIT_OK, "%s", err.message);
    ck_assert_int_eq(c.has_global_loads, 0);
    ck_assert_double_eq(c.global_load_sectors, 0);
    ck_assert_double_eq(c.dram_bytes_read, 37748736.0 + 9728.0);
    free(text);
}
END_TEST

START_TEST(ncu_output_without_one_of_the_metrics_names_the_missing_one)
{
    char *text = read_text(NCU_FIXTURE);
    char *at = strstr(text, "\"dram__bytes_read.sum\"");
    ck_assert_ptr_nonnull(at);
    memcpy(at + 1, "xram", 4);
    kit_hw_counters c;
    kit_error err = {KIT_OK, ""};
    ck_assert_int_eq(kit_ncu_parse(text, &c, &err), KIT_BAD_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "dram__bytes_read.sum"));
    free(text);
}
END_TEST

START_TEST(counters_refused_by_the_driver_or_no_kernel_profiled_give_one_line)
{
    kit_hw_counters c;
    kit_error err = {KIT_OK, ""};
    const char *refused = "==PROF== Connected to process 4242 (/tmp/b/reduce_ladder)\n"
                          "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                          "Performance Counters on the target device 0.\n";
    ck_assert_int_eq(kit_ncu_parse(refused, &c, &err), KIT_BAD_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "ERR_NVGPUCTRPERM"));
    ck_assert_ptr_null(strchr(err.message, '\n'));
    ck_assert_int_eq(kit_ncu_parse("==PROF== Disconnected from process 1\n==WARNING== No kernels were profiled.\n",
                                   &c, &err), KIT_BAD_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "no kernel"));
    ck_assert_str_eq(kit_stall_meaning("long_scoreboard"), "waiting for global memory (a load from DRAM or L2)");
    ck_assert_ptr_nonnull(strstr(kit_ncu_metrics(), "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"));
}
END_TEST

START_TEST(counters_option_is_parsed_and_the_profiled_run_takes_a_stage_or_cub)
{
    kit_options o;
    kit_error err = {KIT_OK, ""};
    char *with[] = {"reduce_ladder", "--counters", "--counted-run", "cub", NULL};
    ck_assert_int_eq(kit_parse_options(4, with, &o, &err), KIT_OK);
    ck_assert_int_eq(o.counters, 1);
    ck_assert_int_eq(o.counted_run, KIT_COUNTED_CUB);
    ck_assert_int_eq(o.counted_cub_of, 0); /* the int sum's CUB */
    char *of_stage[] = {"reduce_ladder", "--counted-run", "cub:14", NULL}; /* CUB on stage 14's problem */
    ck_assert_int_eq(kit_parse_options(3, of_stage, &o, &err), KIT_OK);
    ck_assert_int_eq(o.counted_run, KIT_COUNTED_CUB);
    ck_assert_int_eq(o.counted_cub_of, 14);
    char *stage[] = {"reduce_ladder", "--counted-run", "12", NULL};
    ck_assert_int_eq(kit_parse_options(3, stage, &o, &err), KIT_OK);
    ck_assert_int_eq(o.counted_run, 12);
    char *bad_cub[] = {"reduce_ladder", "--counted-run", "cub:99", NULL};
    ck_assert_int_eq(kit_parse_options(3, bad_cub, &o, &err), KIT_BAD_ARGUMENT);
    char *bad[] = {"reduce_ladder", "--counted-run", "99", NULL};
    ck_assert_int_eq(kit_parse_options(3, bad, &o, &err), KIT_BAD_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "--counted-run"));
}
END_TEST

START_TEST(emulator_count_ratios_are_per_request_per_block_and_zero_without_a_denominator)
{
    kit_emu_counts c;
    memset(&c, 0, sizeof c);
    ck_assert_double_eq(kit_emu_load_width(&c), 0.0);
    ck_assert_double_eq(kit_emu_conflicts_per_request(&c), 0.0);
    ck_assert_double_eq(kit_emu_idle_lane_percent(&c), 0.0);
    ck_assert_double_eq(kit_emu_barriers_per_block(&c), 0.0);
    /* stage 2's first pass at n = 4096, 256 threads, as the emulator counts it */
    c.blocks = 16;
    c.block_barriers = 144;
    c.global_loads = 4096;
    c.global_load_bytes = 16384;
    c.shared_requests = 720;
    c.shared_bank_conflicts = 1680;
    c.shared_active_lanes = 16352;
    c.shared_idle_lanes = 6688;
    ck_assert_double_eq(kit_emu_load_width(&c), 4.0);
    ck_assert_double_eq_tol(kit_emu_conflicts_per_request(&c), 1680.0 / 720.0, 1e-12);
    ck_assert_double_eq_tol(kit_emu_idle_lane_percent(&c), 100.0 * 6688.0 / (16352.0 + 6688.0), 1e-12);
    ck_assert_double_eq(kit_emu_barriers_per_block(&c), 9.0);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("host");
    TCase *reference = tcase_create("reference");
    tcase_add_test(reference, reference_sum_adds_signed_values_exactly);
    tcase_add_test(reference, reference_sum_does_not_overflow_where_int32_would);
    tcase_add_test(reference, expected_int_wraps_like_the_gpu_adds);
    suite_add_tcase(suite, reference);
    TCase *patterns = tcase_create("patterns");
    tcase_add_test(patterns, random_input_is_small_signed_and_repeatable_per_seed);
    tcase_add_test(patterns, positional_input_changes_the_sum_when_any_element_is_dropped_or_doubled);
    tcase_add_test(patterns, ones_input_sums_to_n);
    tcase_add_test(patterns, last_only_input_has_one_value_in_the_last_slot);
    tcase_add_test(patterns, pattern_names_round_trip_and_unknown_names_are_refused);
    tcase_add_test(patterns, pattern_sum_equals_the_sum_of_the_filled_input_for_every_pattern);
    tcase_add_test(patterns, full_range_int_sums_wrap_and_the_expected_int_is_what_wrapping_adds_give);
    suite_add_tcase(suite, patterns);
    TCase *options = tcase_create("options");
    tcase_add_test(options, options_default_to_all_solutions_at_2_26_with_256_threads);
    tcase_add_test(options, options_accept_every_form_they_document);
    tcase_add_loop_test(options, bad_options_are_refused_with_a_message_naming_them, 0,
                        (int)(sizeof bad_lines / sizeof bad_lines[0]));
    tcase_add_test(options, sweep_and_host_options_are_parsed_and_checked_together);
    tcase_add_test(options, accuracy_options_are_parsed_and_checked_together);
    suite_add_tcase(suite, options);
    TCase *accuracy = tcase_create("accuracy");
    tcase_add_test(accuracy, course_example_in_float_loses_2104_sequentially_and_nothing_otherwise);
    tcase_add_test(accuracy, neumaier_keeps_what_kahan_loses_when_a_value_outgrows_the_sum);
    tcase_add_test(accuracy, neumaier_correction_is_a_running_sum_of_its_own_once_the_sum_stalls);
    tcase_add_test(accuracy, neumaier_is_worse_than_kahan_at_2_26_random_floats_as_the_table_says);
    tcase_add_test(accuracy, pairwise_error_grows_with_log_n_and_sequential_with_n);
    /* The 2^26-float test takes 0.8 s alone, but a loaded 2-core CI machine (make check runs two
     * tests more than the cores) once took it past Check's default 4 s limit: a limit for hangs,
     * not a measure of speed. */
    tcase_set_timeout(accuracy, 120);
    suite_add_tcase(suite, accuracy);
    TCase *cpu = tcase_create("cpu");
    tcase_add_test(cpu, cpu_sums_on_one_thread_and_with_openmp_are_exact_checked_and_timed);
    suite_add_tcase(suite, cpu);
    TCase *stages = tcase_create("stages");
    tcase_add_test(stages, stage_tables_list_every_stage_in_order_with_existing_files);
    tcase_add_test(stages, block_sizes_outside_a_stage_range_are_refused);
    tcase_add_test(stages, ladder_sections_follow_the_stage_table);
    suite_add_tcase(suite, stages);
    TCase *counters = tcase_create("counters");
    tcase_add_test(counters, ncu_output_from_an_h100_is_summed_over_every_pass_of_the_run);
    tcase_add_test(counters, ncu_global_load_sectors_and_requests_are_summed_and_divided);
    tcase_add_test(counters, ncu_output_without_one_of_the_metrics_names_the_missing_one);
    tcase_add_test(counters, counters_refused_by_the_driver_or_no_kernel_profiled_give_one_line);
    tcase_add_test(counters, counters_option_is_parsed_and_the_profiled_run_takes_a_stage_or_cub);
    tcase_add_test(counters, emulator_count_ratios_are_per_request_per_block_and_zero_without_a_denominator);
    suite_add_tcase(suite, counters);

    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

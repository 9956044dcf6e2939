/**
 * \file test_whole_job.c
 * \brief The harness's timings of the whole job (kit.h): the input's copy to the GPU from
 * pageable and pinned memory, a stage timed together with its copy, and an empty launch; and
 * one untimed run of CUB that reads its answer back (kit_run_cub, for `reduce_ladder --accuracy`).
 *
 * One source, two builds, as tests/test_stages.c: test_gpu_whole_job links the CUDA harness
 * (without a GPU it exits 77, skipped; its parent makes no CUDA call, see gpu_probe.h), and
 * test_emu_whole_job links the CPU emulator's harness (KIT_TEST_ON_EMULATOR), where the copies
 * and checks run for real but the times mean nothing, and the empty launch is refused.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kit.h"
#ifndef KIT_TEST_ON_EMULATOR
#include "gpu_probe.h"
#endif

enum { N = 4099, REPS = 20 }; /* n: not a power of two, several blocks */

static void open_workspace(kit_workspace *ws, size_t n)
{
    kit_error err = {KIT_OK, ""};
    kit_gpu gpu;
    ck_assert_msg(kit_gpu_open(&gpu, &err) == KIT_OK, "%s", err.message);
    ck_assert_msg(kit_workspace_init(ws, n, &err) == KIT_OK, "%s", err.message);
    ck_assert_msg(kit_workspace_fill(ws, KIT_PATTERN_RANDOM, 7, &err) == KIT_OK, "%s", err.message);
}

/* The workspace as kit_workspace_fill left it: the host input, its sum, and the input on the
 * GPU (a checked run of stage 1 reads it back and compares every element). */
static void assert_input_as_filled(kit_workspace *ws, const int *filled, int64_t filled_sum)
{
    kit_error err = {KIT_OK, ""};
    ck_assert(memcmp(ws->host_input, filled, ws->n * sizeof(int)) == 0);
    ck_assert(ws->expected == filled_sum);
    kit_value got;
    kit_status status = kit_run_checked(kit_find_stage(kit_solutions_stages, 1), ws, 256, &got, &err);
    ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
}

static void assert_timing(const kit_timing *t, int reps)
{
    ck_assert_int_eq(t->reps, reps);
    ck_assert(t->min_ms <= t->q1_ms && t->q1_ms <= t->median_ms && t->median_ms <= t->q3_ms &&
              t->q3_ms <= t->max_ms);
#ifndef KIT_TEST_ON_EMULATOR
    ck_assert(t->min_ms > 0); /* CUDA events: no GPU work takes no time */
#endif
}

START_TEST(copies_to_the_gpu_from_pageable_and_pinned_memory_are_timed_and_keep_the_input)
{
    kit_workspace ws;
    open_workspace(&ws, N);
    int *filled = malloc(N * sizeof *filled);
    ck_assert_ptr_nonnull(filled);
    memcpy(filled, ws.host_input, N * sizeof *filled);
    const int64_t filled_sum = ws.expected;
    for (int pinned = 0; pinned < 2; pinned++) {
        kit_timing t;
        kit_error err = {KIT_OK, ""};
        kit_status status = kit_time_h2d(&ws, pinned ? KIT_HOST_PINNED : KIT_HOST_PAGEABLE, 2, REPS, &t, &err);
        ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
        assert_timing(&t, REPS);
        assert_input_as_filled(&ws, filled, filled_sum);
    }
    free(filled);
    kit_workspace_free(&ws);
}
END_TEST

START_TEST(a_stage_timed_with_its_copy_checks_every_run_and_gives_the_input_back)
{
    kit_workspace ws;
    open_workspace(&ws, N);
    int *filled = malloc(N * sizeof *filled);
    ck_assert_ptr_nonnull(filled);
    memcpy(filled, ws.host_input, N * sizeof *filled);
    const int64_t filled_sum = ws.expected;
    int *own = ws.host_input;
    static const int stages[] = {1, 7, 8}; /* many passes, two passes, one pass */
    for (size_t s = 0; s < sizeof stages / sizeof stages[0]; s++) {
        kit_timing t;
        kit_error err = {KIT_OK, ""};
        const kit_stage *stage = kit_find_stage(kit_solutions_stages, stages[s]);
        kit_status status = kit_time_stage_after_copy(stage, &ws, 256, 2, REPS, &t, &err);
        ck_assert_msg(status == KIT_OK, "stage %d: %s: %s", stages[s], kit_status_name(status), err.message);
        assert_timing(&t, REPS);
        ck_assert_ptr_eq(ws.host_input, own); /* the pinned buffer was lent, and given back */
        assert_input_as_filled(&ws, filled, filled_sum);
    }
    /* the block size is checked, as for every timed stage */
    kit_timing t;
    kit_error err = {KIT_OK, ""};
    ck_assert_int_eq(kit_time_stage_after_copy(kit_find_stage(kit_solutions_stages, 7), &ws, 100, 0, REPS, &t, &err),
                     KIT_BAD_ARGUMENT);
    free(filled);
    kit_workspace_free(&ws);
}
END_TEST

/* Stages written here in C, whose launchers work through CUDA copies (the same on a GPU and on
 * the emulator): one sums on the host what the copy delivered; one remembers its first answer. */
static int64_t host_sum_of_device(const int *in, size_t n)
{
    int *host = malloc(n * sizeof *host);
    ck_assert_ptr_nonnull(host);
    ck_assert_int_eq(cudaMemcpy(host, in, n * sizeof *host, cudaMemcpyDeviceToHost), cudaSuccess);
    int64_t sum = kit_reference_sum(host, n);
    free(host);
    return sum;
}

/* (kit_pass_fn's erased types, as KIT_REGISTER_STAGE makes them: an int sum's ints) */
static size_t sums_what_the_copy_delivered(const void *in, void *out, size_t n, unsigned threads)
{
    (void)threads;
    int sum = kit_expected_int(host_sum_of_device((const int *)in, n));
    cudaMemcpy(out, &sum, sizeof sum, cudaMemcpyHostToDevice);
    return 1;
}

static size_t remembers_its_first_answer(const void *in, void *out, size_t n, unsigned threads)
{
    static int calls, first;
    (void)threads;
    if (calls++ == 0)
        first = kit_expected_int(host_sum_of_device((const int *)in, n));
    cudaMemcpy(out, &first, sizeof first, cudaMemcpyHostToDevice);
    return 1;
}

static const kit_pass_fn honest_launcher = sums_what_the_copy_delivered;
static const kit_pass_fn remembering_launcher = remembers_its_first_answer;

START_TEST(the_copy_delivers_each_run_varied_input_and_a_remembered_answer_fails)
{
    static const kit_signature ints = {"int", "int"};
    const kit_stage honest = {8, "test", "sums_what_the_copy_delivered", "host sum", 64, 1024, KIT_PASSES_ONE,
                              {KIT_INT, KIT_SUM}, 1, &honest_launcher, &ints, "test", "tests/test_whole_job.c"};
    const kit_stage remembering = {8, "test", "remembers_its_first_answer", "remembered", 64, 1024, KIT_PASSES_ONE,
                                   {KIT_INT, KIT_SUM}, 1, &remembering_launcher, &ints, "test",
                                   "tests/test_whole_job.c"};
    kit_workspace ws;
    open_workspace(&ws, N);
    kit_timing t;
    kit_error err = {KIT_OK, ""};
    /* Each run changes the input; the sum is right only if the copy moved the changed input
     * (the device input is poisoned before each run). */
    kit_status status = kit_time_stage_after_copy(&honest, &ws, 256, 0, REPS, &t, &err);
    ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
    status = kit_time_stage_after_copy(&remembering, &ws, 256, 0, REPS, &t, &err);
    ck_assert_int_eq(status, KIT_WRONG_RESULT);
    ck_assert_ptr_nonnull(strstr(err.message, "after its copy from pinned memory"));
    ck_assert_ptr_nonnull(strstr(err.message, "while timing"));
    /* after a failure too, the input is as filled (on the host and on the GPU) */
    const int64_t filled_sum = ws.expected;
    ck_assert(kit_reference_sum(ws.host_input, ws.n) == filled_sum);
    status = kit_time_stage_after_copy(&honest, &ws, 256, 0, REPS, &t, &err);
    ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
    kit_workspace_free(&ws);
}
END_TEST

START_TEST(an_empty_launch_is_timed_on_a_gpu_and_refused_on_the_emulator)
{
    kit_workspace ws;
    open_workspace(&ws, 1024);
    kit_timing t;
    kit_error err = {KIT_OK, ""};
    kit_status status = kit_time_launch(&ws, 10, REPS, &t, &err);
#ifdef KIT_TEST_ON_EMULATOR
    ck_assert_int_eq(status, KIT_BAD_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "emulator"));
#else
    ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
    assert_timing(&t, REPS);
    ck_assert(t.median_ms < 1.0); /* an empty kernel: microseconds, not a millisecond */
#endif
    kit_workspace_free(&ws);
}
END_TEST

START_TEST(one_run_of_cub_reads_its_answer_back_and_leaves_the_input)
{
    kit_error err = {KIT_OK, ""};
    /* the int sum: the exact sum, wrapped to 32 bits */
    kit_workspace ws;
    open_workspace(&ws, N); /* (opens the GPU) */
    kit_value got;
    kit_status status = kit_run_cub(&ws, &got, &err);
    ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
    ck_assert_int_eq(got.w[0], kit_expected_int(ws.expected));
    kit_workspace_free(&ws);
    /* the course's 1 + 2 + ... + 10000 in float: CUB's tree (the emulator's double sum) is exact */
    const kit_problem float_sum = {KIT_FLOAT, KIT_SUM};
    ck_assert_msg(kit_workspace_init_problem(&ws, float_sum, 10000, &err) == KIT_OK, "%s", err.message);
    ck_assert_msg(kit_workspace_fill(&ws, KIT_PATTERN_POSITIONAL, 1, &err) == KIT_OK, "%s", err.message);
    status = kit_run_cub(&ws, &got, &err);
    ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
    float sum;
    memcpy(&sum, &got.w[0], sizeof sum);
    ck_assert_msg(sum == 50005000.0f, "CUB's float sum of 1..10000 is %.9g", (double)sum);
    /* an argmin: two words back */
    kit_workspace_free(&ws);
    const kit_problem argmin = {KIT_INT, KIT_ARGMIN};
    ck_assert_msg(kit_workspace_init_problem(&ws, argmin, N, &err) == KIT_OK, "%s", err.message);
    ck_assert_msg(kit_workspace_fill(&ws, KIT_PATTERN_LAST_ONLY, 1, &err) == KIT_OK, "%s", err.message);
    status = kit_run_cub(&ws, &got, &err);
    ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
    ck_assert_int_eq(got.w[0], ws.ref.answer.w[0]);
    ck_assert_int_eq(got.w[1], N - 1);
    /* the input is as filled: stage 12's checked run compares every word */
    const kit_stage *stage12 = NULL;
    for (int k = 1; k <= KIT_STAGE_COUNT; k++)
        if (kit_problem_equal(kit_solutions_stages[k - 1].problem, argmin))
            stage12 = &kit_solutions_stages[k - 1];
    if (stage12 && kit_stage_released(stage12)) {
        status = kit_run_checked(stage12, &ws, 256, &got, &err);
        ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
    }
    kit_workspace_free(&ws);
}
END_TEST

int main(void)
{
#ifndef KIT_TEST_ON_EMULATOR
    char why[256];
    if (!kit_probe_gpu(why, sizeof why)) {
        printf("%s: skipping the GPU tests of the whole job's timings\n", why);
        return kit_no_gpu_exit_code();
    }
#endif
    Suite *suite = suite_create("whole_job");
    TCase *tc = tcase_create("whole_job");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, copies_to_the_gpu_from_pageable_and_pinned_memory_are_timed_and_keep_the_input);
    tcase_add_test(tc, a_stage_timed_with_its_copy_checks_every_run_and_gives_the_input_back);
    tcase_add_test(tc, the_copy_delivers_each_run_varied_input_and_a_remembered_answer_fails);
    tcase_add_test(tc, an_empty_launch_is_timed_on_a_gpu_and_refused_on_the_emulator);
    tcase_add_test(tc, one_run_of_cub_reads_its_answer_back_and_leaves_the_input);
    suite_add_tcase(suite, tc);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

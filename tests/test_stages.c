/**
 * \file test_stages.c
 * \brief Correctness of every stage at every size class, block size and input pattern, on inputs
 *        of the stage's own problem (its type and operator in common/stages.def).
 *
 *   test_stages solutions [K]   the reference solutions (or stage K) must all be exact
 *   test_stages labs [K]        the kernels in labs/ (fail until the student fills them in)
 *   test_stages skeletons       every unfilled skeleton must fail with "wrote no result"
 *
 * One source, two builds: test_gpu_stages links the CUDA harness and runs on the GPU;
 * test_emu_stages (emu/tests) links the CPU emulator's harness and is built with
 * KIT_TEST_ON_EMULATOR. Both stop at 2^20 + 7 (KIT_TEST_MAX_N).
 *
 * Each stage is its own test, run by Check in a forked child, so a stage that crashes or
 * hangs fails alone. The GPU build's parent makes no CUDA call (see gpu_probe.h): without a
 * GPU it says so and exits 77, which CTest reports as skipped.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#ifndef KIT_TEST_ON_EMULATOR
#include "gpu_probe.h"
#endif
/* Up to 2^20 + 7 on both: the harness's own path is what this checks. 2^26 and above at every
 * block size are the grader's (make check grades every reference solution there); on a GPU the
 * 2^26 rows here made this one test 283 s of a 16-core H200's make check (2026-11-27). */
#define KIT_TEST_MAX_N (((size_t)1 << 20) + 7)

static const kit_stage *table;

static const unsigned block_sizes[] = {64, 128, 256, 512, 1024};

/* The size classes: tiny, around a warp, below one block of the largest stage block, just
 * past one and two such blocks, not a multiple of 2*1024, several passes. */
static const size_t sizes[] = {1, 2, 31, 32, 33, 63, 1000, 1023, 1025, 2049, 2 * 1024 * 3 + 5,
                               (size_t)1 << 20, ((size_t)1 << 20) + 7};

/* Every block size on one n, each input pattern. */
static int check_size(const kit_stage *stage, size_t n)
{
    kit_workspace ws;
    kit_error err = {KIT_OK, ""};
    int runs = 0;
    ck_assert_msg(kit_workspace_init_problem(&ws, stage->problem, n, &err) == KIT_OK, "%s", err.message);
    for (int p = 0; p < KIT_PATTERN_COUNT; p++) {
        ck_assert_msg(kit_workspace_fill(&ws, (kit_pattern)p, 1000u + (unsigned)n, &err) == KIT_OK, "%s",
                      err.message);
        for (size_t b = 0; b < sizeof block_sizes / sizeof block_sizes[0]; b++) {
            if (block_sizes[b] < stage->min_threads || block_sizes[b] > stage->max_threads)
                continue;
            kit_value got;
            kit_status status = kit_run_checked(stage, &ws, block_sizes[b], &got, &err);
            ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
            runs++;
        }
    }
    kit_workspace_free(&ws);
    return runs;
}

START_TEST(stage_is_exact_at_every_size_block_size_and_pattern)
{
    const kit_stage *stage = &table[_i];
    kit_gpu gpu;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_gpu_open(&gpu, &err) == KIT_OK, "%s", err.message);
    int runs = 0, classes = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (sizes[s] > KIT_TEST_MAX_N || sizes[s] > kit_max_n(stage->problem))
            continue;
        runs += check_size(stage, sizes[s]);
        classes++;
    }
    ck_assert_int_ge(runs, classes * 2);
}
END_TEST

START_TEST(unfilled_skeleton_fails_with_a_clear_message)
{
    const kit_stage *stage = &table[_i];
    kit_gpu gpu;
    kit_workspace ws;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_gpu_open(&gpu, &err) == KIT_OK, "%s", err.message);
    ck_assert_msg(kit_workspace_init_problem(&ws, stage->problem, 100000, &err) == KIT_OK, "%s", err.message);
    ck_assert_msg(kit_workspace_fill(&ws, KIT_PATTERN_RANDOM, 1, &err) == KIT_OK, "%s", err.message);
    kit_value got;
    kit_status status = kit_run_checked(stage, &ws, 256, &got, &err);
    ck_assert_msg(status == KIT_NO_RESULT, "stage %d's skeleton gave %s: %s", stage->number,
                  kit_status_name(status), err.message);
    char expected[256];
    snprintf(expected, sizeof expected, "stage %d wrote no result: fill in the TODO in %s", stage->number,
             stage->source);
    ck_assert_msg(strstr(err.message, expected) != NULL, "message was: %s", err.message);
    kit_workspace_free(&ws);
}
END_TEST

int main(int argc, char **argv)
{
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0); /* cheaper contexts, one per test (tests/grader/runner.c) */
    const char *mode = argc > 1 ? argv[1] : "solutions";
    int only = argc > 2 ? atoi(argv[2]) : 0;
    int skeletons = strcmp(mode, "skeletons") == 0;
    if (strcmp(mode, "solutions") == 0)
        table = kit_solutions_stages;
    else if (strcmp(mode, "labs") == 0 || skeletons)
        table = kit_labs_stages;
    if (!table || only < 0 || only > KIT_STAGE_COUNT) {
        fprintf(stderr, "usage: %s solutions|labs|skeletons [stage 1-%d]\n", argv[0], KIT_STAGE_COUNT);
        return 2;
    }
#ifndef KIT_TEST_ON_EMULATOR
    char why[256];
    if (!kit_probe_gpu(why, sizeof why)) {
        printf("%s: skipping the GPU tests of %s\n", why, mode);
        return kit_no_gpu_exit_code();
    }
#endif

    Suite *suite = suite_create(mode);
    for (int k = 0; k < KIT_STAGE_COUNT; k++) {
        if (only && table[k].number != only)
            continue;
        static char names[KIT_STAGE_COUNT][64]; /* Check keeps the pointer */
        snprintf(names[k], sizeof names[k], "stage%d_%s", table[k].number, table[k].name + strlen("reduce_"));
        TCase *tc = tcase_create(names[k]);
        tcase_set_timeout(tc, 300);
        if (skeletons)
            tcase_add_loop_test(tc, unfilled_skeleton_fails_with_a_clear_message, k, k + 1);
        else
            tcase_add_loop_test(tc, stage_is_exact_at_every_size_block_size_and_pattern, k, k + 1);
        suite_add_tcase(suite, tc);
    }
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    int ran = srunner_ntests_run(runner);
    srunner_free(runner);
    return failed == 0 && ran > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

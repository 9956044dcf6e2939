/**
 * \file test_gpu_stages.c
 * \brief GPU correctness of every stage at every size class and block size.
 *
 *   test_gpu_stages solutions   the reference solutions must all be exact
 *   test_gpu_stages labs        the kernels in labs/ (fail until the student fills them in)
 *   test_gpu_stages skeletons   every unfilled skeleton must fail with "wrote no result"
 *
 * Each stage is its own test, run by Check in a forked child, so a stage that crashes or
 * hangs fails alone. The parent makes no CUDA call (see gpu_probe.h). Without a GPU the
 * program says so and exits 77, which CTest reports as skipped.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_probe.h"
#include "kit.h"

static const kit_stage *table;

static const unsigned block_sizes[] = {64, 128, 256, 512, 1024};

/* The size classes: tiny, around a warp, below one block, not a multiple of a block or of
 * two blocks, several passes, and 2^26 (well above any L2). Sizes that depend on the block
 * size are computed from it in run_sizes(). */
static const size_t fixed_sizes[] = {1, 2, 31, 32, 33, 1000, ((size_t)1 << 20) + 7, (size_t)1 << 26};

static void check_one(const kit_stage *stage, kit_workspace *ws, unsigned threads)
{
    kit_error err = {KIT_OK, ""};
    int got = 0;
    kit_status status = kit_run_checked(stage, ws, threads, &got, &err);
    ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
}

/* Every block size on one n, each input pattern (large n: two patterns, to keep it quick). */
static void check_size(const kit_stage *stage, size_t n)
{
    kit_workspace ws;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_workspace_init(&ws, n, &err) == KIT_OK, "%s", err.message);
    int patterns = n > ((size_t)1 << 22) ? 2 : KIT_PATTERN_COUNT;
    for (int p = 0; p < patterns; p++) {
        ck_assert_msg(kit_workspace_fill(&ws, (kit_pattern)p, 1000u + (unsigned)n, &err) == KIT_OK, "%s",
                      err.message);
        for (size_t b = 0; b < sizeof block_sizes / sizeof block_sizes[0]; b++)
            if (block_sizes[b] >= stage->min_threads && block_sizes[b] <= stage->max_threads)
                check_one(stage, &ws, block_sizes[b]);
    }
    kit_workspace_free(&ws);
}

START_TEST(stage_is_exact_at_every_size_and_block_size)
{
    const kit_stage *stage = &table[_i];
    kit_gpu gpu;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_gpu_open(&gpu, &err) == KIT_OK, "%s", err.message);
    for (size_t s = 0; s < sizeof fixed_sizes / sizeof fixed_sizes[0]; s++)
        check_size(stage, fixed_sizes[s]);
    /* n below one block, and n just past one and two blocks of the largest stage block. */
    const size_t relative[] = {63, 1023, 1025, 2049, 2 * 1024 * 3 + 5};
    for (size_t s = 0; s < sizeof relative / sizeof relative[0]; s++)
        check_size(stage, relative[s]);
}
END_TEST

START_TEST(unfilled_skeleton_fails_with_a_clear_message)
{
    const kit_stage *stage = &table[_i];
    kit_gpu gpu;
    kit_workspace ws;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_gpu_open(&gpu, &err) == KIT_OK, "%s", err.message);
    ck_assert_msg(kit_workspace_init(&ws, 100000, &err) == KIT_OK, "%s", err.message);
    ck_assert_msg(kit_workspace_fill(&ws, KIT_PATTERN_RANDOM, 1, &err) == KIT_OK, "%s", err.message);
    int got = 0;
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
    const char *mode = argc > 1 ? argv[1] : "solutions";
    int skeletons = strcmp(mode, "skeletons") == 0;
    if (strcmp(mode, "solutions") == 0)
        table = kit_solutions_stages;
    else if (strcmp(mode, "labs") == 0 || skeletons)
        table = kit_labs_stages;
    else {
        fprintf(stderr, "usage: %s solutions|labs|skeletons\n", argv[0]);
        return 2;
    }
    char why[256];
    if (!kit_probe_gpu(why, sizeof why)) {
        printf("no CUDA GPU (%s): skipping the GPU tests of %s\n", why, mode);
        return kit_no_gpu_exit_code();
    }

    Suite *suite = suite_create(mode);
    for (int k = 0; k < KIT_STAGE_COUNT; k++) {
        static char names[KIT_STAGE_COUNT][64]; /* Check keeps the pointer */
        char *name = names[k];
        snprintf(name, sizeof names[k], "stage%d_%s", table[k].number, table[k].name + strlen("reduce_"));
        TCase *tc = tcase_create(name);
        tcase_set_timeout(tc, 120);
        if (skeletons)
            tcase_add_loop_test(tc, unfilled_skeleton_fails_with_a_clear_message, k, k + 1);
        else
            tcase_add_loop_test(tc, stage_is_exact_at_every_size_and_block_size, k, k + 1);
        suite_add_tcase(suite, tc);
    }
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

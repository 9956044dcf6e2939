/**
 * \file test_emu_stages.c
 * \brief The stages on the CPU emulator: the GPU correctness suite, with sizes up to 2^20.
 *
 *   test_emu_stages solutions [K]   every reference solution (or stage K) must be exact at
 *                                   every size class up to 2^20 + 7, every block size and
 *                                   every input pattern
 *   test_emu_stages skeletons       every unfilled lab must fail with "wrote no result"
 *
 * Same checks as tests/test_gpu_stages.c (kit_run_checked: poison, guards, input unchanged,
 * exact sum) without a GPU: the harness and the stage files are compiled against the emulator.
 * Each stage is a Check test in a forked child, so a crash or a hang fails that stage alone.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"

static const kit_stage *table;

static const unsigned block_sizes[] = {64, 128, 256, 512, 1024};

/* The GPU suite's size classes up to 2^20 (2^26 would take minutes on a CPU): tiny, around a
 * warp, below one block, not a multiple of a block or of two blocks, several passes. */
static const size_t sizes[] = {1, 2, 31, 32, 33, 63, 1000, 1023, 1025, 2049, 2 * 1024 * 3 + 5,
                               (size_t)1 << 20, ((size_t)1 << 20) + 7};

START_TEST(stage_is_exact_at_every_size_block_size_and_pattern)
{
    const kit_stage *stage = &table[_i];
    kit_gpu gpu;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_gpu_open(&gpu, &err) == KIT_OK, "%s", err.message);
    int runs = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        kit_workspace ws;
        ck_assert_msg(kit_workspace_init(&ws, sizes[s], &err) == KIT_OK, "%s", err.message);
        for (int p = 0; p < KIT_PATTERN_COUNT; p++) {
            ck_assert_msg(kit_workspace_fill(&ws, (kit_pattern)p, 1000u + (unsigned)sizes[s], &err) == KIT_OK, "%s",
                          err.message);
            for (size_t b = 0; b < sizeof block_sizes / sizeof block_sizes[0]; b++) {
                if (block_sizes[b] < stage->min_threads || block_sizes[b] > stage->max_threads)
                    continue;
                int got = 0;
                kit_status status = kit_run_checked(stage, &ws, block_sizes[b], &got, &err);
                ck_assert_msg(status == KIT_OK, "%s: %s", kit_status_name(status), err.message);
                runs++;
            }
        }
        kit_workspace_free(&ws);
    }
    ck_assert_int_ge(runs, (int)(sizeof sizes / sizeof sizes[0]) * KIT_PATTERN_COUNT);
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
    Suite *suite = suite_create(mode);
    for (int k = 0; k < KIT_STAGE_COUNT; k++) {
        if (only && table[k].number != only)
            continue;
        static char names[KIT_STAGE_COUNT][64]; /* Check keeps the pointer */
        snprintf(names[k], sizeof names[k], "emulated_stage%d_%s", table[k].number,
                 table[k].name + strlen("reduce_"));
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

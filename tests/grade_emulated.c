/**
 * \file grade_emulated.c
 * \brief grade_stageK_emu and grade_stageK_emu_race: stage K graded on the CPU emulator, for
 * machines without a GPU. CMake builds them (tests/emulated.cmake) only where the emulator is.
 *
 *   grade_stage3_emu correctness --results build/grade     the grader's correctness suite on
 *                                                          the CPU, sizes up to 2^20 + 7
 *   grade_stage3_emu_race --races                          the race check (emulated_races.sh)
 *
 * The correctness suite is the GPU grader's (tests/grader/), linked against the emulator's
 * harness and stage files: same block sizes, patterns, seeds, repeats and diagnosis, without
 * the 2^26 case and without timings. --races runs small inputs (at most 2^16) with the threads
 * of each block resumed in four orders; a result that changes with the order is a race. Built
 * with ThreadSanitizer (grade_stageK_emu_race), every data race is reported as well.
 *
 * Where a CUDA GPU is usable the GPU grader grades the stage, and these programs skip (77) at
 * once; so they do with KIT_REQUIRE_GPU=1, where a missing GPU must fail the grade.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "grader.h"

#ifndef KIT_GPU_GRADER
#error "KIT_GPU_GRADER: the path of the GPU grader of the same stage, for its --probe-gpu"
#endif

/* Asks the GPU grader of this stage (a separate process: no CUDA here) whether a GPU is usable. */
static int gpu_is_usable(void)
{
    char command[4200];
    snprintf(command, sizeof command, "KIT_REQUIRE_GPU=0 '%s' --probe-gpu > /dev/null 2>&1", KIT_GPU_GRADER);
    return system(command) == 0;
}

static const struct {
    emu_order order;
    unsigned long long seed;
} orders[] = {{EMU_ORDER_FORWARD, 0}, {EMU_ORDER_REVERSE, 0}, {EMU_ORDER_RANDOM, 1}, {EMU_ORDER_RANDOM, 2}};
#define ORDER_COUNT (int)(sizeof orders / sizeof orders[0])

/*
 * The race check: each case once per thread order. A correct kernel gives the same answer in
 * every order (a wrong one may be wrong the same way in all: that is the correctness test's
 * business, as for compute-sanitizer). Sizes at most 2^16: ThreadSanitizer costs ~25-80x.
 */
static int check_races(const kit_stage *stage)
{
    const size_t sizes[] = {33, 1000, 6149, 65536};
    const unsigned threads[] = {stage->min_threads, 256, stage->max_threads};
    int cases = 0, racy = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        kit_workspace ws;
        kit_error err = {KIT_OK, ""};
        if (kit_workspace_init(&ws, sizes[s], &err) != KIT_OK ||
            kit_workspace_fill(&ws, KIT_PATTERN_RANDOM, 5, &err) != KIT_OK) {
            fprintf(stderr, "cannot set up n = %zu: %s\n", sizes[s], err.message);
            return 2;
        }
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            if (threads[t] < stage->min_threads || threads[t] > stage->max_threads ||
                (t > 0 && threads[t] == threads[t - 1]))
                continue;
            kit_status status[ORDER_COUNT];
            int got[ORDER_COUNT], differ = 0;
            for (int o = 0; o < ORDER_COUNT; o++) {
                emu_set_order(orders[o].order, orders[o].seed);
                got[o] = 0;
                status[o] = kit_run_checked(stage, &ws, threads[t], &got[o], &err);
                if (status[o] == KIT_CUDA_ERROR || status[o] == KIT_TIMEOUT)
                    cudaDeviceReset(); /* the emulator's faults are sticky, as a GPU's */
                differ |= o > 0 && (status[o] != status[0] || got[o] != got[0]);
            }
            emu_set_order(EMU_ORDER_FORWARD, 0);
            cases++;
            if (!differ)
                continue;
            racy++;
            printf("stage %d (%s), n = %zu, %u threads: the result depends on the order of the threads:", stage->number,
                   stage->impl, sizes[s], threads[t]);
            for (int o = 0; o < ORDER_COUNT; o++)
                printf("%s %s%s %s %d", o ? "," : "", emu_order_name(orders[o].order),
                       orders[o].order == EMU_ORDER_RANDOM ? (orders[o].seed == 1 ? " (seed 1)" : " (seed 2)") : "",
                       status[o] == KIT_OK ? "sum" : kit_status_name(status[o]), got[o]);
            printf("; threads of a block race for memory (a missing __syncthreads() or __syncwarp()?)\n");
        }
        kit_workspace_free(&ws);
    }
    printf("%d of %d case(s) of stage %d gave results that depend on the thread order\n", racy, cases,
           stage->number);
    return racy ? 1 : 0;
}

int main(int argc, char **argv)
{
    int races = 0;
    char *kept[64];
    int kept_count = 0;
    for (int i = 0; i < argc && kept_count < 63; i++) {
        if (strcmp(argv[i], "--races") == 0)
            races = 1;
        else
            kept[kept_count++] = argv[i];
    }
    kept[kept_count] = NULL;
    kit_grade_args args;
    if (!kit_grade_parse_args(kept_count, kept, &args))
        return 2;
    const kit_stage *table = strcmp(args.impl, "solutions") == 0 ? kit_solutions_stages : kit_labs_stages;
    const kit_stage *stage = kit_find_stage(table, KIT_GRADE_STAGE);

    const char *require = getenv("KIT_REQUIRE_GPU");
    if (require && strcmp(require, "1") == 0) {
        printf("SKIPPED: KIT_REQUIRE_GPU=1: stage %d is graded on a GPU only, the CPU emulator does not stand in\n",
               stage->number);
        return 77;
    }
    if (gpu_is_usable()) {
        printf("SKIPPED: a CUDA GPU is usable here: stage %d is graded on it, not on the CPU emulator\n",
               stage->number);
        return 77;
    }
    if (races)
        return check_races(stage);
    args.emulated = 1;
    return kit_grade_run(&args, stage, kit_solutions_stages);
}

/**
 * \file races.c
 * \brief The race check of the CPU emulator's runners (runner.c "orders" and "races"; decided by kit_grade races,
 *        grade.c).
 *
 * Small inputs with the threads of each block resumed in several orders; a result that changes with the order
 * is a race. Two requests, two runners of one stage file:
 *   orders  the plain runner: inputs up to 2^16 ints' worth, four orders (forward, reverse, two shuffles);
 *   races   the runner built with ThreadSanitizer (the "race" flavour of the emulator): inputs up to 6,149
 *           elements, two orders; every data race, in shared or global memory, is reported as well.
 * ThreadSanitizer costs ~180x (stage 1's check took 57 s with it at every size and order, 0.3 s without;
 * 2 cores, 2026-11-27): it sees every access of every thread whatever the order, so it needs neither the
 * large input nor four orders, and the orders need no ThreadSanitizer.
 *
 * A stage that wrote no result in any run of any case (an unfilled lab, or one whose blocks never write
 * out[0]) has nothing to race: the check returns KIT_RACES_NO_RESULT, and kit_grade fails the part without
 * the ThreadSanitizer run, which cost an unfilled lab 3.4 s of its 3.5 (2 cores, 2026-11-27).
 */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "grader.h"

static const struct {
    emu_order order;
    unsigned long long seed;
} orders[] = {{EMU_ORDER_FORWARD, 0}, {EMU_ORDER_RANDOM, 1}, {EMU_ORDER_REVERSE, 0}, {EMU_ORDER_RANDOM, 2}};
#define ORDER_COUNT (int)(sizeof orders / sizeof orders[0])
#define THREADSANITIZER_ORDERS 2 /* the first two: forward and a shuffle */

/*
 * The check: each case once per thread order. A correct kernel gives the same answer in every
 * order (a wrong one may be wrong the same way in all: that is the correctness test's business,
 * as for compute-sanitizer).
 */
int kit_emulated_races(const kit_stage *stage, FILE *out, int under_threadsanitizer)
{
    int no_result_cases = 0; /* cases where every order's run wrote no result */
    /* The largest: 2^16 ints' worth (7,281 3x3 matrices), without ThreadSanitizer only; 6,149 elements
     * already take a 64-thread stage 1 through three passes. */
    const size_t sizes[] = {33, 1000, 6149, kit_grade_elements(stage->number, (size_t)1 << 16)};
    const size_t size_count = under_threadsanitizer ? 3 : 4;
    const int order_count = under_threadsanitizer ? THREADSANITIZER_ORDERS : ORDER_COUNT;
    const unsigned threads[] = {stage->min_threads, 256, stage->max_threads};
    int cases = 0, racy = 0;
    for (size_t s = 0; s < size_count; s++) {
        kit_workspace ws;
        kit_error err = {KIT_OK, ""};
        if (kit_workspace_init_problem(&ws, stage->problem, sizes[s], &err) != KIT_OK ||
            kit_workspace_fill(&ws, KIT_PATTERN_RANDOM, 5, &err) != KIT_OK) {
            fprintf(stderr, "cannot set up n = %zu: %s\n", sizes[s], err.message);
            return 2;
        }
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            if (threads[t] < stage->min_threads || threads[t] > stage->max_threads ||
                (t > 0 && threads[t] == threads[t - 1]))
                continue;
            kit_status status[ORDER_COUNT] = {KIT_OK};
            kit_value got[ORDER_COUNT];
            int differ = 0, no_result_runs = 0;
            const size_t words = kit_out_words(stage->problem);
            for (int o = 0; o < order_count; o++) {
                emu_set_order(orders[o].order, orders[o].seed);
                memset(&got[o], 0, sizeof got[o]);
                status[o] = kit_run_checked(stage, &ws, threads[t], &got[o], &err);
                no_result_runs += status[o] == KIT_NO_RESULT && strstr(err.message, "wrote no result") != NULL;
                if (status[o] == KIT_CUDA_ERROR || status[o] == KIT_TIMEOUT)
                    cudaDeviceReset(); /* the emulator's faults are sticky, as a GPU's */
                differ |= o > 0 && (status[o] != status[0] || memcmp(got[o].w, got[0].w, words * sizeof(int32_t)) != 0);
            }
            emu_set_order(EMU_ORDER_FORWARD, 0);
            cases++;
            no_result_cases += no_result_runs == order_count;
            if (!differ)
                continue;
            racy++;
            fprintf(out, "stage %d (%s), n = %zu, %u threads: the result depends on the order of the threads:", stage->number,
                   stage->impl, sizes[s], threads[t]);
            for (int o = 0; o < order_count; o++) {
                char answer[160];
                kit_format_value(stage->problem, &got[o], answer, sizeof answer);
                fprintf(out, "%s %s%s %s %s", o ? "," : "", emu_order_name(orders[o].order),
                        orders[o].order == EMU_ORDER_RANDOM ? (orders[o].seed == 1 ? " (seed 1)" : " (seed 2)") : "",
                        status[o] == KIT_OK ? (kit_problem_equal(stage->problem, KIT_INT_SUM) ? "sum" : "answer")
                                            : kit_status_name(status[o]),
                        answer);
                if (stage->problem.type == KIT_FLOAT)
                    fprintf(out, " (bits 0x%08x)", (unsigned)got[o].w[0]);
            }
            fprintf(out, "; threads race for memory (a missing __syncthreads() or __syncwarp()?), or blocks expect "
                         "an order or keep a count from an earlier launch (blocks meet only through atomics)\n");
        }
        kit_workspace_free(&ws);
    }
    fprintf(out, "%d of %d case(s) of stage %d gave results that depend on the thread order\n", racy, cases,
           stage->number);
    if (!racy && cases > 0 && no_result_cases == cases) {
        fprintf(out, "stage %d wrote no result in any run of the %d case(s): nothing to check for races\n",
                stage->number, cases);
        return KIT_RACES_NO_RESULT;
    }
    return racy ? 1 : 0;
}

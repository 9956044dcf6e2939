/*
 * The emulator's counters for pass 1 of each reference stage (solutions/), at n = 4096 and 256
 * threads unless --n / --threads say otherwise: one block of numbers per stage, then the
 * lessons of the ladder checked against them (each stage's comment says what is slow in it):
 *
 *   stage 1  divergent requests and idle lanes (tid % (2*s) picks spread-out lanes)
 *   stage 2  bank conflicts (index = 2*s*tid), fewer divergent requests than stage 1
 *   stage 3  no bank conflict (sequential addressing)
 *   stage 4  half the blocks of stage 3, two global loads per thread
 *   stage 5  fewer block barriers than stage 4, warp meetings (shuffles)
 *   stage 7  16-byte loads, at most the resident blocks
 *   stage 13 32 sectors a global load request, 8 times the sectors its bytes need (36-byte strides)
 *   stage 14, 15  coalesced global loads: about the sectors their bytes need
 *
 * Prints "ok ..." or "FAILED ..." per lesson and exits 1 when one fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_control.h"
#include "kit.h"

static int failed = 0;

static void lesson(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok" : "FAILED", what);
    if (!ok)
        failed = 1;
}

/** a / b, 0 when b is 0. */
static double per(unsigned long long a, unsigned long long b) { return b ? (double)a / (double)b : 0.0; }

static void print(int stage, const emu_launch_counters *c)
{
    printf("stage %d: grid %llu x %llu threads, %llu B shared/block, resident %llu\n", stage, c->grid_blocks,
           c->block_threads, c->shared_bytes_per_block, c->resident_blocks);
    printf("  barriers %llu, warp meetings %llu\n", c->block_barriers, c->warp_meetings);
    printf("  global loads %llu (%llu B; by width 1/2/4/8/16: %llu/%llu/%llu/%llu/%llu), stores %llu (%llu B), "
           "atomics %llu\n", c->global_loads, c->global_load_bytes, c->global_loads_by_width[0],
           c->global_loads_by_width[1], c->global_loads_by_width[2], c->global_loads_by_width[3],
           c->global_loads_by_width[4], c->global_stores, c->global_store_bytes, c->global_atomics);
    printf("  global load requests %llu, sectors %llu (%.2f a request), needed %llu (sectors / needed %.2f)\n",
           c->global_load_requests, c->global_load_sectors, per(c->global_load_sectors, c->global_load_requests),
           c->global_load_sectors_needed, per(c->global_load_sectors, c->global_load_sectors_needed));
    printf("  shared requests %llu (%llu loads, %llu stores), wavefronts %llu, bank conflicts %llu\n",
           c->shared_requests, c->shared_load_requests, c->shared_store_requests, c->shared_wavefronts,
           c->shared_bank_conflicts);
    printf("  active lanes %llu, idle lanes %llu, divergent requests %llu\n", c->shared_active_lanes,
           c->shared_idle_lanes, c->shared_divergent_requests);
}

int main(int argc, char **argv)
{
    size_t n = 4096;
    unsigned threads = 256;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = (size_t)strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--threads"))
            threads = (unsigned)strtoul(argv[i + 1], NULL, 10);
    }
    if (!emu_counters_available()) {
        printf("FAILED: this build does not count (emu_counters_available() = 0)\n");
        return 1;
    }
    /* n elements of every problem: 9 ints a matrix at most, as many words out */
    int *in = NULL, *out = NULL;
    if (cudaMalloc((void **)&in, (9 * n + 64) * sizeof(int)) != cudaSuccess ||
        cudaMalloc((void **)&out, (9 * n + 64) * sizeof(int)) != cudaSuccess)
        return 1;
    int *host = malloc(9 * n * sizeof(int));
    emu_launch_counters c[KIT_STAGE_COUNT + 1];
    memset(c, 0, sizeof c);
    for (int s = 0; s < KIT_STAGE_COUNT; s++) {
        const kit_stage *stage = &kit_solutions_stages[s];
        if (!stage->pass || !*stage->pass)
            continue;
        /* every element 1 (a float sum: 1.0f): every partial result is known */
        const kit_problem p = stage->problem;
        const int is_float = p.type == KIT_FLOAT, one_word = is_float ? 0x3f800000 : 1;
        const size_t in_words = kit_in_words(p) * n, out_words = kit_out_words(p);
        for (size_t i = 0; i < in_words; i++)
            host[i] = one_word;
        cudaMemcpy(in, host, in_words * sizeof(int), cudaMemcpyHostToDevice);
        emu_counters_reset();
        size_t blocks = (*stage->pass)(in, out, n, threads);
        cudaMemcpy(host, out, (blocks ? blocks : 1) * out_words * sizeof(int), cudaMemcpyDeviceToHost);
        int right = blocks > 0;
        if (p.op == KIT_SUM) { /* the partial sums add up to n */
            double sum = 0;
            for (size_t b = 0; b < blocks; b++) {
                float f;
                memcpy(&f, &host[b], sizeof f);
                sum += is_float ? (double)f : (double)host[b];
            }
            right = right && sum == (double)n;
        } else if (p.op == KIT_ARGMIN) { /* every value is the minimum: the first index, 0 */
            right = right && blocks == 1 && host[0] == 1 && host[1] == 0;
        } else { /* min, max of ones: every word of every partial result is 1 */
            for (size_t w = 0; w < blocks * out_words; w++)
                right = right && host[w] == 1;
        }
        if (cudaDeviceSynchronize() != cudaSuccess || emu_counters_launches() < 1 ||
            emu_counters_get(0, &c[stage->number]) != 0 || !right) {
            printf("FAILED stage %d (%s): the pass did not run as expected (%zu results, the first %d)\n",
                   stage->number, kit_problem_name(p), blocks, host[0]);
            failed = 1;
            continue;
        }
        print(stage->number, &c[stage->number]);
    }
    free(host);
    cudaFree(in);
    cudaFree(out);

    lesson(c[1].shared_divergent_requests > 0 && c[1].shared_idle_lanes > c[1].shared_active_lanes,
           "stage 1: divergent requests, more idle lanes than active ones");
    lesson(c[2].shared_bank_conflicts > 0, "stage 2: bank conflicts");
    lesson(c[2].shared_divergent_requests < c[1].shared_divergent_requests,
           "stage 2: fewer divergent requests than stage 1");
    lesson(c[3].shared_requests > 0 && c[3].shared_bank_conflicts == 0, "stage 3: no bank conflict");
    lesson(2 * c[4].grid_blocks == c[3].grid_blocks && c[4].global_loads == 2 * c[4].grid_blocks * threads,
           "stage 4: half the blocks of stage 3, two loads per thread");
    lesson(c[5].block_barriers < c[4].block_barriers && c[5].warp_meetings > 0,
           "stage 5: fewer block barriers than stage 4, and warp meetings");
    lesson(c[7].global_loads_by_width[4] > 0 && c[7].grid_blocks <= c[7].resident_blocks,
           "stage 7: 16-byte loads, no more blocks than the GPU holds at once");
    lesson(per(c[13].global_load_sectors, c[13].global_load_requests) > 31 &&
               per(c[13].global_load_sectors, c[13].global_load_sectors_needed) > 7.5,
           "stage 13: lanes 36 bytes apart, 32 sectors a load request, 8 times the sectors its bytes need");
    lesson(per(c[14].global_load_sectors, c[14].global_load_sectors_needed) < 1.25 &&
               per(c[15].global_load_sectors, c[15].global_load_sectors_needed) < 1.1,
           "stages 14 and 15: coalesced loads, about the sectors their bytes need");
    return failed;
}

/**
 * \file emu/tests/blocks/main.c
 * \brief The order in which the emulator runs the blocks of a grid (block_order.cu).
 *
 *   emu_block_order order       every order is a permutation of the grid, never the index
 *                               order, never with the last block last or block 0 first
 *                               (forward: from a start block round, the start documented in
 *                               scheduler.cpp's forward_start and different at the next
 *                               launch; reverse: last first; random: a seeded shuffle, the
 *                               same at every launch)
 *   emu_block_order last-block  a kernel whose block gridDim.x - 1 adds up the others' sums
 *                               without waiting for them gets exactly the sums of the blocks
 *                               run up to it: a wrong sum in every order
 *   emu_block_order counters    a race-free kernel whose blocks do unequal work counts the
 *                               same in every order (emu_counters_*)
 *   emu_block_order float-sums  in the default (forward) order, a float sum made with one
 *                               atomicAdd per block gives different bits from one launch to
 *                               the next on the same input, and a multi-pass tree the same
 *                               bits every time (the reproducibility stage 9 asks for)
 *
 * Prints one "FAILED ..." line per problem, then a summary; exits 1 on any problem.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emu_control.h>

int emu_blocks_record_order(unsigned gx, unsigned gy, unsigned gz, unsigned threads, unsigned long long *order);
int emu_blocks_last_index_sum(unsigned blocks, unsigned threads, const int *in, int *got, unsigned long long *order);
int emu_blocks_unequal(unsigned blocks, unsigned threads, const int *in, int *out);
int emu_blocks_float_sum(int kind, const float *in, unsigned n, unsigned threads, float *got);

/* Launches this program has made (each one that ran counts, as in the scheduler): the forward
 * order's start depends on it. */
static unsigned long long launches = 0;

/** The first block of the program's launch number \p launch of \p n blocks in forward order:
 *  the formula of scheduler.cpp's forward_start, as documented. */
static unsigned long long forward_start(unsigned long long n, unsigned long long launch)
{
    if (n <= 1)
        return 0;
    unsigned long long fraction = launch * 0x9E3779B97F4A7C15ull;
    unsigned long long start = (n / 2 + (unsigned long long)(((unsigned __int128)fraction * n) >> 64)) % n;
    return start == 0 ? n / 2 : start;
}

typedef struct order_run {
    emu_order order;
    unsigned long long seed;
    const char *name;
} order_run;

/* The grader's four orders (tests/grader/races.c), and one more seed. */
static const order_run orders[] = {{EMU_ORDER_FORWARD, 0, "forward"},
                                   {EMU_ORDER_REVERSE, 0, "reverse"},
                                   {EMU_ORDER_RANDOM, 1, "random (seed 1)"},
                                   {EMU_ORDER_RANDOM, 2, "random (seed 2)"},
                                   {EMU_ORDER_RANDOM, 7, "random (seed 7)"}};
#define ORDER_COUNT (sizeof orders / sizeof orders[0])

static int failures = 0, checks = 0;

static void check(int ok, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *format, ...)
{
    checks++;
    if (ok)
        return;
    failures++;
    va_list args;
    va_start(args, format);
    printf("FAILED: ");
    vprintf(format, args);
    printf("\n");
    va_end(args);
}

/* ---------------------------------------------------------------- order */

static int test_order(void)
{
    static const unsigned grids[][3] = {{1, 1, 1},   {2, 1, 1},  {3, 1, 1}, {7, 1, 1},  {64, 1, 1},
                                        {1000, 1, 1}, {65536, 1, 1}, {5, 3, 2}, {1, 4, 3}, {2, 2, 2}};
    unsigned long long *first[ORDER_COUNT] = {0};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        unsigned long long n = (unsigned long long)grids[g][0] * grids[g][1] * grids[g][2];
        unsigned threads = n > 4096 ? 32 : 64;
        char grid[64];
        snprintf(grid, sizeof grid, "grid (%u,%u,%u)", grids[g][0], grids[g][1], grids[g][2]);
        unsigned long long *again = malloc(n * sizeof *again);
        char *seen = malloc(n);
        for (size_t o = 0; o < ORDER_COUNT; o++) {
            first[o] = malloc(n * sizeof **first);
            emu_set_order(orders[o].order, orders[o].seed);
            /* each call launches twice (a reset, then the grid) */
            unsigned long long first_launch = launches + 1, again_launch = launches + 3;
            int ran = emu_blocks_record_order(grids[g][0], grids[g][1], grids[g][2], threads, first[o]) == 0 &&
                      emu_blocks_record_order(grids[g][0], grids[g][1], grids[g][2], threads, again) == 0;
            launches += 4;
            char what[160];
            snprintf(what, sizeof what, "%s, %s order", grid, orders[o].name);
            check(ran, "%s: the launch failed", what);
            if (!ran)
                continue;
            for (int twice = 0; twice < 2; twice++) {
                const unsigned long long *ran_order = twice ? again : first[o];
                memset(seen, 0, n);
                unsigned long long in_place = 0, repeated = 0;
                for (unsigned long long k = 0; k < n; k++) {
                    if (ran_order[k] < n && !seen[ran_order[k]])
                        seen[ran_order[k]] = 1;
                    else
                        repeated++;
                    in_place += ran_order[k] == k;
                }
                check(repeated == 0, "%s: not a permutation of the grid (%llu of %llu blocks repeated)", what, repeated,
                      n);
                check(n < 2 || in_place < n, "%s: the blocks ran in index order (%llu of %llu in place)", what,
                      in_place, n);
                check(n < 2 || ran_order[n - 1] != n - 1, "%s: the last block ran last", what);
                check(n < 2 || ran_order[0] != 0, "%s: block 0 ran first", what);
                unsigned long long start = forward_start(n, twice ? again_launch : first_launch);
                for (unsigned long long k = 0; k < n; k++) {
                    unsigned long long want = orders[o].order == EMU_ORDER_FORWARD   ? (k + start) % n
                                              : orders[o].order == EMU_ORDER_REVERSE ? n - 1 - k
                                                                                     : first[o][k];
                    if (ran_order[k] != want) {
                        check(0, "%s: position %llu ran block %llu, not the documented %llu (launch %llu)", what, k,
                              ran_order[k], want, twice ? again_launch : first_launch);
                        break;
                    }
                }
            }
            /* forward: the next launch starts elsewhere (a grid of 8 blocks or more); the others
             * run a grid in the same order at every launch */
            int same = memcmp(first[o], again, n * sizeof *again) == 0;
            if (orders[o].order != EMU_ORDER_FORWARD)
                check(same, "%s: not the same order at the next launch", what);
            else if (n >= 8)
                check(!same, "%s: the same order at the next launch (both from block %llu)", what, first[o][0]);
        }
        /* Two seeds, two shuffles; a shuffle is neither of the fixed orders. */
        if (n >= 8) {
            for (size_t a = 2; a < ORDER_COUNT; a++)
                for (size_t b = 0; b < a; b++)
                    if (first[a] && first[b])
                        check(memcmp(first[a], first[b], n * sizeof **first) != 0,
                              "%s: %s and %s order ran the blocks in the same order", grid, orders[a].name,
                              orders[b].name);
        }
        for (size_t o = 0; o < ORDER_COUNT; o++) {
            free(first[o]);
            first[o] = NULL;
        }
        free(again);
        free(seen);
    }
    emu_set_order(EMU_ORDER_FORWARD, 0);
    if (failures)
        printf("emu_block_order order: %d of %d checks FAILED\n", failures, checks);
    else
        printf("emu_block_order order: all %d checks passed: no order runs blocks by index\n", checks);
    return failures != 0;
}

/* ---------------------------------------------------------------- last-block */

static int test_last_block(void)
{
    static const unsigned grids[] = {2, 3, 4, 8, 100, 1000, 4097};
    static const unsigned threads[] = {32, 256};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            unsigned n = grids[g];
            size_t values = (size_t)n * threads[t];
            int *in = malloc(values * sizeof *in);
            unsigned long long *order = malloc(n * sizeof *order);
            for (size_t i = 0; i < values; i++)
                in[i] = (int)(i / threads[t]) + 1; /* block b adds up to (b + 1) x threads */
            long long total = (long long)threads[t] * n * (n + 1) / 2;
            if (total > 2000000000) { /* sums of ints: no overflow here */
                free(in);
                free(order);
                continue;
            }
            for (size_t o = 0; o < ORDER_COUNT; o++) {
                char what[160];
                snprintf(what, sizeof what, "%u blocks of %u threads, %s order", n, threads[t], orders[o].name);
                emu_set_order(orders[o].order, orders[o].seed);
                int got = 0;
                int ran = emu_blocks_last_index_sum(n, threads[t], in, &got, order) == 0;
                check(ran, "%s: the launch failed", what);
                if (!ran)
                    continue;
                /* What a GPU that ran the blocks in this order, one after another, would give:
                 * the sums of the blocks up to the last one, the cleared zeros of the rest. */
                long long predicted = 0;
                for (unsigned k = 0; k < n; k++) {
                    predicted += (long long)threads[t] * (long long)(order[k] + 1);
                    if (order[k] == n - 1)
                        break;
                }
                /* Where the emulator holds back unfenced global stores (the counting build: a block's
                 * plain stores reach other blocks only after a __threadfence() or at the kernel's
                 * end), the last block sees its own sum alone; this kernel has no fence. */
                const long long own = (long long)threads[t] * n;
                check(got == (int)predicted || got == (int)own,
                      "%s: got %d, neither the sum of the blocks run up to the last one (%lld) nor the last "
                      "block's own (%lld)", what, got, predicted, own);
                check(got != (int)total, "%s: the right sum, %lld: block %u ran last", what, total, n - 1);
            }
            free(in);
            free(order);
        }
    emu_set_order(EMU_ORDER_FORWARD, 0);
    if (failures)
        printf("emu_block_order last-block: %d of %d checks FAILED\n", failures, checks);
    else
        printf("emu_block_order last-block: all %d checks passed: a wrong sum in every order\n", checks);
    return failures != 0;
}

/* ---------------------------------------------------------------- counters */

static int test_counters(void)
{
    if (!emu_counters_available()) {
        printf("emu_block_order counters: this build counts nothing (skipped)\n");
        return 77;
    }
    static const unsigned grids[] = {2, 5, 37};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        unsigned n = grids[g], threads = 128;
        size_t values = (size_t)n * threads;
        int *in = malloc(values * sizeof *in), *out = malloc(n * sizeof *out), *first_out = malloc(n * sizeof *out);
        for (size_t i = 0; i < values; i++)
            in[i] = (int)(i * 2654435761u % 1000);
        emu_launch_counters first, now;
        memset(&first, 0, sizeof first);
        for (size_t o = 0; o < ORDER_COUNT; o++) {
            char what[160];
            snprintf(what, sizeof what, "%u blocks of %u threads, %s order", n, threads, orders[o].name);
            emu_set_order(orders[o].order, orders[o].seed);
            emu_counters_reset();
            memset(&now, 0, sizeof now);
            int ran = emu_blocks_unequal(n, threads, in, out) == 0 && emu_counters_launches() == 1 &&
                      emu_counters_get(0, &now) == 0;
            check(ran, "%s: the launch failed or was not counted", what);
            if (!ran)
                continue;
            if (o == 0) {
                first = now;
                memcpy(first_out, out, n * sizeof *out);
                continue;
            }
            check(memcmp(out, first_out, n * sizeof *out) == 0, "%s: other results than in forward order", what);
            const unsigned long long *a = (const unsigned long long *)&first, *b = (const unsigned long long *)&now;
            for (size_t f = 0; f < sizeof first / sizeof *a; f++)
                check(a[f] == b[f], "%s: counter %zu is %llu, %llu in forward order", what, f, b[f], a[f]);
        }
        check(first.block_barriers > 0 && first.global_loads > values, "unequal_blocks: too little counted (%llu "
              "barriers, %llu loads)", first.block_barriers, first.global_loads);
        free(in);
        free(out);
        free(first_out);
    }
    emu_set_order(EMU_ORDER_FORWARD, 0);
    if (failures)
        printf("emu_block_order counters: %d of %d checks FAILED\n", failures, checks);
    else
        printf("emu_block_order counters: all %d checks passed: the same counts in every block order\n", checks);
    return failures != 0;
}

/* ---------------------------------------------------------------- float-sums */

static int test_float_sums(void)
{
    static const unsigned sizes[] = {1u << 16, 1u << 18, 1u << 20};
    enum { RUNS = 5 };
    emu_set_order(EMU_ORDER_FORWARD, 0); /* the default: what the grader's correctness suite runs in */
    /* Two inputs: 0.1f * (i % 1000), and random floats in [0, 1) with 24 random bits (the
     * grader's random float pattern). (0.1f * i itself is too smooth at 256 blocks: the sum
     * of a rotation of its increasing block sums rounds to the same float at most starts.) */
    for (size_t s = 0; s < 2 * sizeof sizes / sizeof sizes[0]; s++) {
        unsigned n = sizes[s / 2], threads = 256;
        int random = s % 2;
        float *in = malloc(n * sizeof *in);
        unsigned long long state = 0x243F6A8885A308D3ull;
        for (unsigned i = 0; i < n; i++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            in[i] = random ? (float)(unsigned)(state >> 40) / 16777216.0f : 0.1f * (float)(i % 1000);
        }
        for (int kind = 0; kind < 2; kind++) {
            unsigned bits[RUNS], distinct = 0;
            float got[RUNS];
            char what[160];
            snprintf(what, sizeof what, "n = %u (%u blocks of %u), %s, %s", n, n / threads, threads,
                     random ? "random floats in [0, 1)" : "0.1f * (i % 1000)",
                     kind == 0 ? "one float atomicAdd per block" : "a multi-pass tree");
            int ran = 1;
            for (int r = 0; r < RUNS && ran; r++) {
                ran = emu_blocks_float_sum(kind, in, n, threads, &got[r]) == 0;
                memcpy(&bits[r], &got[r], sizeof bits[r]);
                int seen = 0;
                for (int q = 0; q < r; q++)
                    seen |= bits[q] == bits[r];
                distinct += !seen;
            }
            check(ran, "%s: a launch failed", what);
            if (!ran)
                continue;
            printf("%s: %u different result(s) in %d runs:", what, distinct, RUNS);
            for (int r = 0; r < RUNS; r++)
                printf(" %.9g", (double)got[r]);
            printf("\n");
            if (kind == 0)
                check(distinct >= 2, "%s: the same bits in all %d runs: the blocks ran in the same order every time",
                      what, RUNS);
            else
                check(distinct == 1, "%s: %u different results in %d runs: a tree must give the same bits", what,
                      distinct, RUNS);
        }
        free(in);
    }
    if (failures)
        printf("emu_block_order float-sums: %d of %d checks FAILED\n", failures, checks);
    else
        printf("emu_block_order float-sums: all %d checks passed: per-block float atomics change from run to run, "
               "the tree does not\n", checks);
    return failures != 0;
}

int main(int argc, char **argv)
{
    const char *what = argc == 2 ? argv[1] : "";
    if (strcmp(what, "order") == 0)
        return test_order();
    if (strcmp(what, "last-block") == 0)
        return test_last_block();
    if (strcmp(what, "counters") == 0)
        return test_counters();
    if (strcmp(what, "float-sums") == 0)
        return test_float_sums();
    fprintf(stderr, "usage: %s order|last-block|counters|float-sums\n", argv[0]);
    return 2;
}

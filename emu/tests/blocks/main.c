/**
 * \file emu/tests/blocks/main.c
 * \brief The order in which the emulator runs the blocks of a grid (block_order.cu).
 *
 *   emu_block_order order       every order is a permutation of the grid, the same at every
 *                               launch, never the index order, never with the last block
 *                               last or block 0 first (forward: from the middle round;
 *                               reverse: last first; random: a seeded shuffle)
 *   emu_block_order last-block  a kernel whose block gridDim.x - 1 adds up the others' sums
 *                               without waiting for them gets exactly the sums of the blocks
 *                               run up to it: a wrong sum in every order
 *   emu_block_order counters    a race-free kernel whose blocks do unequal work counts the
 *                               same in every order (emu_counters_*)
 *
 * Prints one "FAILED ..." line per problem, then a summary; exits 1 on any problem.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emu_control.h>

int emu_blocks_record_order(unsigned gx, unsigned gy, unsigned gz, unsigned threads, unsigned long long *order);
int emu_blocks_last_index_sum(unsigned blocks, unsigned threads, const int *in, int *got);
int emu_blocks_unequal(unsigned blocks, unsigned threads, const int *in, int *out);

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
            int ran = emu_blocks_record_order(grids[g][0], grids[g][1], grids[g][2], threads, first[o]) == 0 &&
                      emu_blocks_record_order(grids[g][0], grids[g][1], grids[g][2], threads, again) == 0;
            char what[160];
            snprintf(what, sizeof what, "%s, %s order", grid, orders[o].name);
            check(ran, "%s: the launch failed", what);
            if (!ran)
                continue;
            memset(seen, 0, n);
            unsigned long long in_place = 0, repeated = 0;
            for (unsigned long long k = 0; k < n; k++) {
                if (first[o][k] < n && !seen[first[o][k]])
                    seen[first[o][k]] = 1;
                else
                    repeated++;
                in_place += first[o][k] == k;
                if (first[o][k] != again[k])
                    repeated += n; /* not the same order twice */
            }
            check(repeated == 0, "%s: not a permutation of the grid, or not the same at every launch "
                  "(%llu, of %llu blocks)", what, repeated, n);
            check(n < 2 || in_place < n, "%s: the blocks ran in index order (%llu of %llu in place)", what, in_place,
                  n);
            check(n < 2 || first[o][n - 1] != n - 1, "%s: the last block ran last", what);
            check(n < 2 || first[o][0] != 0, "%s: block 0 ran first", what);
            for (unsigned long long k = 0; k < n; k++) {
                unsigned long long want = orders[o].order == EMU_ORDER_FORWARD   ? (k + n / 2) % n
                                          : orders[o].order == EMU_ORDER_REVERSE ? n - 1 - k
                                                                                 : first[o][k];
                if (first[o][k] != want) {
                    check(0, "%s: position %llu ran block %llu, not the documented %llu", what, k, first[o][k], want);
                    break;
                }
            }
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
                int ran = emu_blocks_last_index_sum(n, threads[t], in, &got) == 0 &&
                          emu_blocks_record_order(n, 1, 1, threads[t], order) == 0;
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
                check(got == (int)predicted, "%s: got %d, not the sum of the blocks run up to the last one (%lld)",
                      what, got, predicted);
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

int main(int argc, char **argv)
{
    const char *what = argc == 2 ? argv[1] : "";
    if (strcmp(what, "order") == 0)
        return test_order();
    if (strcmp(what, "last-block") == 0)
        return test_last_block();
    if (strcmp(what, "counters") == 0)
        return test_counters();
    fprintf(stderr, "usage: %s order|last-block|counters\n", argv[0]);
    return 2;
}

/**
 * \file emu_check.c
 * \brief Runs kernels on the CPU emulator under several thread orders; in the race build,
 *        under ThreadSanitizer too.
 *
 *   emu_check [--impl solutions|labs] [--stage K] [--kernel NAME] [--n N,N,...]
 *             [--threads T,T,...] [--one-order]
 *
 * Every case (kernel, n, block size) runs with kit_run_checked once per order: forward,
 * reverse and two seeded random orders, of the threads of each block and of the blocks of
 * each grid (emu_control.h), on a random input of the stage's own problem (an int sum, a
 * float sum, a min, ...). A correct kernel gives the right answer, and the same bits, in
 * every order (a float sum by a tree too; one by float atomics does not); a kernel
 * whose threads race for shared memory, or whose blocks expect an order, usually gives
 * different results in different orders, which this program reports: a race signal that
 * needs no sanitizer.
 * Built with -fsanitize=thread (emu_race_check), ThreadSanitizer also reports each race it
 * sees, naming the fibers "blockIdx (x,y,z) threadIdx (x,y,z)", and makes the exit status non-zero.
 *
 * Compiled with EMU_CHECK_KERNELS="file.def" it runs the known-wrong kernels listed there
 * (KIT_WRONG_KERNEL lines, as tests/wrong_kernels/corpus.def has them) instead of the stage
 * tables; each is run in its slot's row of the solutions table.
 *
 * In the race build, ThreadSanitizer writes its reports to a log file (log_path, below) instead
 * of the terminal; at the end this program says the first race in the kit's words (the two
 * source lines, the GPU threads and blocks, which barrier is missing), names the log, and says
 * what ThreadSanitizer's exit status 66 means. TSAN_OPTIONS=log_path=stderr brings the raw
 * reports back to the terminal.
 *
 * Exit status: 0 when every case is exact in every order, 1 when one is not, 2 for bad options;
 * in the race build, 66 (ThreadSanitizer's, set as the program exits) when it reported a race.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <emu_control.h>

#include "kit.h"

#ifdef EMU_CHECK_KERNELS
#define KIT_WRONG_KERNEL(name, slot, part, expected, what)                                                    \
    extern const kit_pass_fn KIT_SYMBOL(name);                                                                 \
    extern const kit_signature KIT_SIGNATURE_SYMBOL(name);
#include EMU_CHECK_KERNELS
#undef KIT_WRONG_KERNEL

typedef struct listed_kernel {
    const char *name;
    int slot;
    const kit_pass_fn *pass;
    const kit_signature *signature;
} listed_kernel;

static const listed_kernel listed[] = {
#define KIT_WRONG_KERNEL(name, slot, part, expected, what) {#name, slot, &KIT_SYMBOL(name), &KIT_SIGNATURE_SYMBOL(name)},
#include EMU_CHECK_KERNELS
#undef KIT_WRONG_KERNEL
};
#endif

typedef struct order_run {
    emu_order order;
    unsigned long long seed;
} order_run;

static const order_run orders[] = {
    {EMU_ORDER_FORWARD, 0}, {EMU_ORDER_REVERSE, 0}, {EMU_ORDER_RANDOM, 1}, {EMU_ORDER_RANDOM, 2}};
#define ORDER_COUNT (int)(sizeof orders / sizeof orders[0])

/* Sizes at most 2^16: ThreadSanitizer makes the emulator about 25 times slower. */
static size_t default_sizes[] = {33, 1000, 1025, 6149, 65536};
static unsigned default_threads[] = {64, 256, 1024};

static int parse_list(const char *text, size_t *values, int max)
{
    int count = 0;
    while (*text && count < max) {
        char *end = NULL;
        unsigned long long v = strtoull(text, &end, 0);
        if (end == text || v == 0)
            return -1;
        values[count++] = (size_t)v;
        text = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return count;
}

typedef struct outcome {
    kit_status status;
    kit_value got;
    char message[sizeof(((kit_error *)0)->message)];
} outcome;

/* Whether two runs gave the same answer, bit for bit (a float sum too: a tree gives the same
 * bits in every order of the threads and blocks; float atomics do not). */
static int same_value(kit_problem problem, const kit_value *a, const kit_value *b)
{
    return memcmp(a->w, b->w, kit_out_words(problem) * sizeof a->w[0]) == 0;
}

/* One case in every order; returns 1 if it is exact and the same in all of them. */
static int check_case(const kit_stage *stage, kit_workspace *ws, unsigned threads, int order_count)
{
    outcome results[ORDER_COUNT];
    int ok = 1, differ = 0;
    for (int o = 0; o < order_count; o++) {
        kit_error err = {KIT_OK, ""};
        emu_set_order(orders[o].order, orders[o].seed);
        memset(&results[o].got, 0, sizeof results[o].got);
        results[o].status = kit_run_checked(stage, ws, threads, &results[o].got, &err);
        snprintf(results[o].message, sizeof results[o].message, "%s", err.message);
        if (results[o].status == KIT_CUDA_ERROR || results[o].status == KIT_TIMEOUT)
            cudaDeviceReset(); /* the emulator's faults are sticky, as a GPU's; start afresh */
        ok = ok && results[o].status == KIT_OK;
        if (o > 0 && (results[o].status != results[0].status ||
                      !same_value(ws->problem, &results[o].got, &results[0].got)))
            differ = 1;
    }
    emu_set_order(EMU_ORDER_FORWARD, 0);
    if (differ) {
        printf("stage %d (%s), n = %zu, %u threads: results differ between thread orders:", stage->number,
               stage->impl, ws->n, threads);
        for (int o = 0; o < order_count; o++) {
            char seed[32] = "";
            if (orders[o].order == EMU_ORDER_RANDOM)
                snprintf(seed, sizeof seed, " (seed %llu)", orders[o].seed);
            char value[160];
            kit_format_value(ws->problem, &results[o].got, value, sizeof value);
            printf("%s %s%s %s (%s %s)", o ? "," : "", emu_order_name(orders[o].order), seed,
                   results[o].status == KIT_OK ? "ok" : kit_status_name(results[o].status),
                   kit_op_name(ws->problem.op), value);
        }
        int all_ok = 1;
        for (int o = 0; o < order_count; o++)
            all_ok &= results[o].status == KIT_OK;
        if (all_ok && ws->problem.type == KIT_FLOAT)
            printf("; every one within the error bound, but a float sum must give the same bits whatever order the "
                   "blocks finish in: float atomics (or blocks that add in the order they finish) are not "
                   "reproducible, a tree is\n");
        else
            printf("; threads race for memory (a missing __syncthreads() or __syncwarp()?), or blocks expect an order "
                   "(blocks meet only through atomics)\n");
    }
    for (int o = 0; o < order_count; o++)
        if (results[o].status != KIT_OK) {
            printf("  %s order: %s: %s\n", emu_order_name(orders[o].order), kit_status_name(results[o].status),
                   results[o].message);
            break;
        }
    return ok && !differ;
}

/* ---------------------------------------------------------------- ThreadSanitizer's reports, told */

#define TSAN_LOG_PREFIX "/tmp/emu_race_check.tsan"
static const char tsan_log_prefix[] = TSAN_LOG_PREFIX;

/* Read by ThreadSanitizer as it starts, before the C library is ready for much (a constant,
 * then; TSAN_OPTIONS still overrides it): its reports go to /tmp/emu_race_check.tsan.<pid>,
 * not to the terminal. Unused in the plain build. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "log_path=" TSAN_LOG_PREFIX;
}

typedef struct tsan_access {
    char kind[32];   /* "write", "read", "atomic write", ... */
    char thread[16]; /* "T2", or "main" */
    char where[256]; /* file:line of frame #0 */
    char size[8];
} tsan_access;

/* The emulator's fiber name "blockIdx (2,0,0) threadIdx (1,0,0)" -> "threadIdx.x = 1 of blockIdx.x = 2" (a
 * 1-D launch; CUDA's (x,y,z) otherwise), with the block as a number to compare; the main thread -> "the host". */
static void gpu_thread_name(const char *tsan_name, char *out, size_t size, long long *block)
{
    unsigned bx, by, bz, tx, ty, tz;
    *block = -1;
    if (sscanf(tsan_name, "blockIdx (%u,%u,%u) threadIdx (%u,%u,%u)", &bx, &by, &bz, &tx, &ty, &tz) == 6) {
        if (by == 0 && bz == 0 && ty == 0 && tz == 0)
            snprintf(out, size, "threadIdx.x = %u of blockIdx.x = %u", tx, bx);
        else
            snprintf(out, size, "threadIdx (%u,%u,%u) of blockIdx (%u,%u,%u)", tx, ty, tz, bx, by, bz);
        *block = (long long)bx + ((long long)by << 32) + ((long long)bz << 48);
    } else {
        snprintf(out, size, "%.60s", tsan_name[0] ? tsan_name : "the host");
    }
}

/* This process's log: ThreadSanitizer adds the pid to the prefix. */
static void tsan_log_of_this_process(char *path, size_t size)
{
    snprintf(path, size, "%s.%ld", tsan_log_prefix, (long)getpid());
}

/* An earlier process with this pid may have left its log (a run that found a race keeps it, for
 * its frames). ThreadSanitizer opens the log only at its first report and then appends, so a
 * stale log read at the end would tell that process's race as this one's: a CI run on
 * 2026-11-27 failed a valid fixture so, with another fixture's race. Removed before any kernel. */
static void forget_a_stale_log_of_this_pid(void)
{
    char path[600];
    tsan_log_of_this_process(path, sizeof path);
    remove(path);
}

/* Says the first race of ThreadSanitizer's log in the kit's words; 1 when the log had one. */
static int tell_races(void)
{
    char path[600];
    tsan_log_of_this_process(path, sizeof path);
    FILE *f = tsan_log_prefix[0] ? fopen(path, "r") : NULL;
    if (!f)
        return 0;
    tsan_access acc[2];
    memset(acc, 0, sizeof acc);
    char names[2][64] = {"", ""};
    int reports = 0, n = 0, want_frame = -1;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "WARNING: ThreadSanitizer:")) {
            reports++;
            continue;
        }
        if (reports != 1)
            continue; /* the first report is told; the others are in the log */
        char kind[32], second[32], size[8], thread[16];
        if (n < 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ' && strstr(line, " of size ") &&
            strstr(line, " by ")) {
            /* "  Write of size 4 at 0x... by thread T2:" / "  Previous read of size 4 ... by main thread:" */
            const char *p = line + 2;
            int prev = strncmp(p, "Previous ", 9) == 0;
            if (prev)
                p += 9;
            int atomic = strncmp(p, "Atomic ", 7) == 0 || strncmp(p, "atomic ", 7) == 0;
            if (atomic)
                p += 7;
            if (sscanf(p, "%31s of size %7s", kind, size) != 2)
                continue;
            for (char *c = kind; *c; c++)
                *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
            const char *by = strstr(p, " by thread ");
            if (by && sscanf(by + 11, "%15[^:]", thread) == 1)
                snprintf(acc[n].thread, sizeof acc[n].thread, "%s", thread);
            else
                snprintf(acc[n].thread, sizeof acc[n].thread, "main");
            snprintf(acc[n].kind, sizeof acc[n].kind, "%s%.16s", atomic ? "atomic " : "", kind);
            snprintf(acc[n].size, sizeof acc[n].size, "%s", size);
            want_frame = n++;
            continue;
        }
        if (want_frame >= 0 && strncmp(line, "    #0 ", 7) == 0) {
            /* "    #0 function file:line (binary+0x...)": the second-to-last word */
            char *end = strrchr(line, '(');
            if (end && end > line + 7) {
                *--end = '\0';
                char *start = strrchr(line, ' ');
                snprintf(acc[want_frame].where, sizeof acc[want_frame].where, "%.250s", start ? start + 1 : line);
            }
            want_frame = -1;
            continue;
        }
        /* "  Thread T2 'blockIdx (2,0,0) threadIdx (1,0,0)' (tid=..." */
        if (strncmp(line, "  Thread T", 10) == 0 && sscanf(line + 9, "%15s", second) == 1) {
            char *q = strchr(line, '\'');
            char *r = q ? strchr(q + 1, '\'') : NULL;
            for (int i = 0; i < n; i++)
                if (q && r && strcmp(acc[i].thread, second) == 0)
                    snprintf(names[i], sizeof names[i], "%.*s", (int)(r - q - 1), q + 1);
        }
    }
    fclose(f);
    if (reports == 0) {
        remove(path);
        return 0;
    }
    char who[2][96];
    long long block[2] = {-1, -1};
    for (int i = 0; i < 2; i++)
        gpu_thread_name(strcmp(acc[i].thread, "main") == 0 ? "" : names[i], who[i], sizeof who[i], &block[i]);
    if (n == 2 && block[0] >= 0 && block[0] == block[1])
        printf("emu_race_check: data race between two threads of one block:\n");
    else if (n == 2 && block[0] >= 0 && block[1] >= 0)
        printf("emu_race_check: data race between two blocks:\n");
    else
        printf("emu_race_check: data race:\n");
    if (n == 2) {
        printf("  %s: %s of %s bytes at %s\n", who[0], acc[0].kind, acc[0].size, acc[0].where);
        printf("  %s, before it: %s of the same bytes at %s\n", who[1], acc[1].kind, acc[1].where);
        if (block[0] >= 0 && block[0] == block[1])
            printf("  with no __syncthreads() between them (or __syncwarp(), for two lanes of one warp)\n");
        else if (block[0] >= 0 && block[1] >= 0)
            printf("  with nothing ordering them: blocks meet only through atomics (atomicAdd, ...) or a second kernel\n");
    }
    printf("emu_race_check: ThreadSanitizer made %d report(s); all of them, with its stack frames: %s\n", reports, path);
    printf("emu_race_check: so the exit status is 66, ThreadSanitizer's for \"it reported a race\", whatever the "
           "results above\n");
    fflush(stdout);
    return 1;
}

/* emu_check, or emu_race_check in the race build: the lines it prints carry the name it was run by. */
static const char *program_name(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    return slash ? slash + 1 : argv0;
}

/* One line saying what was wrong (NULL: nothing, --help), then the usage line. */
static int usage(const char *program, const char *why, const char *value)
{
    if (why)
        fprintf(stderr, "%s: %s%s%s%s\n", program, why, value ? " '" : "", value ? value : "", value ? "'" : "");
    fprintf(stderr, "usage: %s [--impl solutions|labs] [--stage K] [--kernel NAME] [--n N,N,...] "
            "[--threads T,T,...] [--one-order]\n", program);
    return why ? 2 : 0;
}

int main(int argc, char **argv)
{
    const kit_stage *table = kit_solutions_stages;
    int only_stage = 0, order_count = ORDER_COUNT;
    const char *only_kernel = NULL;
    size_t sizes[32], threads[8];
    int size_count = (int)(sizeof default_sizes / sizeof default_sizes[0]);
    int thread_count = (int)(sizeof default_threads / sizeof default_threads[0]);
    memcpy(sizes, default_sizes, sizeof default_sizes);
    for (int t = 0; t < thread_count; t++)
        threads[t] = default_threads[t];
    if (emu_race_mode())
        forget_a_stale_log_of_this_pid();
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--impl") == 0 && value) {
            table = strcmp(value, "labs") == 0 ? kit_labs_stages : kit_solutions_stages;
            if (strcmp(value, "labs") != 0 && strcmp(value, "solutions") != 0)
                return usage(argv[0], "--impl is labs or solutions, not", value);
            i++;
        } else if (strcmp(argv[i], "--stage") == 0 && value) {
            only_stage = atoi(value);
            if (only_stage < 1 || only_stage > KIT_STAGE_COUNT)
                return usage(argv[0], "--stage is the number of a stage of the kit, not", value);
            i++;
        } else if (strcmp(argv[i], "--kernel") == 0 && value) {
            only_kernel = value;
            i++;
        } else if (strcmp(argv[i], "--n") == 0 && value) {
            if ((size_count = parse_list(value, sizes, 32)) <= 0)
                return usage(argv[0], "--n takes sizes separated by commas, such as 1000,6149, not", value);
            i++;
        } else if (strcmp(argv[i], "--threads") == 0 && value) {
            if ((thread_count = parse_list(value, threads, 8)) <= 0)
                return usage(argv[0], "--threads takes block sizes separated by commas, such as 64,256, not", value);
            i++;
        } else if (strcmp(argv[i], "--one-order") == 0) {
            order_count = 1;
        } else if (strcmp(argv[i], "--help") == 0) {
            return usage(argv[0], NULL, NULL);
        } else {
            static const char *const takes_a_value[] = {"--impl", "--stage", "--kernel", "--n", "--threads"};
            int known = 0;
            for (size_t k = 0; k < sizeof takes_a_value / sizeof takes_a_value[0]; k++)
                known |= strcmp(argv[i], takes_a_value[k]) == 0;
            /* here a known option can only have come without its value (the last argument) */
            return usage(argv[0], known ? "this option needs a value:" : "unknown option", argv[i]);
        }
    }

    /* The kernels to run, as stage rows. */
    kit_stage rows[64];
    int row_count = 0;
#ifdef EMU_CHECK_KERNELS
    (void)table;
    for (size_t k = 0; k < sizeof listed / sizeof listed[0]; k++) {
        if (only_kernel && strcmp(only_kernel, listed[k].name) != 0)
            continue;
        int duplicate = 0; /* a kernel may be listed once per check that must reject it */
        for (int r = 0; r < row_count; r++)
            duplicate |= rows[r].pass == listed[k].pass;
        if (duplicate)
            continue;
        rows[row_count] = *kit_find_stage(kit_solutions_stages, listed[k].slot);
        rows[row_count].pass = listed[k].pass;
        rows[row_count].signature = listed[k].signature;
        rows[row_count].impl = listed[k].name;
        row_count++;
    }
#else
    for (int k = 0; k < KIT_STAGE_COUNT; k++)
        if (only_stage ? table[k].number == only_stage : kit_stage_released(&table[k]))
            rows[row_count++] = table[k]; /* a stage asked for but not released says so when run */
#endif
    if (row_count == 0) {
        fprintf(stderr, "%s: no kernel matches %s\n", argv[0], only_kernel ? only_kernel : "the options");
        return 2;
    }

    printf("%s: %d kernel(s) on the CPU emulator%s, %d thread order(s)\n", program_name(argv[0]), row_count,
           emu_race_mode() ? " under ThreadSanitizer" : "", order_count);
    int cases = 0, failed = 0;
    for (int s = 0; s < size_count; s++) {
        /* one workspace per problem the rows reduce (an int sum, a float sum, ...) at this size */
        kit_workspace ws[8];
        int ws_count = 0;
        for (int r = 0; r < row_count; r++) {
            kit_workspace *mine = NULL;
            for (int w = 0; w < ws_count && !mine; w++)
                if (kit_problem_equal(ws[w].problem, rows[r].problem))
                    mine = &ws[w];
            if (!mine) {
                kit_error err = {KIT_OK, ""};
                const int full = ws_count == (int)(sizeof ws / sizeof ws[0]);
                if (!full) {
                    mine = &ws[ws_count];
                    memset(mine, 0, sizeof *mine);
                }
                if (full ||
                    kit_workspace_init_problem(mine, rows[r].problem, sizes[s], &err) != KIT_OK ||
                    kit_workspace_fill(mine, KIT_PATTERN_RANDOM, 7000u + sizes[s], &err) != KIT_OK) {
                    fprintf(stderr, "%s: %s\n", argv[0], err.message[0] ? err.message : "too many problems");
                    for (int w = 0; w <= ws_count && w < (int)(sizeof ws / sizeof ws[0]); w++)
                        kit_workspace_free(&ws[w]);
                    return 2;
                }
                ws_count++;
            }
            for (int t = 0; t < thread_count; t++) {
                if (threads[t] < rows[r].min_threads || threads[t] > rows[r].max_threads)
                    continue;
                cases++;
                failed += !check_case(&rows[r], mine, (unsigned)threads[t], order_count);
            }
        }
        for (int w = 0; w < ws_count; w++)
            kit_workspace_free(&ws[w]);
    }
    if (failed)
        printf("%s: %d of %d cases FAILED\n", program_name(argv[0]), failed, cases);
    else
        printf("%s: all %d cases exact, the same in every thread order\n", program_name(argv[0]), cases);
    if (emu_race_mode())
        tell_races();
    return failed ? 1 : 0;
}

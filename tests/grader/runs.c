/**
 * \file runs.c
 * \brief The runs behind each grading test, through the harness API (common/kit.h) only.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grader.h"

/** Longest a small grading run may take before it counts as hung (the harness default is 10 s). */
#define KIT_GRADE_TIMEOUT_S 5.0

/*
 * After a hang the kernel is still running, and any CUDA call that waits for the GPU
 * (cudaFree, or the runtime's own clean-up at exit) would wait for ever. So after a timeout
 * the process touches CUDA no more and leaves with _exit(): the driver tears the context
 * down, which stops the kernel. Registered after CUDA's own exit handler, this one runs first.
 */
static void leave_without_cuda_teardown(void)
{
    fflush(NULL);
    _exit(EXIT_FAILURE);
}

static void note_status(kit_status status)
{
    static int registered = 0;
    if (status == KIT_TIMEOUT && !registered) {
        registered = 1;
        atexit(leave_without_cuda_teardown);
    }
}

/* Frees a workspace unless the GPU hung (freeing would wait for the hung kernel). */
static void release(kit_workspace *ws, kit_status last)
{
    if (last != KIT_TIMEOUT)
        kit_workspace_free(ws);
}

/* ---------------------------------------------------------------- correctness */

/*
 * Sizes every stage must get right. Each catches a kind of mistake: 1 and 2 (a tree that
 * needs two values), around a warp (31-33), below, at and past one block, powers of two and
 * their neighbours (1023, 1025), a prime (1000003) and 2^20 + 7 (several passes, a ragged
 * last block in each), 3 * 2^18 (whole blocks, but not a power of two).
 */
static const size_t fixed_sizes[] = {1,    2,    3,     31,    32,      33,        63,        64,
                                     65,   100,  1000,  1023,  1024,    1025,      4096,      65536,
                                     786432, 1000003, (size_t)1 << 20, ((size_t)1 << 20) + 7};

/* Sizes relative to the block size: one short of a block, one past one and two blocks. */
static size_t relative_size(unsigned threads, int which)
{
    const size_t t = threads;
    const size_t sizes[] = {t - 1, t + 1, 2 * t - 1, 2 * t + 1, 3 * t + 5};
    return sizes[which];
}
#define RELATIVE_SIZES 5

/* A few sizes no one can tune for: fixed seeds, so a failure can be repeated. */
static size_t scattered_size(int which, size_t max_n)
{
    unsigned long long x = 0x9E3779B97F4A7C15ull * (unsigned long long)(which + 11);
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    /* On the CPU emulator (max_n set) below 2^17: a scattered size tests the odd shape of n,
     * not its scale, and the emulator runs a GPU thread per fiber. */
    const size_t range = !max_n ? (size_t)1 << 21 : max_n < ((size_t)1 << 17) ? max_n : (size_t)1 << 17;
    return 1 + (size_t)(x % range);
}
#define SCATTERED_SIZES 3

/* Ones and last-only first: their failures say the most (elements lost, the tail). */
static const kit_pattern pattern_order[] = {KIT_PATTERN_ONES, KIT_PATTERN_LAST_ONLY, KIT_PATTERN_POSITIONAL,
                                            KIT_PATTERN_RANDOM};
static const unsigned long long seeds[] = {1, 2};

/* Runs one input at one block size `repeats` times; returns 0 once the GPU is unusable. */
static int run_case(const kit_stage *stage, kit_workspace *ws, unsigned threads, int repeats, kit_case_log *log)
{
    for (int r = 0; r < repeats; r++) {
        kit_case c;
        memset(&c, 0, sizeof c);
        kit_error err = {KIT_OK, ""};
        c.n = ws->n;
        c.threads = threads;
        c.pattern = ws->pattern;
        c.seed = ws->seed;
        c.repeat = r;
        c.expected = ws->ref.answer;
        c.status = kit_run_checked(stage, ws, threads, &c.got, &err);
        note_status(c.status);
        if (c.status != KIT_OK)
            snprintf(c.message, sizeof c.message, "%s", err.message);
        if (!kit_case_log_add(log, &c))
            return 0;
        if (kit_status_is_fatal(c.status))
            return 0;
    }
    return 1;
}

/* Every pattern (and seed) of one n, at one block size. */
static kit_status run_size(const kit_stage *stage, size_t n, unsigned threads, kit_case_log *log, kit_error *err)
{
    kit_workspace ws;
    kit_status status = kit_workspace_init_problem(&ws, stage->problem, n, err);
    ws.timeout_s = KIT_GRADE_TIMEOUT_S;
    int alive = 1;
    for (size_t p = 0; status == KIT_OK && alive && p < sizeof pattern_order / sizeof pattern_order[0]; p++) {
        int seeded = pattern_order[p] == KIT_PATTERN_RANDOM || pattern_order[p] == KIT_PATTERN_POSITIONAL;
        for (int s = 0; status == KIT_OK && alive && s < (seeded ? 2 : 1); s++) {
            status = kit_workspace_fill(&ws, pattern_order[p], seeded ? seeds[s] + n : 1, err);
            if (status == KIT_OK)
                alive = run_case(stage, &ws, threads, 1, log);
        }
    }
    if (status == KIT_OK && !alive)
        status = kit_fail(err, log->cases[log->count - 1].status, "%s", log->cases[log->count - 1].message);
    release(&ws, status);
    return status;
}

static kit_status run_repeats(const kit_stage *stage, size_t max_n, int runs, kit_case_log *log, kit_error *err);

static int supports(const kit_stage *stage, unsigned threads)
{
    return threads >= stage->min_threads && threads <= stage->max_threads;
}

kit_status kit_grade_correctness(const kit_stage *stage, int large, size_t max_n, kit_case_log *log,
                                 kit_error *err)
{
    kit_status status = KIT_OK;
    if (large) {
        /* 2^26 ints' worth (256 MiB, far above any L2; 2^26 / 9 matrices): every block size, two patterns. */
        kit_workspace ws;
        status = kit_workspace_init_problem(&ws, stage->problem, kit_grade_elements(stage->number, (size_t)1 << 26),
                                            err);
        ws.timeout_s = 2 * KIT_GRADE_TIMEOUT_S;
        const kit_pattern patterns[] = {KIT_PATTERN_ONES, KIT_PATTERN_RANDOM};
        int alive = 1;
        for (int p = 0; status == KIT_OK && alive && p < 2; p++) {
            status = kit_workspace_fill(&ws, patterns[p], 26, err);
            for (unsigned t = stage->min_threads; status == KIT_OK && alive && t <= stage->max_threads; t *= 2)
                alive = run_case(stage, &ws, t, 1, log);
        }
        release(&ws, alive ? status : log->cases[log->count - 1].status);
        return status;
    }
    for (unsigned t = stage->min_threads; t <= stage->max_threads; t *= 2) {
        if (!supports(stage, t))
            continue;
        size_t sizes[sizeof fixed_sizes / sizeof fixed_sizes[0] + RELATIVE_SIZES + SCATTERED_SIZES + 1];
        int count = 0;
        for (size_t s = 0; s < sizeof fixed_sizes / sizeof fixed_sizes[0]; s++)
            if (!max_n || fixed_sizes[s] <= max_n)
                sizes[count++] = fixed_sizes[s];
        for (int r = 0; r < RELATIVE_SIZES; r++)
            if (!max_n || relative_size(t, r) <= max_n)
                sizes[count++] = relative_size(t, r);
        for (int r = 0; r < SCATTERED_SIZES; r++)
            sizes[count++] = scattered_size(r, max_n);
        /* A max_n below the largest fixed size (3x3 matrices on the CPU emulator) is a size too:
         * the largest input there, several passes and a ragged last block. */
        int listed = 0;
        for (int s = 0; s < count; s++)
            listed |= sizes[s] == max_n;
        if (max_n && !listed && max_n < fixed_sizes[sizeof fixed_sizes / sizeof fixed_sizes[0] - 1])
            sizes[count++] = max_n;
        int first_case = log->count;
        for (int s = 0; s < count; s++) {
            /* Once this block size has failed, larger inputs cannot make it pass, and the small
             * ones already show the pattern of the failure: skip them (wrong kernels on the
             * emulator took 90 s where they now take 25). */
            int failed = 0;
            for (int c = first_case; c < log->count && !failed; c++)
                failed = log->cases[c].status != KIT_OK;
            if (failed && sizes[s] > 4096)
                continue;
            status = run_size(stage, sizes[s], t, log, err);
            if (status != KIT_OK)
                return status; /* the GPU is unusable, or a workspace could not be set up */
        }
    }
    /* A float stage must give the same bits every run: repeats, on the CPU emulator too (where no
     * "repeats" request runs), and after failures too: float atomics that add too many block
     * sums in a row fail the error bound at small block sizes, and what the repeats show (other
     * bits each run) is what names their cause (kit_diagnose()). */
    if (stage->problem.type == KIT_FLOAT)
        status = run_repeats(stage, max_n, KIT_REPRODUCIBLE_RUNS, log, err);
    return status;
}

kit_status kit_grade_largest(const kit_stage *stage, kit_case_log *log, kit_error *err)
{
    /* KIT_MAX_N = 2^30 words (4 GiB: 2^30 ints, 2^30 / 9 matrices): byte offsets past 2^31
     * overflow a signed int here, and only here. Random input, the smallest and the largest
     * block size (each run reads 4 GiB back to check the input is unchanged). */
    kit_workspace ws;
    kit_status status = kit_workspace_init_problem(&ws, stage->problem, kit_max_n(stage->problem), err);
    ws.timeout_s = 4 * KIT_GRADE_TIMEOUT_S;
    if (status == KIT_OK)
        status = kit_workspace_fill(&ws, KIT_PATTERN_RANDOM, 30, err);
    int alive = 1;
    const unsigned threads[] = {stage->min_threads, stage->max_threads};
    for (int i = 0; status == KIT_OK && alive && i < 2; i++)
        if (i == 0 || threads[1] != threads[0])
            alive = run_case(stage, &ws, threads[i], 1, log);
    release(&ws, alive ? status : log->cases[log->count - 1].status);
    return status;
}

/*
 * The same two random inputs \p runs times at every block size: n = 2^20 + 7 (many blocks, three
 * passes; capped at \p max_n, 0 = none) and 6149 (a few blocks). Every run must be right, and
 * every repeat give the bits of the first run (kit_check_reproducible(), in kit_grade): a race,
 * or a float sum whose blocks meet in float atomics, shows here. On a GPU the blocks finish in
 * an order of their own every run; the CPU emulator starts each launch at another block.
 */
static kit_status run_repeats(const kit_stage *stage, size_t max_n, int runs, kit_case_log *log, kit_error *err)
{
    const size_t sizes[] = {max_n && max_n < ((size_t)1 << 20) + 7 ? max_n : ((size_t)1 << 20) + 7, 6149};
    kit_status status = KIT_OK;
    for (size_t s = 0; status == KIT_OK && s < 2; s++) {
        kit_workspace ws;
        status = kit_workspace_init_problem(&ws, stage->problem, sizes[s], err);
        ws.timeout_s = KIT_GRADE_TIMEOUT_S;
        if (status == KIT_OK)
            status = kit_workspace_fill(&ws, KIT_PATTERN_RANDOM, 3, err);
        for (unsigned t = stage->min_threads; status == KIT_OK && t <= stage->max_threads; t *= 2)
            if (!run_case(stage, &ws, t, runs, log))
                status = kit_fail(err, log->cases[log->count - 1].status, "%s", log->cases[log->count - 1].message);
        release(&ws, status);
    }
    return status;
}

kit_status kit_grade_repeats(const kit_stage *stage, kit_case_log *log, kit_error *err)
{
    return run_repeats(stage, 0, 10, log, err);
}

/* ---------------------------------------------------------------- speedup */

enum { STUDENT, REFERENCE, BASELINE, SERIES };

kit_status kit_grade_speedup(const kit_grade_config *config, const kit_stage *student,
                             const kit_stage *reference_table, unsigned long long seed, kit_speedup *s,
                             kit_error *err)
{
    memset(s, 0, sizeof *s);
    const kit_stage *stages[SERIES] = {student, kit_find_stage(reference_table, student->number),
                                       kit_find_stage(reference_table, student->baseline)};
    const unsigned threads = config->speedup_threads;
    /* A row that is its own baseline (stage 1, stage 13): the reference is timed once and
     * stands for both, so the rule reads student >= fraction x the reference's speed. */
    const int series = student->baseline == student->number ? 2 : 3;
    if (!stages[REFERENCE] || !stages[BASELINE] || !stages[REFERENCE]->pass || !stages[BASELINE]->pass ||
        !*stages[REFERENCE]->pass || !*stages[BASELINE]->pass)
        return kit_fail(err, KIT_NOT_RELEASED, "the reference of stage %d or of its baseline stage %d is not in this "
                        "runner (tests/CMakeLists.txt links them)", student->number, student->baseline);
    const int capacity = config->speedup_rounds * config->speedup_attempts;
    double *samples = malloc(sizeof(double) * (size_t)(2 * SERIES * capacity));
    if (!samples)
        return kit_fail(err, KIT_OUT_OF_MEMORY, "no host memory for the timings");
    double *scratch = samples + SERIES * capacity;

    kit_workspace ws;
    kit_status status = kit_workspace_init_problem(&ws, student->problem, config->speedup_n, err);
    if (status == KIT_OK)
        status = kit_workspace_fill(&ws, KIT_PATTERN_RANDOM, seed, err);
    ws.timeout_s = 2 * KIT_GRADE_TIMEOUT_S;
    const size_t words = ws.n * kit_in_words(student->problem); /* what the copy moves and a reduction reads */
    /* The floor: no repetition may beat reading n ints at 1.5x the copy bandwidth measured
     * here and now (a kernel that remembers its answer takes microseconds). Only for inputs
     * of at least 4 L2 caches: a small input (the latency case, 2^18 ints = 1 MiB) is read
     * from L2 by a reduction, while the copy of it pays for a launch and its writes; on the
     * H100 the reference stage 8 took 0.0180 ms at n = 259,247 where such a floor said
     * 0.0191 ms (2026-11-23). There every timed run's sum still has to be right. */
    kit_timing copy;
    kit_gpu gpu;
    kit_error ignored;
    const int above_l2 = kit_gpu_open(&gpu, &ignored) == KIT_OK && (double)words * sizeof(int) >= 4.0 * gpu.l2_bytes;
    if (status == KIT_OK && (status = kit_time_copy(&ws, 2, 10, &copy, err)) == KIT_OK) {
        s->copy_ms = copy.median_ms;
        s->floor_ms = above_l2 ? kit_read_floor_ms(words, &copy) : 0.0; /* in words: the floor reads 4 bytes a word */
        ws.min_rep_ms = s->floor_ms;
    }
    kit_value got;
    if (status == KIT_OK && (status = kit_run_checked(student, &ws, threads, &got, err)) != KIT_OK) {
        char cause[sizeof err->message];
        snprintf(cause, sizeof cause, "%s", err->message);
        kit_fail(err, status, "not timed, because the stage is not correct at n = %zu: %s", ws.n, cause);
    }
    /* Untimed first runs: module loading and clocks ramping up stay out of the samples. */
    kit_timing t;
    for (int i = 0; status == KIT_OK && i < series; i++)
        status = kit_time_stage(stages[i], &ws, threads, 2, 1, &t, err);

    int taken = 0;
    for (int attempt = 1; status == KIT_OK && attempt <= config->speedup_attempts; attempt++) {
        /* Interleaved, in a rotating order: drift of clocks or of a neighbour's load hits all alike. */
        for (int round = 0; status == KIT_OK && round < config->speedup_rounds; round++, taken++) {
            for (int j = 0; status == KIT_OK && j < series; j++) {
                int which = (round + j) % series;
                status = kit_time_stage(stages[which], &ws, threads, 0, config->speedup_reps, &t, err);
                samples[which * capacity + taken] = t.median_ms;
            }
        }
        if (status != KIT_OK)
            break;
        double medians[SERIES] = {0, 0, 0}, spreads[SERIES] = {0, 0, 0};
        for (int i = 0; i < series; i++) {
            memcpy(scratch, samples + i * capacity, sizeof(double) * (size_t)taken);
            medians[i] = kit_median_spread(scratch, taken, &spreads[i]);
        }
        if (series == 2) {
            medians[BASELINE] = medians[REFERENCE];
            spreads[BASELINE] = spreads[REFERENCE];
        }
        s->student_ms = medians[STUDENT];
        s->reference_ms = medians[REFERENCE];
        s->baseline_ms = medians[BASELINE];
        s->spread = spreads[0] > spreads[1] ? spreads[0] : spreads[1];
        if (spreads[2] > s->spread)
            s->spread = spreads[2];
        s->samples = taken;
        s->attempts = attempt;
        if (kit_speedup_decide(config, student->number, s, attempt == config->speedup_attempts) !=
            KIT_VERDICT_MEASURE_AGAIN)
            break;
    }
    note_status(status);
    release(&ws, status);
    free(samples);
    return status;
}

/* ---------------------------------------------------------------- sanitizer driver */

int kit_grade_run_once(const kit_stage *stage, FILE *out)
{
    kit_gpu gpu;
    kit_error err = {KIT_OK, ""};
    if (kit_gpu_open(&gpu, &err) != KIT_OK) {
        fprintf(out, "SKIPPED: %s\n", err.message);
        return 77;
    }
    /* Small inputs: the sanitizers slow kernels down 10-100x. A ragged last block in each. */
    const size_t sizes[] = {33, 1000, 6149};
    int wrong = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        kit_workspace ws;
        if (kit_workspace_init_problem(&ws, stage->problem, sizes[s], &err) != KIT_OK ||
            kit_workspace_fill(&ws, KIT_PATTERN_RANDOM, 5, &err) != KIT_OK) {
            fprintf(out, "cannot set up n = %zu: %s\n", sizes[s], err.message);
            kit_workspace_free(&ws);
            return 1;
        }
        ws.timeout_s = 60; /* instrumented kernels are slow */
        /* Every supported block size: an overflow may need the largest, a race the smallest. */
        for (unsigned t = stage->min_threads; t <= stage->max_threads; t *= 2) {
            kit_value got;
            kit_status status = kit_run_checked(stage, &ws, t, &got, &err);
            fprintf(out, "stage %d (%s), n = %zu, %u threads: %s%s%s\n", stage->number, stage->impl, sizes[s], t,
                    kit_status_name(status), status == KIT_OK ? "" : ": ", status == KIT_OK ? "" : err.message);
            wrong += status != KIT_OK;
            note_status(status);
            if (kit_status_is_fatal(status)) {
                release(&ws, status);
                return 1;
            }
        }
        kit_workspace_free(&ws);
    }
    /* A wrong answer is the correctness test's business; this run is about what the sanitizer saw. */
    fprintf(out, "%d run(s) gave a wrong or missing result (see the correctness test)\n", wrong);
    return 0;
}

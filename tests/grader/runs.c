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
    _exit(KIT_RUNNER_HUNG_EXIT); /* kit_grade accepts it only beside a run that says it timed out */
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

/* ---------------------------------------------------------------- the planned cases */

/* A workspace of this many bytes or more is one of the 4 GiB cases: the machine may not hold it. */
#define KIT_HUGE_BYTES ((size_t)1 << 31)

/* Whether the GPU and the host have room for a workspace of \p bytes; if not, \p why says so.
 * The runner holds the input twice on the host (generated, read back to check it). */
static int can_hold(const kit_stage *stage, size_t n, size_t bytes, char *why, size_t size)
{
    kit_gpu gpu;
    kit_error err = {KIT_OK, ""};
    if (kit_gpu_open(&gpu, &err) != KIT_OK)
        return 1; /* the run itself will say what is wrong */
    const double need_gib = (double)bytes / (1 << 30), free_gib = (double)gpu.free_bytes / (1 << 30);
    if ((double)gpu.free_bytes < 1.1 * (double)bytes) {
        snprintf(why, size, "n = %zu (the largest n the harness promises, 2^30 words) not run: it needs %.1f GiB of "
                 "GPU memory and %s has %.1f GiB free", n, need_gib, gpu.name, free_gib);
        return 0;
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double host_gib = pages > 0 && page > 0 ? (double)pages * (double)page / (1 << 30) : 0;
    if (host_gib > 0 && host_gib < 2.5 * need_gib) {
        snprintf(why, size, "n = %zu (the largest n the harness promises, 2^30 words) not run: it needs about %.0f GiB "
                 "of free host memory, %.1f GiB are free", n, 2.5 * need_gib, host_gib);
        return 0;
    }
    (void)stage;
    return 1;
}

/* How long one run may take before it counts as hung: more for the large inputs. */
static double timeout_for(const kit_stage *stage, size_t n)
{
    const size_t words = n * kit_in_words(stage->problem);
    return words >= ((size_t)1 << 29) ? 4 * KIT_GRADE_TIMEOUT_S
           : words >= ((size_t)1 << 25) ? 2 * KIT_GRADE_TIMEOUT_S
                                        : KIT_GRADE_TIMEOUT_S;
}

kit_status kit_grade_cases(const kit_stage *stage, const kit_plan *plan, kit_case_log *log, char *skipped,
                           size_t skipped_size, kit_error *err)
{
    kit_workspace ws;
    memset(&ws, 0, sizeof ws);
    int have_workspace = 0, filled = 0;
    kit_status status = KIT_OK;
    unsigned failed_threads[64];
    int failed_count = 0;
    if (skipped && skipped_size)
        skipped[0] = '\0';
    for (int i = 0; i < plan->count && status == KIT_OK; i++) {
        const kit_planned_case *p = &plan->cases[i];
        /* Once a block size has failed, larger inputs cannot make it pass, and the small ones
         * already show the pattern of the failure (wrong kernels on the emulator took 90 s
         * where they now take 25). */
        int failed = 0;
        for (int f = 0; f < failed_count; f++)
            failed |= failed_threads[f] == p->threads;
        if (failed && p->n > 4096)
            continue;
        if (!have_workspace || ws.n != p->n) {
            if (have_workspace)
                kit_workspace_free(&ws);
            have_workspace = filled = 0;
            const size_t bytes = kit_workspace_bytes_problem(stage->problem, p->n);
            char why[512];
            if (bytes >= KIT_HUGE_BYTES && !can_hold(stage, p->n, bytes, why, sizeof why)) {
                if (skipped && skipped_size)
                    snprintf(skipped, skipped_size, "%s", why);
                continue;
            }
            status = kit_workspace_init_problem(&ws, stage->problem, p->n, err);
            if (status != KIT_OK)
                break;
            have_workspace = 1;
        }
        if (!filled || ws.pattern != p->pattern || ws.seed != p->seed) {
            status = kit_workspace_fill(&ws, p->pattern, p->seed, err);
            if (status != KIT_OK)
                break;
            filled = 1;
        }
        ws.timeout_s = timeout_for(stage, p->n);
        for (int r = 0; r < p->repeats; r++) {
            kit_case c;
            memset(&c, 0, sizeof c);
            kit_error run_err = {KIT_OK, ""};
            c.id = p->id;
            c.n = p->n;
            c.threads = p->threads;
            c.pattern = p->pattern;
            c.seed = p->seed;
            c.repeat = r;
            c.status = kit_run_checked(stage, &ws, p->threads, &c.got, &run_err);
            note_status(c.status);
            if (c.status != KIT_OK)
                snprintf(c.message, sizeof c.message, "%s", run_err.message);
            if (!kit_case_log_add(log, &c)) {
                status = kit_fail(err, KIT_OUT_OF_MEMORY, "no host memory for the answers");
                break;
            }
            if (kit_status_is_fatal(c.status)) {
                status = kit_fail(err, c.status, "%s", c.message);
                break;
            }
            if (c.status != KIT_OK && failed_count < 64) {
                failed_threads[failed_count++] = p->threads;
                break;
            }
        }
    }
    if (have_workspace)
        release(&ws, status);
    return status;
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

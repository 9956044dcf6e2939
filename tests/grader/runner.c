/**
 * \file runner.c
 * \brief The stage runner: the only grading program that loads a student's code.
 *
 * One runner is built per graded stage file (tests/grader/CMakeLists.txt, kit_add_graded_file). It
 * links exactly that file, the reference stages it is timed against (stage K's and that of
 * its baseline stage B, the last column of common/stages.def: stage 1 for the int sums), and
 * the harness; nothing of the other stages. The grader (kit_grade, which never loads student
 * code) starts it in a sandbox (sandbox.c) with one request and, for "cases", the plan of cases
 * it drew for this grading on standard input (kit_plan_text(): sizes, block sizes, patterns and
 * seeds no stage file can know in advance). The runner answers on file descriptor 3, a pipe only
 * the grader reads, one line per finding:
 *
 *     device NAME
 *     case id=K n=N threads=T pattern=P seed=S repeat=R status=STATUS got=WORDS message=TEXT
 *     speedup n=N seed=S threads=T student=MS reference=MS baseline=MS spread=X samples=K attempts=A
 *             copy=MS floor=MS
 *     skip TEXT                       (a case the machine cannot hold: the 4 GiB ones)
 *     advice TEXT                     (why a correct stage may be slow: the grid, what the emulator counted)
 *     loads n=N threads=T requests=R sectors=S needed=D reference_requests=R reference_sectors=S
 *           reference_needed=D launches=L   (the CPU emulator's count of every launch's global
 *                                      loads, the stage's and reference stage K's: kit_loads_decide())
 *     loads n=N threads=T uncounted message=TEXT   (a count it could not make)
 *     error status=STATUS message=TEXT
 *     done
 *
 * WORDS is the answer as its problem's 4-byte words in hex, comma-separated (kit_value_to_words():
 * one for an int or float, two for an argmin, nine for a matrix). The grader checks every
 * answer itself: each must answer a case of its plan, once (kit_plan_check()); it recomputes
 * each case's reference from the stage's problem, n, pattern and seed and judges the answer
 * (kit_grade_judge()), checks that repeats gave the same bits, decides the speed rule from the
 * medians, and gives nothing to a runner that ends without "done", says anything after it, exits
 * with a status other than 0 or on a signal, or sends lines it does not understand. What the
 * runner prints on stdout and stderr (the student's printf included) is only shown, never read.
 * A stage file cannot reach this pipe: the audit refuses FILE objects, system calls and any
 * definition beyond a stage's own (audit.c).
 *
 * Requests (argv[1]): probe (opens the GPU), find (names it, no context), cases [--advice N]
 * [--loads N T1 [T2]] (the plan on stdin),
 * speedup --config FILE --n N --seed S --threads T, once (for compute-sanitizer), races and orders (CPU emulator).
 *
 * Built once per flavour, not once per runner: plain for the GPU runners (kit_runner_gpu,
 * tests/grader/CMakeLists.txt), and with KIT_RUNNER_EMULATED=1, beside races.c, for the CPU
 * emulator's (kit_runner_emulated_<flavour>, emulated.cmake). What a runner grades (the stage
 * number, the graded launcher, its source path and impl, the reference launchers of stage K and
 * of its baseline stage) is its row, kit_runner_graded_row (runner_row.h), the one part compiled
 * per graded file: runner_row.c, from kit_add_graded_file's definitions.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"
#include "grader.h"
#include "runner_row.h"

/* Every stage's row of common/stages.def; the launchers are filled in for stage K and its baseline
 * (only those are linked: kit_runner_graded_row names them). */
#define KIT_STAGE(number, dir, name, title, min_threads, max_threads, passes, type, op, baseline)            \
    {number, #dir, #name, title, min_threads, max_threads, passes, {type, op}, baseline, NULL, NULL, "solutions", \
     "solutions/" #dir "/" #name ".cu"},
static kit_stage references[KIT_STAGE_COUNT] = {
#include "stages.def"
};
#undef KIT_STAGE

static FILE *reply; /* file descriptor 3: the grader's pipe */

/* One reply line; newlines inside a message become spaces, so a line is always one finding. */
static void say(const char *format, ...)
{
    char line[4096];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(reply, "%s\n", line);
    fflush(reply);
}

static void say_cases(const kit_case_log *log)
{
    for (int i = 0; i < log->count; i++) {
        const kit_case *c = &log->cases[i];
        char words[KIT_MAX_WORDS * 9 + 1];
        kit_value_to_words(references[kit_runner_graded_row.stage - 1].problem, &c->got, words, sizeof words);
        say("case id=%d n=%zu threads=%u pattern=%s seed=%llu repeat=%d status=%d got=%s message=%s", c->id, c->n,
            c->threads,
            kit_pattern_name(c->pattern), c->seed, c->repeat, (int)c->status, words, c->message);
    }
}

static void say_error(kit_status status, const kit_error *err)
{
    say("error status=%d message=%s", (int)status, err->message);
}

/*
 * The plan kit_grade drew for this request, on standard input (kit_plan_text()); the runner
 * runs exactly those cases. The text is wiped once parsed: the seeds need not stay in memory
 * any longer than the plan does.
 */
static int read_plan(kit_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        kit_planned_case c;
        if (!kit_plan_parse_line(line, &c) || !kit_plan_append(plan, &c))
            return 0;
        memset(line, 0, sizeof line);
    }
    return plan->count > 0;
}

#ifdef KIT_RUNNER_EMULATED
/*
 * The load rule's counts (kit_loads_decide(), in kit_grade): every global load of every launch
 * of every pass, the stage's and reference stage K's, at the n and block size kit_grade drew
 * (a decoy first launch, or coalesced loads at one size only, counts as what it is). A count
 * the emulator could not make is said as such: the rule then earns nothing.
 */
static void say_loads(const kit_stage *graded, const kit_stage *reference, size_t n, unsigned threads)
{
    kit_workspace ws;
    kit_error err = {KIT_OK, ""};
    kit_emu_counts mine, theirs;
    kit_status status = kit_workspace_init_problem(&ws, graded->problem, n, &err);
    if (status == KIT_OK)
        status = kit_workspace_fill(&ws, KIT_PATTERN_POSITIONAL, n, &err);
    if (status == KIT_OK)
        status = kit_count_all_launches(graded, &ws, threads, &mine, &err);
    if (status == KIT_OK)
        status = kit_count_all_launches(reference, &ws, threads, &theirs, &err);
    kit_workspace_free(&ws);
    if (status != KIT_OK) {
        say("loads n=%zu threads=%u uncounted message=%s", n, threads, err.message);
        return;
    }
    say("loads n=%zu threads=%u requests=%llu sectors=%llu needed=%llu reference_requests=%llu "
        "reference_sectors=%llu reference_needed=%llu launches=%llu", n, threads, mine.global_load_requests,
        mine.global_load_sectors, mine.global_load_sectors_needed, theirs.global_load_requests,
        theirs.global_load_sectors, theirs.global_load_sectors_needed, mine.launches);
}
#endif

static int usage(void)
{
    fprintf(stderr, "usage: runner probe|find|cases [--advice N] [--loads N T1 T2] < PLAN|speedup --config FILE --n N "
                    "--seed S --threads T|once|races|orders\n(started by kit_grade, which writes the plan and reads the answers "
                    "on file descriptor 3)\n");
    return 2;
}

#ifdef KIT_RUNNER_EMULATED
#include <cuda_runtime_api.h>
#include <emu_control.h>


/* Exit status of a runner whose stage hung on the emulator (what the emulator's watchdog uses too). */
#define KIT_RUNNER_HANG_EXIT KIT_RUNNER_HUNG_EXIT

static int hang_ends_request; /* the race check: its first hang is the verdict */

/*
 * The emulator stopped a launch that ran past its limit (emu_set_timeout_hook). Where the
 * launch was stopped and the request goes on through the harness (correctness), the
 * harness's KIT_TIMEOUT says so in the case's message. In the race check, or where the launch
 * could not be stopped (a thread spinning under ThreadSanitizer), the hang is the answer: an
 * error line with the emulator's message, "done", and the process ends (the emulator's
 * watchdog thread ends it when this returns unstopped).
 */
static void emulator_timed_out(const char *message, double seconds, int stopped)
{
    if (stopped && !hang_ends_request)
        return;
    say("error status=%d message=stage %d did not finish within %.0f s on the CPU emulator: an endless loop? %s",
        (int)KIT_TIMEOUT, kit_runner_graded_row.stage, seconds, message);
    say("done");
    fflush(NULL);
    if (stopped)
        _exit(KIT_RUNNER_HANG_EXIT);
}
#endif

#ifdef KIT_RUNNER_EMULATED
#define KIT_RUNNER_DEVICE_WORDS "the emulated H100"
#else
#define KIT_RUNNER_DEVICE_WORDS "this GPU"
#endif

/* 1234567 as "1,234,567" (one of four buffers in turn, so a line may hold four numbers). */
static const char *grouped(size_t value)
{
    static char text[4][32];
    static int which = 0;
    char plain[32];
    which = (which + 1) % 4;
    int len = snprintf(plain, sizeof plain, "%zu", value), out = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            text[which][out++] = ',';
        text[which][out++] = plain[i];
    }
    text[which][out] = '\0';
    return text[which];
}

/* Appends "; " and a printf-style sentence to \p advice. */
static void add_advice(char *advice, size_t size, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void add_advice(char *advice, size_t size, const char *format, ...)
{
    size_t used = strlen(advice);
    if (used + 3 >= size)
        return;
    if (used) {
        memcpy(advice + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, format);
    vsnprintf(advice + used, size - used, format, ap);
    va_end(ap);
}

/* What the CPU emulator counted in the first pass of stage K and of the reference, in words
 * (counters.h): load width, bank conflicts, idle lanes, barriers. Each is named only when the
 * stage does clearly worse than the reference. Nothing on a GPU (no such counts without ncu). */
static void add_counted_advice(char *advice, size_t size, const kit_emu_counts *mine, const kit_emu_counts *theirs)
{
    double my_width = kit_emu_load_width(mine), their_width = kit_emu_load_width(theirs);
    if (my_width > 0 && their_width >= 2 * my_width)
        add_advice(advice, size, "each of its loads from global memory reads %.0f bytes where the reference's "
                   "read %.0f: on a GPU, wider loads (int2, int4) need fewer instructions per byte to reach the "
                   "memory bandwidth", my_width, their_width);
    double my_conflicts = kit_emu_conflicts_per_request(mine), their_conflicts = kit_emu_conflicts_per_request(theirs);
    if (my_conflicts >= their_conflicts + 0.5)
        add_advice(advice, size, "its first pass has %.2f shared-memory bank conflicts per request where the "
                   "reference has %.2f: the lanes of a warp ask one bank for different words (an index like "
                   "2*s*tid), so each request is served in several turns; sequential addressing (tid + s) reads "
                   "32 banks at once", my_conflicts, their_conflicts);
    double my_idle = kit_emu_idle_lane_percent(mine), their_idle = kit_emu_idle_lane_percent(theirs);
    if (my_idle >= their_idle + 20)
        add_advice(advice, size, "%.0f%% of the lanes of its warps sit idle in its shared-memory steps (the "
                   "reference: %.0f%%; %s divergent requests): lanes wait while others of their warp work, %s",
                   my_idle, their_idle, grouped(mine->divergent_shared_requests),
                   kit_runner_graded_row.stage <= 4
                       ? "as with a test like tid % (2*s) == 0; let consecutive threads do the work (index = 2*s*tid)"
                       : "as with a test like tid % (2*s) == 0 or the tree's steps below 32 threads; finish the "
                         "last 32 values with warp-level steps");
    double my_barriers = kit_emu_barriers_per_block(mine), their_barriers = kit_emu_barriers_per_block(theirs);
    if (my_barriers >= 1.5 * their_barriers && my_barriers >= their_barriers + 3)
        add_advice(advice, size, "each of its blocks meets at __syncthreads() %.0f times where the reference's "
                   "meet %.0f times: the last warp's steps need no block barrier", my_barriers, their_barriers);
}

/*
 * Why a correct stage may be slow, from what can be seen without a clock. The grid: stage K
 * and the reference stage K each do pass 1 of n ints at \p threads; a stage that launches at
 * least twice the reference's blocks, and more than the GPU holds at once where that is known,
 * spends the GPU's time starting blocks that each do little. On the CPU emulator, also what
 * it counted (add_counted_advice; it knows what the emulated GPU holds at once). On a GPU this
 * runs after the speed case, at its n (the grader adds it to a failed speed rule's message;
 * there the reference's grid is one wave); on the emulator, after the correctness cases at
 * the largest n it graded, 2^20 + 7 ints' worth (2^20 + 7 ints or floats, 116,509 matrices; the
 * emulated device reports an H100's 132 SMs), as advice without points, and the counts of both
 * first passes' global loads (a "loads" line: kit_grade decides the load rule of a stage that
 * has one, stage 15's, on them).
 */
static void say_advice(const kit_stage *graded, const kit_stage *reference, size_t n, unsigned threads,
                       const kit_gpu *gpu)
{
    kit_workspace ws;
    kit_error err = {KIT_OK, ""};
    char advice[1000] = "";
    if (kit_workspace_init_problem(&ws, graded->problem, n, &err) == KIT_OK &&
        kit_workspace_fill(&ws, KIT_PATTERN_ONES, 1, &err) == KIT_OK) {
        kit_emu_counts mine_counted, theirs_counted;
        int counted = kit_count_first_pass(graded, &ws, threads, &mine_counted, &err) == KIT_OK &&
                      kit_count_first_pass(reference, &ws, threads, &theirs_counted, &err) == KIT_OK;
        size_t mine = (*graded->pass)(ws.device_input, ws.device_partial[0], n, threads);
        size_t theirs = (*reference->pass)(ws.device_input, ws.device_partial[1], n, threads);
        int beyond_a_wave = !counted || mine > mine_counted.resident_blocks;
        if (kit_sync(10.0, &err) == KIT_OK && theirs > 0 && mine >= 2 * theirs && beyond_a_wave) {
            char wave[160] = "";
            if (gpu->sm_count > 0 && theirs % (size_t)gpu->sm_count == 0 && theirs * threads < n)
                snprintf(wave, sizeof wave, " (one wave: the %d SMs of %s hold %zu blocks each at once)",
                         gpu->sm_count, KIT_RUNNER_DEVICE_WORDS, theirs / (size_t)gpu->sm_count);
            else if (counted)
                snprintf(wave, sizeof wave, " (%s holds %s of yours at once)", KIT_RUNNER_DEVICE_WORDS,
                         grouped(mine_counted.resident_blocks));
            add_advice(advice, sizeof advice, "your stage %d launched %s blocks of %u threads for n = %s in its "
                       "first pass; the reference launches %s%s: %s", kit_runner_graded_row.stage, grouped(mine),
                       threads, grouped(n), grouped(theirs), wave,
                       theirs * 2 < n / threads ? "cap the grid at the blocks the GPU holds at once and let each "
                                                  "thread loop over many elements (a grid-stride loop)"
                                                : "give each thread more inputs (more than one add while loading)");
        }
        if (counted)
            add_counted_advice(advice, sizeof advice, &mine_counted, &theirs_counted);
    }
    kit_workspace_free(&ws);
    if (advice[0])
        say("advice %s", advice);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    /* The grader's pipe. Run by hand, without one, the answers go to stdout. */
    reply = fdopen(3, "w");
    if (!reply)
        reply = stdout;

    const kit_runner_row *row = &kit_runner_graded_row;
    references[row->stage - 1].pass = row->reference.pass;
    references[row->stage - 1].signature = row->reference.signature;
    references[row->baseline_stage - 1].pass = row->baseline.pass;
    references[row->baseline_stage - 1].signature = row->baseline.signature;
    kit_stage graded = references[row->stage - 1];
    graded.pass = row->graded.pass;
    graded.signature = row->graded.signature; /* a launcher of other types is refused */
    graded.impl = row->graded_impl;
    graded.source = row->graded_source;

    const char *request = argv[1];
    /* One hardware work queue for this process's context (the harness launches on one stream),
     * unless the environment asks for more. On a 16-core H200 machine (2026-11-27), 16 runners
     * making their contexts at once took 3.3 to 3.6 s with CUDA's default of 8 and 1.2 s with 1:
     * the driver makes one context at a time, and a GPU make check makes hundreds. */
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
#ifdef KIT_RUNNER_EMULATED
    hang_ends_request = strcmp(request, "races") == 0 || strcmp(request, "orders") == 0;
    emu_set_timeout_hook(emulator_timed_out);
#endif
    kit_gpu gpu;
    kit_error err = {KIT_OK, ""};
    /* "find" only names the GPU: it makes no context (kit_gpu_find()). Each GPU part of kit_grade
     * asks it first, and had asked "probe", which makes one: a third of a GPU make check's
     * contexts, which the driver makes one at a time. A GPU found but not opened is said by the
     * request that follows, as an error before any device line (kit_grade skips then, as here). */
    const int probing = strcmp(request, "probe") == 0 || strcmp(request, "find") == 0;
    kit_status status = strcmp(request, "find") == 0 ? kit_gpu_find(&gpu, &err) : kit_gpu_open(&gpu, &err);
    if (status != KIT_OK) {
        say("error status=%d message=%s", (int)status, err.message);
        say("done");
        return probing ? 77 : 0;
    }
    say("device %s", gpu.name);

    kit_case_log log = {NULL, 0, 0};
    int exit_code = 0;
    if (probing) {
        /* nothing else: the device line says it is there (find) or usable (probe) */
    } else if (strcmp(request, "cases") == 0) {
        kit_plan plan;
        if (!read_plan(&plan)) {
            say("error status=%d message=the runner got no plan it could read on its standard input", (int)KIT_BAD_ARGUMENT);
            kit_plan_free(&plan);
            say("done");
            return 2;
        }
        char skipped[512] = "";
        status = kit_grade_cases(&graded, &plan, &log, skipped, sizeof skipped, &err);
        kit_plan_free(&plan);
        say_cases(&log);
        if (skipped[0])
            say("skip %s", skipped);
        if (status != KIT_OK)
            say_error(status, &err);
        int every_case_passed = status == KIT_OK;
        for (int i = 0; i < log.count; i++)
            every_case_passed &= log.cases[i].status == KIT_OK;
        /* After a correct run only (a broken stage may not even finish): on the CPU emulator, why
         * it may be slow (at --advice N, 256 threads), and the load rule's counts (--loads N T1 T2). */
        for (int i = 2; every_case_passed && i + 1 < argc; i++) {
            if (strcmp(argv[i], "--advice") == 0) {
                say_advice(&graded, &references[row->stage - 1], strtoull(argv[i + 1], NULL, 10), 256, &gpu);
                i++;
            }
#ifdef KIT_RUNNER_EMULATED
            else if (strcmp(argv[i], "--loads") == 0) {
                size_t n = strtoull(argv[++i], NULL, 10);
                for (; i + 1 < argc && argv[i + 1][0] != '-'; i++)
                    say_loads(&graded, &references[row->stage - 1], n, (unsigned)strtoul(argv[i + 1], NULL, 10));
            }
#endif
        }
    } else if (strcmp(request, "speedup") == 0) {
        kit_grade_config config;
        const char *config_path = NULL;
        size_t n = 0;
        unsigned threads = 0;
        unsigned long long seed = 7;
        for (int i = 2; i + 1 < argc; i += 2) {
            if (strcmp(argv[i], "--config") == 0)
                config_path = argv[i + 1];
            else if (strcmp(argv[i], "--n") == 0)
                n = strtoull(argv[i + 1], NULL, 10);
            else if (strcmp(argv[i], "--seed") == 0)
                seed = strtoull(argv[i + 1], NULL, 10);
            else if (strcmp(argv[i], "--threads") == 0)
                threads = (unsigned)strtoul(argv[i + 1], NULL, 10);
        }
        if (kit_grade_config_load(&config, config_path, &err) != KIT_OK) {
            say_error(KIT_BAD_ARGUMENT, &err);
        } else {
            if (n >= 1 && n <= kit_max_n(graded.problem))
                config.speedup_n = n; /* elements: kit_grade divided the ints by the words of one */
            else
                config.speedup_n = kit_grade_elements(row->stage, config.speedup_n);
            if (threads >= graded.min_threads && threads <= graded.max_threads)
                config.speedup_threads = threads;
            kit_speedup s;
            status = kit_grade_speedup(&config, &graded, references, seed, &s, &err);
            if (status != KIT_OK)
                say_error(status, &err);
            else
                say("speedup n=%zu seed=%llu threads=%u student=%.6f reference=%.6f baseline=%.6f spread=%.6f "
                    "samples=%d attempts=%d copy=%.6f floor=%.6f",
                    config.speedup_n, seed, config.speedup_threads, s.student_ms, s.reference_ms, s.baseline_ms,
                    s.spread, s.samples, s.attempts, s.copy_ms, s.floor_ms);
            if (status == KIT_OK) /* why it may be slow: the grader quotes it if the rule fails */
                say_advice(&graded, &references[row->stage - 1], config.speedup_n, config.speedup_threads,
                                &gpu);
        }
    } else if (strcmp(request, "once") == 0) {
        /* compute-sanitizer reads what happens; the runs' own results go to stdout */
        int code = kit_grade_run_once(&graded, stdout);
        if (code != 0) {
            say("error status=%d message=the runs under the sanitizer could not be set up", (int)KIT_CUDA_ERROR);
            exit_code = code;
        }
#ifdef KIT_RUNNER_EMULATED
    } else if (strcmp(request, "races") == 0 || strcmp(request, "orders") == 0) {
        /* "races" from the ThreadSanitizer build (small inputs), "orders" from the plain one */
        const int races = kit_emulated_races(&graded, stdout, strcmp(request, "races") == 0);
        if (races == KIT_RACES_NO_RESULT) {
            say("races no-result");
            exit_code = 1;
        } else if (races != 0) {
            say("races differ");
            exit_code = 1;
        }
#endif
    } else {
        kit_case_log_free(&log);
        return usage();
    }
    kit_case_log_free(&log);
    say("done");
    fclose(reply);
    return exit_code;
}

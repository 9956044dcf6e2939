/**
 * \file grade.c
 * \brief kit_grade: grades one stage file without ever loading it.
 *
 *     kit_grade correctness|speedup|emulated --stage K --runner PROGRAM --object FILE.o --source FILE.cu
 *               [--shown PATH] [--results DIR] [--logs DIR] [--config FILE] [--speed-n N --speed-seed S]
 *     kit_grade probe --stage K --runner PROGRAM       is a GPU usable (through the sandbox)? exit 0, or 77
 *     kit_grade sanitize --stage K --runner PROGRAM --sanitizer PATH --tool racecheck|synccheck|memcheck|initcheck
 *               [--results DIR] [--logs DIR]         the stage once under compute-sanitizer, sandboxed: the
 *                                                      verdict is decided here from the tool's summary
 *     kit_grade races --stage K --runner PROGRAM [--orders-runner PROGRAM] [--results DIR] [--logs DIR]
 *                                                      the CPU emulator's race check (ThreadSanitizer's
 *                                                      runner, and the plain runner's thread orders),
 *                                                      sandboxed, decided here
 *     kit_grade sandbox [--timeout S] -- PROGRAM ARGS  run a runner sandboxed: its exit status once it
 *                                                      said "done", else 90 and why
 *
 * Every verdict is made here, in a process that has not loaded student code:
 *   1. the audit (audit.c) reads the compiled stage file: what it calls, which kernels it
 *      embeds, what it includes; calling anything but its own kernels fails correctness and speed;
 *   2. the stage runs in its runner (runner.c), sandboxed (sandbox.c), which answers on a pipe;
 *   3. every answer is checked here: each case's reference is recomputed from the stage's problem,
 *      n, pattern and seed and the answer judged (answers.c), repeats of an input must give the
 *      bits its first run gave, the speed rule is decided from the medians, and a runner that
 *      ends early, forks or answers twice gets nothing;
 *   4. the result files for the report (results.c) are written here, and only here.
 * Each check is a Check test, run in this process (CK_NOFORK: the runner, not this process,
 * holds the student's code and the time limit), so the tests' findings stay in memory.
 */
#define _DEFAULT_SOURCE /* realpath */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "grader.h"
#include "options.h"
#include "sandbox.h"

/* ---------------------------------------------------------------- the command line */

typedef struct grade_args {
    const char *part;     /* correctness, speedup, emulated, probe, sandbox */
    int stage;
    const char *runner, *object, *source, *shown;
    const char *emu_object; /* the CPU emulator's object of the same file (emulated: its runner links that) */
    const char *results, *logs, *config;
    const char *nm, *objdump, *cuobjdump;
    const char *sanitizer, *tool; /* sanitize: compute-sanitizer and its tool */
    size_t speed_n;       /* 0: chosen at random now */
    unsigned speed_threads; /* 0: chosen at random now */
    unsigned long long speed_seed;
    int speed_seed_given;
    double timeout_s;
    char **command;       /* sandbox: the program and its arguments */
    const char *orders_runner; /* races: the plain emulator's runner, for the thread orders */
    /* --large-cases skip, the kit's corpus rows expected right: correctness runs the size matrix
     * alone; emulated runs each size above 2^17 ints' worth once (kit_plan_thin_large_sizes). */
    int skip_large_cases;
} grade_args;

static grade_args args;
static kit_grade_config config;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kit_grade correctness|speedup|emulated --stage K --runner PROGRAM --object FILE.o --source FILE.cu\n"
            "                 [--shown PATH] [--results DIR] [--logs DIR] [--config FILE]\n"
            "                 [--speed-n N --speed-threads T --speed-seed S] [--nm NM --objdump OBJDUMP --cuobjdump CUOBJDUMP]\n"
            "                 [--large-cases run|skip]\n"
            "       kit_grade probe --stage K --runner PROGRAM\n"
            "       kit_grade sanitize --stage K --runner PROGRAM --sanitizer COMPUTE_SANITIZER --tool TOOL\n"
            "                 [--results DIR] [--logs DIR]\n"
            "       kit_grade races --stage K --runner PROGRAM [--orders-runner PROGRAM] [--results DIR] [--logs DIR]\n"
            "       kit_grade sandbox [--timeout SECONDS] -- PROGRAM [ARGS...]\n"
            "Grades stage K's file: the audit of what it calls, then its runner, sandboxed, with every answer\n"
            "checked here. Exit status: 0 passed, 1 failed, 2 bad usage, 77 no GPU (1 with KIT_REQUIRE_GPU=1).\n");
}

/* The part of compute-sanitizer's tool \p tool (racecheck, synccheck, memcheck, initcheck). */
static int sanitizer_part(const char *tool, kit_part *part)
{
    for (int p = KIT_PART_RACECHECK; tool && p < KIT_PART_RACECHECK + KIT_SANITIZER_PARTS; p++)
        if (strcmp(tool, kit_part_name((kit_part)p)) == 0) {
            if (part)
                *part = (kit_part)p;
            return 1;
        }
    return 0;
}

static int parse_args(int argc, char **argv)
{
    memset(&args, 0, sizeof args);
    args.timeout_s = 600;
    if (argc < 2) {
        usage(stderr);
        return 0;
    }
    args.part = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            args.command = argv + i + 1;
            break;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "kit_grade: %s needs a value\n", a);
            return 0;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--stage") == 0)
            args.stage = atoi(v);
        else if (strcmp(a, "--runner") == 0)
            args.runner = v;
        else if (strcmp(a, "--orders-runner") == 0)
            args.orders_runner = v;
        else if (strcmp(a, "--object") == 0)
            args.object = v;
        else if (strcmp(a, "--emu-object") == 0)
            args.emu_object = v;
        else if (strcmp(a, "--source") == 0)
            args.source = v;
        else if (strcmp(a, "--shown") == 0)
            args.shown = v;
        else if (strcmp(a, "--results") == 0)
            args.results = *v ? v : NULL;
        else if (strcmp(a, "--logs") == 0)
            args.logs = *v ? v : NULL;
        else if (strcmp(a, "--config") == 0)
            args.config = v;
        else if (strcmp(a, "--nm") == 0)
            args.nm = v;
        else if (strcmp(a, "--objdump") == 0)
            args.objdump = v;
        else if (strcmp(a, "--cuobjdump") == 0)
            args.cuobjdump = v;
        else if (strcmp(a, "--sanitizer") == 0)
            args.sanitizer = v;
        else if (strcmp(a, "--tool") == 0)
            args.tool = v;
        else if (strcmp(a, "--speed-n") == 0)
            args.speed_n = strtoull(v, NULL, 0);
        else if (strcmp(a, "--speed-threads") == 0)
            args.speed_threads = (unsigned)strtoul(v, NULL, 0);
        else if (strcmp(a, "--speed-seed") == 0) {
            args.speed_seed = strtoull(v, NULL, 0);
            args.speed_seed_given = 1;
        } else if (strcmp(a, "--timeout") == 0)
            args.timeout_s = atof(v);
        else if (strcmp(a, "--large-cases") == 0) {
            if (strcmp(v, "run") != 0 && strcmp(v, "skip") != 0) {
                fprintf(stderr, "kit_grade: --large-cases is run or skip, not '%s'\n", v);
                return 0;
            }
            args.skip_large_cases = strcmp(v, "skip") == 0;
        } else {
            fprintf(stderr, "kit_grade: unknown option '%s'\n", a);
            usage(stderr);
            return 0;
        }
    }
    if (strcmp(args.part, "sandbox") == 0) {
        if (!args.command || !args.command[0]) {
            fprintf(stderr, "kit_grade sandbox: give the program after --\n");
            return 0;
        }
        return 1;
    }
    const char *parts[] = {"correctness", "speedup", "emulated", "probe", "sanitize", "races"};
    int known = 0;
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++)
        known |= strcmp(args.part, parts[p]) == 0;
    if (!known) {
        fprintf(stderr, "kit_grade: unknown part '%s'\n", args.part);
        usage(stderr);
        return 0;
    }
    if (args.stage < 1 || args.stage > KIT_STAGE_COUNT || !args.runner) {
        fprintf(stderr, "kit_grade: give --stage 1..%d and --runner\n", KIT_STAGE_COUNT);
        return 0;
    }
    if (strcmp(args.part, "sanitize") == 0 && (!args.sanitizer || !sanitizer_part(args.tool, NULL))) {
        fprintf(stderr, "kit_grade sanitize: give --sanitizer (compute-sanitizer) and --tool racecheck, synccheck, "
                        "memcheck or initcheck\n");
        return 0;
    }
    if (strcmp(args.part, "probe") != 0 && strcmp(args.part, "sanitize") != 0 && strcmp(args.part, "races") != 0 &&
        (!args.object || !args.source)) {
        fprintf(stderr, "kit_grade: give --object and --source: the stage file is audited before it runs\n");
        return 0;
    }
    if (!args.shown)
        args.shown = args.source;
    return 1;
}

static int no_gpu_exit_code(void)
{
    const char *require = getenv("KIT_REQUIRE_GPU");
    return require && strcmp(require, "1") == 0 ? 1 : 77;
}

/* Why the GPU the runner found could not be opened, once a request said so ("" until then). */
static char gpu_not_opened[1536];

/* ---------------------------------------------------------------- talking to the runner */

/* What a runner said, checked line by line. */
typedef struct runner_reply {
    kit_sandbox_result run;
    char device[256];
    int devices, dones;
    kit_case_log log;
    int has_speedup;
    kit_speedup speedup;
    size_t speed_n;
    unsigned speed_threads;
    unsigned long long speed_seed;
    kit_status error_status;
    char error[1024];
    char skip[1024];
    char advice[1024]; /* the runner's word on the grid: emulated, advice without points; on a GPU, why a
                          stage failed the speed rule */
    int has_loads;     /* lines of the emulator's counts of every launch's global loads: */
    size_t loads_n[4];
    unsigned loads_threads[4];
    kit_load_counts loads[4], reference_loads[4];
    char uncounted[1024]; /* a count the emulator could not make, and why */
    int no_result;        /* the race check: no run of any case wrote a result ("races no-result") */
    const kit_plan *plan; /* what was asked: the answers must match it exactly */
    int probing;          /* the probe, whose runner exits 77 without a GPU */
    char problem[1536]; /* non-empty: the reply cannot be trusted, this says why */
} runner_reply;

/* "stage 3's program", or "the program" when kit_grade sandbox was not told the stage. */
static const char *subject(void)
{
    static char text[64];
    if (args.stage >= 1)
        snprintf(text, sizeof text, "stage %d's program", args.stage);
    else
        snprintf(text, sizeof text, "the program");
    return text;
}

/* "message=" runs to the end of the line. */
static const char *message_of(const char *line)
{
    const char *m = strstr(line, " message=");
    return m ? m + strlen(" message=") : "";
}

static int parse_case(const char *line, kit_case *c)
{
    char pattern[32];
    int status = 0, used = 0;
    memset(c, 0, sizeof *c);
    if (sscanf(line, "case id=%d n=%zu threads=%u pattern=%31s seed=%llu repeat=%d status=%d got=%n", &c->id, &c->n,
               &c->threads, pattern, &c->seed, &c->repeat, &status, &used) != 7 || used == 0)
        return 0;
    const kit_problem problem = kit_grade_problem(args.stage);
    size_t words = kit_value_from_words(problem, line + used, &c->got);
    if (words == 0 || (line[used + words] != ' ' && line[used + words] != '\0'))
        return 0;
    kit_error err;
    if (kit_pattern_parse(pattern, &c->pattern, &err) != KIT_OK || status < 0 || status > KIT_NOT_RELEASED ||
        c->n < 1 || c->n > kit_max_n(problem))
        return 0;
    c->status = (kit_status)status;
    snprintf(c->message, sizeof c->message, "%s", message_of(line));
    /* The runner's word is not enough: the answer must be right by the reference computed here. */
    char why[700];
    int right = kit_grade_judge(problem, c->n, c->pattern, c->seed, &c->got, &c->expected, why, sizeof why);
    if (c->status == KIT_OK && right != 1) {
        c->status = right < 0 ? KIT_OUT_OF_MEMORY : KIT_WRONG_RESULT;
        snprintf(c->message, sizeof c->message, "stage %d, n = %zu, %u threads, %s input, seed %llu: %s%s", args.stage,
                 c->n, c->threads, pattern, c->seed, why,
                 right < 0 ? ": an answer the grader cannot check does not count"
                           : " (the runner reported it as right; the grader's own reference says otherwise)");
    }
    return 1;
}

/* A runner whose stage hung leaves with KIT_RUNNER_HUNG_EXIT after "done" (CUDA's clean-up would
 * wait for the hung kernel): that exit is its own, not a sign of tampering, where a run or an
 * error line says it timed out. The part fails anyway, with that run's message. */
static int hung_and_said_so(const runner_reply *r)
{
    if (!r->run.exited || r->run.code != KIT_RUNNER_HUNG_EXIT)
        return 0;
    if (r->error[0] && r->error_status == KIT_TIMEOUT)
        return 1;
    for (int i = 0; i < r->log.count; i++)
        if (r->log.cases[i].status == KIT_TIMEOUT)
            return 1;
    return 0;
}

static void parse_reply(runner_reply *r)
{
    char *text = r->run.reply ? r->run.reply : "";
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        if (!end)
            break; /* a line without its newline was cut off: ignored */
        *end = '\0';
        kit_case c;
        if (r->dones > 0 && strcmp(line, "done") == 0) {
            r->dones++; /* a second last word: answered more than once, said below */
        } else if (r->dones > 0 && strncmp(line, "device ", 7) == 0) {
            r->devices++;
        } else if (r->dones > 0 && !r->problem[0]) {
            /* Nothing a runner says after its last word counts; saying anything is a sign that
             * something else in the process is talking (a destructor, an exit handler). */
            snprintf(r->problem, sizeof r->problem, "%s said something after its last word (\"%.120s\"); nothing it "
                     "said counts", subject(), line);
        } else if (strncmp(line, "device ", 7) == 0) {
            r->devices++;
            snprintf(r->device, sizeof r->device, "%s", line + 7);
        } else if (strcmp(line, "done") == 0) {
            r->dones++;
        } else if (strncmp(line, "case ", 5) == 0 && parse_case(line, &c)) {
            kit_case_log_add(&r->log, &c);
        } else if (strncmp(line, "speedup ", 8) == 0 &&
                   sscanf(line, "speedup n=%zu seed=%llu threads=%u student=%lf reference=%lf baseline=%lf spread=%lf "
                                "samples=%d attempts=%d copy=%lf floor=%lf",
                          &r->speed_n, &r->speed_seed, &r->speed_threads, &r->speedup.student_ms,
                          &r->speedup.reference_ms, &r->speedup.baseline_ms, &r->speedup.spread, &r->speedup.samples,
                          &r->speedup.attempts, &r->speedup.copy_ms, &r->speedup.floor_ms) == 11) {
            r->has_speedup++;
        } else if (strncmp(line, "error status=", 13) == 0) {
            r->error_status = (kit_status)atoi(line + 13);
            snprintf(r->error, sizeof r->error, "%s", message_of(line));
        } else if (strncmp(line, "skip ", 5) == 0) {
            snprintf(r->skip, sizeof r->skip, "%s", line + 5);
        } else if (strncmp(line, "advice ", 7) == 0) {
            snprintf(r->advice, sizeof r->advice, "%s", line + 7);
        } else if (strncmp(line, "loads ", 6) == 0 && r->has_loads < 4 && strstr(line, " uncounted message=")) {
            snprintf(r->uncounted, sizeof r->uncounted, "%s", message_of(line));
        } else if (strncmp(line, "loads ", 6) == 0 && r->has_loads < 4 &&
                   sscanf(line, "loads n=%zu threads=%u requests=%llu sectors=%llu needed=%llu reference_requests=%llu "
                                "reference_sectors=%llu reference_needed=%llu",
                          &r->loads_n[r->has_loads], &r->loads_threads[r->has_loads], &r->loads[r->has_loads].requests,
                          &r->loads[r->has_loads].sectors, &r->loads[r->has_loads].needed,
                          &r->reference_loads[r->has_loads].requests, &r->reference_loads[r->has_loads].sectors,
                          &r->reference_loads[r->has_loads].needed) == 8) {
            r->has_loads++;
        } else if (strcmp(line, "races differ") == 0) {
            snprintf(r->error, sizeof r->error, "the results depend on the order of the threads");
        } else if (strcmp(line, "races no-result") == 0) {
            r->no_result = 1; /* it can only fail the part: forged, it costs the stage file the part's points */
        } else if (!r->problem[0]) {
            snprintf(r->problem, sizeof r->problem,
                     "%s sent something the grader does not understand (\"%.120s\"); nothing it said counts",
                     subject(), line);
        }
        line = end + 1;
    }
    if (r->problem[0])
        return;
    /* Every repeat of an input must give the bits of its first run (a float sum too). */
    kit_check_reproducible(args.stage, r->log.cases, r->log.count);
    char how[128];
    if (r->run.timed_out)
        snprintf(how, sizeof how, "it did not finish within %.0f s and was stopped", args.timeout_s);
    else if (!r->run.exited)
        snprintf(how, sizeof how, "it was killed by signal %d", r->run.code);
    else
        snprintf(how, sizeof how, "it exited with status %d", r->run.code);
    if (r->devices > 1 || r->dones > 1 || r->has_speedup > 1)
        snprintf(r->problem, sizeof r->problem, "%s answered more than once (did it fork?); nothing it said counts",
                 subject());
    else if (r->dones == 0 || (r->devices == 0 && !r->error[0]))
        snprintf(r->problem, sizeof r->problem, "%s ended before the grader got a verdict (%s)%s%s", subject(), how,
                 r->error[0] ? ": " : "", r->error);
    else if (!r->probing && (r->run.timed_out || !r->run.exited || r->run.code != 0) && !hung_and_said_so(r))
        /* "done" is only a line: the process must also end cleanly, or something in it did not. */
        snprintf(r->problem, sizeof r->problem, "%s said it was done, but %s; nothing it said counts", subject(), how);
    else if (r->plan && !r->error[0] && !hung_and_said_so(r)) {
        /* An error line (a workspace that could not be made, a hang) fails the part with its own
         * words; the answers are checked against the plan where the runner got through it. */
        char why[700];
        /* The 4 GiB cases may be left out where the machine cannot hold them, with a skip line. */
        const size_t huge = r->skip[0] ? (size_t)1 << 29 : 0;
        if (kit_plan_check(r->plan, &r->log, huge / kit_in_words(kit_grade_problem(args.stage)), why, sizeof why))
            snprintf(r->problem, sizeof r->problem, "%s did not answer what the grader asked: %s; nothing it said "
                     "counts", subject(), why);
    }
}

/* Runs the runner with one request and, where given, the plan of its cases on its standard
 * input, sandboxed, and checks its answer against the plan. */
static void ask_runner_plan(const char *program, char **request, const kit_plan *plan, double timeout_s,
                            runner_reply *r)
{
    memset(r, 0, sizeof *r);
    r->plan = plan;
    r->probing = strcmp(request[0], "probe") == 0 || strcmp(request[0], "find") == 0;
    char *argv[16];
    int count = 0;
    argv[count++] = (char *)program;
    for (int i = 0; request[i] && count < 15; i++)
        argv[count++] = request[i];
    argv[count] = NULL;
    char why[512];
    args.timeout_s = timeout_s;
    char *input = plan ? kit_plan_text(plan) : NULL;
    if (plan && !input) {
        snprintf(r->problem, sizeof r->problem, "the grader has no memory to write stage %d's plan", args.stage);
        return;
    }
    int started = kit_sandbox_run_with_input(argv, NULL, input, timeout_s, &r->run, why, sizeof why);
    free(input);
    if (started != 0) {
        snprintf(r->problem, sizeof r->problem, "the grader could not start stage %d's program: %s", args.stage, why);
        return;
    }
    parse_reply(r);
}

static void ask_runner(const char *program, char **request, double timeout_s, runner_reply *r)
{
    ask_runner_plan(program, request, NULL, timeout_s, r);
}

static void free_reply(runner_reply *r)
{
    kit_case_log_free(&r->log);
    kit_sandbox_result_free(&r->run);
}

/*
 * Whether \p r says the runner found a GPU but could not open it (an error before any device
 * line: one busy in exclusive-process mode, one the sandbox's user may not open). The part then
 * skips as if there were none (skip_without_gpu()), as it did when the probe opened the GPU.
 */
static int gpu_would_not_open(const runner_reply *r)
{
    if (r->problem[0] || r->devices != 0 || !r->error[0])
        return 0;
    if (!gpu_not_opened[0])
        snprintf(gpu_not_opened, sizeof gpu_not_opened, "%s", r->error);
    return 1;
}

/* No GPU to grade on (none found, or none opened): the part is skipped (77), or fails with
 * KIT_REQUIRE_GPU=1, and its result says why. */
static int skip_without_gpu(kit_part part, const char *why)
{
    int code = no_gpu_exit_code();
    printf("SKIPPED: %s: stage %d's GPU tests did not run%s\n", why, args.stage,
           code == 77 ? " (the kit's CPU emulator grades it where it is built)"
                      : ", and KIT_REQUIRE_GPU=1 makes that a failure");
    kit_result r;
    memset(&r, 0, sizeof r);
    r.outcome = code == 77 ? KIT_OUTCOME_SKIP : KIT_OUTCOME_FAIL;
    snprintf(r.message, sizeof r.message, "not graded: %s", why);
    kit_result_write(args.results, args.stage, part, &r);
    return code;
}

/* ---------------------------------------------------------------- the audit */

static char audit_message[2048];
static kit_audit_verdict audit_verdict = KIT_AUDIT_CLEAN;

static void audit_once(void)
{
    kit_audit_tools tools = {args.nm, args.objdump, args.cuobjdump};
    audit_verdict = kit_audit_stage(args.stage, args.object, args.source, args.shown, &tools, audit_message,
                                    sizeof audit_message);
    /* The emulated runner links the emulator compiler's object, not nvcc's: what it defines and
     * runs before main must pass the same rules. */
    if (audit_verdict == KIT_AUDIT_CLEAN && args.emu_object && access(args.emu_object, R_OK) == 0)
        audit_verdict = kit_audit_object_shape(args.stage, args.emu_object, args.source, args.shown, NULL, &tools,
                                               audit_message, sizeof audit_message);
}

/* ---------------------------------------------------------------- advice without a GPU */

/* What the CPU emulator saw that a GPU would make slow, for the report (stageK.advice, no
 * points): the runner's word on the grid and on what it counted (load width, bank conflicts,
 * idle lanes, barriers). */
static void write_advice(const runner_reply *r)
{
    char advice[2048] = "";
    if (r->advice[0] && !r->problem[0])
        snprintf(advice, sizeof advice, "%s", r->advice);
    if (!args.results)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/stage%d.advice", args.results, args.stage);
    remove(path); /* a run's advice only */
    if (!advice[0])
        return;
    FILE *out = fopen(path, "w");
    if (out) {
        fprintf(out, "%s\n", advice);
        fclose(out);
    }
}

/* The emulator's load rule (kit_loads_decide), for a stage that has one (stage 15's
 * max_sectors_per_request): decided here on the counts the runner sent after a correct run,
 * and written as the stage's emulated-speed part. Nothing for another stage, or for a stage
 * that failed (the runner counts only a correct one); a skip where this emulator build does not
 * count (KIT_EMU_COUNTERS=OFF). */
/* The load rule's counts asked for in this grading: the runner's must be these, no others. */
static struct {
    size_t n;
    unsigned threads[2];
    int count;
} loads_asked;

static void write_loads_verdict(const runner_reply *r)
{
    if (!args.results)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/stage%d.%s", args.results, args.stage, kit_part_name(KIT_PART_EMULATED_SPEED));
    remove(path); /* a run's verdict only */
    if (config.max_sectors_per_request[args.stage] <= 0 || r->problem[0] || r->error[0] || r->log.count == 0)
        return;
    for (int i = 0; i < r->log.count; i++)
        if (r->log.cases[i].status != KIT_OK)
            return;
    kit_result result;
    memset(&result, 0, sizeof result);
    snprintf(result.gpu, sizeof result.gpu, "the kit's CPU emulator");
    if (r->uncounted[0] || !r->has_loads) {
        /* A rule that could not run earns nothing: otherwise not being countable would be a way round it. */
        result.outcome = KIT_OUTCOME_FAIL;
        snprintf(result.message, sizeof result.message, "stage %d's global loads could not be counted, so its load "
                 "rule could not run and it earns no speed points: %s (the counts need the emulator's plain build "
                 "with GCC and KIT_EMU_COUNTERS=ON)", args.stage,
                 r->uncounted[0] ? r->uncounted : "the CPU emulator sent no counts");
    } else if (r->has_loads != loads_asked.count || r->loads_n[0] != loads_asked.n ||
               r->loads_threads[0] != loads_asked.threads[0] ||
               (loads_asked.count > 1 && (r->loads_n[1] != loads_asked.n ||
                                          r->loads_threads[1] != loads_asked.threads[1]))) {
        result.outcome = KIT_OUTCOME_FAIL;
        snprintf(result.message, sizeof result.message, "stage %d's global loads were not counted at the n and block "
                 "sizes the grader drew (n = %zu, %u and %u threads), so its load rule could not run", args.stage,
                 loads_asked.n, loads_asked.threads[0], loads_asked.threads[loads_asked.count - 1]);
    } else {
        /* Every drawn block size must pass: the first that fails decides the message. */
        for (int i = 0; i < r->has_loads; i++) {
            result.outcome = kit_loads_decide(&config, args.stage, r->loads_n[i], r->loads_threads[i], &r->loads[i],
                                              &r->reference_loads[i], result.message, sizeof result.message);
            if (result.outcome != KIT_OUTCOME_PASS)
                break;
        }
        if (result.outcome == KIT_OUTCOME_MISSING) {
            result.outcome = KIT_OUTCOME_FAIL;
            snprintf(result.message, sizeof result.message, "stage %d made no global load the CPU emulator could "
                     "count, so its load rule could not run", args.stage);
        }
    }
    kit_result_write(args.results, args.stage, KIT_PART_EMULATED_SPEED, &result);
    printf("emulated-speed %s: %s\n", result.outcome == KIT_OUTCOME_PASS   ? "pass"
                                      : result.outcome == KIT_OUTCOME_FAIL ? "FAIL"
                                                                           : "skipped",
           result.message);
}

/* ---------------------------------------------------------------- the Check tests */

/* Fails the running test unless every case the runner reported passed, with one message. */
static void assert_runner_cases_passed(runner_reply *r, const char *what)
{
    if (r->problem[0]) {
        free_reply(r);
        ck_abort_msg("%s", r->problem);
    }
    static char message[4096];
    int failed = kit_diagnose(args.stage, r->log.cases, r->log.count, message, sizeof message);
    if (failed == 0 && r->error[0]) {
        snprintf(message, sizeof message, "%s: %s", kit_status_name(r->error_status), r->error);
        failed = 1;
    }
    if (failed == 0 && r->log.count == 0 && !r->skip[0]) {
        snprintf(message, sizeof message, "stage %d's program reported no %s runs", args.stage, what);
        failed = 1;
    }
    free_reply(r);
    ck_assert_msg(failed == 0, "%s", message);
}

/*
 * What the tests of one part leave for its record, in this process: Check runs them in order
 * and in this process (CK_NOFORK: no CUDA is ever called here, and every runner has its own
 * time limit in the sandbox), so nothing passes through files. Once the size matrix has
 * failed, the stage's correctness is decided: the larger tests (2^26, repeats, 2^30) then pass
 * as "not needed" rather than spend a minute each on a stage that already scores 0.
 */
static struct {
    int size_matrix_failed;
    char note[1024];     /* a word for the part's message (the 2^30 case skipped, and why) */
    kit_result numbers;  /* the speed cases' measurements */
    int has_numbers;
} left;

static void leave_note(const char *note);

/*
 * Whether a test after the size matrix is not needed: the stage already failed it, or the
 * size matrix decides (--large-cases skip). The kit's self-test asks for that on the corpus rows
 * it expects to be right on a GPU (tests/CMakeLists.txt): their large cases could only fail a
 * kernel that is right by construction, and they were most of a GPU's make check (2^26 at every
 * block size, repeats and 2^30 for some sixty rows, three 2^30 cases at a time). A student's
 * grade and the stages' own always run them.
 */
static int already_failed(void)
{
    if (gpu_not_opened[0])
        return 1; /* the part skips (skip_without_gpu()) */
    if (left.size_matrix_failed) {
        printf("not run: stage %d already failed the size matrix\n", args.stage);
        return 1;
    }
    if (args.skip_large_cases) {
        leave_note("the size matrix only (--large-cases skip: a corpus row expected right)");
        return 1;
    }
    return 0;
}

static char *request_cases[] = {"cases", NULL};

/* The plan of one request, drawn now (in this test's own process: every grading draws anew). */
typedef kit_status (*plan_maker)(kit_plan *plan, int stage, kit_random *random, kit_error *err);

static kit_status plan_matrix(kit_plan *plan, int stage, kit_random *random, kit_error *err)
{
    return kit_plan_correctness(plan, stage, 0, random, err);
}

/* Asks the runner for the cases \p make draws, and fails the test unless it answered each. */
static void ask_and_check(plan_maker make, double timeout_s, const char *what, int *failed_flag)
{
    kit_random random;
    kit_random_from_system(&random);
    kit_plan plan = {NULL, 0, 0};
    kit_error err = {KIT_OK, ""};
    if (make(&plan, args.stage, &random, &err) != KIT_OK)
        ck_abort_msg("%s", err.message);
    runner_reply r;
    ask_runner_plan(args.runner, request_cases, &plan, timeout_s, &r);
    kit_plan_free(&plan);
    if (gpu_would_not_open(&r)) {
        free_reply(&r);
        return;
    }
    if (failed_flag)
        *failed_flag = 1; /* cleared again below if every case passed */
    assert_runner_cases_passed(&r, what);
    if (failed_flag)
        *failed_flag = 0;
}

START_TEST(gives_the_exact_sum_at_every_size_block_size_and_input)
{
    ask_and_check(plan_matrix, 120, "correctness", &left.size_matrix_failed);
}
END_TEST

START_TEST(gives_the_exact_sum_for_2_26_ints_at_every_block_size)
{
    if (already_failed())
        return;
    ask_and_check(kit_plan_large, 120, "2^26", NULL);
}
END_TEST

START_TEST(gives_the_same_exact_sum_every_time_it_runs)
{
    if (already_failed())
        return;
    ask_and_check(kit_plan_repeats, 120, "repeated", NULL);
}
END_TEST

/* Leaves a note for the part's message (the test passes: the rest decides). */
static void leave_note(const char *note)
{
    printf("note: %s\n", note);
    snprintf(left.note, sizeof left.note, "%s", note);
}

START_TEST(gives_the_exact_sum_for_2_30_ints_the_largest_n_the_harness_promises)
{
    if (already_failed())
        return;
    /* 4 GiB on the GPU and ~10 GiB on the host each: as many at a time as the host's memory
     * holds at 16 GiB each, 1 to 8 (a slot is a lock file; the kernel frees it if this process
     * dies). With three slots, a 16-core H200's make check spent most of its time here: fifteen
     * stages' 2^30 cases waited up to 137 s for a slot (2026-11-27). */
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    const double host_gib = pages > 0 && page_size > 0 ? (double)pages * (double)page_size / (1 << 30) : 0;
    const int slots = host_gib >= 8 * 16 ? 8 : host_gib >= 2 * 16 ? (int)(host_gib / 16) : 1;
    int lock = -1;
    for (int tries = 0; lock < 0 && tries < 3000; tries++) {
        for (int slot = 0; slot < slots && lock < 0; slot++) {
            char path[64];
            snprintf(path, sizeof path, "/tmp/kit-grade-largest-%d.lock", slot);
            lock = open(path, O_RDWR | O_CREAT, 0666);
            if (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) != 0) {
                close(lock);
                lock = -1;
            }
        }
        if (lock < 0)
            usleep(100 * 1000);
    }
    kit_random random;
    kit_random_from_system(&random);
    kit_plan plan = {NULL, 0, 0};
    kit_error err = {KIT_OK, ""};
    if (kit_plan_largest(&plan, args.stage, &random, &err) != KIT_OK)
        ck_abort_msg("%s", err.message);
    runner_reply r;
    ask_runner_plan(args.runner, request_cases, &plan, 240, &r);
    kit_plan_free(&plan);
    if (lock >= 0)
        close(lock);
    if (gpu_would_not_open(&r)) {
        free_reply(&r);
        return;
    }
    if (!r.problem[0] && r.skip[0] && r.log.count == 0)
        leave_note(r.skip);
    assert_runner_cases_passed(&r, "2^30");
}
END_TEST

/* The block sizes a picture of a failure draws: a trace of 64 to 256 threads a block is one a
 * student can step through. */
#define PICTURE_MIN_THREADS 64
#define PICTURE_MAX_THREADS 256

/* The case a picture of the emulated correctness test's failure draws (picture_of_the_failure()):
 * a failing case of the grade where a trace holds it (kit_choose_picture_case()). */
static kit_picture_case failing = {KIT_PICTURE_NO_FAILURE, 0, PICTURE_MIN_THREADS, KIT_PATTERN_RANDOM, 1, 0, 0};

static void remember_failing_case(const runner_reply *r)
{
    kit_choose_picture_case(r->log.cases, r->log.count, KIT_TRACE_MAX_N, PICTURE_MIN_THREADS, PICTURE_MAX_THREADS,
                            &failing);
}

/* Where --large-cases skip thins the emulated plan (2^17 ints' worth: 14,563 matrices): for an int
 * or float stage the four sizes from 3 * 2^18 to 2^20 + 7, at five block sizes and two patterns,
 * were 94% of its elements. */
#define EMULATED_THINNED_ABOVE ((size_t)1 << 17)

START_TEST(gives_the_exact_sum_at_every_size_up_to_2_20_on_the_cpu_emulator)
{
    kit_random random;
    kit_random_from_system(&random);
    const size_t max_n = kit_grade_elements(args.stage, KIT_EMULATED_MAX_N);
    kit_plan plan = {NULL, 0, 0};
    kit_error err = {KIT_OK, ""};
    if (kit_plan_correctness(&plan, args.stage, max_n, &random, &err) != KIT_OK)
        ck_abort_msg("%s", err.message);
    if (args.skip_large_cases) {
        kit_plan_thin_large_sizes(&plan, kit_grade_elements(args.stage, EMULATED_THINNED_ABOVE), &random);
        leave_note("every size, but those above 2^17 ints' worth once, one input at one block size: "
                   "--large-cases skip, a corpus row expected right");
    }
    /* After a correct run: advice at the largest n graded; and for a stage with a load rule,
     * its counts at an n drawn from the upper half of the emulator's range and at two block
     * sizes drawn now, every launch of every pass counted. */
    char advice_n[32], loads_n[32], threads[2][16];
    snprintf(advice_n, sizeof advice_n, "%zu", max_n);
    char *request[12] = {"cases", "--advice", advice_n, NULL};
    if (config.max_sectors_per_request[args.stage] > 0) {
        kit_plan_load_case(args.stage, max_n, &random, &loads_asked.n, loads_asked.threads, &loads_asked.count);
        snprintf(loads_n, sizeof loads_n, "%zu", loads_asked.n);
        snprintf(threads[0], sizeof threads[0], "%u", loads_asked.threads[0]);
        snprintf(threads[1], sizeof threads[1], "%u", loads_asked.threads[1]);
        request[3] = "--loads";
        request[4] = loads_n;
        request[5] = threads[0];
        request[6] = loads_asked.count > 1 ? threads[1] : NULL;
        request[7] = NULL;
    }
    runner_reply r;
    ask_runner_plan(args.runner, request, &plan, 600, &r);
    kit_plan_free(&plan);
    write_advice(&r);
    write_loads_verdict(&r);
    remember_failing_case(&r);
    assert_runner_cases_passed(&r, "emulated");
}
END_TEST

/* The speed case: n from half to twice \p base, any supported block size and a fresh seed, drawn
 * now (kit_plan_speed_case()); --speed-n, --speed-threads and --speed-seed repeat a run. */
static void choose_speed_case(size_t base, int given_n_applies, size_t *n, unsigned *threads, unsigned long long *seed)
{
    kit_random random;
    kit_random_from_system(&random);
    kit_plan_speed_case(args.stage, base, &random, n, threads, seed);
    if (args.speed_n && given_n_applies)
        *n = args.speed_n;
    if (args.speed_threads)
        *threads = args.speed_threads;
    if (args.speed_seed_given)
        *seed = args.speed_seed;
}

/*
 * One speed case near \p base elements: the runner times the student's stage against reference
 * stage K and the reference of its baseline stage (stages.def) at that n, and the rule decides
 * (kit_speedup_decide). \p where names the case in the
 * message ("" for the main one). Fills \p result, whose outcome says whether it passed.
 */
static void speed_case(size_t base, int given_n_applies, const char *where, kit_result *result)
{
    memset(result, 0, sizeof *result);
    if (gpu_not_opened[0]) {
        result->outcome = KIT_OUTCOME_SKIP;
        return;
    }
    size_t n;
    unsigned threads;
    unsigned long long seed;
    choose_speed_case(base, given_n_applies, &n, &threads, &seed);
    char n_text[32], seed_text[32], threads_text[16];
    snprintf(n_text, sizeof n_text, "%zu", n);
    snprintf(seed_text, sizeof seed_text, "%llu", seed);
    snprintf(threads_text, sizeof threads_text, "%u", threads);
    char *request[] = {"speedup", "--config", (char *)(args.config ? args.config : ""), "--n", n_text,
                       "--seed", seed_text, "--threads", threads_text, NULL};
    runner_reply r;
    ask_runner(args.runner, request, 180, &r);
    if (gpu_would_not_open(&r)) {
        result->outcome = KIT_OUTCOME_SKIP;
        free_reply(&r);
        return;
    }
    snprintf(result->gpu, sizeof result->gpu, "%s", r.device);
    result->timed_n = n;
    result->timed_threads = threads;
    result->timed_seed = seed;
    kit_speedup s = r.speedup;
    if (r.problem[0]) {
        result->outcome = KIT_OUTCOME_FAIL;
        snprintf(result->message, sizeof result->message, "%s", r.problem);
    } else if (r.error[0] || !r.has_speedup || r.speed_n != n || r.speed_seed != seed || r.speed_threads != threads) {
        result->outcome = KIT_OUTCOME_FAIL;
        snprintf(result->message, sizeof result->message, "not timed at n = %zu, %u threads, seed %llu: %s", n,
                 threads, seed,
                 r.error[0] ? r.error : "the runner did not time the case it was asked to");
    } else {
        kit_speedup_decide(&config, args.stage, &s, 1);
        result->outcome = s.verdict == KIT_VERDICT_PASS ? KIT_OUTCOME_PASS : KIT_OUTCOME_FAIL;
        result->achieved = s.achieved;
        result->required = s.required;
        result->reference = s.reference;
        result->spread = s.spread;
        result->student_ms = s.student_ms;
        result->reference_ms = s.reference_ms;
        result->bytes = (double)n * (double)kit_in_words(kit_grade_problem(args.stage)) * sizeof(int);
        const int baseline = kit_grade_baseline(args.stage);
        char rule[200], measured[200];
        if (config.min_speedup[args.stage] >= config.speedup_fraction * s.reference)
            snprintf(rule, sizeof rule, "the configured minimum for stage %d; reference stage %d reached %.2fx",
                     args.stage, args.stage, s.reference);
        else if (baseline == args.stage)
            snprintf(rule, sizeof rule, "%.2g x the reference's own speed: stage %d is its own baseline",
                     config.speedup_fraction, args.stage);
        else
            snprintf(rule, sizeof rule, "%.2g x reference stage %d's %.2fx in this run", config.speedup_fraction,
                     args.stage, s.reference);
        if (baseline == args.stage)
            snprintf(measured, sizeof measured, "runs at %.2fx the speed of reference stage %d (%s)", s.achieved,
                     baseline, kit_grade_title(baseline));
        else
            snprintf(measured, sizeof measured, "is %.2fx faster than reference stage %d (%s)", s.achieved, baseline,
                     kit_grade_title(baseline));
        snprintf(result->message, sizeof result->message,
                 "stage %d %s%s; required %.2fx (%s). Timed at n = %zu (chosen at random for this run), seed %llu, "
                 "%u threads (chosen at random too), median of %d interleaved samples each, spread %.1f%%, %d attempt(s), the input changed "
                 "and the answer checked before every repetition%s%s",
                 args.stage, measured, where, s.required, rule, n, seed, threads, s.samples,
                 100 * s.spread, s.attempts, s.within_noise ? "; passed within the measurement's noise" : "",
                 result->outcome == KIT_OUTCOME_PASS ? ""
                 : r.advice[0] ? ". Why: " /* the runner's word on the grid, from this run */
                 : where[0] ? ". At this n a launch costs about as much as the reading: does it launch more than one "
                              "kernel (a clearing kernel, a second pass over partial sums)?"
                 : ". Is it still doing the work of an earlier stage (block count, loads per thread)?");
        if (result->outcome != KIT_OUTCOME_PASS && r.advice[0]) {
            size_t used = strlen(result->message);
            snprintf(result->message + used, sizeof result->message - used, "%s", r.advice);
        }
    }
    free_reply(&r);
}

START_TEST(reaches_the_required_speedup_over_reference_stage_1)
{
    kit_result result;
    speed_case(kit_grade_elements(args.stage, config.speedup_n), 1, "", &result);
    if (gpu_not_opened[0])
        return; /* the part skips (skip_without_gpu()) */
    left.numbers = result;
    left.has_numbers = 1;
    ck_assert_msg(result.outcome == KIT_OUTCOME_PASS, "%s", result.message);
}
END_TEST

/*
 * The second speed case of a stage with a latency_n (stage 8: 2^18 ints, 1 MiB): there a
 * reduction takes a few microseconds, most of it launch latency, so a stage that launches
 * twice (a clearing kernel, a second pass) shows its cost here and nowhere else. It runs after
 * the main case in the same part and adds to its result: the part passes only if both pass,
 * and the numbers shown are those of a failed case (the main one's when both pass).
 */
START_TEST(reaches_the_required_speedup_also_at_a_small_n_where_launch_latency_decides)
{
    kit_result main_case = left.numbers, result;
    if (!left.has_numbers)
        main_case.outcome = KIT_OUTCOME_MISSING;
    speed_case(kit_grade_elements(args.stage, config.latency_n[args.stage]), 0, " where launch latency decides",
               &result);
    if (gpu_not_opened[0])
        return; /* the part skips (skip_without_gpu()) */
    kit_result merged = result;
    if (main_case.outcome == KIT_OUTCOME_PASS || main_case.outcome == KIT_OUTCOME_FAIL) {
        merged = main_case.outcome == KIT_OUTCOME_FAIL || result.outcome == KIT_OUTCOME_PASS ? main_case : result;
        merged.outcome = main_case.outcome == KIT_OUTCOME_PASS && result.outcome == KIT_OUTCOME_PASS
                             ? KIT_OUTCOME_PASS : KIT_OUTCOME_FAIL;
        size_t used = (size_t)snprintf(merged.message, sizeof merged.message, "%.1000s", main_case.message);
        snprintf(merged.message + used, sizeof merged.message - used, " | %.1000s", result.message);
    }
    left.numbers = merged;
    left.has_numbers = 1;
    ck_assert_msg(result.outcome == KIT_OUTCOME_PASS, "%s", result.message);
}


/* ---------------------------------------------------------------- results */

/* Turns Check's results for one test case into the part's result file. */
static int record(SRunner *runner, const char *tcase, kit_part part, const char *device)
{
    kit_result r;
    memset(&r, 0, sizeof r);
    if (left.has_numbers)
        r = left.numbers; /* the speed cases' measurements */
    TestResult **results = srunner_results(runner);
    int total = srunner_ntests_run(runner), ran = 0, failed = 0;
    char message[sizeof r.message] = "";
    for (int i = 0; i < total; i++) {
        if (strcmp(tr_tcname(results[i]), tcase) != 0)
            continue;
        ran++;
        if (tr_rtype(results[i]) == CK_PASS)
            continue;
        failed++;
        /* One message per cause: an unfilled skeleton fails every test the same way. */
        const char *text = tr_msg(results[i]);
        char head[64];
        snprintf(head, sizeof head, "%s", text);
        char *cut = strchr(head, '(');
        if (cut)
            *cut = '\0';
        if (strstr(message, head))
            continue;
        size_t used = strlen(message);
        snprintf(message + used, sizeof message - used, "%s%s", used ? " | " : "", text);
    }
    free(results);
    if (ran == 0)
        return 0;
    r.outcome = failed ? KIT_OUTCOME_FAIL : KIT_OUTCOME_PASS;
    if (failed || part != KIT_PART_SPEEDUP || !r.message[0]) {
        const char *note = left.note;
        const kit_problem problem = kit_grade_problem(args.stage);
        const char *right = kit_problem_equal(problem, KIT_INT_SUM) ? "every run gave the exact sum"
                            : problem.type == KIT_FLOAT ? "every run was within the error bound of the exact sum, and "
                                                          "repeats gave the same bits"
                                                        : "every run gave the right answer";
        char emulated[128] = "";
        const size_t largest = kit_grade_elements(args.stage, KIT_EMULATED_MAX_N);
        if (!failed && part == KIT_PART_EMULATED && largest == KIT_EMULATED_MAX_N)
            snprintf(emulated, sizeof emulated, " on the CPU emulator (n up to 2^20 + 7)");
        else if (!failed && part == KIT_PART_EMULATED)
            snprintf(emulated, sizeof emulated, " on the CPU emulator (n up to %zu, 2^20 + 7 ints' worth)", largest);
        snprintf(r.message, sizeof r.message, "%s%s%s%s%s", failed ? message : right, emulated, note[0] ? " (" : "",
                 note, note[0] ? ")" : "");
    }
    if (device && *device)
        snprintf(r.gpu, sizeof r.gpu, "%s", device);
    kit_result_write(args.results, args.stage, part, &r);
    return failed;
}

/* Writes a failed part without running anything (the audit said no). */
static void fail_part_built(kit_part part, const char *message, int not_built)
{
    kit_result r;
    memset(&r, 0, sizeof r);
    r.outcome = KIT_OUTCOME_FAIL;
    r.not_built = not_built;
    snprintf(r.message, sizeof r.message, "%s", message);
    kit_result_write(args.results, args.stage, part, &r);
    printf("FAIL: %s\n", message);
}

static void fail_part(kit_part part, const char *message)
{
    fail_part_built(part, message, 0);
}

/* A stage file that did not compile has no object (nvcc) or no runner (the CPU emulator's
 * compiler): that stage fails this part with the compiler's first messages about the file
 * (make check keeps the build log in <results>/logs/build.log), and only that stage does. */
static int failed_to_build(kit_part part, int emulated, int runner_too)
{
    const char *missing = access(args.object, R_OK) != 0                ? args.object
                          : runner_too && access(args.runner, X_OK) != 0 ? args.runner
                                                                          : NULL;
    if (!missing)
        return 0;
    int emulator_only = missing == args.runner && emulated;
    char message[2048];
    int used = snprintf(message, sizeof message, "stage %d's file %s does not compile%s", args.stage, args.shown,
                        emulator_only ? " for the CPU emulator (the GPU's nvcc may accept it: see docs/emulator.md)" : "");
    char log[1024];
    snprintf(log, sizeof log, "%s/build.log", args.logs ? args.logs : ".");
    FILE *f = args.logs ? fopen(log, "r") : NULL;
    const char *base = strrchr(args.shown, '/') ? strrchr(args.shown, '/') + 1 : args.shown;
    int quoted = 0;
    char line[512], last[512] = "";
    while (f && quoted < 3 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strstr(line, base) || !strstr(line, "error") || strstr(line, "detected in the compilation") ||
            strcmp(line, last) == 0 || (size_t)used + 4 >= sizeof message)
            continue; /* nvcc's summary line, and g++'s repeats of one error (plain and race builds) */
        used += snprintf(message + used, sizeof message - used, "%s %s", quoted ? ";" : ":", line);
        snprintf(last, sizeof last, "%s", line);
        quoted++;
    }
    if (f)
        fclose(f);
    if (!quoted)
        snprintf(message + used, sizeof message - used, " (the compiler's messages are in the build's output)");
    fail_part_built(part, message, emulator_only);
    return 1;
}

/* What the probe found: a usable GPU, none, or a runner that gave no verdict at all. */
typedef enum { PROBE_GPU, PROBE_NO_GPU, PROBE_NO_VERDICT } probe_outcome;

/* Is a GPU there for the runner, in the sandbox (\p asked "find": named, no context made), or
 * usable ("probe": opened)? Fills \p device, or \p why. A runner that ends without answering (a
 * static constructor that exits, say) is not "no GPU": it fails. The parts find, and learn from
 * their first request whether the GPU opens (gpu_would_not_open()): the driver makes one context
 * at a time, 0.2 s each on a 16-core H200 machine (2026-11-27), and a probe that opened the GPU
 * was a third of a GPU make check's contexts. */
static probe_outcome probe(const char *asked, char *device, size_t device_size, char *why, size_t why_size)
{
    char *request[] = {(char *)asked, NULL};
    runner_reply r;
    ask_runner(args.runner, request, 60, &r);
    probe_outcome outcome = r.problem[0] ? PROBE_NO_VERDICT : r.error[0] || r.devices != 1 ? PROBE_NO_GPU : PROBE_GPU;
    snprintf(device, device_size, "%s", r.device);
    snprintf(why, why_size, "%s", r.problem[0] ? r.problem : r.error[0] ? r.error : "no device reported");
    free_reply(&r);
    return outcome;
}

/* mkdir -p: 1 when \p path is a folder afterwards. */
static int make_folders(const char *path)
{
    char partial[4096];
    snprintf(partial, sizeof partial, "%s", path);
    for (char *p = partial + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(partial, 0755) != 0 && errno != EEXIST)
            return 0;
        *p = '/';
    }
    return mkdir(partial, 0755) == 0 || errno == EEXIST;
}

static int run_sandbox_command(void)
{
    kit_sandbox_result run;
    char why[512];
    if (kit_sandbox_run(args.command, NULL, args.timeout_s, &run, why, sizeof why) != 0) {
        fprintf(stderr, "kit_grade: %s\n", why);
        return 90;
    }
    runner_reply r;
    memset(&r, 0, sizeof r);
    r.run = run;
    r.probing = 1; /* its exit status goes to the script that asked, which decides */
    parse_reply(&r);
    int code = r.run.exited ? r.run.code : 128 + r.run.code;
    if (r.error[0] && r.error_status != KIT_OK) /* the runner's own verdict (a hang on the emulator, say): for the script that reads it */
        fprintf(stderr, "kit_grade: error: %s: %s\n", kit_status_name(r.error_status), r.error);
    if (r.problem[0]) {
        fprintf(stderr, "kit_grade: %s\n", r.problem);
        code = 90;
    }
    free_reply(&r);
    return code;
}


/* ---------------------------------------------------------------- the sanitizer's and the race check's verdicts */

/*
 * Both run the stage's runner once more, sandboxed, under a tool whose output is long and
 * technical (compute-sanitizer's reports, ThreadSanitizer's stack frames). That output goes to a
 * log; the verdict is decided here, from the tool's exit status and summary lines and from what
 * the runner said on its private pipe, and written as the part's result. The test's output is
 * one verdict in the kit's words, and the log's path.
 */

/* Where a tool's output is kept: LOGS/stageK-NAME.log, RESULTS/logs/... without --logs, else TMPDIR. */
static void tool_log_path(char *out, size_t size, const char *name)
{
    const char *dir = args.logs;
    char fallback[4096];
    if (!dir && args.results) {
        snprintf(fallback, sizeof fallback, "%s/logs", args.results);
        dir = make_folders(fallback) ? fallback : NULL;
    }
    if (dir)
        snprintf(out, size, "%.3900s/stage%d-%.60s.log", dir, args.stage, name);
    else
        snprintf(out, size, "%s/kit-grade-stage%d-%s.%ld.log", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                 args.stage, name, (long)getpid());
}

/* Runs \p command sandboxed with its standard output and error going to \p log_path; fills \p r
 * with what the runner said on its pipe. 0, or -1 when it could not start (\p why says why). */
static int run_logged(char **command, char *const environment[], double timeout_s, const char *log_path,
                      runner_reply *r, char *why, size_t why_size)
{
    memset(r, 0, sizeof *r);
    fflush(stdout);
    fflush(stderr);
    int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log < 0) {
        snprintf(why, why_size, "cannot write the log %s: %s", log_path, strerror(errno));
        return -1;
    }
    int saved_out = dup(1), saved_err = dup(2);
    dup2(log, 1);
    dup2(log, 2);
    close(log);
    int started = kit_sandbox_run(command, environment, timeout_s, &r->run, why, why_size);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    if (started != 0)
        return -1;
    r->probing = 1; /* the tool's exit status is the tool's: decided below */
    parse_reply(r);
    return 0;
}

/* The log's lines, one at a time (NULL at the end). */
static char *next_line(FILE *f, char *line, size_t size)
{
    if (!fgets(line, (int)size, f))
        return NULL;
    line[strcspn(line, "\r\n")] = '\0';
    return line;
}

/* "========= Error: ..." without its frame of '=' and blanks. */
static const char *after_frame(const char *line)
{
    while (*line == '=')
        line++;
    while (*line == ' ')
        line++;
    return line;
}

static int write_tool_result(kit_part part, kit_outcome outcome, const char *device, const char *message)
{
    kit_result result;
    memset(&result, 0, sizeof result);
    result.outcome = outcome;
    snprintf(result.message, sizeof result.message, "%s", message);
    if (device)
        snprintf(result.gpu, sizeof result.gpu, "%s", device);
    kit_result_write(args.results, args.stage, part, &result);
    printf("%s: %s\n", outcome == KIT_OUTCOME_PASS ? "ok" : outcome == KIT_OUTCOME_SKIP ? "SKIPPED" : "FAIL", message);
    return outcome == KIT_OUTCOME_PASS ? 0 : 1;
}

/* No GPU for the tool (none found, or none opened): skipped (77), or failed with KIT_REQUIRE_GPU=1. */
static int tool_without_gpu(kit_part part, const char *why)
{
    int code = no_gpu_exit_code();
    char message[2048];
    snprintf(message, sizeof message, "compute-sanitizer %s not run: %s", args.tool, why);
    write_tool_result(part, code == 77 ? KIT_OUTCOME_SKIP : KIT_OUTCOME_FAIL, NULL, message);
    return code;
}

/*
 * compute-sanitizer TOOL over the runner's "once" request (small inputs). Any error fails, and
 * so does any racecheck hazard, warnings included: the volatile-only warp unroll gives the right
 * sum every time, and racecheck's warnings are the only sign of its race. A stage's printf can
 * add lines to the log but not remove the sanitizer's, so any non-zero summary fails.
 */
static int grade_sanitizer(void)
{
    kit_part part;
    sanitizer_part(args.tool, &part);
    char device[256] = "", why[1536] = "";
    probe_outcome found = probe("find", device, sizeof device, why, sizeof why);
    if (found == PROBE_NO_VERDICT) {
        char message[2048];
        snprintf(message, sizeof message, "compute-sanitizer %s not run: %s", args.tool, why);
        return write_tool_result(part, KIT_OUTCOME_FAIL, NULL, message);
    }
    if (found == PROBE_NO_GPU)
        return tool_without_gpu(part, why);
    char log_path[4096];
    char name[64];
    snprintf(name, sizeof name, "compute-sanitizer-%s", args.tool);
    tool_log_path(log_path, sizeof log_path, name);
    char *command[] = {(char *)args.sanitizer, "--tool", (char *)args.tool, "--error-exitcode", "86",
                       (char *)args.runner, "once", NULL};
    runner_reply r;
    if (run_logged(command, NULL, 600, log_path, &r, why, sizeof why) != 0) {
        char message[2048];
        snprintf(message, sizeof message, "compute-sanitizer %s could not run stage %d: %s", args.tool, args.stage, why);
        return write_tool_result(part, KIT_OUTCOME_FAIL, device, message);
    }
    if (gpu_would_not_open(&r)) { /* the GPU found, not opened: nothing ran under the tool */
        free_reply(&r);
        return tool_without_gpu(part, gpu_not_opened);
    }
    char summary[1024] = "", first[320] = "", where[220] = "", line[4096];
    int hazards = 0;
    FILE *f = fopen(log_path, "r");
    while (f && next_line(f, line, sizeof line)) {
        const char *text = after_frame(line);
        if (strncmp(line, "=========", 9) != 0)
            continue;
        if (strstr(text, "ERROR SUMMARY") || strstr(text, "RACECHECK SUMMARY")) {
            size_t used = strlen(summary);
            snprintf(summary + used, sizeof summary - used, "%s%.200s", used ? " " : "", text);
            const char *count = strstr(text, "SUMMARY: ");
            if (count && count[9] >= '1' && count[9] <= '9')
                hazards = 1;
        } else if (!first[0] && line[9] == ' ' &&
                   (strncmp(text, "Error", 5) == 0 || strncmp(text, "Warning", 7) == 0 || strncmp(text, "Invalid", 7) == 0 ||
                    strncmp(text, "Uninitialized", 13) == 0 || strncmp(text, "Race", 4) == 0 ||
                    strncmp(text, "Barrier", 7) == 0 || strncmp(text, "Program hit", 11) == 0)) {
            snprintf(first, sizeof first, "%.300s", text);
        } else if (!where[0] && strncmp(line, "=========  ", 11) == 0 && strncmp(text, "at ", 3) == 0 &&
                   strchr(text, ':')) {
            snprintf(where, sizeof where, " %.200s", text);
        }
    }
    if (f)
        fclose(f);
    int code = r.run.exited ? r.run.code : 128 + r.run.code;
    char message[2048];
    kit_outcome outcome = KIT_OUTCOME_FAIL;
    if (code == 86 || hazards)
        snprintf(message, sizeof message, "compute-sanitizer --tool %s found problems in stage %d: %s. First: %s%s",
                 args.tool, args.stage, summary[0] ? summary : "see the log", first[0] ? first : "?", where);
    else if (r.problem[0])
        snprintf(message, sizeof message, "stage %d's program ended before the grader got a verdict under "
                 "compute-sanitizer --tool %s: %s", args.stage, args.tool, r.problem);
    else if (code != 0)
        snprintf(message, sizeof message, "stage %d crashed or hung under compute-sanitizer --tool %s (exit %d): %s",
                 args.stage, args.tool, code, first[0] ? first : "see the log");
    else if (!summary[0])
        snprintf(message, sizeof message, "compute-sanitizer --tool %s printed no summary: cannot tell whether "
                 "stage %d is clean", args.tool, args.stage);
    else {
        outcome = KIT_OUTCOME_PASS;
        snprintf(message, sizeof message, "clean: %s", summary);
    }
    free_reply(&r);
    printf("compute-sanitizer's own output: %s\n", log_path);
    return write_tool_result(part, outcome, device, message);
}

/* One access of a ThreadSanitizer report, with the GPU thread that made it and its source line. */
typedef struct race_access {
    char kind[32], thread[16], where[256];
} race_access;

/*
 * The emulator's race check, from two runners of the stage file (races.c):
 *   --orders-runner (the plain emulator): inputs up to 2^16 ints' worth in four thread orders; a
 *     result that depends on the order fails;
 *   --runner (built with ThreadSanitizer): small inputs in two orders; a data race it reports, in
 *     shared or global memory, fails, named by its two accesses (the GPU threads in CUDA's terms
 *     and the source lines). The first report decides (halt_on_error): a racing kernel would
 *     otherwise report thousands, for minutes. ThreadSanitizer needs a memory layout that address
 *     randomisation can break, so it runs without (personality ADDR_NO_RANDOMIZE, which the
 *     sandbox and the runner inherit, as `setarch -R` does).
 * A hang in either ends the check: what a stopped launch left behind is no race.
 */
typedef struct race_run {
    runner_reply reply;
    int code, hung;
    char orders[640], still[900];
} race_run;

/* Runs \p runner's \p request, logged to \p log_path; 0, or -1 (why in \p why) if it could not start. */
static int run_race_request(const char *runner, const char *request, char *const environment[], const char *log_path,
                            race_run *run, char *why, size_t why_size)
{
    memset(run, 0, sizeof *run);
    char *command[] = {(char *)runner, (char *)request, NULL};
    if (run_logged(command, environment, 900, log_path, &run->reply, why, why_size) != 0)
        return -1;
    char line[4096];
    FILE *f = fopen(log_path, "r");
    while (f && next_line(f, line, sizeof line)) {
        if (!run->orders[0] && strstr(line, "depends on the order of the threads"))
            snprintf(run->orders, sizeof run->orders, "%.600s", line);
        if (!run->still[0] && strstr(line, "still running after"))
            snprintf(run->still, sizeof run->still, "%.880s", line);
    }
    if (f)
        fclose(f);
    const runner_reply *r = &run->reply;
    run->code = r->run.exited ? r->run.code : 128 + r->run.code;
    run->hung = r->error_status == KIT_TIMEOUT || run->code == KIT_RUNNER_HUNG_EXIT || r->run.timed_out;
    return 0;
}

static int grade_races(void)
{
    const char *device = "the kit's CPU emulator (no GPU)";
    int persona = personality(0xffffffff);
    if (persona != -1)
        personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
    char options[1024];
    const char *user = getenv("TSAN_OPTIONS");
    snprintf(options, sizeof options, "TSAN_OPTIONS=exitcode=66 halt_on_error=1 %s", user ? user : "");
    char *environment[] = {options, NULL};
    char log_path[4096], orders_log[4096], why[1536], message[2048];
    tool_log_path(log_path, sizeof log_path, "emulated-races");
    tool_log_path(orders_log, sizeof orders_log, "emulated-orders");
    static race_run by_order, by_tsan; /* static: two replies are too large for the stack */
    int have_orders = 0;
    if (args.orders_runner) {
        if (run_race_request(args.orders_runner, "orders", NULL, orders_log, &by_order, why, sizeof why) != 0) {
            snprintf(message, sizeof message, "the emulator's race check could not run stage %d: %s", args.stage, why);
            return write_tool_result(KIT_PART_EMULATED_RACES, KIT_OUTCOME_FAIL, device, message);
        }
        have_orders = 1;
    }
    const int orders_hung = have_orders && by_order.hung;
    /* Nothing written, nothing to race: an unfilled lab fails here, without the ThreadSanitizer run (3.4 s
     * of its 3.5 on 2 cores). The part fails, as the stage does: the word is the stage's own, and a stage
     * that wrote nothing only here loses the points it could have had. */
    if (have_orders && !orders_hung && by_order.reply.no_result && !by_order.reply.problem[0]) {
        snprintf(message, sizeof message, "not checked for races: stage %d wrote no result in any run of the race "
                 "check (fill in the TODO first; an unfilled lab has nothing to race)", args.stage);
        printf("The race check's log: %s\n", orders_log);
        free_reply(&by_order.reply);
        return write_tool_result(KIT_PART_EMULATED_RACES, KIT_OUTCOME_FAIL, device, message);
    }
    if (!orders_hung &&
        run_race_request(args.runner, "races", environment, log_path, &by_tsan, why, sizeof why) != 0) {
        snprintf(message, sizeof message, "the emulator's race check could not run stage %d: %s", args.stage, why);
        if (have_orders)
            free_reply(&by_order.reply);
        return write_tool_result(KIT_PART_EMULATED_RACES, KIT_OUTCOME_FAIL, device, message);
    }
    int reports = 0, in_report = 0, accesses = 0;
    race_access access_of[4];
    struct {
        char id[16], name[64];
    } names[8];
    int named = 0;
    char line[4096];
    FILE *f = orders_hung ? NULL : fopen(log_path, "r");
    while (f && next_line(f, line, sizeof line)) {
        if (strstr(line, "WARNING: ThreadSanitizer")) {
            reports++;
            in_report = reports == 1;
            continue;
        }
        if (!in_report)
            continue;
        if (strncmp(line, "SUMMARY", 7) == 0) {
            in_report = 0;
            continue;
        }
        char kind[32], second[32], thread[16];
        if (strncmp(line, "  ", 2) == 0 && line[2] >= 'A' && line[2] <= 'Z' && strstr(line, " of size ") &&
            strstr(line, " by thread T") && accesses < 4) {
            race_access *a = &access_of[accesses];
            memset(a, 0, sizeof *a);
            if (sscanf(line + 2, "%31s %31s", kind, second) == 2 && strcmp(kind, "Previous") == 0)
                snprintf(a->kind, sizeof a->kind, "previous %.20s", second);
            else
                snprintf(a->kind, sizeof a->kind, "%s", kind);
            for (char *c = a->kind; *c; c++)
                *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
            const char *by = strstr(line, " by thread T");
            if (sscanf(by + 11, "%15[^: ]", thread) == 1)
                snprintf(a->thread, sizeof a->thread, "%s", thread);
            accesses++;
            continue;
        }
        if (strncmp(line, "    #0 ", 7) == 0 && accesses > 0 && !access_of[accesses - 1].where[0]) {
            /* "    #0 function file:line:column (module+0x...)": the second-to-last word */
            char copy[4096];
            snprintf(copy, sizeof copy, "%s", line);
            char *words[64];
            int count = 0;
            for (char *w = strtok(copy, " "); w && count < 64; w = strtok(NULL, " "))
                words[count++] = w;
            if (count >= 2)
                snprintf(access_of[accesses - 1].where, sizeof access_of[accesses - 1].where, "%s",
                         words[count - 2]);
            continue;
        }
        if (strncmp(line, "  Thread T", 10) == 0 && named < 8) {
            const char *open_quote = strchr(line, '\'');
            const char *close_quote = open_quote ? strchr(open_quote + 1, '\'') : NULL;
            if (open_quote && close_quote && sscanf(line + 9, "%15s", names[named].id) == 1) {
                snprintf(names[named].name, sizeof names[named].name, "%.*s", (int)(close_quote - open_quote - 1),
                         open_quote + 1);
                named++;
            }
        }
    }
    if (f)
        fclose(f);
    char first[700] = "";
    for (int i = 0; i < accesses; i++) {
        const char *who = access_of[i].thread;
        for (int n = 0; n < named; n++)
            if (strcmp(names[n].id, who) == 0)
                who = names[n].name;
        /* From the labs' folder on (or the kit's): the graded copy's absolute path on the grading
         * machine means nothing to the student, and a long one cut "file.cu:36" to "file.c". */
        const char *where = access_of[i].where[0] ? access_of[i].where : "?";
        const char *from = strstr(where, "/labs/");
        if (from)
            where = from + 1;
        size_t used = strlen(first);
        snprintf(first + used, sizeof first - used, "%s%.30s by %.60s at %.160s", i ? ", " : "", access_of[i].kind, who,
                 where);
    }
    /* The decision: a hang first (in either runner), then ThreadSanitizer's report, then the orders. */
    const race_run *hung_run = orders_hung ? &by_order : by_tsan.hung ? &by_tsan : have_orders && by_order.hung ? &by_order : NULL;
    const race_run *order_run = have_orders && by_order.orders[0] ? &by_order : by_tsan.orders[0] ? &by_tsan : NULL;
    const race_run *ended = have_orders && by_order.reply.problem[0] ? &by_order
                            : !orders_hung && by_tsan.reply.problem[0] ? &by_tsan : NULL;
    const race_run *crashed = have_orders && by_order.code != 0 ? &by_order : !orders_hung && by_tsan.code != 0 ? &by_tsan : NULL;
    kit_outcome outcome = KIT_OUTCOME_FAIL;
    char stopped[160];
    snprintf(stopped, sizeof stopped, "stage %d did not finish in the emulator's race check: it was stopped at its "
             "time limit", args.stage);
    if (hung_run) /* before any race report: a hang stops the check, and what it left behind is no race */
        snprintf(message, sizeof message, "%s (the race check ends at a hang: not a race)",
                 hung_run->reply.error_status == KIT_TIMEOUT && hung_run->reply.error[0] ? hung_run->reply.error
                 : hung_run->still[0]                                                    ? hung_run->still
                                                                                         : stopped);
    else if (reports > 0)
        snprintf(message, sizeof message, "ThreadSanitizer found %d data race report(s) in stage %d on the CPU emulator "
                 "(a missing __syncthreads() or __syncwarp() in a block, or a global that two blocks write without "
                 "an atomic?). First: %s", reports, args.stage, first[0] ? first : "see the log");
    else if (order_run)
        snprintf(message, sizeof message, "%s", order_run->orders);
    else if (ended)
        snprintf(message, sizeof message, "stage %d's program ended before the grader got a verdict in the "
                 "emulator's race check: %s", args.stage, ended->reply.problem);
    else if (!crashed) {
        outcome = KIT_OUTCOME_PASS;
        snprintf(message, sizeof message, "no race: ThreadSanitizer reported nothing (inputs up to 6,149 elements) "
                 "and every thread order gave the same results (CPU emulator, inputs up to 2^16 ints' worth)");
    } else
        snprintf(message, sizeof message, "stage %d crashed in the emulator's race check (exit %d%s); see the log",
                 args.stage, crashed->code, crashed == &by_tsan && crashed->code == 66
                                                ? ": ThreadSanitizer's status for a race it reported" : "");
    /* ThreadSanitizer's own frames and exit status stay in its log: the message above is the verdict. */
    printf("The race check's logs: %s%s%s\n", have_orders ? orders_log : "", have_orders && !orders_hung ? ", " : "",
           orders_hung ? "" : log_path);
    if (!orders_hung)
        free_reply(&by_tsan.reply);
    if (have_orders)
        free_reply(&by_order.reply);
    return write_tool_result(KIT_PART_EMULATED_RACES, outcome, device, message);
}

/* ---------------------------------------------------------------- a picture of a failing emulated grade */

/*
 * After the CPU emulator's correctness test failed on a student's lab, the report links a
 * picture of what the lab's kernel did (issue 25): a failing case of the grade where a trace holds
 * it (n up to 2^14, 64 to 256 threads: the first failure, else the smallest), else a failing
 * case's block size, pattern and seed at n = 2^14 (kit_choose_picture_case()), beside the
 * reference's run (--compare). The drawn run must go wrong to be called the failing case: the
 * note says what it was (kit_picture_words()), a run that went right included. The
 * trace comes from reduce_ladder_emu --impl labs, which links the same lab file, run sandboxed
 * as the runners are, and comes back on the private pipe; the drawing,
 * tools/trace_picture.py, loads no student code and runs here. It writes RESULTS/stageK-picture.html
 * and RESULTS/stageK.picture, one line the report reads (report.c: the path, n, threads,
 * pattern and what the drawn run was). The verdict is written before this starts and never
 * depends on it: anything that goes wrong here leaves no picture and one line in the test's
 * output. Only the labs' own
 * runner (run_labs_stageK_emu, beside reduce_ladder_emu in the build) gets a picture: a corpus
 * file is no lab, and reduce_ladder_emu must be newer than the lab file, or it would draw the
 * lab as it was when last built.
 */
#define PICTURE_TIMEOUT_S 60

static void picture_paths(char *html, char *note, size_t size)
{
    snprintf(html, size, "%s/stage%d-picture.html", args.results, args.stage);
    snprintf(note, size, "%s/stage%d.picture", args.results, args.stage);
}

/* An earlier grade's picture goes before this grade starts: it would not be this lab's. */
static void forget_picture(void)
{
    if (!args.results)
        return;
    char html[4096], note[4096];
    picture_paths(html, note, sizeof html);
    remove(html);
    remove(note);
}

/* The folder of \p path (a copy), or "" */
static void folder_of(const char *path, char *out, size_t size)
{
    snprintf(out, size, "%s", path);
    char *slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
    else
        out[0] = '\0';
}

/* Runs python3 TOOL TRACE -o HTML (no student code: the drawing reads the trace as data), at most
 * PICTURE_TIMEOUT_S seconds. 0 when it drew the page. */
static int draw_picture(const char *tool, const char *trace, const char *html)
{
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child < 0)
        return -1;
    if (child == 0) {
        alarm(PICTURE_TIMEOUT_S); /* kept across exec: a drawing that never ends is killed */
        execlp("python3", "python3", tool, trace, "-o", html, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void picture_of_the_failure(void)
{
    char runner_dir[4096], build[4096], emulator[4096 + 32], expected[64];
    folder_of(args.runner, runner_dir, sizeof runner_dir);
    const char *name = strrchr(args.runner, '/') ? strrchr(args.runner, '/') + 1 : args.runner;
    snprintf(expected, sizeof expected, "run_labs_stage%d_emu", args.stage);
    if (!args.results || strcmp(name, expected) != 0)
        return; /* not the lab's own grade: a corpus entry, a test's stand-in */
    folder_of(runner_dir, build, sizeof build);
    snprintf(emulator, sizeof emulator, "%s/reduce_ladder_emu", build);
    char source[PATH_MAX], tool[PATH_MAX + 64] = "";
    struct stat emu_stat, lab_stat;
    if (stat(emulator, &emu_stat) != 0 || !args.source || !realpath(args.source, source) ||
        stat(source, &lab_stat) != 0) {
        printf("picture: none (%s is not built)\n", emulator);
        return;
    }
    if (emu_stat.st_mtime < lab_stat.st_mtime) {
        printf("picture: none (reduce_ladder_emu was built before your last change: cmake --build build, then "
               "./build/reduce_ladder --stage %d --impl labs --picture lab%d.html draws it)\n", args.stage, args.stage);
        return;
    }
    /* tools/trace_picture.py: in the kit this build was configured from (its CMakeCache.txt's
     * CMAKE_HOME_DIRECTORY), else in the one that holds the lab (labs/DIR/FILE.cu: two folders up) */
    char cache[4096 + 32], line[PATH_MAX + 64];
    snprintf(cache, sizeof cache, "%s/CMakeCache.txt", build);
    FILE *cmake_cache = fopen(cache, "r");
    while (cmake_cache && fgets(line, sizeof line, cmake_cache)) {
        const char *key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
        if (strncmp(line, key, strlen(key)) == 0) {
            line[strcspn(line, "\r\n")] = '\0';
            snprintf(tool, sizeof tool, "%s/tools/trace_picture.py", line + strlen(key));
            if (access(tool, R_OK) != 0)
                tool[0] = '\0';
            break;
        }
    }
    if (cmake_cache)
        fclose(cmake_cache);
    char dir[PATH_MAX];
    folder_of(source, dir, sizeof dir);
    for (int up = 0; up < 4 && dir[0] && !tool[0]; up++) {
        snprintf(tool, sizeof tool, "%s/tools/trace_picture.py", dir);
        if (access(tool, R_OK) == 0)
            break;
        tool[0] = '\0';
        char parent[PATH_MAX];
        folder_of(dir, parent, sizeof parent);
        snprintf(dir, sizeof dir, "%s", parent);
    }
    if (!tool[0]) {
        printf("picture: none (no tools/trace_picture.py above %s)\n", source);
        return;
    }
    const unsigned threads = failing.threads;
    const kit_pattern pattern = failing.pattern;
    const unsigned long long seed = failing.seed;
    char stage_text[16], threads_text[16], n_text[32], seed_text[32];
    snprintf(stage_text, sizeof stage_text, "%d", args.stage);
    snprintf(threads_text, sizeof threads_text, "%u", threads);
    snprintf(n_text, sizeof n_text, "%zu", failing.n);
    snprintf(seed_text, sizeof seed_text, "%llu", seed);
    /* The trace is written in the sandbox's scratch folder (its working directory, the one place
     * it may write), then sent on the private pipe: the folder goes when the run ends. */
    /* Exit status 1: traced, and the lab's run went wrong. Its line naming trace.json is not passed
     * on: that file is in the scratch folder, gone when the run ends. */
    char *command[] = {"/bin/sh", "-c",
                       "\"$0\" \"$@\" --trace trace.json 2>trace.err; s=$?; "
                       "grep -v '^reduce_ladder: wrote the trace ' trace.err >&2; "
                       "if [ $s -le 1 ]; then cat trace.json >&3 || exit 2; fi; exit $s", emulator,
                       "--stage", stage_text, "--impl", "labs", "--compare", "--threads", threads_text, "--pattern",
                       (char *)kit_pattern_name(pattern), "--seed", seed_text, "--n", n_text, NULL};
    if (failing.n == 0) /* no failing case known: the picture's own n, where blocks meet */
        command[sizeof command / sizeof command[0] - 3] = NULL;
    kit_sandbox_result run;
    char why[512];
    if (kit_sandbox_run(command, NULL, PICTURE_TIMEOUT_S, &run, why, sizeof why) != 0) {
        printf("picture: none (%s)\n", why);
        return;
    }
    const char *prefix = "{\"format\": \"kit-emulator-trace\"";
    if (!run.exited || (run.code != 0 && run.code != 1) || !run.reply || strncmp(run.reply, prefix, strlen(prefix)) != 0) {
        printf("picture: none (the traced run %s)\n", run.timed_out ? "did not finish" : "wrote no trace");
        kit_sandbox_result_free(&run);
        return;
    }
    /* What the drawn run of the lab gave: its run is the trace's first (the lab's, one block size),
     * {"threads": T, "n": N, "status": "S", ...; a JSON string holds no bare quote, so no source
     * line can pose as it. Only a run that went wrong is called the failing case. */
    size_t n = failing.n;
    char drawn_status[32] = "";
    const char *first_run = strstr(run.reply, "{\"threads\": ");
    unsigned drawn_threads = 0;
    if (!first_run || sscanf(first_run, "{\"threads\": %u, \"n\": %zu, \"status\": \"%31[^\"]\"", &drawn_threads, &n,
                             drawn_status) != 3 || drawn_threads != threads) {
        printf("picture: none (the traced run wrote no run of your kernel)\n");
        kit_sandbox_result_free(&run);
        return;
    }
    const int went_wrong = strcmp(drawn_status, "OK") != 0;
    const char *drawn = went_wrong ? kit_picture_kind_name(failing.kind) : "right";
    char html[4096], note[4096], trace[4096 + 16];
    picture_paths(html, note, sizeof html);
    snprintf(trace, sizeof trace, "%s.trace.json", html);
    FILE *f = fopen(trace, "w");
    int written = f && fputs(run.reply, f) >= 0;
    if (f && fclose(f) != 0)
        written = 0;
    kit_sandbox_result_free(&run);
    if (!written || draw_picture(tool, trace, html) != 0) {
        printf("picture: none (%s could not draw the trace %s)\n", tool, trace);
        remove(html);
        return;
    }
    remove(trace);
    char shown[PATH_MAX];
    if (!realpath(html, shown))
        snprintf(shown, sizeof shown, "%s", html);
    f = fopen(note, "w");
    if (f) {
        fprintf(f, "%s\t%zu\t%u\t%s\t%s\n", shown, n, threads, kit_pattern_name(pattern), drawn);
        fclose(f);
    }
    char words[512];
    kit_picture_words(drawn, n, threads, kit_pattern_name(pattern), words, sizeof words);
    printf("picture: %s (%s; the reference's run beside it)\n", shown, words);
}

int main(int argc, char **argv)
{
    if (!parse_args(argc, argv))
        return 2;
    /* The sandbox starts programs in a scratch folder: their paths must not be relative. */
    static char runner_path[4096];
    if (args.runner && realpath(args.runner, runner_path))
        args.runner = runner_path;
    if ((args.results && !make_folders(args.results)) || (args.logs && !make_folders(args.logs))) {
        fprintf(stderr, "kit_grade: cannot make the folder %s: %s\n", args.results, strerror(errno));
        return 2;
    }
    if (strcmp(args.part, "sandbox") == 0)
        return run_sandbox_command();
    if (strcmp(args.part, "races") == 0)
        return grade_races();
    kit_error err = {KIT_OK, ""};
    if (kit_grade_config_load(&config, args.config, &err) != KIT_OK) {
        fprintf(stderr, "kit_grade: %s\n", err.message);
        return 2;
    }
    int emulated = strcmp(args.part, "emulated") == 0;
    kit_part part = emulated ? KIT_PART_EMULATED
                    : strcmp(args.part, "speedup") == 0 ? KIT_PART_SPEEDUP : KIT_PART_CORRECTNESS;

    if (strcmp(args.part, "sanitize") == 0)
        return grade_sanitizer();
    char device[256] = "", why[1536] = "";
    if (strcmp(args.part, "probe") == 0) {
        probe_outcome found = probe("probe", device, sizeof device, why, sizeof why);
        if (found == PROBE_GPU) {
            printf("usable: %s (sandbox: %s)\n", device, kit_sandbox_mode());
            return 0;
        }
        if (found == PROBE_NO_VERDICT) {
            printf("FAIL: %s\n", why);
            return 1;
        }
        printf("SKIPPED: %s\n", why);
        return no_gpu_exit_code();
    }
    printf("kit_grade: stage %d, %s, file %s, sandbox: %s\n", args.stage, args.part, args.shown, kit_sandbox_mode());

    /* 0. A stage file that does not compile fails here, alone: the other stages still grade. */
    if (failed_to_build(part, emulated, 0))
        return 1;

    /* 1. The audit: a stage file that calls anything but its own kernels earns nothing. */
    audit_once();
    if (audit_verdict != KIT_AUDIT_CLEAN) {
        fail_part(part, audit_message);
        return audit_verdict == KIT_AUDIT_FORBIDDEN ? 1 : 2;
    }
    if (failed_to_build(part, emulated, 1)) /* the runner: nvcc compiled the file, its own compiler did not */
        return 1;

    /* 2. A GPU (the emulator needs none). */
    probe_outcome found = emulated ? PROBE_GPU : probe("find", device, sizeof device, why, sizeof why);
    if (found == PROBE_NO_VERDICT) {
        fail_part(part, why);
        return 1;
    }
    if (found == PROBE_NO_GPU)
        return skip_without_gpu(part, why);

    /* 3. The Check suite: each test asks the runner, in a child of its own. */
    char name[64];
    snprintf(name, sizeof name, "stage%d_%s", args.stage, args.part);
    Suite *suite = suite_create(name);
    TCase *tc = tcase_create(args.part);
    tcase_set_timeout(tc, emulated ? 900 : 300);
    if (emulated) {
        tcase_add_test(tc, gives_the_exact_sum_at_every_size_up_to_2_20_on_the_cpu_emulator);
    } else if (part == KIT_PART_CORRECTNESS) {
        tcase_add_test(tc, gives_the_exact_sum_at_every_size_block_size_and_input);
        tcase_add_test(tc, gives_the_exact_sum_for_2_26_ints_at_every_block_size);
        tcase_add_test(tc, gives_the_same_exact_sum_every_time_it_runs);
        tcase_add_test(tc, gives_the_exact_sum_for_2_30_ints_the_largest_n_the_harness_promises);
    } else {
        tcase_add_test(tc, reaches_the_required_speedup_over_reference_stage_1);
        if (config.latency_n[args.stage] > 0)
            tcase_add_test(tc, reaches_the_required_speedup_also_at_a_small_n_where_launch_latency_decides);
    }
    suite_add_tcase(suite, tc);
    SRunner *runner = srunner_create(suite);
    srunner_set_fork_status(runner, CK_NOFORK); /* see `left`: the tests share this process's memory */
    char xml[4096], tap[4096];
    if (args.logs) {
        snprintf(xml, sizeof xml, "%s/stage%d-%s.xml", args.logs, args.stage, args.part);
        snprintf(tap, sizeof tap, "%s/stage%d-%s.tap", args.logs, args.stage, args.part);
        srunner_set_xml(runner, xml);
        srunner_set_tap(runner, tap);
    }
    if (emulated)
        forget_picture();
    srunner_run_all(runner, CK_NORMAL);
    if (gpu_not_opened[0]) {
        srunner_free(runner);
        return skip_without_gpu(part, gpu_not_opened);
    }
    int failed = srunner_ntests_failed(runner);
    record(runner, args.part, part, emulated ? "the kit's CPU emulator" : device);
    srunner_free(runner);
    if (emulated && failed)
        picture_of_the_failure(); /* after the verdict is written: it never changes it */
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

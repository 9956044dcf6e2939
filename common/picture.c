/**
 * \file picture.c
 * \brief --picture and --trace: one stage's small launch, recorded thread by thread on the CPU
 *        emulator (emu_trace_*, docs/trace_format.md), then drawn by tools/trace_picture.py
 *        as a page a student steps through in a browser.
 *
 * For each block size (64, 128 and 256, or --threads) the stage runs once, checked as the
 * ladder checks it (kit_run_checked: every pass, poisoned buffers, the answer judged), with
 * the emulator recording; then once more, counted (kit_count_first_pass), for the counters a
 * picture shows beside the steps. --compare does the same for the reference solution. The
 * trace names the input and the partial buffers, with their guard words, so that a read past
 * the input's end is drawn where it happened. Only reduce_ladder_emu runs this; reduce_ladder
 * hands --picture and --trace to it, GPU or not.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ladder.h"
#include "table.h"
#if KIT_EMULATED
#include "emu_control.h"
#endif

#if KIT_EMULATED

/* The block sizes a picture offers when --threads does not pick one: 64 shows a whole block
 * at a glance; 128 and 256 are where stage 5's steps above 32 and the course's default are. */
static const unsigned default_threads[] = {64, 128, 256};

/* Writes \p path's lines as a JSON array of strings; nothing (null) when it cannot be read. */
static void write_source_lines(FILE *out, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fputs("null", out);
        return;
    }
    char line[4096];
    int first = 1;
    fputc('[', out);
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = '\0';
        fputs(first ? "\n    " : ",\n    ", out);
        kit_json_string_to(out, line);
        first = 0;
    }
    fputs("]", out);
    fclose(in);
}

/* The stage file as the build named it, and where it is on this machine. */
static void source_path(const kit_stage *stage, char *out, size_t size)
{
    if (stage->source[0] == '/')
        snprintf(out, size, "%s", stage->source);
    else
        snprintf(out, size, "%s/%s", KIT_SOURCE_DIR, stage->source);
}

static void write_counts(FILE *out, const kit_emu_counts *c)
{
    fprintf(out, "{\"blocks\": %llu, \"threads_per_block\": %llu, \"block_barriers\": %llu, \"warp_meetings\": %llu, "
            "\"global_loads\": %llu, \"global_load_bytes\": %llu, \"shared_requests\": %llu, "
            "\"shared_bank_conflicts\": %llu, \"shared_active_lanes\": %llu, \"shared_idle_lanes\": %llu, "
            "\"divergent_shared_requests\": %llu, \"global_load_requests\": %llu, \"global_load_sectors\": %llu, "
            "\"global_load_sectors_needed\": %llu}", c->blocks, c->threads_per_block, c->block_barriers,
            c->warp_meetings, c->global_loads, c->global_load_bytes, c->shared_requests, c->shared_bank_conflicts,
            c->shared_active_lanes, c->shared_idle_lanes, c->divergent_shared_requests, c->global_load_requests,
            c->global_load_sectors, c->global_load_sectors_needed);
}

/* One block size's run of \p stage, recorded and written as one "run" of the trace. */
/* What the traced runs of the first implementation (the student's) gave, for the line that ends
 * --picture: a drawing of a wrong kernel must not read like a pass. */
static struct {
    const kit_stage *stage;
    int runs, wrong;
    char first[1000];
} outcome;

/* The last lines of --picture and --trace when a run of the student's kernel went wrong. */
static void say_what_went_wrong(const char *done, const char *where)
{
    if (!outcome.wrong)
        return;
    fprintf(stderr, "reduce_ladder: %d of the %d runs %s went wrong, first %s\n", outcome.wrong, outcome.runs, done,
            outcome.first);
    if (where)
        fprintf(stderr, "%s\n", where);
}

static int write_run(FILE *out, const kit_options *opt, const kit_stage *stage, unsigned threads, size_t n)
{
    kit_workspace ws;
    kit_error err = {KIT_OK, ""};
    if (kit_workspace_init_problem(&ws, stage->problem, n, &err) != KIT_OK ||
        kit_workspace_fill(&ws, opt->pattern, opt->seed, &err) != KIT_OK) {
        kit_workspace_free(&ws);
        fprintf(stderr, "reduce_ladder: %s\n", err.message);
        return -1;
    }
    ws.timeout_s = opt->timeout_s;
    const size_t in_bytes = n * kit_in_words(stage->problem) * sizeof(int);
    const size_t out_bytes = ws.capacity * kit_out_words(stage->problem) * sizeof(int);
    emu_trace_forget_names();
    emu_trace_name(ws.device_input, in_bytes, KIT_INPUT_GUARD * sizeof(int), "in");
    /* a one-pass stage's kernel knows its first buffer as its `out` (its answer in out[0]) */
    emu_trace_name(ws.device_partial[0], out_bytes, KIT_PARTIAL_GUARD * sizeof(int),
                   stage->passes == KIT_PASSES_ONE ? "out" : "partial A");
    emu_trace_name(ws.device_partial[1], out_bytes, KIT_PARTIAL_GUARD * sizeof(int), "partial B");
    kit_value got;
    memset(&got, 0, sizeof got);
    emu_trace_start();
    kit_status status = kit_run_checked(stage, &ws, threads, &got, &err);
    emu_trace_stop();
    char expected[256] = "", answer[256] = "";
    kit_format_value(stage->problem, &ws.ref.answer, expected, sizeof expected);
    if (status == KIT_OK || status == KIT_WRONG_RESULT)
        kit_format_value(stage->problem, &got, answer, sizeof answer);
    if (stage == outcome.stage) {
        outcome.runs++;
        if (status != KIT_OK && outcome.wrong++ == 0) {
            if (status == KIT_WRONG_RESULT)
                snprintf(outcome.first, sizeof outcome.first, "at %u threads, n = %zu, expected %s, got %s", threads, n,
                         expected, answer);
            else
                snprintf(outcome.first, sizeof outcome.first, "at %u threads, n = %zu: %.900s", threads, n, err.message);
        }
    }
    fprintf(out, "{\"threads\": %u, \"n\": %zu, \"status\": \"%s\", \"message\": ", threads, n,
            kit_status_name(status));
    kit_json_string_to(out, status == KIT_OK ? "" : err.message);
    fprintf(out, ", \"expected\": ");
    kit_json_string_to(out, expected);
    fprintf(out, ", \"got\": ");
    kit_json_string_to(out, answer);
    fprintf(out, ",\n   \"trace\": ");
    int written = emu_trace_write_json(out);
    /* the counters of pass 1, in a run of its own (a faulted run left the emulator unusable) */
    kit_emu_counts counts;
    kit_error count_err = {KIT_OK, ""};
    fprintf(out, ",\n   \"counters\": ");
    if (status == KIT_OK && kit_count_first_pass(stage, &ws, threads, &counts, &count_err) == KIT_OK)
        write_counts(out, &counts);
    else
        fputs("null", out);
    fputs("}", out);
    emu_trace_forget_names();
    kit_workspace_free(&ws);
    return written;
}

/* The n a picture draws at \p threads when --n does not say: 2 * threads + 3 (two blocks and a
 * tail where a thread adds one or two values), grown until the reference's first pass launches
 * at least two blocks. A stage whose threads add 16 values each (7-12) drew one block at
 * 2 * threads + 3, and a one-pass stage's blocks never met in the picture (a fresh student could
 * not see lab 8's missing fence). The reference decides, so the lab and --compare draw one n. */
static size_t default_n(const kit_options *opt, const kit_stage *reference, unsigned threads)
{
    size_t n = 2 * (size_t)threads + 3;
    while (reference && 4 * n - 3 <= KIT_TRACE_MAX_N) {
        kit_workspace ws;
        kit_error err = {KIT_OK, ""};
        kit_emu_counts counts;
        int two_blocks = 1;
        if (kit_workspace_init_problem(&ws, reference->problem, n, &err) == KIT_OK) {
            if (kit_workspace_fill(&ws, opt->pattern, opt->seed, &err) == KIT_OK &&
                kit_count_first_pass(reference, &ws, threads, &counts, &err) == KIT_OK)
                two_blocks = counts.blocks >= 2;
            kit_workspace_free(&ws);
        }
        if (two_blocks)
            break;
        n = 4 * n - 3;
    }
    return n;
}

/* Every block size of one implementation: {"impl": ..., "source": ..., "runs": [...]}. */
static int write_impl(FILE *out, const kit_options *opt, const kit_stage *stage, const unsigned *sizes, int count,
                      int with_source, const kit_stage *reference)
{
    char path[4096];
    source_path(stage, path, sizeof path);
    fprintf(out, "  {\"impl\": \"%s\", \"source\": ", stage->impl);
    kit_json_string_to(out, stage->source);
    fprintf(out, ", \"source_lines\": ");
    if (with_source)
        write_source_lines(out, path);
    else
        fputs("null", out);
    fprintf(out, ",\n   \"runs\": [");
    for (int i = 0; i < count; i++) {
        const size_t n = opt->n_given ? opt->n : default_n(opt, reference, sizes[i]);
        fputs(i ? ",\n  " : "\n  ", out);
        if (write_run(out, opt, stage, sizes[i], n) != 0)
            return -1;
    }
    fputs("]}", out);
    return 0;
}

int ladder_picture(const kit_options *opt, const kit_stage *labs_or_solution, const kit_stage *reference)
{
    const kit_stage *stage = labs_or_solution;
    unsigned sizes[4];
    int count = 0;
    kit_error err = {KIT_OK, ""};
    if (!emu_trace_available()) {
        fprintf(stderr, "reduce_ladder: this emulator build records no trace (it needs GCC and "
                "KIT_EMU_COUNTERS=ON): --picture and --trace cannot run\n");
        return 2;
    }
    if (opt->threads_given) {
        if (kit_check_threads(stage, opt->threads, &err) != KIT_OK) {
            fprintf(stderr, "reduce_ladder: %s\n", err.message);
            return 2;
        }
        sizes[count++] = opt->threads;
    } else {
        for (size_t i = 0; i < sizeof default_threads / sizeof default_threads[0]; i++)
            if (default_threads[i] >= stage->min_threads && default_threads[i] <= stage->max_threads)
                sizes[count++] = default_threads[i];
    }
    if (count == 0) {
        fprintf(stderr, "reduce_ladder: stage %d takes blocks of %u to %u threads: give one with --threads\n",
                stage->number, stage->min_threads, stage->max_threads);
        return 2;
    }
    if (opt->picture) { /* said now, not after the runs */
        FILE *probe = fopen(opt->picture, "w");
        if (!probe) {
            fprintf(stderr, "reduce_ladder: cannot write %s: %s\n", opt->picture, strerror(errno));
            return 2;
        }
        fclose(probe);
    }
    char trace_path[4096];
    if (opt->trace)
        snprintf(trace_path, sizeof trace_path, "%s", opt->trace);
    else
        snprintf(trace_path, sizeof trace_path, "%s.trace.json", opt->picture);
    FILE *out = fopen(trace_path, "w");
    if (!out) {
        fprintf(stderr, "reduce_ladder: cannot write %s: %s\n", trace_path, strerror(errno));
        return 2;
    }
    fprintf(out, "{\"format\": \"kit-emulator-trace\", \"version\": %d, \"stage\": %d, \"title\": ", EMU_TRACE_VERSION,
            stage->number);
    kit_json_string_to(out, stage->title);
    fprintf(out, ", \"dir\": ");
    kit_json_string_to(out, stage->dir);
    fprintf(out, ",\n \"problem\": {\"type\": \"%s\", \"op\": \"%s\"}, \"passes\": \"%s\", \"pattern\": \"%s\", "
            "\"seed\": %llu,\n \"impls\": [\n", kit_type_name(stage->problem.type), kit_op_name(stage->problem.op),
            stage->passes == KIT_PASSES_ONE ? "one" : "many", kit_pattern_name(opt->pattern),
            (unsigned long long)opt->seed);
    /* A reference solution's text is never written: a student edition has none, and a page
     * beside a lab must not give the answer. Its lines are numbers only. */
    memset(&outcome, 0, sizeof outcome);
    outcome.stage = stage;
    int failed = write_impl(out, opt, stage, sizes, count, !reference || stage != reference, reference) != 0;
    if (!failed && opt->compare && reference) {
        fputs(",\n", out);
        failed = write_impl(out, opt, reference, sizes, count, 0, reference) != 0;
    }
    fputs("\n]}\n", out);
    if (fclose(out) != 0 || failed) {
        fprintf(stderr, "reduce_ladder: could not write the trace %s\n", trace_path);
        return 2;
    }
    if (opt->trace) {
        /* where it is, whatever folder the reader stands in (a grader's run writes it in a scratch
         * folder that is gone by the time anyone reads the line) */
        char where[8192], here[4096];
        if (trace_path[0] != '/' && getcwd(here, sizeof here))
            snprintf(where, sizeof where, "%s/%s", here, trace_path);
        else
            snprintf(where, sizeof where, "%s", trace_path);
        fprintf(stderr, "reduce_ladder: wrote the trace of stage %d (%s) to %s\n", stage->number, stage->impl, where);
    }
    if (!opt->picture) {
        say_what_went_wrong("traced", NULL);
        return outcome.wrong ? 1 : 0; /* the exit status --help promises: 1 if a run gave a wrong answer */
    }
    /* The drawing is Python's (tools/trace_picture.py, standard library only). */
    pid_t child = fork();
    if (child == 0) {
        execlp("python3", "python3", KIT_TRACE_TOOL, trace_path, "-o", opt->picture, (char *)NULL);
        fprintf(stderr, "reduce_ladder: cannot run python3 for --picture (%s): sudo apt-get install python3\n",
                strerror(errno));
        _exit(127);
    }
    int wstatus = 0;
    if (child < 0 || waitpid(child, &wstatus, 0) < 0 || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        fprintf(stderr, "reduce_ladder: drawing %s failed (%s %s)\n", opt->picture, KIT_TRACE_TOOL, trace_path);
        return 2;
    }
    if (!opt->trace)
        remove(trace_path);
    fprintf(stderr, "reduce_ladder: drew stage %d (%s) in %s: open it in a browser\n", stage->number, stage->impl,
            opt->picture);
    say_what_went_wrong("drawn", "reduce_ladder: the picture marks where (its list of what went wrong, in red, at the top)");
    return outcome.wrong ? 1 : 0; /* the picture is written; a wrong kernel still fails, as without --picture */
}

#else

int ladder_picture(const kit_options *opt, const kit_stage *labs_or_solution, const kit_stage *reference)
{
    (void)opt;
    (void)labs_or_solution;
    (void)reference;
    return 2; /* reduce_ladder hands --picture to reduce_ladder_emu before it gets here */
}

#endif

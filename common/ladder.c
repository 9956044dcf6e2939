/**
 * \file ladder.c
 * \brief The ladder program: runs the stages, checks and times each, prints the table.
 *
 * The ladder has one section per problem of common/stages.def (kit_ladder_section(): the int
 * sum's stages 1-8, then the float sum, min, max, argmin, and the 3x3 matrices as structures,
 * as planes and with coalesced loads side by side), each on an input of the same bytes. One row
 * per stage (median time, GB/s, speedup over the previous stage and over the section's
 * baseline stage, share of CUB's bandwidth, ok/WRONG), then CUB's reduction of the same
 * problem and a device-to-device copy of the input as yardsticks; in the int sum's section
 * then the whole job (the full ladder, or --host): the exact sum on the CPU, on one thread and
 * with OpenMP, the input's copy to the GPU from pageable and from pinned memory, and the
 * fastest stage timed together with its copy; every int-sum row's speedup over the CPU.
 * Here too: main, which hands --sweep to sweep.c, --accuracy to accuracy_study.c and the
 * profiled runs of --counters to counters_driver.c, and the row every one of them shows
 * (ladder.h); all four print through table.c. `reduce_ladder --help` lists the options.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ladder.h"
#include "table.h"

/* With no GPU, or with --emulate, reduce_ladder hands over to reduce_ladder_emu (built beside
 * it when Boost.Context is installed), with the same arguments. Returns only on failure. */
static int hand_over_to_emulator(char **argv, const char *why)
{
#ifdef KIT_EMULATOR_PATH
    if (why) /* not an error: one line that says what runs instead, and why */
        fprintf(stderr, "reduce_ladder: %s: the stages run on the kit's CPU emulator (correctness only, "
                "no timings)\n", why);
    fflush(stderr);
    execv(KIT_EMULATOR_PATH, argv);
    fprintf(stderr, "reduce_ladder: cannot run the emulator %s: %s\n", KIT_EMULATOR_PATH, strerror(errno));
#else
    (void)argv;
    if (why)
        fprintf(stderr, "reduce_ladder: %s\n", why);
    fprintf(stderr, "reduce_ladder: and this build has no CPU emulator to run the stages instead (sudo apt-get "
            "install libboost-context-dev g++, then configure again)\n");
#endif
    return 2;
}

/* ---------------------------------------------------------------- the rows, shared by every job */

size_t ladder_section_n(size_t n, kit_problem problem)
{
    const size_t elements = n / kit_in_words(problem);
    return elements > 0 ? elements : 1;
}

void ladder_row_ran(ladder_row *row, double bytes, kit_status status, const kit_error *err)
{
    row->ran = 1;
    row->status = status;
    row->bytes = bytes;
    if (status != KIT_OK)
        snprintf(row->message, sizeof row->message, "%s", err->message);
    else if (row->timing.median_ms > 0)
        row->gbps = bytes / (row->timing.median_ms * 1e-3) / 1e9;
}

const char *ladder_row_result(const ladder_row *row)
{
    return row->verdict ? row->verdict : !row->ran ? "not run" : row->status == KIT_OK ? "ok"
                                                                                      : kit_status_name(row->status);
}

int ladder_row_failed(const ladder_row *row)
{
    return !row->verdict && (!row->ran || row->status != KIT_OK);
}

int ladder_context_lost(kit_status status)
{
    return status == KIT_TIMEOUT || status == KIT_CUDA_ERROR;
}

void ladder_ratio(char *out, size_t size, const ladder_row *a, const ladder_row *b, int percent)
{
    if (!a || !b || !a->ran || !b->ran || a->status != KIT_OK || b->status != KIT_OK ||
        !(a->timing.median_ms > 0) || !(b->timing.median_ms > 0)) /* the emulator times nothing */
        snprintf(out, size, "-");
    else if (percent)
        snprintf(out, size, "%.1f%%", 100.0 * a->gbps / b->gbps);
    else
        snprintf(out, size, "%.2fx", b->timing.median_ms / a->timing.median_ms);
}

int ladder_open_gpu(kit_gpu *gpu, char **argv)
{
    kit_error err = {KIT_OK, ""};
    if (kit_gpu_open(gpu, &err) == KIT_OK)
        return 0;
    if (!KIT_EMULATED && err.status == KIT_NO_GPU)
        return hand_over_to_emulator(argv, err.message);
    fprintf(stderr, "reduce_ladder: %s\n", err.message);
    return 2;
}

/* ---------------------------------------------------------------- the ladder */

/** One section of the ladder: the stages of one problem (3x3 matrices: in every layout), with
 *  CUB and the copy of its input. */
typedef struct ladder_section {
    int baseline;        /* the stage its speedups are measured against (kit_ladder_section()) */
    kit_problem problem; /* the baseline stage's problem */
    size_t n;            /* elements of each of its problems: as many bytes as the int sum's n ints */
    int first, end;      /* its rows: rows[first..end) */
} ladder_section;

/* At most one section per stage. */
enum { LADDER_SECTIONS = KIT_STAGE_COUNT };

/* Whether the row is one of the int sum's reductions (and so has a speedup over the CPU). */
static int sums_input(const ladder_row *row)
{
    return kit_problem_equal(row->problem, KIT_INT_SUM) &&
           (row->kind >= ROW_CUB || row->kind == ROW_CPU || row->kind == ROW_CPU_OMP || row->kind == ROW_BEST_COPY);
}

/* "ints", "floats", "3x3 matrices": what n counts. */
static const char *elements_name(kit_problem problem)
{
    switch (problem.type) {
    case KIT_INT: return "ints";
    case KIT_FLOAT: return "floats";
    case KIT_MAT3:
    case KIT_MAT3_SOA: return "3x3 int matrices";
    }
    return "elements";
}

/* What CUB's row runs for \p problem (common/baselines.cu, kit_cub_reduce). */
static const char *cub_title(kit_problem problem)
{
    if (problem.type == KIT_MAT3_SOA)
        return "9 x cub::DeviceReduce::Min (the planes)";
    if (problem.type == KIT_MAT3)
        return "cub::DeviceReduce::Reduce, min per entry";
    switch (problem.op) {
    case KIT_SUM: return "cub::DeviceReduce::Sum";
    case KIT_MIN: return "cub::DeviceReduce::Min";
    case KIT_MAX: return "cub::DeviceReduce::Max";
    case KIT_ARGMIN: return "cub::DeviceReduce::ArgMin";
    }
    return "CUB";
}

/* A new row at the end of \p rows. */
static ladder_row *add_row(ladder_row *rows, int *count, int kind, const ladder_section *section, kit_problem problem)
{
    ladder_row *row = &rows[(*count)++];
    memset(row, 0, sizeof *row);
    row->kind = kind;
    row->section = section->baseline;
    row->problem = problem;
    row->n = section->n;
    row->input_bytes = (double)section->n * (double)kit_in_words(problem) * sizeof(int);
    row->label = row->name;
    return row;
}

/* The rows of the run, before anything runs (--counters profiles them first, without CUDA
 * here): one section per problem, in the order of common/stages.def; in each its stages (those
 * asked for and in this edition), then CUB for each of its problems and the copy, then (the int
 * sum's, with \p host_rows) the whole job. Returns the number of rows. */
static int plan_rows(const kit_options *opt, const kit_stage *table, int host_rows, ladder_row *rows,
                     ladder_section *sections, int *section_count)
{
    static char omp_title[64];
    int count = 0;
    *section_count = 0;
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        const int base = kit_ladder_section(k);
        int seen = 0;
        for (int j = 1; j < k; j++)
            seen |= kit_ladder_section(j) == base;
        if (seen)
            continue; /* its section is planned already */
        ladder_section *section = &sections[*section_count];
        section->baseline = base;
        section->problem = kit_stage_problem(base);
        section->n = ladder_section_n(opt->n, section->problem);
        section->first = count;
        const int int_sum = kit_problem_equal(section->problem, KIT_INT_SUM);
        for (int j = k; j <= KIT_STAGE_COUNT; j++) {
            if (kit_ladder_section(j) != base || (opt->stage != 0 && opt->stage != j) ||
                !kit_stage_released(kit_find_stage(table, j)))
                continue; /* another section's, not asked for, or not handed out yet (a student edition) */
            ladder_row *row = add_row(rows, &count, j, section, kit_stage_problem(j));
            snprintf(row->name, sizeof row->name, "%d", j);
            row->title = kit_find_stage(table, j)->title;
        }
        const int stages_end = count;
        if (stages_end == section->first)
            continue; /* none of its stages runs: no section */
        if (opt->baselines && !KIT_EMULATED) {
            for (int r = section->first; r < stages_end; r++) { /* CUB, once per problem of the section */
                int repeated = 0;
                for (int q = section->first; q < r; q++)
                    repeated |= kit_problem_equal(rows[q].problem, rows[r].problem);
                if (repeated)
                    continue;
                int of = 0; /* named by the section's first stage of that problem, asked for or not */
                for (int j = KIT_STAGE_COUNT; j >= 1; j--)
                    if (kit_ladder_section(j) == base && kit_problem_equal(kit_stage_problem(j), rows[r].problem))
                        of = j;
                const kit_problem problem = rows[r].problem;
                ladder_row *cub = add_row(rows, &count, ROW_CUB, section, problem);
                cub->of_stage = of;
                if (int_sum)
                    snprintf(cub->name, sizeof cub->name, "CUB");
                else
                    snprintf(cub->name, sizeof cub->name, "CUB-%d", of);
                cub->title = cub_title(problem);
            }
            const kit_problem problem = rows[section->first].problem; /* the input the copy reads */
            ladder_row *copy = add_row(rows, &count, ROW_COPY, section, problem);
            copy->of_stage = rows[section->first].kind;
            if (int_sum)
                snprintf(copy->name, sizeof copy->name, "copy");
            else
                snprintf(copy->name, sizeof copy->name, "copy-%d", base);
            copy->title = "device-to-device copy (read+write)";
        }
        if (int_sum && host_rows) {
            ladder_row *row = add_row(rows, &count, ROW_CPU, section, KIT_INT_SUM);
            row->label = "cpu";
            row->title = "CPU, one thread (exact int64 sum)";
            row = add_row(rows, &count, ROW_CPU_OMP, section, KIT_INT_SUM);
            row->label = "cpu-omp";
            const int threads = kit_cpu_threads();
            if (threads > 0)
                snprintf(omp_title, sizeof omp_title, "CPU, OpenMP, %d thread%s", threads, threads == 1 ? "" : "s");
            else
                snprintf(omp_title, sizeof omp_title, "CPU, OpenMP (not in this build)");
            row->title = omp_title;
            if (!KIT_EMULATED) { /* the emulator times no copy: these rows would be empty */
                row = add_row(rows, &count, ROW_H2D_PAGEABLE, section, KIT_INT_SUM);
                row->label = "h2d-pageable";
                row->title = "copy to the GPU from pageable memory";
                row = add_row(rows, &count, ROW_H2D_PINNED, section, KIT_INT_SUM);
                row->label = "h2d-pinned";
                row->title = "copy to the GPU from pinned memory";
                row = add_row(rows, &count, ROW_BEST_COPY, section, KIT_INT_SUM);
                row->label = "best+copy";
                row->title = "the fastest stage + copy from pinned memory";
            }
        }
        section->end = count;
        (*section_count)++;
    }
    return count;
}

/* The rows of the whole job (after CUB and the copy of the int sum's section): the CPU's sums,
 * the copies to the GPU, the fastest stage with its copy. The CPU rows run even after the GPU
 * was lost; on the emulator they are checked but not timed. Returns the "cpu" row (or NULL). */
static ladder_row *run_host_rows(const kit_options *opt, const kit_stage *table, kit_workspace *ws,
                                 ladder_row *rows, const ladder_section *section, int *lost)
{
    static char best_title[64];
    const double bytes = (double)ws->n * sizeof(int);
    const int cpu_reps = KIT_EMULATED ? 0 : opt->reps; /* 0: one checked run, no timing */
    ladder_row *cpu = NULL;
    kit_error err = {KIT_OK, ""};
    for (int r = section->first; r < section->end; r++) {
        ladder_row *row = &rows[r];
        kit_status status;
        switch (row->kind) {
        case ROW_CPU:
            status = kit_time_cpu_sum(ws->host_input, ws->n, 0, ws->expected, 1, cpu_reps, &row->timing, &err);
            ladder_row_ran(row, bytes, status, &err);
            cpu = row;
            break;
        case ROW_CPU_OMP:
            status = kit_time_cpu_sum(ws->host_input, ws->n, 1, ws->expected, 1, cpu_reps, &row->timing, &err);
            ladder_row_ran(row, bytes, status, &err);
            if (kit_cpu_threads() == 0)
                row->verdict = "no OpenMP"; /* the message says why */
            break;
        case ROW_H2D_PAGEABLE:
        case ROW_H2D_PINNED: {
            const int pinned = row->kind == ROW_H2D_PINNED;
            if (*lost)
                break;
            status = kit_time_h2d(ws, pinned ? KIT_HOST_PINNED : KIT_HOST_PAGEABLE, 3, opt->reps, &row->timing, &err);
            ladder_row_ran(row, bytes, status, &err);
            *lost = ladder_context_lost(status);
            break;
        }
        case ROW_BEST_COPY: {
            const ladder_row *best = NULL;
            for (int k = section->first; k < section->end; k++)
                if (rows[k].kind > 0 && rows[k].ran && rows[k].status == KIT_OK && rows[k].timing.median_ms > 0 &&
                    (!best || rows[k].timing.median_ms < best->timing.median_ms))
                    best = &rows[k];
            if (best) {
                snprintf(best_title, sizeof best_title, "stage %s + copy from pinned memory", best->label);
                row->title = best_title;
            }
            if (*lost)
                break;
            if (!best) {
                row->ran = 1;
                row->status = KIT_NO_RESULT;
                row->verdict = "not run";
                snprintf(row->message, sizeof row->message, "no stage gave the exact sum in this run, so there "
                         "is no fastest stage to time with its copy");
                break;
            }
            status = kit_time_stage_after_copy(kit_find_stage(table, best->kind), ws, opt->threads, 3, opt->reps,
                                               &row->timing, &err);
            ladder_row_ran(row, bytes, status, &err);
            *lost = ladder_context_lost(status);
            break;
        }
        default:
            break;
        }
    }
    return cpu;
}

/* Runs one stage's row on \p ws: checked (and counted on the emulator with --counters), then
 * timed on a GPU. */
static void run_stage_row(const kit_options *opt, const kit_stage *table, kit_workspace *ws, ladder_row *row,
                          int *lost, char *counters_note, size_t note_size)
{
    kit_error err = {KIT_OK, ""};
    const kit_stage *stage = kit_find_stage(table, row->kind);
    kit_value got;
    if (KIT_EMULATED && row->input_bytes > 4.0 * (1 << 22)) { /* seconds per stage on the CPU: say what runs */
        fprintf(stderr, "reduce_ladder: stage %d on the CPU emulator, n = %zu...\n", row->kind, ws->n);
        fflush(stderr);
    }
    kit_status status = kit_run_checked(stage, ws, opt->threads, &got, &err);
    if (status == KIT_OK && KIT_EMULATED && opt->counters) {
        status = kit_count_first_pass(stage, ws, opt->threads, &row->emu, &err);
        row->counted = status == KIT_OK;
        if (status == KIT_BAD_ARGUMENT) { /* this emulator build does not count: say so once */
            snprintf(counters_note, note_size, "no counts: %s", err.message);
            status = KIT_OK;
        }
    }
    if (status == KIT_OK && !KIT_EMULATED)
        status = kit_time_stage(stage, ws, opt->threads, 3, opt->reps, &row->timing, &err);
    ladder_row_ran(row, row->input_bytes, status, &err);
    *lost = ladder_context_lost(status);
}

/* Runs a section: for each of its problems (the 3x3 matrices have two layouts), a workspace of
 * section->n elements, its stages, its CUB and (the first) the copy; the int sum's then the
 * whole job. KIT_OK, or the failure to make a workspace (then \p err says why). */
static kit_status run_section(const kit_options *opt, const kit_stage *table, const ladder_section *section,
                              ladder_row *rows, int *lost, ladder_row **cpu, char *counters_note, size_t note_size,
                              kit_error *err)
{
    for (int p = section->first; p < section->end; p++) {
        if (rows[p].kind < ROW_COPY)
            continue; /* the whole job's rows run with the int sum's stages */
        int repeated = 0;
        for (int q = section->first; q < p; q++)
            repeated |= rows[q].kind >= ROW_COPY && kit_problem_equal(rows[q].problem, rows[p].problem);
        if (repeated)
            continue; /* its problem's rows ran already */
        const kit_problem problem = rows[p].problem;
        kit_workspace ws;
        if (kit_workspace_init_problem(&ws, problem, section->n, err) != KIT_OK ||
            kit_workspace_fill(&ws, opt->pattern, opt->seed, err) != KIT_OK) {
            kit_workspace_free(&ws);
            return err->status;
        }
        ws.timeout_s = opt->timeout_s;
        for (int r = p; r < section->end; r++) {
            ladder_row *row = &rows[r];
            if (row->kind < ROW_COPY || !kit_problem_equal(row->problem, problem) || *lost)
                continue;
            kit_error row_err = {KIT_OK, ""};
            if (row->kind > 0) {
                run_stage_row(opt, table, &ws, row, lost, counters_note, note_size);
            } else if (row->kind == ROW_CUB) {
                kit_status status = kit_time_cub(&ws, 3, opt->reps, &row->timing, &row_err);
                ladder_row_ran(row, row->input_bytes, status, &row_err);
                *lost = ladder_context_lost(status);
            } else {
                kit_status status = kit_time_copy(&ws, 3, opt->reps, &row->timing, &row_err);
                ladder_row_ran(row, 2 * row->input_bytes, status, &row_err);
                *lost = ladder_context_lost(status);
            }
        }
        if (kit_problem_equal(problem, KIT_INT_SUM)) {
            ladder_row *found = run_host_rows(opt, table, &ws, rows, section, lost);
            if (found)
                *cpu = found;
        }
        kit_workspace_free(&ws);
    }
    return KIT_OK;
}

/* ---------------------------------------------------------------- the ladder's text table */

/* Its columns: the row's label and title; on a GPU its median time, spread, GB/s, speedups over
 * the previous stage and the section's baseline, share of CUB's GB/s and (int sums with the
 * CPU's rows) over the CPU; then its result. */
enum { LADDER_COLUMNS = 10 };

static int ladder_columns(kit_column *columns, int vs_cpu)
{
    static const kit_column label = {"", -12}, title = {" ", -40}, result = {"  ", 0};
    static const kit_column numbers[] = {{" ", 9}, {" ", 7}, {" ", 8}, {" ", 7}, {" ", 7}, {" ", 8}, {" ", 7}};
    int count = 0;
    columns[count++] = label;
    columns[count++] = title;
    for (int c = 0; c < 7 && !KIT_EMULATED; c++)
        if (c < 6 || vs_cpu)
            columns[count++] = numbers[c];
    columns[count++] = result;
    return count;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    kit_options opt;
    kit_error err = {KIT_OK, ""};
    if (kit_parse_options(argc, argv, &opt, &err) != KIT_OK) {
        fprintf(stderr, "reduce_ladder: %s\n", err.message);
        return 2;
    }
    if (opt.help) {
        fputs(kit_usage(), stdout);
        return 0;
    }
    const kit_stage *table = opt.use_labs ? kit_labs_stages : kit_solutions_stages;
    if (opt.stage != 0 && !kit_stage_released(kit_find_stage(table, opt.stage))) {
        /* A student edition holds the stages handed out so far; the others have no launcher. */
        fprintf(stderr, "reduce_ladder: stage %d is not in this edition of the kit yet: your instructor "
                "hands it out later\n", opt.stage);
        return 2;
    }
    if ((opt.emulate || opt.picture || opt.trace) && !KIT_EMULATED) /* a trace is the emulator's, GPU or not */
        return hand_over_to_emulator(argv, NULL);
    if (opt.picture || opt.trace)
        return ladder_picture(&opt, kit_find_stage(table, opt.stage), kit_find_stage(kit_solutions_stages, opt.stage));
    if (opt.counted_run)
        return KIT_EMULATED ? 2 : ladder_counted_run(&opt);
    if (opt.sweep || opt.accuracy) {
        kit_gpu gpu;
        int status = ladder_open_gpu(&gpu, argv);
        return status ? status : opt.sweep ? ladder_sweep(&opt, table, &gpu) : ladder_accuracy_study(&opt, table, &gpu);
    }
    if (KIT_EMULATED && !opt.n_given)
        opt.n = KIT_EMULATED_N; /* the CPU is ~1000x slower than a GPU: a size it does in seconds */

    /* The rows, before anything runs: --counters profiles them first, without CUDA here. */
    ladder_row rows[LADDER_ROWS];
    ladder_section sections[LADDER_SECTIONS];
    int section_count = 0;
    const int host_rows = opt.host == 1 || (opt.host == -1 && opt.stage == 0);
    const int count = plan_rows(&opt, table, host_rows, rows, sections, &section_count);
    if (count == 0) {
        fprintf(stderr, "reduce_ladder: no stage of this edition to run\n");
        return 2;
    }
    char counters_note[1200] = "";
    if (opt.counters && !KIT_EMULATED)
        ladder_measure_with_ncu(&opt, rows, count, counters_note, sizeof counters_note);

    kit_gpu gpu;
    int opened = ladder_open_gpu(&gpu, argv);
    if (opened)
        return opened;

    int lost = 0;
    ladder_row *cpu = NULL;
    for (int s = 0; s < section_count; s++) {
        if (run_section(&opt, table, &sections[s], rows, &lost, &cpu, counters_note, sizeof counters_note, &err) !=
            KIT_OK) {
            fprintf(stderr, "reduce_ladder: %s\n", err.message);
            return 2;
        }
    }
    /* what each row is compared with: the previous stage of its section, its baseline, CUB on
     * the same problem (and input) */
    ladder_row *stage_row[KIT_STAGE_COUNT + 1] = {NULL};
    for (int r = 0; r < count; r++)
        if (rows[r].kind > 0)
            stage_row[rows[r].kind] = &rows[r];

    char date[32];
    kit_table_date(date, sizeof date);
    const char *impl = opt.use_labs ? "labs" : "solutions";
    int failures = 0;
    for (int r = 0; r < count; r++)
        failures += ladder_row_failed(&rows[r]);
    char cpu_model[256];
    const int cpu_known = kit_cpu_model(cpu_model, sizeof cpu_model);
    const int int_sum_first = kit_problem_equal(sections[0].problem, KIT_INT_SUM);

    if (opt.format == KIT_FORMAT_TABLE && KIT_EMULATED) {
        printf("Reduction ladder on the CPU EMULATOR, not a GPU: correctness only, no timings (docs/emulator.md), "
               "%s\n", date);
        if (int_sum_first)
            printf("n = %zu ints, %u threads, %s input (seed %llu), %s\n", opt.n, opt.threads,
                   kit_pattern_name(opt.pattern), (unsigned long long)opt.seed, impl);
        else
            printf("%u threads, %s input (seed %llu), %s\n", opt.threads, kit_pattern_name(opt.pattern),
                   (unsigned long long)opt.seed, impl);
    } else if (opt.format == KIT_FORMAT_TABLE) {
        printf("Reduction ladder on %s (%d SMs, %.0f MB L2, peak %.0f GB/s), %s\n", gpu.name, gpu.sm_count,
               gpu.l2_bytes / 1e6, gpu.peak_gbps, date);
        if (int_sum_first)
            printf("n = %zu ints (%.0f MiB), %u threads, %s input (seed %llu), median of %d runs, %s\n", opt.n,
                   (double)opt.n * sizeof(int) / 1048576.0, opt.threads, kit_pattern_name(opt.pattern),
                   (unsigned long long)opt.seed, opt.reps, impl);
        else
            printf("%u threads, %s input (seed %llu), median of %d runs, %s\n", opt.threads,
                   kit_pattern_name(opt.pattern), (unsigned long long)opt.seed, opt.reps, impl);
        if (cpu)
            printf("CPU: %s, OpenMP threads: %d\n", cpu_known ? cpu_model : "(model unknown)", kit_cpu_threads());
    } else if (opt.format == KIT_FORMAT_CSV) {
        printf("stage,title,impl,n,threads,median_ms,q1_ms,q3_ms,min_ms,max_ms,reps,gbps,step_speedup,"
               "cumulative_speedup,percent_of_cub,result,gpu,date,speedup_over_cpu%s,problem,baseline\n",
               opt.counters ? ladder_csv_counters_header() : "");
    } else {
        printf("{\n  ");
        kit_json_gpu(&gpu);
        printf(",\n  \"emulated\": %s, \"date\": \"%s\", \"impl\": \"%s\", \"n\": %zu, \"threads\": %u, \"pattern\": \"%s\", "
               "\"seed\": %llu, \"reps\": %d,\n", KIT_EMULATED ? "true" : "false", date, impl, opt.n, opt.threads,
               kit_pattern_name(opt.pattern), (unsigned long long)opt.seed, opt.reps);
        printf("  \"cpu\": ");
        if (cpu_known)
            kit_json_string(cpu_model);
        else
            printf("null");
        printf(", \"cpu_threads\": %d,\n", kit_cpu_threads());
        printf("  \"counters_from\": \"%s\", \"counters_note\": ", !opt.counters ? "none"
               : KIT_EMULATED ? "the CPU emulator, first pass" : "Nsight Compute (ncu), one run, all passes");
        kit_json_string(counters_note);
        printf(",\n  \"sections\": [\n");
        for (int s = 0; s < section_count; s++) {
            const ladder_section *section = &sections[s];
            printf("    {\"baseline\": %d, \"problem\": \"%s\", \"n\": %zu, \"bytes\": %.0f, \"stages\": [",
                   section->baseline, kit_problem_name(section->problem), section->n,
                   (double)section->n * (double)kit_in_words(section->problem) * sizeof(int));
            int listed = 0;
            for (int r = section->first; r < section->end; r++)
                if (rows[r].kind > 0)
                    printf("%s%d", listed++ ? ", " : "", rows[r].kind);
            printf("]}%s\n", s + 1 < section_count ? "," : "");
        }
        printf("  ],\n  \"rows\": [\n");
    }
    for (int s = 0; s < section_count; s++) {
        const ladder_section *section = &sections[s];
        const int int_sum = kit_problem_equal(section->problem, KIT_INT_SUM);
        char against[16];
        snprintf(against, sizeof against, int_sum ? "cumul." : "vs %d", section->baseline);
        const int vs_cpu_column = cpu && int_sum && !KIT_EMULATED;
        kit_column columns[LADDER_COLUMNS];
        const int column_count = ladder_columns(columns, vs_cpu_column);
        if (opt.format == KIT_FORMAT_TABLE) {
            {
                int layouts = 0; /* the section's other layouts: as many bytes, other element counts */
                for (int r = section->first; r < section->end; r++)
                    layouts |= rows[r].kind > 0 && !kit_problem_equal(rows[r].problem, section->problem);
                char size[32] = ""; /* what it reads (the emulator times nothing, and reads little) */
                if (!KIT_EMULATED)
                    snprintf(size, sizeof size, " (%.0f MiB)", (double)section->n *
                             (double)kit_in_words(section->problem) * sizeof(int) / 1048576.0);
                printf("\n%s: n = %zu %s%s%s, against stage %d\n", kit_problem_name(section->problem), section->n,
                       elements_name(section->problem), size, layouts ? " in each layout" : "", section->baseline);
            }
            const char *head[LADDER_COLUMNS] = {"stage", "what"};
            int heads = 2;
            if (!KIT_EMULATED) {
                const char *const numbers[] = {"time ms", "spread", "GB/s", "step", against, "% of CUB", "vs CPU"};
                for (int c = 0; c < 6 + vs_cpu_column; c++)
                    head[heads++] = numbers[c];
            }
            head[heads++] = "result";
            kit_table_line(columns, heads, head);
        }
        for (int r = section->first; r < section->end; r++) {
            const ladder_row *row = &rows[r];
            const int k = row->kind > 0 ? row->kind : 0;
            const ladder_row *previous = NULL, *cub = NULL;
            for (int j = k - 1; j >= 1 && k; j--)
                if (kit_ladder_section(j) == section->baseline) { /* the stage before it in its section */
                    previous = stage_row[j];                       /* (NULL when it did not run) */
                    break;
                }
            for (int q = section->first; q < section->end && k; q++)
                if (rows[q].kind == ROW_CUB && kit_problem_equal(rows[q].problem, row->problem))
                    cub = &rows[q];
            char step[16], cumul[16], pct[16], vs_cpu[16];
            ladder_ratio(step, sizeof step, row, previous, 0);
            ladder_ratio(cumul, sizeof cumul, row, k ? stage_row[section->baseline] : NULL, 0);
            ladder_ratio(pct, sizeof pct, row, cub, 1);
            ladder_ratio(vs_cpu, sizeof vs_cpu, row, sums_input(row) ? cpu : NULL, 0);
            const char *result = ladder_row_result(row);
            int ok = row->ran && row->status == KIT_OK;
            if (opt.format == KIT_FORMAT_TABLE) {
                const kit_column *c = columns;
                kit_table_cell(c++, "%s", row->label);
                kit_table_cell(c++, "%s", row->title);
                if (!KIT_EMULATED && ok) {
                    kit_table_cell(c++, "%.4f", row->timing.median_ms);
                    kit_table_cell(c++, "%.1f%%", 100.0 * kit_timing_spread(&row->timing));
                    kit_table_cell(c++, "%.1f", row->gbps);
                    kit_table_cell(c++, "%s", step);
                    kit_table_cell(c++, "%s", cumul);
                    kit_table_cell(c++, "%s", pct);
                    if (vs_cpu_column)
                        kit_table_cell(c++, "%s", vs_cpu);
                } else if (!KIT_EMULATED) { /* no time: a dash in every number's column */
                    while (c < columns + column_count - 1)
                        kit_table_cell(c++, "-");
                }
                kit_table_cell(c, "%s", result);
                putchar('\n');
            } else if (opt.format == KIT_FORMAT_CSV) {
                printf("%s,\"%s\",%s,%zu,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%.3f,%s,%s,%s,%s,\"%s\",%s,%s", row->label,
                       row->title, impl, row->n, opt.threads, row->timing.median_ms, row->timing.q1_ms,
                       row->timing.q3_ms, row->timing.min_ms, row->timing.max_ms, row->timing.reps, row->gbps,
                       step, cumul, pct, result, gpu.name, date, vs_cpu);
                if (opt.counters)
                    ladder_csv_counters(row, &gpu);
                printf(",\"%s\",%d\n", kit_problem_name(row->problem), row->section);
            } else {
                printf("    {\"stage\": \"%s\", \"title\": \"%s\", \"problem\": \"%s\", \"baseline\": %d, "
                       "\"result\": \"%s\", \"median_ms\": %.6f, "
                       "\"q1_ms\": %.6f, \"q3_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"gbps\": %.3f, "
                       "\"step_speedup\": \"%s\", \"cumulative_speedup\": \"%s\", \"percent_of_cub\": \"%s\", "
                       "\"speedup_over_cpu\": \"%s\"",
                       row->label, row->title, kit_problem_name(row->problem), row->section, result,
                       row->timing.median_ms, row->timing.q1_ms, row->timing.q3_ms, row->timing.min_ms,
                       row->timing.max_ms, row->gbps, step, cumul, pct, vs_cpu);
                if (opt.counters && row->kind >= 0)
                    ladder_json_counters(row, &gpu);
                printf("}%s\n", r + 1 < count ? "," : "");
            }
        }
    }
    if (opt.format == KIT_FORMAT_JSON)
        printf("  ]\n}\n");
    if (opt.format == KIT_FORMAT_TABLE && opt.counters)
        ladder_table_counters(rows, count, &gpu, opt.threads);
    if (counters_note[0]) /* counters were asked for and could not be had: one line */
        fprintf(opt.format == KIT_FORMAT_TABLE ? stdout : stderr, "%sreduce_ladder --counters: %s\n",
                opt.format == KIT_FORMAT_TABLE ? "\n" : "", counters_note);
    FILE *notes = opt.format == KIT_FORMAT_TABLE ? stdout : stderr;
    int explained = 0; /* rows with a verdict: not failures, but they say why */
    for (int r = 0; r < count; r++)
        explained += rows[r].verdict != NULL;
    const int emulated_host_note = host_rows && KIT_EMULATED && int_sum_first;
    if ((failures || explained || emulated_host_note) && opt.format == KIT_FORMAT_TABLE)
        fputc('\n', notes);
    for (int r = 0; r < count; r++) {
        if (rows[r].verdict)
            fprintf(notes, "%s %s: %s\n", rows[r].label, rows[r].verdict, rows[r].message);
        else if (rows[r].ran && rows[r].status != KIT_OK)
            fprintf(notes, "%s %s: %s\n", rows[r].label, kit_status_name(rows[r].status), rows[r].message);
        else if (!rows[r].ran)
            fprintf(notes, KIT_EMULATED ? "%s not run: an earlier emulated launch failed, and its fault is sticky as "
                                          "a GPU's would be\n"
                                        : "%s not run: an earlier failure left the GPU unusable in this process\n",
                    rows[r].label);
    }
    if (emulated_host_note)
        fprintf(notes, "h2d-pageable, h2d-pinned and best+copy left out: they time copies to a GPU, and the CPU "
                       "emulator times nothing\n");
    return failures ? 1 : 0;
}

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
 * `--sweep` instead times stages 7 and 8, CUB, the copy and an empty launch at every n;
 * `--accuracy` measures the error of float sums against n (stage 9, CUB and four CPU orders).
 * `reduce_ladder --help` lists the options.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accuracy.h"
#include "counters.h"
#include "options.h"

/* KIT_EMULATED: this is reduce_ladder_emu, the same program built on the CPU emulator (emu/,
 * docs/emulator.md): it checks every stage but times nothing. */
#ifndef KIT_EMULATED
#define KIT_EMULATED 0
#endif

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

/* Kinds of ladder rows (ladder_row::kind): 1..KIT_STAGE_COUNT a stage, ROW_CUB, and below it
 * the rows that are no reduction of ours (no counters, no step or % of CUB). */
enum {
    ROW_CUB = 0,
    ROW_COPY = -1,
    ROW_CPU = -2,
    ROW_CPU_OMP = -3,
    ROW_H2D_PAGEABLE = -4,
    ROW_H2D_PINNED = -5,
    ROW_BEST_COPY = -6,
    /* every stage, and per section at most a CUB row per stage (one per problem) and a copy;
     * the five rows of the whole job */
    LADDER_ROWS = 3 * KIT_STAGE_COUNT + 5
};

/** One row of the ladder. */
typedef struct ladder_row {
    const char *label;  /* "1".."15", "CUB", "copy", "cpu", "cpu-omp", "h2d-pageable", "h2d-pinned", "best+copy";
                           in the other problems' sections "CUB-K" (CUB on the problem and input of stage K,
                           the section's first stage of that problem) and "copy-K" (K: the section's
                           baseline); in a sweep "7", "8", "CUB", "copy", "launch" */
    char name[16];      /* where a label made here lives */
    int kind;           /* a stage's number, ROW_CUB, ROW_COPY, ROW_CPU, ... (the ladder's rows) */
    int of_stage;       /* CUB and copy rows: the stage whose problem and input they reduce or copy */
    int section;        /* the baseline stage of its section (kit_ladder_section()) */
    kit_problem problem; /* what it reduces (a copy: the problem whose input it copies) */
    size_t n;           /* elements of that problem it reads */
    double input_bytes; /* bytes of that input */
    const char *title;
    int ran;            /* 0: not run (an earlier failure made the GPU unusable) */
    const char *verdict; /* shown instead of the result, and no failure: a row this build or run cannot
                            have (no OpenMP); message says why */
    kit_status status;
    char message[sizeof(((kit_error *)0)->message)];
    kit_timing timing;
    double gbps;
    double bytes;       /* bytes the row moves per run: what GB/s divides */
    int counted;        /* --counters: 1 when hw (GPU) or emu (emulator) holds this row's counts */
    kit_hw_counters hw;
    kit_emu_counts emu;
} ladder_row;

/* ---------------------------------------------------------------- --counters */

/* Elements of \p problem that take as many bytes as \p n ints (at least 1). */
static size_t section_n(size_t n, kit_problem problem)
{
    const size_t elements = n / kit_in_words(problem);
    return elements > 0 ? elements : 1;
}

/* --counted-run K: run one row for ncu (started by measure_with_ncu below) and print nothing
 * but failures: one checked run unprofiled, then one between cudaProfilerStart and Stop. */
static int counted_run(const kit_options *opt)
{
    kit_error err = {KIT_OK, ""};
    const kit_stage *table = opt->use_labs ? kit_labs_stages : kit_solutions_stages;
    kit_gpu gpu;
    kit_workspace ws;
    memset(&ws, 0, sizeof ws);
    /* the problem of the row: the stage's, or for CUB that of the stage named by cub:K */
    const int stage = opt->counted_run == KIT_COUNTED_CUB ? opt->counted_cub_of : opt->counted_run;
    const kit_problem problem = stage ? kit_stage_problem(stage) : KIT_INT_SUM;
    kit_status status = kit_gpu_open(&gpu, &err);
    if (status == KIT_OK)
        status = kit_workspace_init_problem(&ws, problem, section_n(opt->n, problem), &err);
    if (status == KIT_OK)
        status = kit_workspace_fill(&ws, opt->pattern, opt->seed, &err);
    ws.timeout_s = opt->timeout_s;
    if (status == KIT_OK)
        status = opt->counted_run == KIT_COUNTED_CUB
                     ? kit_profile_cub(&ws, &err)
                     : kit_profile_stage(kit_find_stage(table, opt->counted_run), &ws, opt->threads, &err);
    if (status != KIT_OK)
        fprintf(stderr, "reduce_ladder: %s\n", err.message);
    kit_workspace_free(&ws);
    return status == KIT_OK ? 0 : status == KIT_NO_GPU ? 2 : 1; /* as the ladder's own exit statuses */
}

/* Whether this machine has an NVIDIA GPU at all, asked without CUDA (the profiled runs are
 * started before this process opens the GPU: a process that has used CUDA must not fork). */
static int nvidia_device_present(void)
{
    return access("/dev/nvidiactl", F_OK) == 0;
}

/* Runs every row once more under ncu, before this process touches CUDA. When counters cannot
 * be had (no ncu, not permitted) \p note says so in one line, and the ladder runs without. */
static void measure_with_ncu(const kit_options *opt, ladder_row *rows, int count, char *note, size_t note_size)
{
    char ncu[4096], self[4096];
    kit_error err = {KIT_OK, ""};
    if (!nvidia_device_present())
        return; /* the emulator takes over, and counts */
    if (kit_ncu_find(ncu, sizeof ncu, &err) != KIT_OK) {
        snprintf(note, note_size, "no hardware counters: %s", err.message);
        return;
    }
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        snprintf(note, note_size, "no hardware counters: cannot find this program's own path to run it under ncu");
        return;
    }
    self[len] = '\0';
    char n[32], threads[16], seed[32], timeout[16], which[16];
    snprintf(n, sizeof n, "%zu", opt->n);
    snprintf(threads, sizeof threads, "%u", opt->threads);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)opt->seed);
    snprintf(timeout, sizeof timeout, "%.0f", opt->timeout_s);
    for (int r = 0; r < count; r++) {
        if (rows[r].kind < 0)
            continue; /* the copy: not a reduction */
        if (rows[r].kind == ROW_CUB && kit_problem_equal(rows[r].problem, KIT_INT_SUM))
            snprintf(which, sizeof which, "cub");
        else if (rows[r].kind == ROW_CUB)
            snprintf(which, sizeof which, "cub:%d", rows[r].of_stage);
        else
            snprintf(which, sizeof which, "%d", rows[r].kind);
        char *argv[] = {self, "--counted-run", which, "--impl", opt->use_labs ? "labs" : "solutions", "--n", n,
                        "--threads", threads, "--seed", seed, "--pattern", (char *)kit_pattern_name(opt->pattern),
                        "--timeout", timeout, NULL};
        if (isatty(2)) { /* progress, on a terminal only: each row takes seconds under ncu */
            fprintf(stderr, "\rreduce_ladder: counting %s%s under Nsight Compute...", rows[r].kind ? "stage " : "",
                    rows[r].kind ? which : rows[r].label);
            fflush(stderr);
        }
        kit_status status = kit_ncu_measure(ncu, argv, &rows[r].hw, &err);
        if (status == KIT_OK) {
            rows[r].counted = 1;
        } else if (strstr(err.message, "ERR_NVGPUCTRPERM") || strncmp(err.message, "ncu: ", 5) == 0) {
            snprintf(note, note_size, "no hardware counters: %s", err.message);
            for (int k = 0; k < r; k++)
                rows[k].counted = 0;
            break;
        } else {
            fprintf(stderr, "reduce_ladder: no counters for %s: %s\n", which, err.message);
        }
    }
    if (isatty(2))
        fprintf(stderr, "\r%70s\r", "");
}

static void run_timed_row(ladder_row *row, double bytes, kit_status status, const kit_error *err)
{
    row->ran = 1;
    row->status = status;
    row->bytes = bytes;
    if (status != KIT_OK)
        snprintf(row->message, sizeof row->message, "%s", err->message);
    else if (row->timing.median_ms > 0)
        row->gbps = bytes / (row->timing.median_ms * 1e-3) / 1e9;
}

/* The row's result: "ok", the failure's name, "not run", or its verdict. */
static const char *row_result(const ladder_row *row)
{
    return row->verdict ? row->verdict : !row->ran ? "not run" : row->status == KIT_OK ? "ok"
                                                                                      : kit_status_name(row->status);
}

/* A row that did not give its exact sum (or did not run): the exit status is 1. */
static int row_failed(const ladder_row *row)
{
    return !row->verdict && (!row->ran || row->status != KIT_OK);
}

/* A failure that leaves the CUDA context unusable stops the ladder. */
static int context_lost(kit_status status)
{
    return status == KIT_TIMEOUT || status == KIT_CUDA_ERROR;
}

static void ratio(char *out, size_t size, const ladder_row *a, const ladder_row *b, int percent)
{
    if (!a || !b || !a->ran || !b->ran || a->status != KIT_OK || b->status != KIT_OK ||
        !(a->timing.median_ms > 0) || !(b->timing.median_ms > 0)) /* the emulator times nothing */
        snprintf(out, size, "-");
    else if (percent)
        snprintf(out, size, "%.1f%%", 100.0 * a->gbps / b->gbps);
    else
        snprintf(out, size, "%.2fx", b->timing.median_ms / a->timing.median_ms);
}

/* ---------------------------------------------------------------- printing the counters */

static double per(double a, double b) { return b > 0 ? a / b : 0.0; }

static double percent_of_peak(const ladder_row *row, const kit_gpu *gpu)
{
    return gpu->peak_gbps > 0 && row->ran && row->status == KIT_OK ? 100.0 * row->gbps / gpu->peak_gbps : 0.0;
}

/* The row's "counters" member in --format json (null when it has none); per element is per
 * element of the row's problem (a matrix for the matrices). */
static void json_counters(const ladder_row *row, const kit_gpu *gpu)
{
    const size_t n = row->n;
    if (!row->counted) {
        printf(", \"counters\": null");
    } else if (KIT_EMULATED) {
        const kit_emu_counts *e = &row->emu;
        printf(", \"counters\": {\"blocks\": %llu, \"threads_per_block\": %llu, \"resident_blocks\": %llu, "
               "\"elements_per_thread\": %.4f, \"block_barriers\": %llu, \"warp_meetings\": %llu, "
               "\"global_loads\": %llu, \"global_load_bytes\": %llu, \"global_loads_per_element\": %.4f, "
               "\"global_load_width\": %.2f, \"shared_requests\": %llu, \"shared_bank_conflicts\": %llu, "
               "\"bank_conflicts_per_request\": %.4f, \"shared_active_lanes\": %llu, \"shared_idle_lanes\": %llu, "
               "\"divergent_shared_requests\": %llu}",
               e->blocks, e->threads_per_block, e->resident_blocks, e->elements_per_thread, e->block_barriers,
               e->warp_meetings, e->global_loads, e->global_load_bytes, per((double)e->global_loads, (double)n),
               kit_emu_load_width(e), e->shared_requests, e->shared_bank_conflicts,
               kit_emu_conflicts_per_request(e), e->shared_active_lanes, e->shared_idle_lanes, e->divergent_shared_requests);
    } else {
        const kit_hw_counters *c = &row->hw;
        printf(", \"counters\": {\"kernels\": %d, \"duration_ns\": %.0f, \"dram_bytes_read\": %.0f, "
               "\"dram_read_per_input_byte\": %.4f, \"percent_of_peak_bandwidth\": %.1f, "
               "\"shared_requests\": %.0f, \"shared_bank_conflicts\": %.0f, \"bank_conflicts_per_request\": %.4f, "
               "\"active_threads_per_instruction\": %.2f, \"warp_instructions\": %.0f, "
               "\"warp_instructions_per_element\": %.5f, \"branch_instructions\": %.0f, "
               "\"achieved_occupancy_percent\": %.1f, \"top_stall\": \"%s\", \"top_stall_share_percent\": %.1f",
               c->kernels, c->duration_ns, c->dram_bytes_read, per(c->dram_bytes_read, row->input_bytes),
               percent_of_peak(row, gpu), c->shared_requests, c->shared_bank_conflicts,
               kit_hw_conflicts_per_request(c), kit_hw_active_threads(c), c->warp_instructions,
               per(c->warp_instructions, (double)n), c->branch_instructions, c->occupancy_percent, c->top_stall,
               c->top_stall_percent);
        /* global loads: null when this ncu output did not have them */
        if (c->has_global_loads)
            printf(", \"global_load_requests\": %.0f, \"global_load_sectors\": %.0f, "
                   "\"global_load_sectors_per_request\": %.4f}",
                   c->global_load_requests, c->global_load_sectors, kit_hw_sectors_per_request(c));
        else
            printf(", \"global_load_requests\": null, \"global_load_sectors\": null, "
                   "\"global_load_sectors_per_request\": null}");
    }
}

static const char *csv_counters_header(void)
{
    return KIT_EMULATED ? ",blocks,resident_blocks,elements_per_thread,block_barriers,warp_meetings,"
                          "global_loads_per_element,global_load_width,shared_requests,bank_conflicts_per_request,"
                          "shared_idle_lanes,divergent_shared_requests"
                        : ",dram_bytes_read,percent_of_peak_bandwidth,bank_conflicts_per_request,"
                          "active_threads_per_instruction,warp_instructions_per_element,branch_instructions,"
                          "achieved_occupancy_percent,top_stall,top_stall_share_percent,"
                          "global_load_sectors_per_request";
}

static void csv_counters(const ladder_row *row, const kit_gpu *gpu)
{
    const size_t n = row->n;
    if (!row->counted) {
        for (const char *h = csv_counters_header(); *h; h++) /* one empty field per column */
            if (*h == ',')
                putchar(',');
    } else if (KIT_EMULATED) {
        const kit_emu_counts *e = &row->emu;
        printf(",%llu,%llu,%.4f,%llu,%llu,%.4f,%.2f,%llu,%.4f,%llu,%llu", e->blocks, e->resident_blocks,
               e->elements_per_thread, e->block_barriers, e->warp_meetings, per((double)e->global_loads, (double)n),
               kit_emu_load_width(e), e->shared_requests, kit_emu_conflicts_per_request(e), e->shared_idle_lanes,
               e->divergent_shared_requests);
    } else {
        const kit_hw_counters *c = &row->hw;
        printf(",%.0f,%.1f,%.4f,%.2f,%.5f,%.0f,%.1f,%s,%.1f", c->dram_bytes_read, percent_of_peak(row, gpu),
               kit_hw_conflicts_per_request(c), kit_hw_active_threads(c), per(c->warp_instructions, (double)n),
               c->branch_instructions, c->occupancy_percent, c->top_stall, c->top_stall_percent);
        if (c->has_global_loads) /* empty when this ncu output did not have them */
            printf(",%.4f", kit_hw_sectors_per_request(c));
        else
            printf(",");
    }
}

/* The table's second part: why (per element: per element of each row's problem). */
static void table_counters(const ladder_row *rows, int count, const kit_gpu *gpu, unsigned threads)
{
    int any = 0;
    for (int r = 0; r < count; r++)
        any |= rows[r].counted;
    if (!any)
        return;
    if (KIT_EMULATED) {
        printf("\nWhat the emulator counted in each stage's first pass (the launch that reads the n inputs;\n"
               "a warp is 32 lanes, shared memory 32 banks of 4 bytes; docs/emulator.md says how):\n\n");
        printf("%-7s %8s %9s %6s %9s %10s %6s %10s %9s %9s\n", "stage", "blocks", "GPU holds", "elem/", "barriers",
               "loads per", "load", "conflicts", "idle", "divergent");
        printf("%-7s %8s %9s %6s %9s %10s %6s %10s %9s %9s\n", "", "", "at once", "thread", "per block", "element",
               "bytes", "per req.", "lanes", "requests");
        for (int r = 0; r < count; r++) {
            const kit_emu_counts *e = &rows[r].emu;
            if (!rows[r].counted)
                continue;
            printf("%-7s %8llu %9llu %6.1f %9.1f %10.4f %6.0f %10.2f %8.1f%% %9llu\n", rows[r].label, e->blocks,
                   e->resident_blocks, e->elements_per_thread, kit_emu_barriers_per_block(e),
                   per((double)e->global_loads, (double)rows[r].n), kit_emu_load_width(e), kit_emu_conflicts_per_request(e),
                   kit_emu_idle_lane_percent(e), e->divergent_shared_requests);
        }
        (void)gpu;
        (void)threads;
        return;
    }
    printf("\nWhy: Nsight Compute's counters for one run of each row (all its passes), %u threads:\n\n", threads);
    printf("%-7s %9s %8s %10s %10s %8s %10s %9s %9s  %s\n", "stage", "DRAM MB", "% of", "L1 sectors", "conflicts",
           "threads", "instr.", "branches", "occupancy", "top stall (share of waiting)");
    printf("%-7s %9s %8s %10s %10s %8s %10s %9s %9s\n", "", "read", "peak BW", "per load", "per req.", "/instr.",
           "/element", "/element", "");
    int loads = 0; /* rows with the global load counts (an older ncu output may lack them) */
    for (int r = 0; r < count; r++) {
        const kit_hw_counters *c = &rows[r].hw;
        if (!rows[r].counted)
            continue;
        const double n = (double)rows[r].n;
        char sectors[16] = "-";
        if (c->has_global_loads) {
            snprintf(sectors, sizeof sectors, "%.2f", kit_hw_sectors_per_request(c));
            loads = 1;
        }
        printf("%-7s %9.1f %7.1f%% %10s %10.2f %8.1f %10.4f %9.4f %8.1f%%  %s (%.0f%%): %s\n", rows[r].label,
               c->dram_bytes_read / 1e6, percent_of_peak(&rows[r], gpu), sectors, kit_hw_conflicts_per_request(c),
               kit_hw_active_threads(c), per(c->warp_instructions, n), per(c->branch_instructions, n),
               c->occupancy_percent, c->top_stall, c->top_stall_percent, kit_stall_meaning(c->top_stall));
    }
    if (loads)
        printf("\nL1 sectors per load: the 32-byte sectors each warp's global load asks L1 for (Nsight Compute's\n"
               "l1tex__t_sectors_pipe_lsu_mem_global_op_ld / l1tex__t_requests_pipe_lsu_mem_global_op_ld): 4 when\n"
               "a warp reads 32 consecutive ints, 16 for int4, 32 when each lane's int lies in a sector of its own\n"
               "(stage 13: lanes 36 bytes apart). DRAM MB read says whether L1 kept the lines between the loads.\n");
}

/* ---------------------------------------------------------------- shared by the ladder and the sweep */

/* Opens the GPU; without one, hands over to the CPU emulator (which returns only on failure).
 * 0 when the GPU is open, else the exit status. */
static int open_gpu(kit_gpu *gpu, char **argv)
{
    kit_error err = {KIT_OK, ""};
    if (kit_gpu_open(gpu, &err) == KIT_OK)
        return 0;
    if (!KIT_EMULATED && err.status == KIT_NO_GPU)
        return hand_over_to_emulator(argv, err.message);
    fprintf(stderr, "reduce_ladder: %s\n", err.message);
    return 2;
}

static void today(char *date, size_t size)
{
    time_t now = time(NULL);
    strftime(date, size, "%Y-%m-%d", localtime(&now));
}

/* A JSON string: quotes and backslashes escaped (messages and names may hold them). */
static void json_string(const char *text)
{
    putchar('"');
    for (const char *c = text; *c; c++)
        printf(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
    putchar('"');
}

/* The "gpu" member of --format json, the same in the ladder and the sweep. */
static void json_gpu(const kit_gpu *gpu)
{
    printf("\"gpu\": {\"name\": ");
    json_string(gpu->name);
    printf(", \"sm_count\": %d, \"l2_bytes\": %d, \"peak_gbps\": %.1f}", gpu->sm_count, gpu->l2_bytes, gpu->peak_gbps);
}

/* ---------------------------------------------------------------- --sweep */

/* The stages the sweep times: the best many-pass stage and the one-pass stage. */
static const int sweep_stages[] = {7, 8};
enum { SWEEP_STAGES = (int)(sizeof sweep_stages / sizeof sweep_stages[0]), SWEEP_ROWS = SWEEP_STAGES + 3 };

/* One n of the sweep and its rows: the stages, then CUB, the copy and the empty launch. */
typedef struct sweep_size {
    size_t n;
    int reps;  /* timed repetitions of each row at this n */
    int count; /* rows */
    ladder_row rows[SWEEP_ROWS];
} sweep_size;

/* How many turns each row of the sweep is timed in (see sweep_one). */
#define SWEEP_VISITS 10

/* The bytes a sweep row's GB/s divides: the copy reads and writes, a launch moves none. */
static double sweep_row_bytes(const ladder_row *row, double input_bytes)
{
    return strcmp(row->label, "copy") == 0 ? 2 * input_bytes : strcmp(row->label, "launch") == 0 ? 0 : input_bytes;
}

/* Times one row of the sweep: \p warmup untimed runs, then \p reps timed ones. */
static kit_status time_sweep_row(const ladder_row *row, const kit_stage *table, kit_workspace *ws, unsigned threads,
                                 int warmup, int reps, kit_timing *t, kit_error *err)
{
    if (strcmp(row->label, "CUB") == 0)
        return kit_time_cub(ws, warmup, reps, t, err);
    if (strcmp(row->label, "copy") == 0)
        return kit_time_copy(ws, warmup, reps, t, err);
    if (strcmp(row->label, "launch") == 0)
        return kit_time_launch(ws, warmup, reps, t, err);
    return kit_time_stage(kit_find_stage(table, row->label[0] - '0'), ws, threads, warmup, reps, t, err);
}

/* Runs one n: every row checked (the stages once with every check, then each timed run
 * checked), and timed except on the emulator. *lost: the GPU is unusable from here on. */
static void sweep_one(const kit_options *opt, const kit_stage *table, sweep_size *size, int *lost)
{
    kit_error err = {KIT_OK, ""};
    ladder_row *rows = size->rows;
    for (int s = 0; s < SWEEP_STAGES; s++) {
        const kit_stage *stage = kit_find_stage(table, sweep_stages[s]);
        if (!kit_stage_released(stage))
            continue; /* a student edition without it */
        static char labels[SWEEP_STAGES][4];
        snprintf(labels[s], sizeof labels[s], "%d", sweep_stages[s]);
        rows[size->count].label = labels[s];
        rows[size->count++].title = stage->title;
    }
    const int stage_rows = size->count;
    if (opt->baselines && !KIT_EMULATED) {
        rows[size->count].label = "CUB";
        rows[size->count++].title = "cub::DeviceReduce::Sum";
        rows[size->count].label = "copy";
        rows[size->count++].title = "device-to-device copy (read+write)";
        rows[size->count].label = "launch";
        rows[size->count++].title = "an empty kernel (launch latency)";
    }
    if (*lost)
        return;
    if (isatty(2)) { /* progress, on a terminal only */
        fprintf(stderr, "\rreduce_ladder --sweep: n = 2^%d...   ", kit_log2(size->n));
        fflush(stderr);
    }
    const double bytes = (double)size->n * sizeof(int);
    const int warmup = size->n <= KIT_SWEEP_SMALL_N ? 10 : 3;
    kit_workspace ws;
    kit_status status = kit_workspace_init(&ws, size->n, &err);
    if (status == KIT_OK)
        status = kit_workspace_fill(&ws, opt->pattern, opt->seed, &err);
    ws.timeout_s = opt->timeout_s;
    if (status != KIT_OK) { /* this n does not fit (or the GPU failed): every row says so */
        for (int r = 0; r < size->count; r++)
            run_timed_row(&rows[r], bytes, status, &err);
        *lost = context_lost(status);
        kit_workspace_free(&ws);
        return;
    }
    /* Each stage once with every check; then all rows timed in turns (SWEEP_VISITS visits,
     * each a median of reps / SWEEP_VISITS runs, the rows in a rotating order), so a drift of
     * the clocks or of the host during one n touches every row alike: at small n a run takes a
     * few microseconds and two rows timed one after the other can differ by 10% from drift alone. */
    int failed[SWEEP_ROWS] = {0};
    for (int r = 0; r < stage_rows && !*lost; r++) {
        kit_value got;
        status = kit_run_checked(kit_find_stage(table, rows[r].label[0] - '0'), &ws, opt->threads, &got, &err);
        if (status != KIT_OK) {
            run_timed_row(&rows[r], bytes, status, &err);
            failed[r] = 1;
            *lost = context_lost(status);
        }
    }
    const int per_visit = size->reps / SWEEP_VISITS > 0 ? size->reps / SWEEP_VISITS : 1;
    double visit_ms[SWEEP_ROWS][SWEEP_VISITS];
    for (int visit = -1; visit < SWEEP_VISITS && !KIT_EMULATED; visit++) { /* visit -1: the warm-up */
        for (int j = 0; j < size->count && !*lost; j++) {
            int r = (visit < 0 ? j : j + visit) % size->count;
            if (failed[r])
                continue;
            kit_timing t;
            /* One untimed run at the start of every turn: the row before may have left the GPU
             * in another state (the copy frees 1 GiB at 2^28, a first run after it was slow). */
            status = time_sweep_row(&rows[r], table, &ws, opt->threads, visit < 0 ? warmup : 1,
                                    visit < 0 ? 1 : per_visit, &t, &err);
            if (status != KIT_OK) {
                run_timed_row(&rows[r], sweep_row_bytes(&rows[r], bytes), status, &err);
                failed[r] = 1;
                *lost = context_lost(status);
            } else if (visit >= 0) {
                visit_ms[r][visit] = t.median_ms;
            }
        }
    }
    for (int r = 0; r < size->count && !*lost; r++) {
        if (failed[r])
            continue;
        if (!KIT_EMULATED) {
            kit_timing_summarize(visit_ms[r], SWEEP_VISITS, &rows[r].timing);
            rows[r].timing.reps = SWEEP_VISITS * per_visit; /* the runs behind the medians */
        }
        run_timed_row(&rows[r], sweep_row_bytes(&rows[r], bytes), KIT_OK, &err);
    }
    kit_workspace_free(&ws);
}

/* A timing member of a sweep row in --format json: the value, or null where there is none. */
static void json_number(const char *name, int has, const char *format, double value)
{
    printf(", \"%s\": ", name);
    if (has)
        printf(format, value);
    else
        printf("null");
}

static void print_sweep(const kit_options *opt, const kit_gpu *gpu, const sweep_size *sizes, int count)
{
    char date[32];
    today(date, sizeof date);
    const char *impl = opt->use_labs ? "labs" : "solutions";
    const int columns = sizes[0].count;
    if (opt->format == KIT_FORMAT_JSON) {
        printf("{\"kind\": \"sweep\", ");
        json_gpu(gpu);
        printf(",\n \"emulated\": %s, \"date\": \"%s\", \"impl\": \"%s\", \"threads\": %u, \"pattern\": \"%s\", "
               "\"seed\": %llu, \"turns\": %d,\n \"sizes\": [\n", KIT_EMULATED ? "true" : "false", date, impl,
               opt->threads, kit_pattern_name(opt->pattern), (unsigned long long)opt->seed, KIT_EMULATED ? 0 : SWEEP_VISITS);
        for (int i = 0; i < count; i++) {
            printf("  {\"n\": %zu, \"rows\": [\n", sizes[i].n);
            for (int r = 0; r < sizes[i].count; r++) {
                const ladder_row *row = &sizes[i].rows[r];
                const int timed = !KIT_EMULATED && row->ran && row->status == KIT_OK;
                printf("    {\"row\": \"%s\", \"title\": \"%s\", \"result\": \"%s\"", row->label, row->title,
                       row_result(row));
                json_number("median_ms", timed, "%.6f", row->timing.median_ms);
                json_number("q1_ms", timed, "%.6f", row->timing.q1_ms);
                json_number("q3_ms", timed, "%.6f", row->timing.q3_ms);
                json_number("gbps", timed && row->bytes > 0, "%.3f", row->gbps);
                json_number("reps", timed, "%.0f", (double)row->timing.reps);
                printf("}%s\n", r + 1 < sizes[i].count ? "," : "");
            }
            printf("  ]}%s\n", i + 1 < count ? "," : "");
        }
        printf(" ]\n}\n");
    } else if (opt->format == KIT_FORMAT_CSV) {
        printf("n,row,title,result,median_ms,q1_ms,q3_ms,gbps,reps,impl,threads,gpu,date\n");
        for (int i = 0; i < count; i++)
            for (int r = 0; r < sizes[i].count; r++) {
                const ladder_row *row = &sizes[i].rows[r];
                printf("%zu,%s,\"%s\",%s,", sizes[i].n, row->label, row->title, row_result(row));
                if (!KIT_EMULATED && row->ran && row->status == KIT_OK) {
                    printf("%.6f,%.6f,%.6f,", row->timing.median_ms, row->timing.q1_ms, row->timing.q3_ms);
                    if (row->bytes > 0)
                        printf("%.3f", row->gbps);
                    printf(",%d", row->timing.reps);
                } else {
                    printf(",,,,");
                }
                printf(",%s,%u,\"%s\",%s\n", impl, opt->threads, gpu->name, date);
            }
    } else if (KIT_EMULATED) {
        printf("Sweep on the CPU EMULATOR, not a GPU: correctness only, no timings (docs/emulator.md), %s\n", date);
        printf("%s, %u threads, %s input (seed %llu), n = 2^%d to 2^%d\n\n", impl, opt->threads,
               kit_pattern_name(opt->pattern), (unsigned long long)opt->seed, kit_log2(sizes[0].n),
               kit_log2(sizes[count - 1].n));
        printf("%-5s", "n");
        for (int r = 0; r < columns; r++)
            printf(r + 1 < columns ? "  stage %-10s" : "  stage %s", sizes[0].rows[r].label);
        putchar('\n');
        for (int i = 0; i < count; i++) {
            printf("2^%-3d", kit_log2(sizes[i].n));
            for (int r = 0; r < sizes[i].count; r++)
                printf(r + 1 < sizes[i].count ? "  %-16s" : "  %s", row_result(&sizes[i].rows[r]));
            putchar('\n');
        }
    } else {
        printf("Sweep on %s (%d SMs, %.0f MB L2, peak %.0f GB/s), %s\n", gpu->name, gpu->sm_count,
               gpu->l2_bytes / 1e6, gpu->peak_gbps, date);
        printf("%s, %u threads, %s input (seed %llu); each cell the median of %d turns, the rows of an n timed in "
               "turn, each turn the median of %d runs up to n = 2^%d, of %d above\n\n",
               impl, opt->threads, kit_pattern_name(opt->pattern), (unsigned long long)opt->seed, SWEEP_VISITS,
               (opt->reps > KIT_SWEEP_SMALL_REPS ? opt->reps : KIT_SWEEP_SMALL_REPS) / SWEEP_VISITS,
               kit_log2(KIT_SWEEP_SMALL_N), opt->reps / SWEEP_VISITS > 0 ? opt->reps / SWEEP_VISITS : 1);
        const ladder_row *first = sizes[0].rows;
        int stage8 = -1, cub = -1;
        printf("%-5s", "n");
        for (int r = 0; r < columns; r++) {
            const char *label = first[r].label;
            stage8 = strcmp(label, "8") == 0 ? r : stage8;
            cub = strcmp(label, "CUB") == 0 ? r : cub;
            char head[32];
            snprintf(head, sizeof head, "%s%s", label[0] >= '1' && label[0] <= '9' ? "stage " : "", label);
            printf(strcmp(label, "launch") == 0 ? "  %13s" : "  %17s", head);
        }
        printf("%s\n%-5s", stage8 >= 0 && cub >= 0 ? "  8 vs CUB" : "", "");
        for (int r = 0; r < columns; r++) /* "µs" is two bytes wide in printf's eyes, one column on screen */
            printf(strcmp(first[r].label, "launch") == 0 ? "  %14s" : "  %10s %7s", "µs", "GB/s");
        putchar('\n');
        for (int i = 0; i < count; i++) {
            printf("2^%-3d", kit_log2(sizes[i].n));
            for (int r = 0; r < sizes[i].count; r++) {
                const ladder_row *row = &sizes[i].rows[r];
                const int launch = strcmp(row->label, "launch") == 0;
                if (row->ran && row->status == KIT_OK && launch)
                    printf("  %13.1f", row->timing.median_ms * 1e3);
                else if (row->ran && row->status == KIT_OK)
                    printf("  %9.1f %7.0f", row->timing.median_ms * 1e3, row->gbps);
                else /* the failure's name across the cell (the notes below say more) */
                    printf(launch ? "  %13s" : "  %17s", row_result(row));
            }
            if (stage8 >= 0 && cub >= 0) {
                char speedup[16];
                ratio(speedup, sizeof speedup, &sizes[i].rows[stage8], &sizes[i].rows[cub], 0);
                printf("  %8s", speedup);
            }
            putchar('\n');
        }
        if (stage8 >= 0 && cub >= 0)
            printf("\n8 vs CUB: CUB's time over stage 8's (above 1x, stage 8 is the faster)\n");
    }
}

/* --sweep: every n from --from to --to (up to KIT_EMULATED_N on the emulator). */
static int run_sweep(const kit_options *opt, const kit_stage *table, const kit_gpu *gpu)
{
    size_t to = opt->sweep_to;
    if (KIT_EMULATED && to > KIT_EMULATED_N) {
        if (opt->sweep_from > KIT_EMULATED_N) {
            fprintf(stderr, "reduce_ladder: the CPU emulator sweeps n up to 2^%d only, and --from is 2^%d\n",
                    kit_log2(KIT_EMULATED_N), kit_log2(opt->sweep_from));
            return 2;
        }
        if (opt->sweep_to_given)
            fprintf(stderr, "reduce_ladder: the CPU emulator sweeps n up to 2^%d only (a second or so each); the "
                    "sizes above are left out\n", kit_log2(KIT_EMULATED_N));
        to = KIT_EMULATED_N;
    }
    int count = 0;
    for (size_t n = opt->sweep_from; n <= to; n *= 2)
        count++;
    sweep_size *sizes = calloc((size_t)count, sizeof *sizes);
    if (!sizes) {
        fprintf(stderr, "reduce_ladder: no host memory for the sweep's results\n");
        return 2;
    }
    int lost = 0, failures = 0, lost_from = 0;
    for (int i = 0; i < count; i++) {
        sizes[i].n = opt->sweep_from << i;
        sizes[i].reps = sizes[i].n <= KIT_SWEEP_SMALL_N && opt->reps < KIT_SWEEP_SMALL_REPS ? KIT_SWEEP_SMALL_REPS
                                                                                         : opt->reps;
        const int was_lost = lost;
        sweep_one(opt, table, &sizes[i], &lost);
        if (lost && !was_lost)
            lost_from = i;
    }
    if (isatty(2))
        fprintf(stderr, "\r%50s\r", "");
    if (sizes[0].count == 0) {
        fprintf(stderr, "reduce_ladder: nothing to sweep: stages 7 and 8 are not in this edition yet%s\n",
                KIT_EMULATED ? "" : ", and --no-baselines leaves out CUB, the copy and the launch");
        free(sizes);
        return 2;
    }
    print_sweep(opt, gpu, sizes, count);
    FILE *notes = opt->format == KIT_FORMAT_TABLE ? stdout : stderr;
    int not_run = 0;
    for (int i = 0; i < count; i++)
        for (int r = 0; r < sizes[i].count; r++) {
            const ladder_row *row = &sizes[i].rows[r];
            failures += row_failed(row);
            if (!row->ran) {
                not_run++;
                continue;
            }
            if (row->status != KIT_OK)
                fprintf(notes, "%sn = 2^%d, %s %s: %s\n", failures == 1 && notes == stdout ? "\n" : "",
                        kit_log2(sizes[i].n), row->label, kit_status_name(row->status), row->message);
        }
    if (not_run)
        fprintf(notes, KIT_EMULATED ? "%d rows not run from n = 2^%d on: an emulated launch failed, and its fault is "
                                      "sticky as a GPU's would be\n"
                                    : "%d rows not run from n = 2^%d on: a failure left the GPU unusable in this "
                                      "process\n",
                not_run, kit_log2(sizes[lost_from].n));
    free(sizes);
    return failures ? 1 : 0;
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
        section->n = section_n(opt->n, section->problem);
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
            run_timed_row(row, bytes, status, &err);
            cpu = row;
            break;
        case ROW_CPU_OMP:
            status = kit_time_cpu_sum(ws->host_input, ws->n, 1, ws->expected, 1, cpu_reps, &row->timing, &err);
            run_timed_row(row, bytes, status, &err);
            if (kit_cpu_threads() == 0)
                row->verdict = "no OpenMP"; /* the message says why */
            break;
        case ROW_H2D_PAGEABLE:
        case ROW_H2D_PINNED: {
            const int pinned = row->kind == ROW_H2D_PINNED;
            if (*lost)
                break;
            status = kit_time_h2d(ws, pinned ? KIT_HOST_PINNED : KIT_HOST_PAGEABLE, 3, opt->reps, &row->timing, &err);
            run_timed_row(row, bytes, status, &err);
            *lost = context_lost(status);
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
            run_timed_row(row, bytes, status, &err);
            *lost = context_lost(status);
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
    run_timed_row(row, row->input_bytes, status, &err);
    *lost = context_lost(status);
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
                run_timed_row(row, row->input_bytes, status, &row_err);
                *lost = context_lost(status);
            } else {
                kit_status status = kit_time_copy(&ws, 3, opt->reps, &row->timing, &row_err);
                run_timed_row(row, 2 * row->input_bytes, status, &row_err);
                *lost = context_lost(status);
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

/* ---------------------------------------------------------------- --accuracy */

/* The sums --accuracy compares, in the order of its columns. */
enum { ACC_SEQUENTIAL, ACC_PAIRWISE, ACC_KAHAN, ACC_NEUMAIER, ACC_STAGE, ACC_CUB, ACC_SUMS };
static const char *const acc_keys[ACC_SUMS] = {"sequential", "pairwise", "kahan", "neumaier", "stage9", "cub"};

/* One input of --accuracy. */
typedef struct accuracy_row {
    size_t n;
    kit_pattern pattern;
    double exact;              /* the exact sum (kit_exact_to_double) */
    double bound;              /* the float stage's error bound (kit_float_bound), relative to |exact| */
    float value[ACC_SUMS];     /* each sum's result */
    int has[ACC_SUMS];         /* 0: not measured (no CUB on the emulator; a stage that gave nothing) */
    int reproducible;          /* the stage gave the same bits in ACC_STAGE_RUNS runs: 1, 0, or -1 (not known) */
    kit_status stage_status;   /* the stage's checked runs (KIT_WRONG_RESULT: outside its bound) */
    kit_status cub_status;
    char message[sizeof(((kit_error *)0)->message)];
} accuracy_row;

/* Runs of the float stage that must give the same bits. */
#define ACC_STAGE_RUNS 3

static float float_of_word(int32_t word)
{
    float f;
    memcpy(&f, &word, sizeof f);
    return f;
}

/* Measures one input. *lost: the GPU is unusable from here on. */
static kit_status accuracy_one(const kit_options *opt, const kit_stage *stage, accuracy_row *row, int *lost,
                               kit_error *err)
{
    const kit_problem float_sum = {KIT_FLOAT, KIT_SUM};
    kit_workspace ws;
    kit_status status = kit_workspace_init_problem(&ws, float_sum, row->n, err);
    if (status == KIT_OK)
        status = kit_workspace_fill(&ws, row->pattern, opt->seed, err);
    float *x = status == KIT_OK ? malloc(row->n * sizeof *x) : NULL;
    if (status == KIT_OK && !x)
        status = kit_fail(err, KIT_OUT_OF_MEMORY, "no host memory for %zu floats", row->n);
    if (status != KIT_OK) {
        kit_workspace_free(&ws);
        return status;
    }
    ws.timeout_s = opt->timeout_s;
    memcpy(x, ws.host_input, row->n * sizeof *x);
    row->exact = kit_exact_to_double(&ws.ref.float_sum);
    row->bound = kit_float_bound(row->n, ws.ref.abs_sum) / fabs(row->exact); /* inf for an exact 0: null */
    row->value[ACC_SEQUENTIAL] = kit_float_sum_sequential(x, row->n);
    row->value[ACC_PAIRWISE] = kit_float_sum_pairwise(x, row->n);
    row->value[ACC_KAHAN] = kit_float_sum_kahan(x, row->n);
    row->value[ACC_NEUMAIER] = kit_float_sum_neumaier(x, row->n);
    row->has[ACC_SEQUENTIAL] = row->has[ACC_PAIRWISE] = row->has[ACC_KAHAN] = row->has[ACC_NEUMAIER] = 1;
    free(x);
    row->reproducible = -1;
    row->stage_status = row->cub_status = KIT_OK;
    if (stage && !*lost) {
        kit_value got[ACC_STAGE_RUNS];
        int runs = 0;
        kit_error run_err = {KIT_OK, ""};
        for (; runs < ACC_STAGE_RUNS; runs++) {
            kit_status s = kit_run_checked(stage, &ws, opt->threads, &got[runs], &run_err);
            if (s != KIT_OK && row->stage_status == KIT_OK) {
                row->stage_status = s;
                snprintf(row->message, sizeof row->message, "%s", run_err.message);
            }
            if (s != KIT_OK && s != KIT_WRONG_RESULT) /* no answer to compare */
                break;
        }
        *lost = context_lost(row->stage_status);
        if (runs > 0 && (row->stage_status == KIT_OK || row->stage_status == KIT_WRONG_RESULT)) {
            row->value[ACC_STAGE] = float_of_word(got[0].w[0]);
            row->has[ACC_STAGE] = 1;
        }
        if (runs == ACC_STAGE_RUNS) {
            row->reproducible = 1;
            for (int t = 1; t < runs; t++)
                row->reproducible &= got[t].w[0] == got[0].w[0];
        }
    }
    if (!KIT_EMULATED && opt->baselines && !*lost) {
        kit_value got;
        kit_error cub_err = {KIT_OK, ""};
        row->cub_status = kit_run_cub(&ws, &got, &cub_err);
        if (row->cub_status == KIT_OK) {
            row->value[ACC_CUB] = float_of_word(got.w[0]);
            row->has[ACC_CUB] = 1;
        } else if (!row->message[0]) {
            snprintf(row->message, sizeof row->message, "%s", cub_err.message);
        }
        *lost |= context_lost(row->cub_status);
    }
    kit_workspace_free(&ws);
    return KIT_OK;
}

/* A relative error for the table: 3 significant digits, "0" for an exact result, "-" for none. */
static void error_cell(char *out, size_t size, const accuracy_row *row, int sum)
{
    if (!row->has[sum]) {
        snprintf(out, size, "-");
        return;
    }
    const double e = kit_relative_error((double)row->value[sum], row->exact);
    if (e == 0.0)
        snprintf(out, size, "0");
    else
        snprintf(out, size, "%.2e", e);
}

/* A JSON number, or null. */
static void json_double(int has, const char *format, double value)
{
    if (has && isfinite(value))
        printf(format, value);
    else
        printf("null");
}

static void print_accuracy(const kit_options *opt, const kit_gpu *gpu, const kit_stage *stage,
                           const accuracy_row *rows, int count)
{
    char date[32];
    today(date, sizeof date);
    const char *impl = opt->use_labs ? "labs" : "solutions";
    const int number = stage ? stage->number : 0;
    if (opt->format == KIT_FORMAT_JSON) {
        printf("{\"kind\": \"accuracy\", ");
        json_gpu(gpu);
        printf(",\n \"emulated\": %s, \"date\": \"%s\", \"impl\": \"%s\", \"stage\": %d, \"threads\": %u, \"seed\": "
               "%llu, \"stage_runs\": %d,\n \"rows\": [\n", KIT_EMULATED ? "true" : "false", date, impl, number,
               opt->threads, (unsigned long long)opt->seed, ACC_STAGE_RUNS);
        for (int i = 0; i < count; i++) {
            const accuracy_row *row = &rows[i];
            printf("  {\"n\": %zu, \"pattern\": \"%s\", \"exact\": %.17g, \"bound\": %.6g", row->n,
                   kit_pattern_name(row->pattern), row->exact, row->bound);
            for (int s = 0; s < ACC_SUMS; s++) {
                printf(", \"%s\": ", acc_keys[s]);
                json_double(row->has[s], "%.6g", kit_relative_error((double)row->value[s], row->exact));
            }
            printf(", \"stage9_reproducible\": %s, \"stage9_result\": ",
                   row->reproducible < 0 ? "null" : row->reproducible ? "true" : "false");
            if (stage)
                printf("\"%s\"", row->stage_status == KIT_OK ? "ok" : kit_status_name(row->stage_status));
            else
                printf("null");
            printf(", \"values\": {");
            for (int s = 0; s < ACC_SUMS; s++) {
                printf("%s\"%s\": ", s ? ", " : "", acc_keys[s]);
                json_double(row->has[s], "%.9g", (double)row->value[s]);
            }
            printf("}}%s\n", i + 1 < count ? "," : "");
        }
        printf(" ]\n}\n");
        return;
    }
    if (opt->format == KIT_FORMAT_CSV) {
        printf("n,pattern,exact,bound");
        for (int s = 0; s < ACC_SUMS; s++)
            printf(",%s", acc_keys[s]);
        printf(",stage9_reproducible,stage9_result");
        for (int s = 0; s < ACC_SUMS; s++)
            printf(",%s_value", acc_keys[s]);
        printf(",impl,threads,gpu,date\n");
        for (int i = 0; i < count; i++) {
            const accuracy_row *row = &rows[i];
            printf("%zu,%s,%.17g,%.6g", row->n, kit_pattern_name(row->pattern), row->exact, row->bound);
            for (int s = 0; s < ACC_SUMS; s++) {
                putchar(',');
                if (row->has[s])
                    printf("%.6g", kit_relative_error((double)row->value[s], row->exact));
            }
            printf(",%s,%s", row->reproducible < 0 ? "" : row->reproducible ? "true" : "false",
                   !stage ? "" : row->stage_status == KIT_OK ? "ok" : kit_status_name(row->stage_status));
            for (int s = 0; s < ACC_SUMS; s++) {
                putchar(',');
                if (row->has[s])
                    printf("%.9g", (double)row->value[s]);
            }
            printf(",%s,%u,\"%s\",%s\n", impl, opt->threads, gpu->name, date);
        }
        return;
    }
    if (KIT_EMULATED)
        printf("Float sums against the exact sum, stage %d on the CPU EMULATOR (the host's float rounding; no CUB), "
               "%s\n", number, date);
    else
        printf("Float sums against the exact sum on %s, %s\n", gpu->name, date);
    printf("relative error |sum - exact| / |exact|; CPU sums in float arithmetic; stage %d (%s, %u threads) "
           "checked %d times, seed %llu\n\n", number, impl, opt->threads, ACC_STAGE_RUNS,
           (unsigned long long)opt->seed);
    char stage_head[16], bits_head[32];
    snprintf(stage_head, sizeof stage_head, "stage %d", number);
    snprintf(bits_head, sizeof bits_head, "stage %d: same bits", number);
    printf("%-9s %-13s %16s %10s %10s %10s %10s %10s %10s %10s  %s\n", "n", "input", "exact sum", "sequential",
           "pairwise", "Kahan", "Neumaier", stage_head, "CUB", "bound", bits_head);
    for (int i = 0; i < count; i++) {
        const accuracy_row *row = &rows[i];
        char n[24], cells[ACC_SUMS][24];
        if ((row->n & (row->n - 1)) == 0)
            snprintf(n, sizeof n, "2^%d", kit_log2(row->n));
        else
            snprintf(n, sizeof n, "%zu", row->n);
        for (int s = 0; s < ACC_SUMS; s++)
            error_cell(cells[s], sizeof cells[s], row, s);
        const char *same = row->reproducible < 0 ? "-" : row->reproducible ? "yes" : "NO";
        printf("%-9s %-13s %16.10g %10s %10s %10s %10s %10s %10s %10.2e  %s%s%s%s\n", n,
               row->pattern == KIT_PATTERN_POSITIONAL ? "1..10000" : "random [0,1)", row->exact, cells[ACC_SEQUENTIAL],
               cells[ACC_PAIRWISE], cells[ACC_KAHAN], cells[ACC_NEUMAIER], cells[ACC_STAGE], cells[ACC_CUB],
               row->bound, same, row->stage_status == KIT_OK ? "" : " (",
               row->stage_status == KIT_OK ? "" : kit_status_name(row->stage_status),
               row->stage_status == KIT_OK ? "" : ")");
    }
    for (int i = 0; i < count; i++) {
        const accuracy_row *row = &rows[i];
        if (row->pattern != KIT_PATTERN_POSITIONAL)
            continue;
        printf("\n1 + 2 + ... + %zu in float:", row->n);
        static const char *const names[ACC_SUMS] = {"sequential", "pairwise", "Kahan", "Neumaier", "stage", "CUB"};
        for (int s = 0; s < ACC_SUMS; s++)
            if (row->has[s])
                printf("%s %s%s %.9g", s ? "," : "", names[s], s == ACC_STAGE ? stage_head + 5 : "",
                       (double)row->value[s]);
        printf(" (exact: %.17g)\n", row->exact);
    }
    printf("\nbound: what stage %d may be off by, relative: gamma_h * sum|x| / |exact|, h = ceil(log2 n) + %d "
           "(kit_float_bound)\n", number, KIT_FLOAT_RUN);
}

/* --accuracy: the course's example, then random floats at every second power of two from
 * --from to --to (up to KIT_EMULATED_N on the emulator). */
static int run_accuracy(const kit_options *opt, const kit_stage *table, const kit_gpu *gpu)
{
    size_t to = opt->sweep_to_given ? opt->sweep_to : KIT_ACCURACY_MAX_N;
    if (KIT_EMULATED && to > KIT_EMULATED_N) {
        if (opt->sweep_from > KIT_EMULATED_N) {
            fprintf(stderr, "reduce_ladder: the CPU emulator measures n up to 2^%d only, and --from is 2^%d\n",
                    kit_log2(KIT_EMULATED_N), kit_log2(opt->sweep_from));
            return 2;
        }
        if (opt->sweep_to_given)
            fprintf(stderr, "reduce_ladder: the CPU emulator measures n up to 2^%d only; the sizes above are left "
                    "out\n", kit_log2(KIT_EMULATED_N));
        to = KIT_EMULATED_N;
    }
    const kit_stage *stage = NULL; /* the float sum's stage (9) */
    for (int k = 1; k <= KIT_STAGE_COUNT && !stage; k++)
        if (kit_problem_equal(kit_stage_problem(k), (kit_problem){KIT_FLOAT, KIT_SUM}) &&
            kit_stage_released(kit_find_stage(table, k)))
            stage = kit_find_stage(table, k);
    if (!stage)
        fprintf(stderr, "reduce_ladder: the float sum's stage is not in this edition yet: the table has the CPU's "
                "sums%s only\n", KIT_EMULATED ? "" : " and CUB's");
    accuracy_row rows[2 + 64];
    memset(rows, 0, sizeof rows);
    int count = 0;
    rows[count].n = KIT_ACCURACY_EXAMPLE_N;
    rows[count++].pattern = KIT_PATTERN_POSITIONAL;
    for (size_t n = opt->sweep_from; n <= to && count < (int)(sizeof rows / sizeof rows[0]); n *= 4) {
        rows[count].n = n;
        rows[count++].pattern = KIT_PATTERN_RANDOM;
    }
    int lost = 0, failures = 0;
    for (int i = 0; i < count; i++) {
        kit_error err = {KIT_OK, ""};
        if (isatty(2)) {
            fprintf(stderr, "\rreduce_ladder --accuracy: n = %zu...   ", rows[i].n);
            fflush(stderr);
        }
        if (accuracy_one(opt, stage, &rows[i], &lost, &err) != KIT_OK) {
            if (isatty(2))
                fprintf(stderr, "\r%50s\r", "");
            fprintf(stderr, "reduce_ladder: %s\n", err.message);
            return 2;
        }
        failures += rows[i].stage_status != KIT_OK || rows[i].cub_status != KIT_OK || rows[i].reproducible == 0;
    }
    if (isatty(2))
        fprintf(stderr, "\r%50s\r", "");
    print_accuracy(opt, gpu, stage, rows, count);
    FILE *notes = opt->format == KIT_FORMAT_TABLE ? stdout : stderr;
    for (int i = 0; i < count; i++) {
        const accuracy_row *row = &rows[i];
        if (row->stage_status != KIT_OK || row->cub_status != KIT_OK)
            fprintf(notes, "n = %zu: %s\n", row->n, row->message);
        else if (row->reproducible == 0)
            fprintf(notes, "n = %zu: stage %d gave different bits for the same input in %d runs: a float sum whose "
                    "order depends on timing (atomics) is not reproducible\n", row->n, stage->number, ACC_STAGE_RUNS);
    }
    if (lost)
        fprintf(notes, KIT_EMULATED ? "an emulated launch failed, and its fault is sticky as a GPU's would be: the "
                                      "sizes after it have no stage\n"
                                    : "a failure left the GPU unusable in this process: the sizes after it have no "
                                      "stage or CUB\n");
    return failures ? 1 : 0;
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
    if (opt.emulate && !KIT_EMULATED)
        return hand_over_to_emulator(argv, NULL);
    if (opt.counted_run)
        return KIT_EMULATED ? 2 : counted_run(&opt);
    if (opt.sweep || opt.accuracy) {
        kit_gpu gpu;
        int status = open_gpu(&gpu, argv);
        return status ? status : opt.sweep ? run_sweep(&opt, table, &gpu) : run_accuracy(&opt, table, &gpu);
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
        measure_with_ncu(&opt, rows, count, counters_note, sizeof counters_note);

    kit_gpu gpu;
    int opened = open_gpu(&gpu, argv);
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
    today(date, sizeof date);
    const char *impl = opt.use_labs ? "labs" : "solutions";
    int failures = 0;
    for (int r = 0; r < count; r++)
        failures += row_failed(&rows[r]);
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
               opt.counters ? csv_counters_header() : "");
    } else {
        printf("{\n  ");
        json_gpu(&gpu);
        printf(",\n  \"emulated\": %s, \"date\": \"%s\", \"impl\": \"%s\", \"n\": %zu, \"threads\": %u, \"pattern\": \"%s\", "
               "\"seed\": %llu, \"reps\": %d,\n", KIT_EMULATED ? "true" : "false", date, impl, opt.n, opt.threads,
               kit_pattern_name(opt.pattern), (unsigned long long)opt.seed, opt.reps);
        printf("  \"cpu\": ");
        if (cpu_known)
            json_string(cpu_model);
        else
            printf("null");
        printf(", \"cpu_threads\": %d,\n", kit_cpu_threads());
        printf("  \"counters_from\": \"%s\", \"counters_note\": ", !opt.counters ? "none"
               : KIT_EMULATED ? "the CPU emulator, first pass" : "Nsight Compute (ncu), one run, all passes");
        json_string(counters_note);
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
            if (KIT_EMULATED)
                printf("%-12s %-40s  %s\n", "stage", "what", "result");
            else
                printf("%-12s %-40s %9s %7s %8s %7s %7s %8s%s  %s\n", "stage", "what", "time ms", "spread", "GB/s",
                       "step", against, "% of CUB", cpu && int_sum ? "  vs CPU" : "", "result");
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
            ratio(step, sizeof step, row, previous, 0);
            ratio(cumul, sizeof cumul, row, k ? stage_row[section->baseline] : NULL, 0);
            ratio(pct, sizeof pct, row, cub, 1);
            ratio(vs_cpu, sizeof vs_cpu, row, sums_input(row) ? cpu : NULL, 0);
            const char *result = row_result(row);
            int ok = row->ran && row->status == KIT_OK;
            if (opt.format == KIT_FORMAT_TABLE && KIT_EMULATED) {
                printf("%-12s %-40s  %s\n", row->label, row->title, result);
            } else if (opt.format == KIT_FORMAT_TABLE) {
                char vs_cpu_cell[24] = "";
                if (cpu && int_sum)
                    snprintf(vs_cpu_cell, sizeof vs_cpu_cell, " %7s", ok ? vs_cpu : "-");
                if (ok)
                    printf("%-12s %-40s %9.4f %6.1f%% %8.1f %7s %7s %8s%s  %s\n", row->label, row->title,
                           row->timing.median_ms, 100.0 * kit_timing_spread(&row->timing), row->gbps, step, cumul,
                           pct, vs_cpu_cell, result);
                else
                    printf("%-12s %-40s %9s %7s %8s %7s %7s %8s%s  %s\n", row->label, row->title, "-", "-", "-", "-",
                           "-", "-", vs_cpu_cell, result);
            } else if (opt.format == KIT_FORMAT_CSV) {
                printf("%s,\"%s\",%s,%zu,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%.3f,%s,%s,%s,%s,\"%s\",%s,%s", row->label,
                       row->title, impl, row->n, opt.threads, row->timing.median_ms, row->timing.q1_ms,
                       row->timing.q3_ms, row->timing.min_ms, row->timing.max_ms, row->timing.reps, row->gbps,
                       step, cumul, pct, result, gpu.name, date, vs_cpu);
                if (opt.counters)
                    csv_counters(row, &gpu);
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
                    json_counters(row, &gpu);
                printf("}%s\n", r + 1 < count ? "," : "");
            }
        }
    }
    if (opt.format == KIT_FORMAT_JSON)
        printf("  ]\n}\n");
    if (opt.format == KIT_FORMAT_TABLE && opt.counters)
        table_counters(rows, count, &gpu, opt.threads);
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

/**
 * \file ladder.c
 * \brief The ladder program: runs the stages, checks and times each, prints the table.
 *
 * One row per stage (median time, GB/s, speedup over the previous stage and over stage 1,
 * share of CUB's bandwidth, ok/WRONG), then CUB and a device-to-device copy as yardsticks,
 * then the whole job (the full ladder, or --host): the exact sum on the CPU, on one thread and
 * with OpenMP, the input's copy to the GPU from pageable and from pinned memory, and the
 * fastest stage timed together with its copy; every reduction row's speedup over the CPU.
 * `--sweep` instead times stages 7 and 8, CUB, the copy and an empty launch at every n.
 * `reduce_ladder --help` lists the options.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
        fprintf(stderr, "reduce_ladder: no usable NVIDIA GPU here, so the kit's CPU emulator runs the stages "
                "(correctness only, no timings): %s\n", why);
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

/** One row of the ladder. */
typedef struct ladder_row {
    const char *label;  /* "1".."8", "CUB", "copy", "cpu", "cpu-omp", "h2d-pageable", "h2d-pinned", "best+copy";
                           in a sweep "7", "8", "CUB", "copy", "launch" */
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

/* --counted-run K: run one row for ncu (started by measure_with_ncu below) and print nothing
 * but failures: one checked run unprofiled, then one between cudaProfilerStart and Stop. */
static int counted_run(const kit_options *opt)
{
    kit_error err = {KIT_OK, ""};
    const kit_stage *table = opt->use_labs ? kit_labs_stages : kit_solutions_stages;
    kit_gpu gpu;
    kit_workspace ws;
    memset(&ws, 0, sizeof ws);
    kit_status status = kit_gpu_open(&gpu, &err);
    if (status == KIT_OK)
        status = kit_workspace_init(&ws, opt->n, &err);
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
static void measure_with_ncu(const kit_options *opt, ladder_row *rows, int count, const int *row_stage,
                            char *note, size_t note_size)
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
        if (row_stage[r] < 0)
            continue; /* the copy: not a reduction */
        if (row_stage[r] == 0)
            snprintf(which, sizeof which, "cub");
        else
            snprintf(which, sizeof which, "%d", row_stage[r]);
        char *argv[] = {self, "--counted-run", which, "--impl", opt->use_labs ? "labs" : "solutions", "--n", n,
                        "--threads", threads, "--seed", seed, "--pattern", (char *)kit_pattern_name(opt->pattern),
                        "--timeout", timeout, NULL};
        if (isatty(2)) { /* progress, on a terminal only: each row takes seconds under ncu */
            fprintf(stderr, "\rreduce_ladder: counting %s%s under Nsight Compute...", row_stage[r] ? "stage " : "",
                    which);
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

/* The row's "counters" member in --format json (null when it has none). */
static void json_counters(const ladder_row *row, const kit_gpu *gpu, size_t n)
{
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
               "\"achieved_occupancy_percent\": %.1f, \"top_stall\": \"%s\", \"top_stall_share_percent\": %.1f}",
               c->kernels, c->duration_ns, c->dram_bytes_read, per(c->dram_bytes_read, 4.0 * (double)n),
               percent_of_peak(row, gpu), c->shared_requests, c->shared_bank_conflicts,
               kit_hw_conflicts_per_request(c), kit_hw_active_threads(c), c->warp_instructions,
               per(c->warp_instructions, (double)n), c->branch_instructions, c->occupancy_percent, c->top_stall,
               c->top_stall_percent);
    }
}

static const char *csv_counters_header(void)
{
    return KIT_EMULATED ? ",blocks,resident_blocks,elements_per_thread,block_barriers,warp_meetings,"
                          "global_loads_per_element,global_load_width,shared_requests,bank_conflicts_per_request,"
                          "shared_idle_lanes,divergent_shared_requests"
                        : ",dram_bytes_read,percent_of_peak_bandwidth,bank_conflicts_per_request,"
                          "active_threads_per_instruction,warp_instructions_per_element,branch_instructions,"
                          "achieved_occupancy_percent,top_stall,top_stall_share_percent";
}

static void csv_counters(const ladder_row *row, const kit_gpu *gpu, size_t n)
{
    if (!row->counted) {
        printf(KIT_EMULATED ? ",,,,,,,,,," : ",,,,,,,,");
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
    }
}

/* The table's second part: why. */
static void table_counters(const ladder_row *rows, int count, const kit_gpu *gpu, size_t n, unsigned threads)
{
    int any = 0;
    for (int r = 0; r < count; r++)
        any |= rows[r].counted;
    if (!any)
        return;
    if (KIT_EMULATED) {
        printf("\nWhat the emulator counted in each stage's first pass (the launch that reads the n inputs;\n"
               "a warp is 32 lanes, shared memory 32 banks of 4 bytes; docs/emulator.md says how):\n\n");
        printf("%-5s %8s %9s %6s %9s %10s %6s %10s %9s %9s\n", "stage", "blocks", "GPU holds", "elem/", "barriers",
               "loads per", "load", "conflicts", "idle", "divergent");
        printf("%-5s %8s %9s %6s %9s %10s %6s %10s %9s %9s\n", "", "", "at once", "thread", "per block", "element",
               "bytes", "per req.", "lanes", "requests");
        for (int r = 0; r < count; r++) {
            const kit_emu_counts *e = &rows[r].emu;
            if (!rows[r].counted)
                continue;
            printf("%-5s %8llu %9llu %6.1f %9.1f %10.4f %6.0f %10.2f %8.1f%% %9llu\n", rows[r].label, e->blocks,
                   e->resident_blocks, e->elements_per_thread, kit_emu_barriers_per_block(e),
                   per((double)e->global_loads, (double)n), kit_emu_load_width(e), kit_emu_conflicts_per_request(e),
                   kit_emu_idle_lane_percent(e), e->divergent_shared_requests);
        }
        (void)gpu;
        (void)threads;
        return;
    }
    printf("\nWhy: Nsight Compute's counters for one run of each row (all its passes), %u threads:\n\n", threads);
    printf("%-5s %9s %8s %10s %8s %10s %9s %9s  %s\n", "stage", "DRAM MB", "% of", "conflicts", "threads", "instr.",
           "branches", "occupancy", "top stall (share of waiting)");
    printf("%-5s %9s %8s %10s %8s %10s %9s %9s\n", "", "read", "peak BW", "per req.", "/instr.", "/element",
           "/element", "");
    for (int r = 0; r < count; r++) {
        const kit_hw_counters *c = &rows[r].hw;
        if (!rows[r].counted)
            continue;
        printf("%-5s %9.1f %7.1f%% %10.2f %8.1f %10.4f %9.4f %8.1f%%  %s (%.0f%%): %s\n", rows[r].label,
               c->dram_bytes_read / 1e6, percent_of_peak(&rows[r], gpu), kit_hw_conflicts_per_request(c),
               kit_hw_active_threads(c), per(c->warp_instructions, (double)n), per(c->branch_instructions, (double)n),
               c->occupancy_percent, c->top_stall, c->top_stall_percent, kit_stall_meaning(c->top_stall));
    }
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
        int got = 0;
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

/* Kinds of ladder rows in row_stage[]: 1..KIT_STAGE_COUNT a stage, ROW_CUB, and below it the
 * rows that are no kernel of ours (no counters, no step or % of CUB). */
enum {
    ROW_CUB = 0,
    ROW_COPY = -1,
    ROW_CPU = -2,
    ROW_CPU_OMP = -3,
    ROW_H2D_PAGEABLE = -4,
    ROW_H2D_PINNED = -5,
    ROW_BEST_COPY = -6,
    LADDER_ROWS = KIT_STAGE_COUNT + 7
};

/* Whether a row of this kind sums the input (and so has a speedup over the CPU). */
static int sums_input(int kind)
{
    return kind >= ROW_CUB || kind == ROW_CPU || kind == ROW_CPU_OMP || kind == ROW_BEST_COPY;
}

/* The rows of the whole job (after CUB and the copy): the CPU's sums, the copies to the GPU, the
 * fastest stage with its copy. The CPU rows run even after the GPU was lost; on the emulator
 * they are checked but not timed. Returns the "cpu" row (or NULL). */
static ladder_row *run_host_rows(const kit_options *opt, const kit_stage *table, kit_workspace *ws,
                                 ladder_row *rows, const int *row_stage, int first, int count, int stage_rows,
                                 int *lost)
{
    static char omp_title[64], best_title[64];
    const double bytes = (double)ws->n * sizeof(int);
    const int cpu_reps = KIT_EMULATED ? 0 : opt->reps; /* 0: one checked run, no timing */
    ladder_row *cpu = NULL;
    kit_error err = {KIT_OK, ""};
    for (int r = first; r < count; r++) {
        ladder_row *row = &rows[r];
        kit_status status;
        switch (row_stage[r]) {
        case ROW_CPU:
            row->label = "cpu";
            row->title = "CPU, one thread (exact int64 sum)";
            status = kit_time_cpu_sum(ws->host_input, ws->n, 0, ws->expected, 1, cpu_reps, &row->timing, &err);
            run_timed_row(row, bytes, status, &err);
            cpu = row;
            break;
        case ROW_CPU_OMP: {
            const int threads = kit_cpu_threads();
            row->label = "cpu-omp";
            if (threads > 0)
                snprintf(omp_title, sizeof omp_title, "CPU, OpenMP, %d thread%s", threads, threads == 1 ? "" : "s");
            else
                snprintf(omp_title, sizeof omp_title, "CPU, OpenMP (not in this build)");
            row->title = omp_title;
            status = kit_time_cpu_sum(ws->host_input, ws->n, 1, ws->expected, 1, cpu_reps, &row->timing, &err);
            run_timed_row(row, bytes, status, &err);
            if (threads == 0)
                row->verdict = "no OpenMP"; /* the message says why */
            break;
        }
        case ROW_H2D_PAGEABLE:
        case ROW_H2D_PINNED: {
            const int pinned = row_stage[r] == ROW_H2D_PINNED;
            row->label = pinned ? "h2d-pinned" : "h2d-pageable";
            row->title = pinned ? "copy to the GPU from pinned memory" : "copy to the GPU from pageable memory";
            if (*lost)
                break;
            status = kit_time_h2d(ws, pinned ? KIT_HOST_PINNED : KIT_HOST_PAGEABLE, 3, opt->reps, &row->timing, &err);
            run_timed_row(row, bytes, status, &err);
            *lost = context_lost(status);
            break;
        }
        case ROW_BEST_COPY: {
            row->label = "best+copy";
            const ladder_row *best = NULL;
            for (int k = 0; k < stage_rows; k++)
                if (rows[k].ran && rows[k].status == KIT_OK && rows[k].timing.median_ms > 0 &&
                    (!best || rows[k].timing.median_ms < best->timing.median_ms))
                    best = &rows[k];
            if (best)
                snprintf(best_title, sizeof best_title, "stage %s + copy from pinned memory", best->label);
            else
                snprintf(best_title, sizeof best_title, "the fastest stage + copy from pinned memory");
            row->title = best_title;
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
            status = kit_time_stage_after_copy(kit_find_stage(table, best->label[0] - '0'), ws, opt->threads, 3,
                                               opt->reps, &row->timing, &err);
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
    if (opt.sweep) {
        kit_gpu gpu;
        int status = open_gpu(&gpu, argv);
        return status ? status : run_sweep(&opt, table, &gpu);
    }

    /* The rows, before anything runs: --counters profiles them first, without CUDA here. */
    ladder_row rows[LADDER_ROWS];
    int row_stage[LADDER_ROWS]; /* 1..KIT_STAGE_COUNT, ROW_CUB, ROW_COPY, ROW_CPU, ... */
    memset(rows, 0, sizeof rows);
    int count = 0;
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        if ((opt.stage != 0 && opt.stage != k) || !kit_stage_released(kit_find_stage(table, k)))
            continue; /* not asked for, or not handed out yet (a student edition): no row */
        row_stage[count++] = k;
    }
    const int stage_rows = count;
    if (opt.baselines && !KIT_EMULATED) {
        row_stage[count++] = ROW_CUB;
        row_stage[count++] = ROW_COPY;
    }
    const int host_rows = opt.host == 1 || (opt.host == -1 && opt.stage == 0);
    const int first_host_row = count;
    if (host_rows) {
        row_stage[count++] = ROW_CPU;
        row_stage[count++] = ROW_CPU_OMP;
        if (!KIT_EMULATED) { /* the emulator times no copy: these rows would be empty */
            row_stage[count++] = ROW_H2D_PAGEABLE;
            row_stage[count++] = ROW_H2D_PINNED;
            row_stage[count++] = ROW_BEST_COPY;
        }
    }
    char counters_note[1200] = "";
    if (opt.counters && !KIT_EMULATED)
        measure_with_ncu(&opt, rows, count, row_stage, counters_note, sizeof counters_note);

    kit_gpu gpu;
    int opened = open_gpu(&gpu, argv);
    if (opened)
        return opened;
    if (KIT_EMULATED && !opt.n_given)
        opt.n = KIT_EMULATED_N; /* the CPU is ~1000x slower than a GPU: a size it does in seconds */
    kit_workspace ws;
    if (kit_workspace_init(&ws, opt.n, &err) != KIT_OK ||
        kit_workspace_fill(&ws, opt.pattern, opt.seed, &err) != KIT_OK) {
        fprintf(stderr, "reduce_ladder: %s\n", err.message);
        kit_workspace_free(&ws);
        return 2;
    }
    ws.timeout_s = opt.timeout_s;

    ladder_row *stage_row[KIT_STAGE_COUNT + 1] = {NULL};
    int lost = 0;
    const double bytes = (double)opt.n * sizeof(int);
    for (int r = 0; r < stage_rows; r++) {
        const int k = row_stage[r];
        const kit_stage *stage = kit_find_stage(table, k);
        ladder_row *row = &rows[r];
        static char labels[KIT_STAGE_COUNT + 1][4];
        snprintf(labels[k], sizeof labels[k], "%d", k);
        row->label = labels[k];
        row->title = stage->title;
        stage_row[k] = row;
        if (lost)
            continue;
        int got = 0;
        if (KIT_EMULATED && opt.n > ((size_t)1 << 22)) { /* seconds per stage on the CPU: say what runs */
            fprintf(stderr, "reduce_ladder: stage %d on the CPU emulator, n = %zu...\n", k, opt.n);
            fflush(stderr);
        }
        kit_status status = kit_run_checked(stage, &ws, opt.threads, &got, &err);
        if (status == KIT_OK && KIT_EMULATED && opt.counters) {
            status = kit_count_first_pass(stage, &ws, opt.threads, &row->emu, &err);
            row->counted = status == KIT_OK;
            if (status == KIT_BAD_ARGUMENT) { /* this emulator build does not count: say so once */
                snprintf(counters_note, sizeof counters_note, "no counts: %s", err.message);
                status = KIT_OK;
            }
        }
        if (status == KIT_OK && !KIT_EMULATED)
            status = kit_time_stage(stage, &ws, opt.threads, 3, opt.reps, &row->timing, &err);
        run_timed_row(row, bytes, status, &err);
        lost = context_lost(status);
    }
    ladder_row *cub = NULL, *copy = NULL;
    if (opt.baselines && !KIT_EMULATED) {
        cub = &rows[stage_rows];
        cub->label = "CUB";
        cub->title = "cub::DeviceReduce::Sum";
        if (!lost) {
            kit_status status = kit_time_cub(&ws, 3, opt.reps, &cub->timing, &err);
            run_timed_row(cub, bytes, status, &err);
            lost = context_lost(status);
        }
        copy = &rows[stage_rows + 1];
        copy->label = "copy";
        copy->title = "device-to-device copy (read+write)";
        if (!lost)
            run_timed_row(copy, 2 * bytes, kit_time_copy(&ws, 3, opt.reps, &copy->timing, &err), &err);
    }
    ladder_row *cpu = NULL;
    if (host_rows)
        cpu = run_host_rows(&opt, table, &ws, rows, row_stage, first_host_row, count, stage_rows, &lost);

    char date[32];
    today(date, sizeof date);
    const char *impl = opt.use_labs ? "labs" : "solutions";
    int failures = 0;
    for (int r = 0; r < count; r++)
        failures += row_failed(&rows[r]);
    char cpu_model[256];
    const int cpu_known = kit_cpu_model(cpu_model, sizeof cpu_model);

    if (opt.format == KIT_FORMAT_TABLE && KIT_EMULATED) {
        printf("Reduction ladder on the CPU EMULATOR, not a GPU: correctness only, no timings (docs/emulator.md), "
               "%s\n", date);
        printf("n = %zu ints, %u threads, %s input (seed %llu), %s\n\n", opt.n, opt.threads,
               kit_pattern_name(opt.pattern), (unsigned long long)opt.seed, impl);
        printf("%-12s %-40s  %s\n", "stage", "what", "result");
    } else if (opt.format == KIT_FORMAT_TABLE) {
        printf("Reduction ladder on %s (%d SMs, %.0f MB L2, peak %.0f GB/s), %s\n", gpu.name, gpu.sm_count,
               gpu.l2_bytes / 1e6, gpu.peak_gbps, date);
        printf("n = %zu ints (%.0f MiB), %u threads, %s input (seed %llu), median of %d runs, %s\n", opt.n,
               bytes / 1048576.0, opt.threads, kit_pattern_name(opt.pattern), (unsigned long long)opt.seed, opt.reps,
               impl);
        if (cpu)
            printf("CPU: %s, OpenMP threads: %d\n", cpu_known ? cpu_model : "(model unknown)", kit_cpu_threads());
        printf("\n%-12s %-40s %9s %7s %8s %7s %7s %8s%s  %s\n", "stage", "what", "time ms", "spread", "GB/s", "step",
               "cumul.", "% of CUB", cpu ? "  vs CPU" : "", "result");
    } else if (opt.format == KIT_FORMAT_CSV) {
        printf("stage,title,impl,n,threads,median_ms,q1_ms,q3_ms,min_ms,max_ms,reps,gbps,step_speedup,"
               "cumulative_speedup,percent_of_cub,result,gpu,date,speedup_over_cpu%s\n",
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
        printf(",\n  \"rows\": [\n");
    }
    for (int r = 0; r < count; r++) {
        const ladder_row *row = &rows[r];
        int k = row->label[0] >= '1' && row->label[0] <= '9' ? row->label[0] - '0' : 0;
        char step[16], cumul[16], pct[16], vs_cpu[16];
        ratio(step, sizeof step, row, k > 1 ? stage_row[k - 1] : NULL, 0);
        ratio(cumul, sizeof cumul, row, k ? stage_row[1] : NULL, 0);
        ratio(pct, sizeof pct, row, (k && cub) ? cub : NULL, 1);
        ratio(vs_cpu, sizeof vs_cpu, row, sums_input(row_stage[r]) ? cpu : NULL, 0);
        const char *result = row_result(row);
        int ok = row->ran && row->status == KIT_OK;
        if (opt.format == KIT_FORMAT_TABLE && KIT_EMULATED) {
            printf("%-12s %-40s  %s\n", row->label, row->title, result);
        } else if (opt.format == KIT_FORMAT_TABLE) {
            char vs_cpu_cell[24] = "";
            if (cpu)
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
                   row->title, impl, opt.n, opt.threads, row->timing.median_ms, row->timing.q1_ms,
                   row->timing.q3_ms, row->timing.min_ms, row->timing.max_ms, row->timing.reps, row->gbps,
                   step, cumul, pct, result, gpu.name, date, vs_cpu);
            if (opt.counters)
                csv_counters(row, &gpu, opt.n);
            putchar('\n');
        } else {
            printf("    {\"stage\": \"%s\", \"title\": \"%s\", \"result\": \"%s\", \"median_ms\": %.6f, "
                   "\"q1_ms\": %.6f, \"q3_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"gbps\": %.3f, "
                   "\"step_speedup\": \"%s\", \"cumulative_speedup\": \"%s\", \"percent_of_cub\": \"%s\", "
                   "\"speedup_over_cpu\": \"%s\"",
                   row->label, row->title, result, row->timing.median_ms, row->timing.q1_ms, row->timing.q3_ms,
                   row->timing.min_ms, row->timing.max_ms, row->gbps, step, cumul, pct, vs_cpu);
            if (opt.counters && row_stage[r] >= 0)
                json_counters(row, &gpu, opt.n);
            printf("}%s\n", r + 1 < count ? "," : "");
        }
    }
    if (opt.format == KIT_FORMAT_JSON)
        printf("  ]\n}\n");
    if (opt.format == KIT_FORMAT_TABLE && opt.counters)
        table_counters(rows, count, &gpu, opt.n, opt.threads);
    if (counters_note[0]) /* counters were asked for and could not be had: one line */
        fprintf(opt.format == KIT_FORMAT_TABLE ? stdout : stderr, "%sreduce_ladder --counters: %s\n",
                opt.format == KIT_FORMAT_TABLE ? "\n" : "", counters_note);
    FILE *notes = opt.format == KIT_FORMAT_TABLE ? stdout : stderr;
    int explained = 0; /* rows with a verdict: not failures, but they say why */
    for (int r = 0; r < count; r++)
        explained += rows[r].verdict != NULL;
    const int emulated_host_note = host_rows && KIT_EMULATED;
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
    kit_workspace_free(&ws);
    return failures ? 1 : 0;
}

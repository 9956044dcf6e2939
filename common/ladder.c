/**
 * \file ladder.c
 * \brief The ladder program: runs the stages, checks and times each, prints the table.
 *
 * One row per stage (median time, GB/s, speedup over the previous stage and over stage 1,
 * share of CUB's bandwidth, ok/WRONG), then CUB and a device-to-device copy as yardsticks.
 * `reduce_ladder --help` lists the options.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
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
    const char *label;  /* "1".."7", "CUB", "copy" */
    const char *title;
    int ran;            /* 0: not run (an earlier failure made the GPU unusable) */
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

    /* The rows, before anything runs: --counters profiles them first, without CUDA here. */
    ladder_row rows[KIT_STAGE_COUNT + 2];
    int row_stage[KIT_STAGE_COUNT + 2]; /* 1..7, 0 for CUB, -1 for the copy */
    memset(rows, 0, sizeof rows);
    int count = 0;
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        if ((opt.stage != 0 && opt.stage != k) || !kit_stage_released(kit_find_stage(table, k)))
            continue; /* not asked for, or not handed out yet (a student edition): no row */
        row_stage[count++] = k;
    }
    const int stage_rows = count;
    if (opt.baselines && !KIT_EMULATED) {
        row_stage[count++] = 0;
        row_stage[count++] = -1;
    }
    char counters_note[1200] = "";
    if (opt.counters && !KIT_EMULATED)
        measure_with_ncu(&opt, rows, count, row_stage, counters_note, sizeof counters_note);

    kit_gpu gpu;
    if (kit_gpu_open(&gpu, &err) != KIT_OK) {
        if (!KIT_EMULATED && err.status == KIT_NO_GPU)
            return hand_over_to_emulator(argv, err.message);
        fprintf(stderr, "reduce_ladder: %s\n", err.message);
        return 2;
    }
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

    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
    const char *impl = opt.use_labs ? "labs" : "solutions";
    int failures = 0;
    for (int r = 0; r < count; r++)
        failures += !rows[r].ran || rows[r].status != KIT_OK;

    if (opt.format == KIT_FORMAT_TABLE && KIT_EMULATED) {
        printf("Reduction ladder on the CPU EMULATOR, not a GPU: correctness only, no timings (docs/emulator.md), "
               "%s\n", date);
        printf("n = %zu ints, %u threads, %s input (seed %llu), %s\n\n", opt.n, opt.threads,
               kit_pattern_name(opt.pattern), (unsigned long long)opt.seed, impl);
        printf("%-5s %-38s  %s\n", "stage", "what", "result");
    } else if (opt.format == KIT_FORMAT_TABLE) {
        printf("Reduction ladder on %s (%d SMs, %.0f MB L2, peak %.0f GB/s), %s\n", gpu.name, gpu.sm_count,
               gpu.l2_bytes / 1e6, gpu.peak_gbps, date);
        printf("n = %zu ints (%.0f MiB), %u threads, %s input (seed %llu), median of %d runs, %s\n\n",
               opt.n, bytes / 1048576.0, opt.threads, kit_pattern_name(opt.pattern),
               (unsigned long long)opt.seed, opt.reps, impl);
        printf("%-5s %-38s %9s %7s %8s %7s %7s %8s  %s\n", "stage", "what", "time ms", "spread", "GB/s",
               "step", "cumul.", "% of CUB", "result");
    } else if (opt.format == KIT_FORMAT_CSV) {
        printf("stage,title,impl,n,threads,median_ms,q1_ms,q3_ms,min_ms,max_ms,reps,gbps,step_speedup,"
               "cumulative_speedup,percent_of_cub,result,gpu,date%s\n", opt.counters ? csv_counters_header() : "");
    } else {
        printf("{\n  \"gpu\": {\"name\": \"%s\", \"sm_count\": %d, \"l2_bytes\": %d, \"peak_gbps\": %.1f},\n"
               "  \"emulated\": %s, \"date\": \"%s\", \"impl\": \"%s\", \"n\": %zu, \"threads\": %u, \"pattern\": \"%s\", "
               "\"seed\": %llu, \"reps\": %d,\n", gpu.name, gpu.sm_count, gpu.l2_bytes,
               gpu.peak_gbps, KIT_EMULATED ? "true" : "false", date, impl, opt.n, opt.threads, kit_pattern_name(opt.pattern),
               (unsigned long long)opt.seed, opt.reps);
        printf("  \"counters_from\": \"%s\", \"counters_note\": \"", !opt.counters ? "none"
               : KIT_EMULATED ? "the CPU emulator, first pass" : "Nsight Compute (ncu), one run, all passes");
        for (const char *c = counters_note; *c; c++) /* a message may hold quotes */
            printf(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
        printf("\",\n  \"rows\": [\n");
    }
    for (int r = 0; r < count; r++) {
        const ladder_row *row = &rows[r];
        int k = row->label[0] >= '1' && row->label[0] <= '9' ? row->label[0] - '0' : 0;
        char step[16], cumul[16], pct[16];
        ratio(step, sizeof step, row, k > 1 ? stage_row[k - 1] : NULL, 0);
        ratio(cumul, sizeof cumul, row, k ? stage_row[1] : NULL, 0);
        ratio(pct, sizeof pct, row, (k && cub) ? cub : NULL, 1);
        const char *result = !row->ran ? "not run" : row->status == KIT_OK ? "ok" : kit_status_name(row->status);
        int ok = row->ran && row->status == KIT_OK;
        if (opt.format == KIT_FORMAT_TABLE && KIT_EMULATED) {
            printf("%-5s %-38s  %s\n", row->label, row->title, result);
        } else if (opt.format == KIT_FORMAT_TABLE) {
            if (ok)
                printf("%-5s %-38s %9.4f %6.1f%% %8.1f %7s %7s %8s  %s\n", row->label, row->title,
                       row->timing.median_ms, 100.0 * kit_timing_spread(&row->timing), row->gbps, step, cumul,
                       pct, result);
            else
                printf("%-5s %-38s %9s %7s %8s %7s %7s %8s  %s\n", row->label, row->title, "-", "-", "-", "-",
                       "-", "-", result);
        } else if (opt.format == KIT_FORMAT_CSV) {
            printf("%s,\"%s\",%s,%zu,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%.3f,%s,%s,%s,%s,\"%s\",%s", row->label,
                   row->title, impl, opt.n, opt.threads, row->timing.median_ms, row->timing.q1_ms,
                   row->timing.q3_ms, row->timing.min_ms, row->timing.max_ms, row->timing.reps, row->gbps,
                   step, cumul, pct, result, gpu.name, date);
            if (opt.counters)
                csv_counters(row, &gpu, opt.n);
            putchar('\n');
        } else {
            printf("    {\"stage\": \"%s\", \"title\": \"%s\", \"result\": \"%s\", \"median_ms\": %.6f, "
                   "\"q1_ms\": %.6f, \"q3_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"gbps\": %.3f, "
                   "\"step_speedup\": \"%s\", \"cumulative_speedup\": \"%s\", \"percent_of_cub\": \"%s\"",
                   row->label, row->title, result, row->timing.median_ms, row->timing.q1_ms, row->timing.q3_ms,
                   row->timing.min_ms, row->timing.max_ms, row->gbps, step, cumul, pct);
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
    if (failures && opt.format == KIT_FORMAT_TABLE)
        fputc('\n', notes);
    for (int r = 0; r < count; r++) {
        if (rows[r].ran && rows[r].status != KIT_OK)
            fprintf(notes, "%s %s: %s\n", rows[r].label, kit_status_name(rows[r].status), rows[r].message);
        else if (!rows[r].ran)
            fprintf(notes, KIT_EMULATED ? "%s not run: an earlier emulated launch failed, and its fault is sticky as "
                                          "a GPU's would be\n"
                                        : "%s not run: an earlier failure left the GPU unusable in this process\n",
                    rows[r].label);
    }
    kit_workspace_free(&ws);
    return failures ? 1 : 0;
}

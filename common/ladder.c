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
} ladder_row;

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
    if (!a || !b || !a->ran || !b->ran || a->status != KIT_OK || b->status != KIT_OK)
        snprintf(out, size, "-");
    else if (percent)
        snprintf(out, size, "%.1f%%", 100.0 * a->gbps / b->gbps);
    else
        snprintf(out, size, "%.2fx", b->timing.median_ms / a->timing.median_ms);
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

    ladder_row rows[KIT_STAGE_COUNT + 2];
    ladder_row *stage_row[KIT_STAGE_COUNT + 1] = {NULL};
    int count = 0, lost = 0;
    const double bytes = (double)opt.n * sizeof(int);
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        if (opt.stage != 0 && opt.stage != k)
            continue;
        const kit_stage *stage = kit_find_stage(table, k);
        if (!kit_stage_released(stage)) /* not handed out yet (a student edition): no row */
            continue;
        ladder_row *row = &rows[count++];
        memset(row, 0, sizeof *row);
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
        if (status == KIT_OK && !KIT_EMULATED)
            status = kit_time_stage(stage, &ws, opt.threads, 3, opt.reps, &row->timing, &err);
        run_timed_row(row, bytes, status, &err);
        lost = context_lost(status);
    }
    ladder_row *cub = NULL, *copy = NULL;
    if (opt.baselines && !KIT_EMULATED) {
        cub = &rows[count++];
        memset(cub, 0, sizeof *cub);
        cub->label = "CUB";
        cub->title = "cub::DeviceReduce::Sum";
        if (!lost) {
            kit_status status = kit_time_cub(&ws, 3, opt.reps, &cub->timing, &err);
            run_timed_row(cub, bytes, status, &err);
            lost = context_lost(status);
        }
        copy = &rows[count++];
        memset(copy, 0, sizeof *copy);
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
               "cumulative_speedup,percent_of_cub,result,gpu,date\n");
    } else {
        printf("{\n  \"gpu\": {\"name\": \"%s\", \"sm_count\": %d, \"l2_bytes\": %d, \"peak_gbps\": %.1f},\n"
               "  \"emulated\": %s, \"date\": \"%s\", \"impl\": \"%s\", \"n\": %zu, \"threads\": %u, \"pattern\": \"%s\", "
               "\"seed\": %llu, \"reps\": %d,\n  \"rows\": [\n", gpu.name, gpu.sm_count, gpu.l2_bytes,
               gpu.peak_gbps, KIT_EMULATED ? "true" : "false", date, impl, opt.n, opt.threads, kit_pattern_name(opt.pattern),
               (unsigned long long)opt.seed, opt.reps);
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
            printf("%s,\"%s\",%s,%zu,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%.3f,%s,%s,%s,%s,\"%s\",%s\n", row->label,
                   row->title, impl, opt.n, opt.threads, row->timing.median_ms, row->timing.q1_ms,
                   row->timing.q3_ms, row->timing.min_ms, row->timing.max_ms, row->timing.reps, row->gbps,
                   step, cumul, pct, result, gpu.name, date);
        } else {
            printf("    {\"stage\": \"%s\", \"title\": \"%s\", \"result\": \"%s\", \"median_ms\": %.6f, "
                   "\"q1_ms\": %.6f, \"q3_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"gbps\": %.3f, "
                   "\"step_speedup\": \"%s\", \"cumulative_speedup\": \"%s\", \"percent_of_cub\": \"%s\"}%s\n",
                   row->label, row->title, result, row->timing.median_ms, row->timing.q1_ms, row->timing.q3_ms,
                   row->timing.min_ms, row->timing.max_ms, row->gbps, step, cumul, pct,
                   r + 1 < count ? "," : "");
        }
    }
    if (opt.format == KIT_FORMAT_JSON)
        printf("  ]\n}\n");
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

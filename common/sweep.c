/**
 * \file sweep.c
 * \brief `reduce_ladder --sweep`: stages 7 and 8, CUB, the copy and an empty launch at every
 * n from 2^10 to 2^28: where a reduction stops waiting on its launch and starts waiting on
 * memory. On an H100 (docs/results/sweep-H100-2026-11-23.json) every row took 6-7 µs at 2^10,
 * the empty launch 5.9 µs; at 2^28 stage 8 read 2962 GB/s, the copy 2989. On the CPU emulator
 * it checks stages 7 and 8 at every n up to 2^20, untimed.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ladder.h"
#include "table.h"

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
            ladder_row_ran(&rows[r], bytes, status, &err);
        *lost = ladder_context_lost(status);
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
            ladder_row_ran(&rows[r], bytes, status, &err);
            failed[r] = 1;
            *lost = ladder_context_lost(status);
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
                ladder_row_ran(&rows[r], sweep_row_bytes(&rows[r], bytes), status, &err);
                failed[r] = 1;
                *lost = ladder_context_lost(status);
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
        ladder_row_ran(&rows[r], sweep_row_bytes(&rows[r], bytes), KIT_OK, &err);
    }
    kit_workspace_free(&ws);
}

/* The sweep's text tables: n, then per row a cell of a time (µs) and its GB/s, or one cell
 * across both for a failure's name; the empty launch moves no bytes and has the time only. */
static const kit_column n_column = {"", -5};
static const kit_column time_column = {"  ", 9}, gbps_column = {" ", 7};
static const kit_column cell_column = {"  ", 17}; /* time_column, gbps_column and the gap between */
static const kit_column launch_column = {"  ", 13};
static const kit_column vs_column = {"  ", 8};

static int launch_row(const ladder_row *row)
{
    return strcmp(row->label, "launch") == 0;
}

static void print_sweep(const kit_options *opt, const kit_gpu *gpu, const sweep_size *sizes, int count)
{
    char date[32];
    kit_table_date(date, sizeof date);
    const char *impl = opt->use_labs ? "labs" : "solutions";
    const int columns = sizes[0].count;
    if (opt->format == KIT_FORMAT_JSON) {
        printf("{\"kind\": \"sweep\", ");
        kit_json_gpu(gpu);
        printf(",\n \"emulated\": %s, \"date\": \"%s\", \"impl\": \"%s\", \"threads\": %u, \"pattern\": \"%s\", "
               "\"seed\": %llu, \"turns\": %d,\n \"sizes\": [\n", KIT_EMULATED ? "true" : "false", date, impl,
               opt->threads, kit_pattern_name(opt->pattern), (unsigned long long)opt->seed, KIT_EMULATED ? 0 : SWEEP_VISITS);
        for (int i = 0; i < count; i++) {
            printf("  {\"n\": %zu, \"rows\": [\n", sizes[i].n);
            for (int r = 0; r < sizes[i].count; r++) {
                const ladder_row *row = &sizes[i].rows[r];
                const int timed = !KIT_EMULATED && row->ran && row->status == KIT_OK;
                printf("    {\"row\": \"%s\", \"title\": \"%s\", \"result\": \"%s\"", row->label, row->title,
                       ladder_row_result(row));
                kit_json_member("median_ms", timed, "%.6f", row->timing.median_ms);
                kit_json_member("q1_ms", timed, "%.6f", row->timing.q1_ms);
                kit_json_member("q3_ms", timed, "%.6f", row->timing.q3_ms);
                kit_json_member("gbps", timed && row->bytes > 0, "%.3f", row->gbps);
                kit_json_member("reps", timed, "%.0f", (double)row->timing.reps);
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
                printf("%zu,%s,\"%s\",%s,", sizes[i].n, row->label, row->title, ladder_row_result(row));
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
        kit_column cells[1 + SWEEP_ROWS]; /* n, then each row's result, the last as it is */
        cells[0] = n_column;
        for (int r = 0; r < columns; r++)
            cells[1 + r] = (kit_column){"  ", r + 1 < columns ? -16 : 0};
        kit_table_cell(&cells[0], "n");
        for (int r = 0; r < columns; r++)
            kit_table_cell(&cells[1 + r], "stage %s", sizes[0].rows[r].label);
        putchar('\n');
        for (int i = 0; i < count; i++) {
            kit_table_cell(&cells[0], "2^%d", kit_log2(sizes[i].n));
            for (int r = 0; r < sizes[i].count; r++)
                kit_table_cell(&cells[1 + r], "%s", ladder_row_result(&sizes[i].rows[r]));
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
        for (int r = 0; r < columns; r++) {
            stage8 = strcmp(first[r].label, "8") == 0 ? r : stage8;
            cub = strcmp(first[r].label, "CUB") == 0 ? r : cub;
        }
        const int vs = stage8 >= 0 && cub >= 0;
        kit_table_cell(&n_column, "n");
        for (int r = 0; r < columns; r++) {
            const char *label = first[r].label;
            kit_table_cell(launch_row(&first[r]) ? &launch_column : &cell_column, "%s%s",
                           label[0] >= '1' && label[0] <= '9' ? "stage " : "", label);
        }
        if (vs)
            kit_table_cell(&vs_column, "8 vs CUB");
        putchar('\n');
        kit_table_cell(&n_column, "%s", "");
        for (int r = 0; r < columns; r++) {
            kit_table_cell(launch_row(&first[r]) ? &launch_column : &time_column, "µs");
            if (!launch_row(&first[r]))
                kit_table_cell(&gbps_column, "GB/s");
        }
        putchar('\n');
        for (int i = 0; i < count; i++) {
            kit_table_cell(&n_column, "2^%d", kit_log2(sizes[i].n));
            for (int r = 0; r < sizes[i].count; r++) {
                const ladder_row *row = &sizes[i].rows[r];
                const int launch = launch_row(row);
                if (row->ran && row->status == KIT_OK && launch) {
                    kit_table_cell(&launch_column, "%.1f", row->timing.median_ms * 1e3);
                } else if (row->ran && row->status == KIT_OK) {
                    kit_table_cell(&time_column, "%.1f", row->timing.median_ms * 1e3);
                    kit_table_cell(&gbps_column, "%.0f", row->gbps);
                } else { /* the failure's name across the cell (the notes below say more) */
                    kit_table_cell(launch ? &launch_column : &cell_column, "%s", ladder_row_result(row));
                }
            }
            if (vs) {
                char speedup[16];
                ladder_ratio(speedup, sizeof speedup, &sizes[i].rows[stage8], &sizes[i].rows[cub], 0);
                kit_table_cell(&vs_column, "%s", speedup);
            }
            putchar('\n');
        }
        if (vs)
            printf("\n8 vs CUB: CUB's time over stage 8's (above 1x, stage 8 is the faster)\n");
    }
}

/* --sweep: every n from --from to --to (up to KIT_EMULATED_N on the emulator). */
int ladder_sweep(const kit_options *opt, const kit_stage *table, const kit_gpu *gpu)
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
            failures += ladder_row_failed(row);
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

/**
 * \file accuracy_study.c
 * \brief `reduce_ladder --accuracy`: how far float sums land from the exact sum as n grows,
 * stage 9 and CUB against the four CPU orders of accuracy.c, on random floats in [0, 1) at
 * n = 2^10, 2^12, ..., 2^26 and on the course's 1 + 2 + ... + 10000. On an H100
 * (docs/results/accuracy-H100-2026-11-23.json) the sequential sum was off by 1.1e-5 at 2^20 and
 * by 0.5 at 2^26 (the running sum stalls at 2^24 once each float added is under half its last
 * bit), stage 9 by 2.4e-8 and 2.5e-8.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accuracy.h"
#include "ladder.h"
#include "table.h"

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
        *lost = ladder_context_lost(row->stage_status);
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
        *lost |= ladder_context_lost(row->cub_status);
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

/* The text table: n, the input, the exact sum, each sum's relative error, the bound, and
 * whether the stage gave the same bits every time. */
enum { ACC_COLUMNS = 3 + ACC_SUMS + 2 };
static const kit_column columns[ACC_COLUMNS] = {{"", -9},  {" ", -13}, {" ", 16}, {" ", 10}, {" ", 10}, {" ", 10},
                                                {" ", 10}, {" ", 10},  {" ", 10}, {" ", 10}, {"  ", 0}};

static void print_accuracy(const kit_options *opt, const kit_gpu *gpu, const kit_stage *stage,
                           const accuracy_row *rows, int count)
{
    char date[32];
    kit_table_date(date, sizeof date);
    const char *impl = opt->use_labs ? "labs" : "solutions";
    const int number = stage ? stage->number : 0;
    if (opt->format == KIT_FORMAT_JSON) {
        printf("{\"kind\": \"accuracy\", ");
        kit_json_gpu(gpu);
        printf(",\n \"emulated\": %s, \"date\": \"%s\", \"impl\": \"%s\", \"stage\": %d, \"threads\": %u, \"seed\": "
               "%llu, \"stage_runs\": %d,\n \"rows\": [\n", KIT_EMULATED ? "true" : "false", date, impl, number,
               opt->threads, (unsigned long long)opt->seed, ACC_STAGE_RUNS);
        for (int i = 0; i < count; i++) {
            const accuracy_row *row = &rows[i];
            printf("  {\"n\": %zu, \"pattern\": \"%s\", \"exact\": %.17g, \"bound\": %.6g", row->n,
                   kit_pattern_name(row->pattern), row->exact, row->bound);
            for (int s = 0; s < ACC_SUMS; s++) {
                printf(", \"%s\": ", acc_keys[s]);
                kit_json_value(row->has[s], "%.6g", kit_relative_error((double)row->value[s], row->exact));
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
                kit_json_value(row->has[s], "%.9g", (double)row->value[s]);
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
    const char *const head[] = {"n", "input", "exact sum", "sequential", "pairwise", "Kahan", "Neumaier",
                                stage_head, "CUB", "bound", bits_head};
    kit_table_line(columns, ACC_COLUMNS, head);
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
        const kit_column *c = columns;
        kit_table_cell(c++, "%s", n);
        kit_table_cell(c++, "%s", row->pattern == KIT_PATTERN_POSITIONAL ? "1..10000" : "random [0,1)");
        kit_table_cell(c++, "%.10g", row->exact);
        for (int s = 0; s < ACC_SUMS; s++)
            kit_table_cell(c++, "%s", cells[s]);
        kit_table_cell(c++, "%.2e", row->bound);
        if (row->stage_status == KIT_OK)
            kit_table_cell(c++, "%s", same);
        else
            kit_table_cell(c++, "%s (%s)", same, kit_status_name(row->stage_status));
        putchar('\n');
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
int ladder_accuracy_study(const kit_options *opt, const kit_stage *table, const kit_gpu *gpu)
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

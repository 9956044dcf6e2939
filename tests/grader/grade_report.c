/**
 * \file grade_report.c
 * \brief grade_report: the summary table, results.json and a CSV row, from the result files
 * the grading tests left in a folder. No GPU and no CUDA: it only reads files.
 *
 *   grade_report --results build/grade --config tests/grader/grading.conf [--stage K | --stages 1,2,3]
 *                [--title TEXT] [--record grade.json] [--json results.json] [--csv row.csv --student NAME]
 *
 * --record writes the grade record (kit_report_record()): the one file the class tools read.
 * --previous DIR: the result files of the grading before this one (check.cmake keeps them in
 * RESULTS/previous/): the report and the feedback end with what changed since (kit_report_changes()),
 * and the record says it too ("previous" and "changes").
 * --feedback FILE: the student's feedback (kit_report_feedback()), from the same grades.
 * --status LABS: instead of the report, one line per lab (make status, kit_report_status()):
 * not started, not graded yet, changed since its last grade, fails and why, or passes.
 * --lab-hashes 1=HEX,2=HEX: with --status, the lab files' SHA-256 now (tests/grader/status.cmake),
 * compared with those check.cmake kept of the files it graded (RESULTS/stageK.lab-sha256).
 *
 * --stages names the stages of this edition (a student edition holds those handed out so
 * far): the others are left out of the report and its totals.
 *
 * `make check` runs it after CTest; tests/grade_class.py collects the CSV rows.
 *
 * Exit status: 0 when the report is written; 1 when it is written but some stage could not be
 * graded at all (no usable GPU and no CPU emulator: the report says which package to install,
 * and its points are no grade); 2 for bad usage or a file that cannot be read or written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader.h"

static int usage(void)
{
    fprintf(stderr, "usage: grade_report --results DIR [--config FILE] [--stage K | --stages 1,2,3] [--title TEXT]\n"
                    "                    [--record FILE] [--previous DIR] [--feedback FILE] [--json FILE]\n"
                    "                    [--csv FILE --student NAME] [--status LABS [--lab-hashes K=HEX,...]]\n");
    return 2;
}

/* What every view of the grades is written from. */
typedef struct view_context {
    const kit_stage_grade *grades;
    const kit_stage_grade *before; /* the grading before this one (a regrade), or NULL */
    int count;
    const char *title, *student;
} view_context;
typedef void (*view_writer)(FILE *out, const view_context *v);

static void write_feedback(FILE *out, const view_context *v)
{
    kit_report_feedback(out, v->grades, v->count, v->student);
    if (v->before) /* a regrade: what changed, as the report ends with it */
        kit_report_changes(out, v->grades, v->before, v->count);
}

static void write_record(FILE *out, const view_context *v)
{
    kit_report_record(out, v->grades, v->count, v->title, v->before);
}

static void write_gradescope_json(FILE *out, const view_context *v)
{
    kit_report_json(out, v->grades, v->count, v->title);
}

static void write_csv(FILE *out, const view_context *v)
{
    kit_report_csv_header(out);
    kit_report_csv_row(out, v->student, v->grades, v->count);
}

/* Writes one view to \p path; 0 (and one line on stderr) when the file cannot be written. */
static int write_view(const char *path, view_writer write, const view_context *v, const char *announce)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "grade_report: cannot write %s: %s\n", path, strerror(errno));
        return 0;
    }
    write(f, v);
    if (fclose(f) != 0) {
        fprintf(stderr, "grade_report: cannot write %s: %s\n", path, strerror(errno));
        return 0;
    }
    if (announce)
        printf("\n%s: %s\n", announce, path);
    return 1;
}

int main(int argc, char **argv)
{
    const char *results = NULL, *config_path = NULL, *title = "Grade report", *json = NULL, *csv = NULL;
    const char *record = NULL, *previous = NULL, *feedback = NULL, *status = NULL, *lab_hashes = NULL;
    const char *student = "student";
    int only = 0, in_edition[KIT_STAGE_COUNT + 1];
    for (int k = 0; k <= KIT_STAGE_COUNT; k++)
        in_edition[k] = 1;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            return usage();
        const char *key = argv[i], *value = argv[++i];
        if (strcmp(key, "--results") == 0)
            results = value;
        else if (strcmp(key, "--config") == 0)
            config_path = value;
        else if (strcmp(key, "--title") == 0)
            title = value;
        else if (strcmp(key, "--json") == 0)
            json = value;
        else if (strcmp(key, "--record") == 0)
            record = value;
        else if (strcmp(key, "--previous") == 0)
            previous = value;
        else if (strcmp(key, "--feedback") == 0)
            feedback = value;
        else if (strcmp(key, "--status") == 0)
            status = value;
        else if (strcmp(key, "--lab-hashes") == 0)
            lab_hashes = value;
        else if (strcmp(key, "--csv") == 0)
            csv = value;
        else if (strcmp(key, "--student") == 0)
            student = value;
        else if (strcmp(key, "--stage") == 0) {
            only = atoi(value);
            if (only < 1 || only > KIT_STAGE_COUNT) {
                fprintf(stderr, "grade_report: --stage must be 1 to %d, not '%s'\n", KIT_STAGE_COUNT, value);
                return 2;
            }
        } else if (strcmp(key, "--stages") == 0) {
            for (int k = 0; k <= KIT_STAGE_COUNT; k++)
                in_edition[k] = 0;
            const char *p = value;
            while (*p) {
                char *end;
                long k = strtol(p, &end, 10);
                if (end == p || k < 1 || k > KIT_STAGE_COUNT || (*end != ',' && *end != '\0')) {
                    fprintf(stderr, "grade_report: --stages must list stage numbers 1 to %d, such as 1,2,3, not '%s'\n",
                            KIT_STAGE_COUNT, value);
                    return 2;
                }
                in_edition[k] = 1;
                p = *end ? end + 1 : end;
            }
        } else
            return usage();
    }
    if (!results)
        return usage();
    kit_grade_config config;
    kit_error err = {KIT_OK, ""};
    if (kit_grade_config_load(&config, config_path, &err) != KIT_OK) {
        fprintf(stderr, "grade_report: %s\n", err.message);
        return 2;
    }
    kit_stage_grade grades[KIT_STAGE_COUNT];
    int count = 0;
    for (int k = 1; k <= KIT_STAGE_COUNT; k++)
        if ((only == 0 && in_edition[k]) || only == k)
            kit_grade_stage(&config, results, k, &grades[count++]);

    if (status) { /* a view of the last grades and the lab files; grades nothing */
        kit_report_status(stdout, grades, count, status, results, lab_hashes);
        return 0;
    }
    kit_report_table(stdout, grades, count, title);
    kit_stage_grade before[KIT_STAGE_COUNT];
    int any = 0;
    if (previous) { /* a regrade: what changed since the last one (its results were kept) */
        for (int i = 0; i < count; i++) {
            kit_grade_stage(&config, previous, grades[i].stage, &before[i]);
            for (int p = 0; p < KIT_PART_COUNT; p++)
                any |= before[i].parts[p].outcome != KIT_OUTCOME_MISSING;
        }
        if (any)
            kit_report_changes(stdout, grades, before, count);
    }
    /* The files: each a view of the same grades. */
    const view_context context = {grades, any ? before : NULL, count, title, student};
    const struct {
        const char *path;
        view_writer write;
        const char *announce; /* the report's last lines name the files a person opens */
    } views[] = {{feedback, write_feedback, "Feedback for the student"},
                 {record, write_record, NULL},
                 {json, write_gradescope_json, "Gradescope results"},
                 {csv, write_csv, NULL}};
    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++)
        if (views[v].path && !write_view(views[v].path, views[v].write, &context, views[v].announce))
            return 2;
    /* A stage nothing could grade (kit_grade_stage marks it "not graded: ...", with the
     * package to install): the report is written, but it is not a grade. */
    int ungraded = 0;
    const char *why = "";
    for (int i = 0; i < count; i++) {
        const kit_result *c = &grades[i].parts[KIT_PART_CORRECTNESS];
        if (c->outcome == KIT_OUTCOME_FAIL && strncmp(c->message, "not graded: ", 12) == 0 &&
            grades[i].parts[KIT_PART_EMULATED].outcome == KIT_OUTCOME_MISSING) {
            ungraded++;
            why = c->message;
        }
    }
    if (ungraded) {
        fflush(stdout); /* after the report, not before it */
        fprintf(stderr, "grade_report: %d stage(s) %s\n", ungraded, why);
        return 1;
    }
    return 0;
}

/**
 * \file results.c
 * \brief Result files: how each grading test tells the report what it found (no CUDA here).
 *
 * One file per stage and part, DIR/stageK.PART, of `key=value` lines: status (pass, fail,
 * skip), message, and for the speedup case achieved, required, reference and spread (and the
 * medians timed and the input's bytes, for GB/s). Only
 * kit_grade writes them (its parts, and its sanitize and races subcommands); grade_report
 * reads them into the grade record, grade.json (report.c), which every view comes from. Files
 * are written to a temporary name and renamed, so the report never reads half a file.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grader.h"

static const char *const outcome_names[] = {"missing", "pass", "fail", "skip"};

static void result_path(char *out, size_t size, const char *dir, int stage, kit_part part)
{
    snprintf(out, size, "%s/stage%d.%s", dir, stage, kit_part_name(part));
}

/* A message on one line: newlines become spaces. */
static void write_line(FILE *f, const char *key, const char *value)
{
    fprintf(f, "%s=", key);
    for (const char *p = value; *p; p++)
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
    fputc('\n', f);
}

int kit_result_write(const char *dir, int stage, kit_part part, const kit_result *r)
{
    if (!dir || !*dir)
        return 1;
    char path[4096], temporary[4200];
    result_path(path, sizeof path, dir, stage, part);
    snprintf(temporary, sizeof temporary, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(temporary, "w");
    if (!f)
        return 0;
    write_line(f, "status", outcome_names[r->outcome]);
    write_line(f, "message", r->message);
    if (part == KIT_PART_SPEEDUP && r->required > 0)
        fprintf(f, "achieved=%.4f\nrequired=%.4f\nreference=%.4f\nspread=%.4f\n", r->achieved, r->required,
                r->reference, r->spread);
    if (r->not_built)
        fprintf(f, "not_built=1\n");
    if (part == KIT_PART_SPEEDUP && r->timed_n > 0)
        fprintf(f, "timed_n=%zu\ntimed_threads=%u\ntimed_seed=%llu\n", r->timed_n, r->timed_threads, r->timed_seed);
    if (part == KIT_PART_SPEEDUP && r->student_ms > 0) /* the times themselves: GB/s for the leaderboards */
        fprintf(f, "student_ms=%.6f\nreference_ms=%.6f\nbytes=%.0f\n", r->student_ms, r->reference_ms, r->bytes);
    if (r->gpu[0])
        write_line(f, "gpu", r->gpu);
    int ok = fclose(f) == 0;
    return ok && rename(temporary, path) == 0;
}

void kit_result_read(const char *dir, int stage, kit_part part, kit_result *r)
{
    memset(r, 0, sizeof *r);
    char path[4096];
    result_path(path, sizeof path, dir, stage, part);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *value = strchr(line, '=');
        if (!value)
            continue;
        *value++ = '\0';
        if (strcmp(line, "status") == 0) {
            for (int o = 0; o < 4; o++)
                if (strcmp(value, outcome_names[o]) == 0)
                    r->outcome = (kit_outcome)o;
        } else if (strcmp(line, "message") == 0) {
            snprintf(r->message, sizeof r->message, "%s", value);
        } else if (strcmp(line, "gpu") == 0) {
            snprintf(r->gpu, sizeof r->gpu, "%s", value);
        } else if (strcmp(line, "achieved") == 0) {
            r->achieved = atof(value);
        } else if (strcmp(line, "required") == 0) {
            r->required = atof(value);
        } else if (strcmp(line, "reference") == 0) {
            r->reference = atof(value);
        } else if (strcmp(line, "spread") == 0) {
            r->spread = atof(value);
        } else if (strcmp(line, "timed_n") == 0) {
            r->timed_n = (size_t)strtoull(value, NULL, 10);
        } else if (strcmp(line, "not_built") == 0) {
            r->not_built = atoi(value) == 1;
        } else if (strcmp(line, "timed_threads") == 0) {
            r->timed_threads = (unsigned)strtoul(value, NULL, 10);
        } else if (strcmp(line, "timed_seed") == 0) {
            r->timed_seed = strtoull(value, NULL, 10);
        } else if (strcmp(line, "student_ms") == 0) {
            r->student_ms = atof(value);
        } else if (strcmp(line, "reference_ms") == 0) {
            r->reference_ms = atof(value);
        } else if (strcmp(line, "bytes") == 0) {
            r->bytes = atof(value);
        }
    }
    fclose(f);
}

void kit_result_clear(const char *dir, int stage)
{
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        if (stage != 0 && stage != k)
            continue;
        for (int p = 0; p < KIT_PART_COUNT; p++) {
            char path[4096];
            result_path(path, sizeof path, dir, k, (kit_part)p);
            remove(path);
        }
    }
}

/**
 * \file config.c
 * \brief The grading rules file: `key = value` lines, `#` comments (no CUDA here).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader.h"
#include "options.h"

static const char *const part_names[KIT_PART_COUNT] = {
    "correctness", "speedup", "racecheck", "synccheck", "memcheck", "initcheck", "emulated-correctness",
    "emulated-races", "emulated-speed",
};

const char *kit_part_name(kit_part part)
{
    return (unsigned)part < KIT_PART_COUNT ? part_names[part] : "unknown";
}

void kit_grade_config_default(kit_grade_config *c)
{
    memset(c, 0, sizeof *c);
    c->speedup_fraction = 0.8;
    c->max_spread = 0.10;
    c->speedup_rounds = 15;
    c->speedup_reps = 5;
    c->speedup_attempts = 3;
    c->speedup_n = (size_t)1 << 26;
    c->speedup_threads = 256;
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        c->points[k][0] = 6;
        c->points[k][1] = 2;
        c->points[k][2] = 2;
    }
}

/* A number that fills the whole text, within [lo, hi]. */
static int parse_number(const char *text, double lo, double hi, double *value)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v >= lo && v <= hi))
        return 0;
    *value = v;
    return 1;
}

/* A whole number from 1 to 1000. */
static int parse_count(const char *text, int *value)
{
    double v = 0;
    if (!parse_number(text, 1, 1000, &v) || v != (int)v)
        return 0;
    *value = (int)v;
    return 1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

static const char *const point_parts[3] = {"correctness", "speedup", "sanitizer"};

/* Applies one `key = value`; returns 0 and fills err on a bad key or value. */
static int apply(kit_grade_config *c, const char *key, const char *value, const char *where, kit_error *err)
{
    double v = 0;
    int stage = 0, used = 0;
    if (strcmp(key, "speedup.fraction") == 0) {
        if (!parse_number(value, 0.0, 10.0, &v))
            goto bad_value;
        c->speedup_fraction = v;
    } else if (strcmp(key, "speedup.max_spread") == 0) {
        if (!parse_number(value, 0.0, 1.0, &v))
            goto bad_value;
        c->max_spread = v;
    } else if (strcmp(key, "speedup.rounds") == 0) {
        if (!parse_count(value, &c->speedup_rounds))
            goto bad_value;
    } else if (strcmp(key, "speedup.reps") == 0) {
        if (!parse_count(value, &c->speedup_reps))
            goto bad_value;
    } else if (strcmp(key, "speedup.attempts") == 0) {
        if (!parse_count(value, &c->speedup_attempts))
            goto bad_value;
    } else if (strcmp(key, "speedup.n") == 0) {
        size_t n = 0;
        kit_error ignored;
        if (kit_parse_count(value, key, &n, &ignored) != KIT_OK || n < 1 || n > KIT_MAX_N)
            goto bad_value;
        c->speedup_n = n;
    } else if (strcmp(key, "speedup.threads") == 0) {
        if (!parse_number(value, 64, 1024, &v) || v != (int)v || ((unsigned)v & ((unsigned)v - 1)) != 0)
            goto bad_value;
        c->speedup_threads = (unsigned)v;
    } else if (strcmp(key, "emulated.full_marks") == 0) {
        if (strcmp(value, "keep") == 0)
            c->emulated_scale = 0;
        else if (strcmp(value, "scale") == 0)
            c->emulated_scale = 1;
        else
            goto bad_value;
    } else if (strncmp(key, "points.", 7) == 0 ||
               (sscanf(key, "stage%d.%n", &stage, &used) == 1 && used > 0 && stage >= 1 &&
                stage <= KIT_STAGE_COUNT)) {
        const char *rest = stage ? key + used : key;
        if (stage && strcmp(rest, "latency_n") == 0) {
            size_t n = 0;
            kit_error ignored;
            if (strcmp(value, "0") == 0)
                n = 0; /* no second speed case */
            else if (kit_parse_count(value, key, &n, &ignored) != KIT_OK || n < 1 || n > KIT_MAX_N)
                goto bad_value;
            c->latency_n[stage] = n;
            return 1;
        }
        if (stage && strcmp(rest, "max_sectors_per_request") == 0) {
            if (!parse_number(value, 0.0, 1000.0, &v) || (v > 0 && v < 1))
                goto bad_value; /* below the reference's own would fail the reference */
            c->max_sectors_per_request[stage] = v;
            return 1;
        }
        if (stage && strcmp(rest, "min_speedup") == 0) {
            if (!parse_number(value, 0.0, 1000.0, &v))
                goto bad_value;
            c->min_speedup[stage] = v;
            return 1;
        }
        if (strncmp(rest, "points.", 7) != 0)
            goto bad_key;
        int part = -1;
        for (int p = 0; p < 3; p++)
            if (strcmp(rest + 7, point_parts[p]) == 0)
                part = p;
        if (part < 0)
            goto bad_key;
        if (!parse_number(value, 0.0, 1e6, &v))
            goto bad_value;
        for (int k = 1; k <= KIT_STAGE_COUNT; k++)
            if (stage == 0 || stage == k)
                c->points[k][part] = v;
    } else {
        goto bad_key;
    }
    return 1;
bad_key:
    kit_fail(err, KIT_BAD_ARGUMENT, "%s: unknown key '%s' (see tests/grader/grading.conf for the keys)", where, key);
    return 0;
bad_value:
    kit_fail(err, KIT_BAD_ARGUMENT, "%s: '%s' is not a valid value for %s", where, value, key);
    return 0;
}

kit_status kit_grade_config_parse(kit_grade_config *c, const char *text, const char *source, kit_error *err)
{
    int line_number = 0;
    const char *line = text;
    while (line && *line) {
        line_number++;
        const char *next = strchr(line, '\n');
        size_t length = next ? (size_t)(next - line) : strlen(line);
        char buffer[512];
        char where[600];
        snprintf(where, sizeof where, "%s:%d", source, line_number);
        if (length >= sizeof buffer)
            return kit_fail(err, KIT_BAD_ARGUMENT, "%s: line too long", where);
        memcpy(buffer, line, length);
        buffer[length] = '\0';
        char *hash = strchr(buffer, '#');
        if (hash)
            *hash = '\0';
        char *content = trim(buffer);
        if (*content) {
            char *equals = strchr(content, '=');
            if (!equals)
                return kit_fail(err, KIT_BAD_ARGUMENT, "%s: expected 'key = value', got '%s'", where, content);
            *equals = '\0';
            if (!apply(c, trim(content), trim(equals + 1), where, err))
                return KIT_BAD_ARGUMENT;
        }
        line = next ? next + 1 : NULL;
    }
    return KIT_OK;
}

kit_status kit_grade_config_load(kit_grade_config *c, const char *path, kit_error *err)
{
    kit_grade_config_default(c);
    if (!path || !*path)
        return KIT_OK;
    FILE *f = fopen(path, "rb");
    if (!f)
        return kit_fail(err, KIT_BAD_ARGUMENT, "cannot read the grading config %s: %s", path, strerror(errno));
    char *text = NULL;
    size_t size = 0, used = 0;
    for (;;) {
        if (used + 4096 + 1 > size) {
            size = 2 * size + 8192;
            char *bigger = realloc(text, size);
            if (!bigger) {
                free(text);
                fclose(f);
                return kit_fail(err, KIT_OUT_OF_MEMORY, "no memory to read %s", path);
            }
            text = bigger;
        }
        size_t got = fread(text + used, 1, 4096, f);
        used += got;
        if (got == 0)
            break;
    }
    fclose(f);
    text[used] = '\0';
    kit_status status = kit_grade_config_parse(c, text, path, err);
    free(text);
    return status;
}

/**
 * \file report.c
 * \brief Scores and reports: the grade record (grade.json), and its views: the summary table,
 * Gradescope's results.json and the class CSV (no CUDA here).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "grader.h"

/* tests/grader/gpu_or_emulator.c (the test grading_has_a_gpu_or_the_cpu_emulator) leaves this file in
 * the results folder when the build has neither a usable GPU nor the CPU emulator: one line,
 * "not graded: ...", naming the package to install. */
#define NOT_GRADED_FILE "not-graded.txt"

static int read_not_graded(const char *dir, char *out, size_t size)
{
    out[0] = '\0';
    if (!dir || !dir[0])
        return 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/" NOT_GRADED_FILE, dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (!fgets(out, (int)size, f))
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\r\n")] = '\0';
    return out[0] != '\0';
}

/* A stage nothing could grade: its correctness says so ("not graded: ..."), as a failure. */
static int not_graded(const kit_stage_grade *g)
{
    const kit_result *c = &g->parts[KIT_PART_CORRECTNESS];
    return c->outcome == KIT_OUTCOME_FAIL && strncmp(c->message, "not graded: ", 12) == 0 &&
           g->parts[KIT_PART_EMULATED].outcome == KIT_OUTCOME_MISSING;
}

void kit_picture_words(const char *drawn, size_t n, unsigned threads, const char *pattern, char *out, size_t size)
{
    char run[160];
    snprintf(run, sizeof run, "n = %zu, %u threads, pattern %s", n, threads, pattern);
    if (strcmp(drawn, "first") == 0)
        snprintf(out, size, "your kernel in the failing case (%s), which went wrong again when drawn on the CPU "
                 "emulator", run);
    else if (strcmp(drawn, "smallest") == 0)
        snprintf(out, size, "your kernel in the smallest failing case small enough to draw (%s), which went wrong "
                 "again when drawn on the CPU emulator", run);
    else if (strcmp(drawn, "like") == 0)
        snprintf(out, size, "your kernel at a failing case's block size, pattern and seed, at the largest n a "
                 "picture holds (%s), which went wrong too when drawn on the CPU emulator", run);
    else if (strcmp(drawn, "none") == 0)
        snprintf(out, size, "your kernel at %s, which went wrong when drawn on the CPU emulator", run);
    else if (strcmp(drawn, "right") == 0)
        snprintf(out, size, "your kernel at %s, which gave the right answer when drawn on the CPU emulator: not a "
                 "failing case, so it may not show what went wrong", run);
    else
        snprintf(out, size, "your kernel at %s on the CPU emulator", run);
}

/* kit_grade leaves DIR/stageK.picture after an emulated correctness failure of a lab (grade.c,
 * picture_of_the_failure()): one line, the page's path, n, threads, pattern and what the drawn
 * run was (kit_picture_words()), tab-separated. The failure's message then ends with where the
 * picture is, so that every view says it. */
static void add_picture(const char *dir, int stage, kit_result *emulated)
{
    if (!dir || !dir[0] || emulated->outcome != KIT_OUTCOME_FAIL)
        return;
    char path[4096], line[4096 + 128];
    snprintf(path, sizeof path, "%s/stage%d.picture", dir, stage);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    char page[4096] = "", pattern[64] = "", drawn[32] = "";
    unsigned long long n = 0;
    unsigned threads = 0;
    if (!got || sscanf(line, "%4095[^\t]\t%llu\t%u\t%63[^\t\n]\t%31s", page, &n, &threads, pattern, drawn) < 4)
        return; /* a note of an older grade has no fifth field: what it drew is not known */
    struct stat st;
    if (stat(page, &st) != 0)
        return; /* removed since */
    size_t used = strlen(emulated->message);
    const char *stop = used && emulated->message[used - 1] != '.' ? "." : "";
    char note[4096 + 1024], words[512];
    kit_picture_words(drawn, (size_t)n, threads, pattern, words, sizeof words);
    snprintf(note, sizeof note, "%s Picture of %s (what every thread did, beside the reference): open %s in a "
             "browser.", stop, words, page);
    size_t room = sizeof emulated->message - 1, note_length = strlen(note);
    if (note_length >= room)
        return;
    if (used + note_length > room) /* the diagnosis gives way to the picture's line */
        used = room - note_length;
    snprintf(emulated->message + used, sizeof emulated->message - used, "%s", note);
}

void kit_grade_stage(const kit_grade_config *config, const char *dir, int stage, kit_stage_grade *g)
{
    memset(g, 0, sizeof *g);
    g->stage = stage;
    for (int p = 0; p < KIT_PART_COUNT; p++)
        kit_result_read(dir, stage, (kit_part)p, &g->parts[p]);
    add_picture(dir, stage, &g->parts[KIT_PART_EMULATED]);
    char advice_path[4096];
    snprintf(advice_path, sizeof advice_path, "%s/stage%d.advice", dir, stage);
    FILE *advice = fopen(advice_path, "r");
    if (advice) {
        if (!fgets(g->advice, sizeof g->advice, advice))
            g->advice[0] = '\0';
        g->advice[strcspn(g->advice, "\n")] = '\0';
        fclose(advice);
    }
    /* Neither the GPU nor the emulator graded it, and the build has neither: say so, per stage. */
    kit_result *c = &g->parts[KIT_PART_CORRECTNESS];
    if (c->outcome != KIT_OUTCOME_PASS && c->outcome != KIT_OUTCOME_FAIL &&
        g->parts[KIT_PART_EMULATED].outcome == KIT_OUTCOME_MISSING &&
        read_not_graded(dir, c->message, sizeof c->message))
        c->outcome = KIT_OUTCOME_FAIL;
    /* A part ran when it passed or failed. Where a GPU and the CPU emulator both graded the
     * stage, both must pass: the emulator sees what the GPU's tools miss (a static shared array
     * overflowing into dynamic shared memory, write races on global memory). */
#define RAN(p) (g->parts[p].outcome == KIT_OUTCOME_PASS || g->parts[p].outcome == KIT_OUTCOME_FAIL)
#define PASSED(p) (g->parts[p].outcome == KIT_OUTCOME_PASS)
    int gpu_correctness = RAN(KIT_PART_CORRECTNESS), emulated_correctness = RAN(KIT_PART_EMULATED);
    /* A file nvcc builds and the emulator's compiler cannot: a valid GPU solution never loses
     * points to the emulator. The GPU's grade stands alone, and the report says why. */
    int emulator_could_not_build = gpu_correctness && g->parts[KIT_PART_EMULATED].not_built;
    if (emulator_could_not_build) {
        emulated_correctness = 0;
        g->emulator_not_built = 1;
        /* not run, in every view (the table's cells, JSON): the note says why */
        g->parts[KIT_PART_EMULATED].outcome = KIT_OUTCOME_SKIP;
        if (g->parts[KIT_PART_EMULATED_RACES].outcome == KIT_OUTCOME_FAIL)
            g->parts[KIT_PART_EMULATED_RACES].outcome = KIT_OUTCOME_SKIP;
    }
    g->emulated_correctness = !gpu_correctness && emulated_correctness;
    int correct = (gpu_correctness || emulated_correctness) && (!gpu_correctness || PASSED(KIT_PART_CORRECTNESS)) &&
                  (!emulated_correctness || PASSED(KIT_PART_EMULATED));
    /* The emulator's load rule (stage 15) earns nothing itself, but the speed points need it to
     * have run and passed: a rule that could not run (the emulator could not build the file,
     * or count its loads) must not be a way round it. */
    int fast = PASSED(KIT_PART_SPEEDUP) &&
               (config->max_sectors_per_request[stage] > 0 ? PASSED(KIT_PART_EMULATED_SPEED)
                                                           : !RAN(KIT_PART_EMULATED_SPEED) || PASSED(KIT_PART_EMULATED_SPEED));
    g->load_rule_missing = PASSED(KIT_PART_SPEEDUP) && config->max_sectors_per_request[stage] > 0 &&
                           !RAN(KIT_PART_EMULATED_SPEED);
    int sanitizer_ran = 0, sanitizer_clean = 1;
    for (int p = KIT_PART_RACECHECK; KIT_PART_IS_SANITIZER(p); p++) {
        sanitizer_ran |= RAN(p);
        sanitizer_clean &= PASSED(p);
    }
    int races_ran = RAN(KIT_PART_EMULATED_RACES) && !emulator_could_not_build;
    g->emulated_races = !sanitizer_ran && races_ran;
    int clean = (sanitizer_ran || races_ran) && (!sanitizer_ran || sanitizer_clean) &&
                (!races_ran || PASSED(KIT_PART_EMULATED_RACES));
#undef RAN
#undef PASSED
    const int earned[3] = {correct, correct && fast, correct && clean};
    for (int i = 0; i < 3; i++) {
        g->part_max[i] = config->points[stage][i];
        g->part_score[i] = earned[i] ? g->part_max[i] : 0;
        g->score += g->part_score[i];
        g->max_score += g->part_max[i];
    }
    g->passed = correct && fast && clean;
    /* Without a GPU the speed is not measured: the most a stage can reach is the rest, unless
     * the configuration scales the emulated grade to full marks (emulated.full_marks = scale). */
    const kit_outcome speed = g->parts[KIT_PART_SPEEDUP].outcome;
    const int speed_unmeasured = g->emulated_correctness && speed != KIT_OUTCOME_PASS && speed != KIT_OUTCOME_FAIL;
    g->reachable = speed_unmeasured ? g->max_score - g->part_max[1] : g->max_score;
    if (speed_unmeasured && config->emulated_scale && g->reachable > 0) {
        const double factor = g->max_score / g->reachable;
        g->score = 0;
        for (int i = 0; i < 3; i++) {
            g->part_max[i] = i == 1 ? 0 : g->part_max[i] * factor;
            g->part_score[i] = i == 1 ? 0 : g->part_score[i] * factor;
            g->score += g->part_score[i];
        }
        g->reachable = g->max_score;
    }
}

static const char *outcome_word(kit_outcome o)
{
    return o == KIT_OUTCOME_PASS ? "pass" : o == KIT_OUTCOME_FAIL ? "FAIL" : o == KIT_OUTCOME_SKIP ? "skipped" : "not run";
}

/* "clean (4 tools)", "FAIL: racecheck memcheck", "skipped", "not run", "no race (emulated)" */
static void sanitizer_cell(char *out, size_t size, const kit_stage_grade *g)
{
    /* A hang (the stage did not finish) stops the emulator's race check: not a race. */
    const kit_result *races = &g->parts[KIT_PART_EMULATED_RACES];
    int hung = races->outcome == KIT_OUTCOME_FAIL && strstr(races->message, "did not finish") != NULL;
    /* A stage that wrote no result is not checked for races (grade.c): no race to name. */
    int unchecked = races->outcome == KIT_OUTCOME_FAIL && strncmp(races->message, "not checked", 11) == 0;
    if (g->emulated_races) {
        snprintf(out, size, "%s", races->outcome == KIT_OUTCOME_PASS ? "no race (emulated)"
                                  : hung      ? "FAIL: hang (emulated)"
                                  : unchecked ? "not checked (no result)"
                                              : "FAIL: race (emulated)");
        return;
    }
    int pass = 0, fail = 0, skip = 0;
    for (int p = KIT_PART_RACECHECK; KIT_PART_IS_SANITIZER(p); p++) {
        pass += g->parts[p].outcome == KIT_OUTCOME_PASS;
        fail += g->parts[p].outcome == KIT_OUTCOME_FAIL;
        skip += g->parts[p].outcome == KIT_OUTCOME_SKIP;
    }
    if (fail) {
        snprintf(out, size, "FAIL:");
        for (int p = KIT_PART_RACECHECK; KIT_PART_IS_SANITIZER(p); p++)
            if (g->parts[p].outcome == KIT_OUTCOME_FAIL) {
                size_t used = strlen(out);
                snprintf(out + used, size - used, " %s", kit_part_name((kit_part)p));
            }
    } else if (g->parts[KIT_PART_EMULATED_RACES].outcome == KIT_OUTCOME_FAIL) {
        snprintf(out, size, hung ? "FAIL: hang (emulated)" : unchecked ? "not checked (no result)" : "FAIL: race (emulated)");
    } else if (pass == KIT_SANITIZER_PARTS) {
        snprintf(out, size, "clean (4 tools%s)",
                 g->parts[KIT_PART_EMULATED_RACES].outcome == KIT_OUTCOME_PASS ? ", emulator" : "");
    } else if (skip) {
        snprintf(out, size, "skipped");
    } else if (pass) {
        snprintf(out, size, "%d of 4 tools ran", pass);
    } else {
        snprintf(out, size, "not run");
    }
}

/* The correctness result that counts: the GPU's, or the emulator's where no GPU graded it. */
static const kit_result *correctness_of(const kit_stage_grade *g)
{
    if (!g->emulated_correctness && g->parts[KIT_PART_CORRECTNESS].outcome == KIT_OUTCOME_PASS &&
        g->parts[KIT_PART_EMULATED].outcome == KIT_OUTCOME_FAIL)
        return &g->parts[KIT_PART_EMULATED]; /* the failure is the news */
    return &g->parts[g->emulated_correctness ? KIT_PART_EMULATED : KIT_PART_CORRECTNESS];
}

/* "pass", "FAIL", "pass (emulated)", "FAIL (emulator)": the GPU passed it, the emulator did not */
static void correctness_cell(char *out, size_t size, const kit_stage_grade *g)
{
    if (!g->emulated_correctness && g->parts[KIT_PART_CORRECTNESS].outcome == KIT_OUTCOME_PASS &&
        g->parts[KIT_PART_EMULATED].outcome == KIT_OUTCOME_FAIL)
        snprintf(out, size, "FAIL (emulator)");
    else if (not_graded(g))
        snprintf(out, size, "not graded");
    else
        snprintf(out, size, "%s%s", outcome_word(correctness_of(g)->outcome),
                 g->emulated_correctness ? " (emulated)" : "");
}

/* "pass 2.07x / 1.66x", "not measured (no GPU)", "FAIL (emulator: loads)": the GPU's clock passed it,
 * or there was none, and the emulator's load rule failed it */
static void speedup_cell(char *out, size_t size, const kit_stage_grade *g)
{
    const kit_result *r = &g->parts[KIT_PART_SPEEDUP];
    const int emulated = g->emulated_correctness;
    if (g->parts[KIT_PART_EMULATED_SPEED].outcome == KIT_OUTCOME_FAIL && r->outcome != KIT_OUTCOME_FAIL)
        snprintf(out, size, "FAIL (emulator: loads)");
    else if (g->load_rule_missing)
        snprintf(out, size, "FAIL (no load rule ran)");
    else if (emulated && r->outcome != KIT_OUTCOME_PASS && r->outcome != KIT_OUTCOME_FAIL)
        snprintf(out, size, "not measured (no GPU)");
    else if (r->required > 0 && r->achieved > 0)
        snprintf(out, size, "%s %.2fx / %.2fx", outcome_word(r->outcome), r->achieved, r->required);
    else
        snprintf(out, size, "%s", outcome_word(r->outcome));
}

static const char *gpu_of(const kit_stage_grade *grades, int count)
{
    for (int i = 0; i < count; i++)
        for (int p = 0; p < KIT_PART_COUNT; p++)
            if (grades[i].parts[p].gpu[0])
                return grades[i].parts[p].gpu;
    return "no GPU";
}

void kit_report_table(FILE *out, const kit_stage_grade *grades, int count, const char *title)
{
    double score = 0, max_score = 0;
    fprintf(out, "\n%s, on %s\n\n", title, gpu_of(grades, count));
    /* 80 columns: the widest cells are "FAIL (no load rule ran)", "clean (4 tools, emulator)" and
     * "7.5 / 10". Each stage's problem (stages.def, as the record's "problem") heads the rows of
     * its stages: a line of its own where it changes, since a name can be long ("element-wise min
     * of 3x3 int matrices stored as 9 planes"). */
    fprintf(out, "%-5s %-15s %-23s %-25s %s\n", "stage", "correctness", "speedup / required", "sanitizer", "points");
    int emulated = 0;
    const char *problem_above = NULL;
    for (int i = 0; i < count; i++) {
        const kit_stage_grade *g = &grades[i];
        const char *problem = kit_problem_name(kit_grade_problem(g->stage));
        if (!problem_above || strcmp(problem, problem_above) != 0)
            fprintf(out, "%s:\n", problem);
        problem_above = problem;
        char correct[40], speed[64], sanitizer[96];
        correctness_cell(correct, sizeof correct, g);
        speedup_cell(speed, sizeof speed, g);
        sanitizer_cell(sanitizer, sizeof sanitizer, g);
        fprintf(out, "%-5d %-15s %-23s %-25s %g / %g\n", g->stage, correct, speed, sanitizer, g->score, g->max_score);
        score += g->score;
        max_score += g->max_score;
        emulated += g->emulated_correctness || g->emulated_races;
    }
    double reachable = 0;
    for (int i = 0; i < count; i++)
        reachable += grades[i].reachable;
    char note[96] = ""; /* in the row's empty cells, so that it stays within 80 columns */
    if (reachable < max_score)
        snprintf(note, sizeof note, "(%g reachable here: speed is graded on a GPU)", reachable);
    char points[64];
    snprintf(points, sizeof points, "%g / %g", score, max_score);
    int width = 80 - 5 - 2 - (int)strlen(points); /* in the points column, or left of it where wider */
    fprintf(out, "%-5s %-*s %s\n", "total", width < 65 ? width : 65, note, points);
    /* The speed cases' n and seed are drawn for each run: say which were timed. */
    int timed = 0;
    for (int i = 0; i < count; i++) {
        const kit_result *r = &grades[i].parts[KIT_PART_SPEEDUP];
        if (r->timed_n == 0)
            continue;
        fprintf(out, "%s stage %d n = %zu", timed++ ? ";" : "\nTimed (n, block size and seed drawn for this run):",
                grades[i].stage, r->timed_n);
        if (r->timed_threads)
            fprintf(out, " at %u threads", r->timed_threads);
        fprintf(out, " seed %llu", r->timed_seed);
    }
    if (timed)
        fprintf(out, "\n");

    int notes = 0;
    for (int i = 0; i < count; i++)
        for (int p = 0; p < KIT_PART_COUNT; p++) {
            const kit_result *r = &grades[i].parts[p];
            if (r->outcome == KIT_OUTCOME_PASS || r->outcome == KIT_OUTCOME_SKIP || !r->message[0])
                continue;
            if (grades[i].emulator_not_built && (p == KIT_PART_EMULATED || p == KIT_PART_EMULATED_RACES))
                continue; /* said below, as a note: it costs no points */
            /* "not timed, because the stage is not correct": the correctness note says why. */
            if (p == KIT_PART_SPEEDUP && strncmp(r->message, "not timed", 9) == 0 &&
                grades[i].parts[KIT_PART_CORRECTNESS].outcome == KIT_OUTCOME_FAIL)
                continue;
            if (notes++ == 0)
                fprintf(out, "\nWhat to fix:\n");
            fprintf(out, "- stage %d %s: %s\n", grades[i].stage, kit_part_name((kit_part)p), r->message);
        }
    for (int i = 0; i < count; i++)
        if (grades[i].emulator_not_built)
            fprintf(out, "\nNote: stage %d's file compiles with nvcc but not on the kit's CPU emulator, so the GPU "
                    "graded it alone (%s): %s\n", grades[i].stage,
                    grades[i].load_rule_missing ? "its load rule, which only the emulator counts, could not run: no "
                                                  "speed points"
                                                : "no points lost",
                    grades[i].parts[KIT_PART_EMULATED].message);
    for (int i = 0; i < count; i++)
        if (grades[i].load_rule_missing && !grades[i].emulator_not_built)
            fprintf(out, "\nNote: stage %d earns its speed points only where the CPU emulator's load rule ran and "
                    "passed, and it did not run here (is the emulator built?)\n", grades[i].stage);
    int advised = 0;
    for (int i = 0; i < count; i++)
        if (grades[i].advice[0])
            fprintf(out, "%s- stage %d: %s\n",
                    advised++ ? "" : "\nAdvice from the CPU emulator (no points: what would be slow on a GPU):\n",
                    grades[i].stage, grades[i].advice);
    int skipped = 0, unsanitized = 0, ungraded = 0;
    const char *why = "", *ungraded_why = "";
    for (int i = 0; i < count; i++) {
        const kit_result *c = &grades[i].parts[KIT_PART_CORRECTNESS];
        if (not_graded(&grades[i])) {
            ungraded++;
            ungraded_why = c->message + 12; /* after "not graded: " */
        }
        if (c->outcome == KIT_OUTCOME_SKIP && !grades[i].emulated_correctness) {
            skipped++;
            why = c->message;
        }
        unsanitized += c->outcome != KIT_OUTCOME_SKIP && !not_graded(&grades[i]) && !grades[i].emulated_correctness &&
                       !grades[i].emulated_races &&
                       grades[i].parts[KIT_PART_RACECHECK].outcome == KIT_OUTCOME_MISSING;
    }
    if (emulated)
        fprintf(out, "\nNo usable GPU: correctness (sizes up to 2^20 + 7) and races (ThreadSanitizer, thread orders) "
                "of %d stage(s) were checked on the kit's CPU emulator, marked (emulated). They earn the correctness "
                "and sanitizer points; speed was not measured and earns none. Grade on a machine with an NVIDIA GPU for "
                "the full grade.\n", emulated);
    if (skipped)
        fprintf(out, "\n%d stage(s) were not graded (%s); skipped parts score 0 points.\n", skipped,
                strncmp(why, "not graded: ", 12) == 0 ? why + 12 : why);
    if (ungraded)
        fprintf(out, "\n%d stage(s) were not graded: %s. Nothing ran them: these points are not a grade.\n",
                ungraded, ungraded_why);
    if (unsanitized)
        fprintf(out, "\nThe compute-sanitizer checks did not run for %d stage(s): was compute-sanitizer found when "
                "the build was configured? Parts that did not run score 0 points.\n", unsanitized);
}

/* A JSON string literal. */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void json_test(FILE *out, int *first, const char *name, double score, double max_score, int passed,
                      const char *output)
{
    fprintf(out, "%s    {\"name\": ", *first ? "" : ",\n");
    json_string(out, name);
    fprintf(out, ", \"score\": %g, \"max_score\": %g, \"status\": \"%s\", \"output\": ", score, max_score,
            passed ? "passed" : "failed");
    json_string(out, output);
    fputc('}', out);
    *first = 0;
}

void kit_report_json(FILE *out, const kit_stage_grade *grades, int count, const char *title)
{
    double score = 0;
    for (int i = 0; i < count; i++)
        score += grades[i].score;
    fprintf(out, "{\n  \"score\": %g,\n  \"output\": ", score);
    char header[512];
    snprintf(header, sizeof header, "%s, on %s", title, gpu_of(grades, count));
    json_string(out, header);
    fprintf(out, ",\n  \"tests\": [\n");
    int first = 1;
    for (int i = 0; i < count; i++) {
        const kit_stage_grade *g = &grades[i];
        char name[64], text[2400], sanitizer[96];
        const kit_result *c = correctness_of(g), *s = &g->parts[KIT_PART_SPEEDUP];
        char cell[40];
        correctness_cell(cell, sizeof cell, g);
        snprintf(name, sizeof name, "stage %d: correctness", g->stage);
        if (not_graded(g)) /* the message says "not graded: ..." itself */
            snprintf(text, sizeof text, "%s", c->message);
        else
            snprintf(text, sizeof text, "%s: %s", cell, c->message);
        json_test(out, &first, name, g->part_score[0], g->part_max[0], c->outcome == KIT_OUTCOME_PASS, text);
        snprintf(name, sizeof name, "stage %d: speedup", g->stage);
        speedup_cell(text, sizeof text, g);
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "%s%s", s->message[0] ? ": " : "", s->message);
        const kit_result *loads = &g->parts[KIT_PART_EMULATED_SPEED];
        if (loads->outcome == KIT_OUTCOME_FAIL && loads->message[0]) { /* what cost the points */
            used = strlen(text);
            snprintf(text + used, sizeof text - used, "\n%s: %s", kit_part_name(KIT_PART_EMULATED_SPEED),
                     loads->message);
        }
        if (g->advice[0]) { /* no points, but the student learns it before reaching a GPU */
            used = strlen(text);
            snprintf(text + used, sizeof text - used, "\nAdvice from the CPU emulator: %s", g->advice);
        }
        /* Speed and sanitizer points come only on top of a correct stage: the status follows the points.
         * A correct stage's speed that could not be measured here (no GPU) is no failed test: 0 of 0,
         * the output says what it is worth on a GPU (the total's max is then what was reachable, as
         * the report says). An incorrect stage's speed earns nothing, GPU or not: failed. */
        if (strncmp(text, "not measured", 12) == 0 && c->outcome == KIT_OUTCOME_PASS) {
            used = strlen(text);
            if (g->part_max[1] > 0) /* kept (emulated.full_marks = keep); with scale the others' points grew */
                snprintf(text + used, sizeof text - used, "\nSpeed is graded on a GPU, where it is worth %g points.",
                         g->part_max[1]);
            json_test(out, &first, name, 0, 0, 1, text);
        } else
            json_test(out, &first, name, g->part_score[1], g->part_max[1],
                      s->outcome == KIT_OUTCOME_PASS && loads->outcome != KIT_OUTCOME_FAIL &&
                          g->part_score[1] >= g->part_max[1],
                      text);
        snprintf(name, sizeof name, g->emulated_races ? "stage %d: races (CPU emulator: ThreadSanitizer, thread orders)"
                                                      : "stage %d: races and memory errors (compute-sanitizer)",
                 g->stage);
        sanitizer_cell(sanitizer, sizeof sanitizer, g);
        snprintf(text, sizeof text, "%s", sanitizer);
        for (int p = KIT_PART_RACECHECK; p < KIT_PART_COUNT; p++) {
            used = strlen(text);
            int shown = g->emulated_races ? p == KIT_PART_EMULATED_RACES
                                          : KIT_PART_IS_SANITIZER(p) || (p == KIT_PART_EMULATED_RACES &&
                                                                         g->parts[p].outcome == KIT_OUTCOME_FAIL);
            if (shown && (g->emulated_races || g->parts[p].outcome != KIT_OUTCOME_PASS) && g->parts[p].message[0])
                snprintf(text + used, sizeof text - used, "\n%s: %s", kit_part_name((kit_part)p), g->parts[p].message);
        }
        int clean = strncmp(sanitizer, "clean", 5) == 0 || strcmp(sanitizer, "no race (emulated)") == 0;
        json_test(out, &first, name, g->part_score[2], g->part_max[2], clean && g->part_score[2] >= g->part_max[2], text);
    }
    fprintf(out, "\n  ]\n}\n");
}

/* ---------------------------------------------------------------- the grade record */

static const char *const outcome_names[] = {"missing", "pass", "fail", "skip"};

static void json_number_field(FILE *out, const char *key, double value)
{
    fprintf(out, ", \"%s\": %.6g", key, value);
}

/* One part's record: what the grading test that ran it found, as written there. */
static void json_part(FILE *out, kit_part part, const kit_result *r, int *first)
{
    if (r->outcome == KIT_OUTCOME_MISSING)
        return;
    fprintf(out, "%s        \"%s\": {\"outcome\": \"%s\", \"message\": ", *first ? "" : ",\n", kit_part_name(part),
            outcome_names[r->outcome]);
    json_string(out, r->message);
    fprintf(out, ", \"device\": ");
    json_string(out, r->gpu);
    if (r->required > 0) {
        json_number_field(out, "achieved", r->achieved);
        json_number_field(out, "required", r->required);
        json_number_field(out, "reference", r->reference);
        json_number_field(out, "spread", r->spread);
    }
    if (r->timed_n > 0)
        fprintf(out, ", \"timed\": {\"n\": %zu, \"threads\": %u, \"seed\": %llu}", r->timed_n, r->timed_threads,
                r->timed_seed);
    if (r->student_ms > 0 && r->bytes > 0) { /* what the leaderboards rank: the input's bytes over the median time */
        json_number_field(out, "student_ms", r->student_ms);
        json_number_field(out, "reference_ms", r->reference_ms);
        json_number_field(out, "gbps", r->bytes / r->student_ms / 1e6);
        if (r->reference_ms > 0)
            json_number_field(out, "reference_gbps", r->bytes / r->reference_ms / 1e6);
    }
    if (r->not_built)
        fprintf(out, ", \"not_built\": true");
    fputc('}', out);
    *first = 0;
}

/* A table cell's meaning as one word, for the record's readers (they never parse the cell). */
static const char *cell_status(const char *cell)
{
    static const char *const words[][2] = {{"pass", "pass"},           {"clean", "pass"},     {"no race", "pass"},
                                           {"FAIL", "fail"},           {"not measured", "not measured"},
                                           {"not graded", "not graded"}, {"skipped", "skipped"}, {"not run", "not run"}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strncmp(cell, words[i][0], strlen(words[i][0])) == 0)
            return words[i][1];
    return "partial"; /* "2 of 4 tools ran" */
}

/* What explains a points category's cell: the message of the part that decided it. */
static const char *category_message(const kit_stage_grade *g, int category)
{
    if (category == 0)
        return correctness_of(g)->message;
    if (category == 1) {
        const kit_result *loads = &g->parts[KIT_PART_EMULATED_SPEED];
        return loads->outcome == KIT_OUTCOME_FAIL && g->parts[KIT_PART_SPEEDUP].outcome != KIT_OUTCOME_FAIL
                   ? loads->message : g->parts[KIT_PART_SPEEDUP].message;
    }
    if (g->emulated_races)
        return g->parts[KIT_PART_EMULATED_RACES].message;
    for (int p = KIT_PART_RACECHECK; KIT_PART_IS_SANITIZER(p); p++)
        if (g->parts[p].outcome == KIT_OUTCOME_FAIL)
            return g->parts[p].message;
    if (g->parts[KIT_PART_EMULATED_RACES].outcome == KIT_OUTCOME_FAIL)
        return g->parts[KIT_PART_EMULATED_RACES].message;
    for (int p = KIT_PART_RACECHECK; KIT_PART_IS_SANITIZER(p); p++)
        if (g->parts[p].message[0])
            return g->parts[p].message;
    return g->parts[KIT_PART_EMULATED_RACES].message;
}

static void category_cell(char *out, size_t size, const kit_stage_grade *g, int category);
static int stage_changed(const kit_stage_grade *before, const kit_stage_grade *now, int differs[3]);

/* The record's "previous" and "changes": the grade before this one (its total) and, per stage that
 * changed since (kit_report_changes()'s stages), each points category that changed, with its cell,
 * status and points then and now, and the message that explained it then. */
static void record_changes(FILE *out, const kit_stage_grade *grades, const kit_stage_grade *before, int count)
{
    static const char *const point_names[3] = {"correctness", "speedup", "sanitizer"};
    double score = 0, max_score = 0, reachable = 0;
    for (int i = 0; i < count; i++) {
        score += before[i].score;
        max_score += before[i].max_score;
        reachable += before[i].reachable;
    }
    fprintf(out, "  \"previous\": {\"score\": %g, \"max_score\": %g, \"reachable\": %g},\n  \"changes\": [", score,
            max_score, reachable);
    int changed = 0;
    for (int i = 0; i < count; i++) {
        int differs[3];
        if (!stage_changed(&before[i], &grades[i], differs))
            continue;
        fprintf(out, "%s\n    {\"stage\": %d, \"score_before\": %g, \"score\": %g, \"max_score\": %g, \"parts\": [",
                changed++ ? "," : "", grades[i].stage, before[i].score, grades[i].score, grades[i].max_score);
        int listed = 0;
        for (int c = 0; c < 3; c++) {
            if (!differs[c])
                continue;
            char was[2400], is[2400];
            category_cell(was, sizeof was, &before[i], c);
            category_cell(is, sizeof is, &grades[i], c);
            fprintf(out, "%s\n      {\"part\": \"%s\", \"cell_before\": ", listed++ ? "," : "", point_names[c]);
            json_string(out, was);
            fprintf(out, ", \"cell\": ");
            json_string(out, is);
            fprintf(out, ", \"status_before\": \"%s\", \"status\": \"%s\", \"score_before\": %g, \"score\": %g,\n"
                         "       \"message_before\": ",
                    cell_status(was), cell_status(is), before[i].part_score[c], grades[i].part_score[c]);
            json_string(out, category_message(&before[i], c));
            fputc('}', out);
        }
        fprintf(out, "]}");
    }
    fprintf(out, "%s],\n", changed ? "\n  " : "");
}

void kit_report_record(FILE *out, const kit_stage_grade *grades, int count, const char *title,
                       const kit_stage_grade *before)
{
    static const char *const point_names[3] = {"correctness", "speedup", "sanitizer"};
    double score = 0, max_score = 0;
    for (int i = 0; i < count; i++) {
        score += grades[i].score;
        max_score += grades[i].max_score;
    }
    fprintf(out, "{\n  \"format\": 1,\n  \"title\": ");
    json_string(out, title);
    fprintf(out, ",\n  \"graded_on\": ");
    json_string(out, gpu_of(grades, count));
    double reachable = 0;
    for (int i = 0; i < count; i++)
        reachable += grades[i].reachable;
    fprintf(out, ",\n  \"score\": %g,\n  \"max_score\": %g,\n  \"reachable\": %g,\n", score, max_score, reachable);
    if (before)
        record_changes(out, grades, before, count);
    fprintf(out, "  \"stages\": [\n");
    for (int i = 0; i < count; i++) {
        const kit_stage_grade *g = &grades[i];
        char cells[3][2400];
        correctness_cell(cells[0], sizeof cells[0], g);
        speedup_cell(cells[1], sizeof cells[1], g);
        sanitizer_cell(cells[2], sizeof cells[2], g);
        fprintf(out, "    {\"stage\": %d, \"problem\": ", g->stage);
        json_string(out, kit_problem_name(kit_grade_problem(g->stage))); /* stages.def, as kit.json's */
        fprintf(out, ", \"score\": %g, \"max_score\": %g, \"reachable\": %g, \"passed\": %s, \"not_graded\": %s,\n",
                g->score, g->max_score, g->reachable, g->passed ? "true" : "false", not_graded(g) ? "true" : "false");
        fprintf(out, "     \"correctness_from\": \"%s\", \"races_from\": \"%s\", \"emulator_not_built\": %s, "
                     "\"load_rule_missing\": %s,\n     \"advice\": ",
                g->emulated_correctness ? "emulator" : "gpu", g->emulated_races ? "emulator" : "compute-sanitizer",
                g->emulator_not_built ? "true" : "false", g->load_rule_missing ? "true" : "false");
        json_string(out, g->advice);
        fprintf(out, ",\n     \"points\": {");
        for (int p = 0; p < 3; p++) {
            fprintf(out, "%s\n       \"%s\": {\"score\": %g, \"max_score\": %g, \"status\": \"%s\", \"cell\": ",
                    p ? "," : "", point_names[p], g->part_score[p], g->part_max[p], cell_status(cells[p]));
            json_string(out, cells[p]);
            fprintf(out, ", \"message\": ");
            json_string(out, category_message(g, p));
            fputc('}', out);
        }
        fprintf(out, "},\n     \"parts\": {\n");
        int first = 1;
        for (int p = 0; p < KIT_PART_COUNT; p++)
            json_part(out, (kit_part)p, &g->parts[p], &first);
        fprintf(out, "\n     }}%s\n", i + 1 < count ? "," : "");
    }
    fprintf(out, "  ]\n}\n");
}

/* ---------------------------------------------------------------- what changed, and feedback */

static const char *const category_names[3] = {"correctness", "speedup", "sanitizer"};

/* A points category's cell: 0 correctness, 1 speedup, 2 sanitizer. */
static void category_cell(char *out, size_t size, const kit_stage_grade *g, int category)
{
    if (category == 0)
        correctness_cell(out, size, g);
    else if (category == 1)
        speedup_cell(out, size, g);
    else
        sanitizer_cell(out, size, g);
}

/* Whether stage \p now changed since \p before (the same stage's grade then): differs[c] says how
 * each points category changed: 0 not, 1 its verdict (the cell), 2 its points only. A stage not
 * graded before has nothing to compare with: unchanged. */
static int stage_changed(const kit_stage_grade *before, const kit_stage_grade *now, int differs[3])
{
    int any = 0, graded_before = 0;
    for (int c = 0; c < 3; c++) {
        char was[2400], is[2400];
        category_cell(was, sizeof was, before, c);
        category_cell(is, sizeof is, now, c);
        differs[c] = strcmp(was, is) != 0 ? 1 : before->part_score[c] != now->part_score[c] ? 2 : 0;
        any |= differs[c];
    }
    for (int p = 0; p < KIT_PART_COUNT; p++)
        graded_before |= before->parts[p].outcome == KIT_OUTCOME_PASS || before->parts[p].outcome == KIT_OUTCOME_FAIL;
    return graded_before && (any || before->score != now->score);
}

int kit_report_changes(FILE *out, const kit_stage_grade *now, const kit_stage_grade *before, int count)
{
    int changed = 0;
    for (int i = 0; i < count; i++) {
        const kit_stage_grade *a = &before[i], *b = &now[i];
        int differs[3];
        if (!stage_changed(a, b, differs))
            continue;
        char line[1024] = "";
        for (int c = 0; c < 3; c++) {
            char was[2400], is[2400];
            category_cell(was, sizeof was, a, c);
            category_cell(is, sizeof is, b, c);
            size_t used = strlen(line);
            if (differs[c] == 1)
                snprintf(line + used, sizeof line - used, "%s%s %.60s -> %.60s", used ? "; " : "", category_names[c],
                         was, is);
            else if (differs[c] == 2) /* the same verdict, counted now (or no longer) */
                snprintf(line + used, sizeof line - used, "%s%s %g -> %g points", used ? "; " : "", category_names[c],
                         a->part_score[c], b->part_score[c]);
        }
        if (!changed++)
            fprintf(out, "\nChanged since the last grade:\n");
        fprintf(out, "  stage %d: %g -> %g points%s%s%s\n", b->stage, a->score, b->score, line[0] ? " (" : "", line,
                line[0] ? ")" : "");
    }
    if (!changed)
        fprintf(out, "\nNothing changed since the last grade.\n");
    return changed;
}

/* What to try next, for a part that lost its points (the message says what was seen). */
static const char *what_to_try(const kit_stage_grade *g, int category)
{
    if (category == 0)
        return g->emulated_correctness
                   ? "Rebuild with `cmake --build build` (a grade builds only the grader's copy of your file), then "
                     "run the failing case alone on the CPU emulator, `./build/reduce_ladder --stage K --impl labs` "
                     "with the n and block size the message names (from the kit's folder), and draw what every "
                     "thread did: add `--picture lab.html` and open it in a browser. The stage page's pitfalls "
                     "say what goes wrong most often."
                   : "Rebuild with `cmake --build build` (a grade builds only the grader's copy of your file), then "
                     "run the failing case alone, `./build/reduce_ladder --stage K --impl labs` with the n and "
                     "block size the message names (from the kit's folder), and read the stage page's pitfalls.";
    if (category == 1)
        return "Rebuild with `cmake --build build`, then compare your stage with the reference at the same n: "
               "`./build/reduce_ladder --stage K` prints "
               "both rows. The stage page says what this stage removes and how fast it should be.";
    if (g->emulated_races && strstr(g->parts[KIT_PART_EMULATED_RACES].message, "depends on the order of the threads"))
        /* found by the thread orders, not by ThreadSanitizer: no two lines to name */
        return "The answer changed with the order the threads or blocks ran in. Within a block, look for a "
               "missing __syncthreads() (or __syncwarp() inside a warp); between blocks, a block may read what "
               "another wrote only after an atomic tells it that the write is done, and only if the writer fenced "
               "its write before that atomic (blocks run in no order). `./build/emu/tests/emu_check --impl labs "
               "--stage K` (from the kit's folder) runs the orders alone; their output is in build/grade/logs/.";
    return g->emulated_races
               ? "Look between the two lines the message names for a missing __syncthreads() (or __syncwarp() inside "
                 "a warp); `./build/emu/tests/emu_race_check --impl labs --stage K --one-order` (from the kit's "
                 "folder) runs the race check alone, and ThreadSanitizer's whole output is in build/grade/logs/."
               : "Look between the two lines the message names for a missing __syncthreads() (or __syncwarp() inside "
                 "a warp); compute-sanitizer's whole output is in build/grade/logs/.";
}

void kit_report_feedback(FILE *out, const kit_stage_grade *grades, int count, const char *student)
{
    double score = 0, max_score = 0;
    for (int i = 0; i < count; i++) {
        score += grades[i].score;
        max_score += grades[i].max_score;
    }
    double reachable = 0;
    for (int i = 0; i < count; i++)
        reachable += grades[i].reachable;
    fprintf(out, "Feedback for %s: %g of %g points", student && *student ? student : "you", score, max_score);
    if (reachable < max_score) /* as the report's total says it */
        fprintf(out, " (%g reachable here: speed is graded on a GPU)", reachable);
    fprintf(out, ", graded on %s.\n", gpu_of(grades, count));
    for (int i = 0; i < count; i++) {
        const kit_stage_grade *g = &grades[i];
        fprintf(out, "\nStage %d: %g of %g points.\n", g->stage, g->score, g->max_score);
        for (int c = 0; c < 3; c++) {
            char cell[2400];
            if (c == 0)
                correctness_cell(cell, sizeof cell, g);
            else if (c == 1)
                speedup_cell(cell, sizeof cell, g);
            else
                sanitizer_cell(cell, sizeof cell, g);
            const char *status = cell_status(cell);
            const int incorrect = c > 0 && g->part_score[0] < g->part_max[0];
            if (strcmp(status, "pass") == 0) {
                if (incorrect)
                    fprintf(out, "  - %s: %s, but no points until the stage is correct.\n", category_names[c], cell);
                else
                    fprintf(out, "  - %s: passed (%g of %g).\n", category_names[c], g->part_score[c], g->part_max[c]);
                continue;
            }
            if (strcmp(status, "not measured") == 0) {
                fprintf(out, "  - %s: not measured here (no GPU): a GPU grades it.\n", category_names[c]);
                continue;
            }
            if (incorrect && strcmp(status, "fail") != 0) {
                fprintf(out, "  - %s: no points until the stage is correct.\n", category_names[c]);
                continue;
            }
            if (incorrect && c == 1 && strncmp(category_message(g, c), "not timed", 9) == 0) {
                fprintf(out, "  - %s: not timed until the stage is correct.\n", category_names[c]);
                continue;
            }
            fprintf(out, "  - %s: %s (%g of %g). Why: %s\n", category_names[c], cell, g->part_score[c],
                    g->part_max[c], category_message(g, c));
            const char *hint = what_to_try(g, c);
            fprintf(out, "    What to try: ");
            for (const char *p = hint; *p; p++) { /* the stage's number where the hint says K */
                if (*p == 'K' && (p == hint || p[-1] == ' ') && (p[1] == ' ' || p[1] == '`'))
                    fprintf(out, "%d", g->stage);
                else
                    fputc(*p, out);
            }
            fputc('\n', out);
        }
    }
}

/* ---------------------------------------------------------------- make status */

/* The newest modification time of stage \p stage's result files (0: none). */
static time_t graded_at(const char *results, int stage)
{
    time_t newest = 0;
    for (int p = 0; p < KIT_PART_COUNT; p++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/stage%d.%s", results, stage, kit_part_name((kit_part)p));
        if (stat(path, &st) == 0 && st.st_mtime > newest)
            newest = st.st_mtime;
    }
    return newest;
}

/* Whether the lab file still holds its TODO's placeholder: nothing written yet. */
static int placeholder_left(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, "delete this line once your code is in place") != NULL;
    fclose(f);
    return found;
}

/* Whether stage \p stage's lab changed since its last grade, by content: the SHA-256 check.cmake
 * kept of the file it graded (RESULTS/stageK.lab-sha256) against the file's now, from
 * \p lab_hashes ("1=<hex>,3=<hex>": the status target's script computes them). -1 where either
 * is missing (an older grade, or no hashes given): then the file's time decides. */
static int lab_changed(const char *results, int stage, const char *lab_hashes)
{
    if (!lab_hashes)
        return -1;
    char key[16], path[4096], kept[128] = "";
    snprintf(key, sizeof key, "%d=", stage);
    const char *now = NULL;
    for (const char *p = lab_hashes; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, key, strlen(key)) == 0)
            now = p + strlen(key);
    snprintf(path, sizeof path, "%s/stage%d.lab-sha256", results, stage);
    FILE *f = fopen(path, "r");
    if (!now || !f) {
        if (f)
            fclose(f);
        return -1;
    }
    if (!fgets(kept, sizeof kept, f))
        kept[0] = '\0';
    fclose(f);
    kept[strcspn(kept, " \r\n")] = '\0';
    size_t length = strcspn(now, ",");
    if (!kept[0] || length == 0)
        return -1;
    return strlen(kept) != length || strncmp(kept, now, length) != 0;
}

void kit_report_status(FILE *out, const kit_stage_grade *grades, int count, const char *labs, const char *results,
                       const char *lab_hashes)
{
    for (int i = 0; i < count; i++) {
        const kit_stage_grade *g = &grades[i];
        char path[4096] = "";
        struct stat lab;
        int have_lab = 0;
        if (labs) {
            snprintf(path, sizeof path, "%s/%s", labs, kit_grade_file(g->stage));
            have_lab = stat(path, &lab) == 0;
        }
        fprintf(out, "stage %-2d  ", g->stage);
        int ran = 0;
        for (int p = 0; p < KIT_PART_COUNT; p++)
            ran |= g->parts[p].outcome == KIT_OUTCOME_PASS || g->parts[p].outcome == KIT_OUTCOME_FAIL;
        time_t when = graded_at(results, g->stage);
        int changed = -1;
        char cell[2400];
        correctness_cell(cell, sizeof cell, g);
        if (labs && !have_lab) {
            fprintf(out, "no lab file (%s)\n", path);
        } else if (labs && placeholder_left(path)) {
            fprintf(out, "not started: the TODO's placeholder return is still in labs/%s\n", kit_grade_file(g->stage));
        } else if (!ran) {
            fprintf(out, "not graded yet: cmake --build build --target check-stage%d\n", g->stage);
        } else if (labs && (changed = lab_changed(results, g->stage, lab_hashes)) != 0 &&
                   (changed == 1 || lab.st_mtime > when)) {
            fprintf(out, "changed since its last grade (%g / %g then): cmake --build build --target check-stage%d\n",
                    g->score, g->max_score, g->stage);
        } else if (strcmp(cell_status(cell), "pass") != 0) {
            char why[160];
            const char *message = correctness_of(g)->message;
            const char *first = strstr(message, ". First failure");
            int length = first ? (int)(first - message) : (int)strlen(message);
            snprintf(why, sizeof why, "%.*s%s", length > 120 ? 117 : length, message, length > 120 ? "..." : "");
            char sanitizer[2400];
            sanitizer_cell(sanitizer, sizeof sanitizer, g);
            fprintf(out, "fails: %s%s\n", why, strcmp(cell_status(sanitizer), "fail") == 0 ? "; and a race was found" : "");
        } else if (g->emulated_correctness) {
            fprintf(out, "passes on the CPU emulator: %g / %g (speed is graded on a GPU)\n", g->score, g->max_score);
        } else if (g->passed) {
            fprintf(out, "passes on a GPU: %g / %g\n", g->score, g->max_score);
        } else {
            char speed[2400], sanitizer[2400];
            speedup_cell(speed, sizeof speed, g);
            sanitizer_cell(sanitizer, sizeof sanitizer, g);
            fprintf(out, "correct on a GPU, %g / %g: speed %s, sanitizer %s\n", g->score, g->max_score, speed, sanitizer);
        }
    }
}

void kit_report_csv_header(FILE *out)
{
    fprintf(out, "student");
    for (int k = 1; k <= KIT_STAGE_COUNT; k++)
        fprintf(out, ",stage%d", k);
    fprintf(out, ",total,max_total\n");
}

void kit_report_csv_row(FILE *out, const char *student, const kit_stage_grade *grades, int count)
{
    double score = 0, max_score = 0;
    fprintf(out, "%s", student);
    for (int k = 1; k <= KIT_STAGE_COUNT; k++) {
        const kit_stage_grade *g = NULL;
        for (int i = 0; i < count; i++)
            if (grades[i].stage == k)
                g = &grades[i];
        if (g) {
            fprintf(out, ",%g", g->score);
            score += g->score;
            max_score += g->max_score;
        } else {
            fprintf(out, ",");
        }
    }
    fprintf(out, ",%g,%g\n", score, max_score);
}

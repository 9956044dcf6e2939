/**
 * \file options.c
 * \brief Parsing and range-checking of the ladder's command line, and how the ladder groups
 *        the stages of common/stages.def into sections (one per problem).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* ---------------------------------------------------------------- the stages, as the ladder groups them */

/* The columns of common/stages.def the ladder's sections need. */
typedef struct stage_row {
    int number;
    kit_problem problem;
    int baseline;
} stage_row;

#define KIT_STAGE(number, dir, name, title, min_threads, max_threads, passes, type, op, baseline) \
    {number, {type, op}, baseline},
static const stage_row stage_rows[] = {
#include "stages.def"
};
#undef KIT_STAGE

static const stage_row *stage_row_of(int number)
{
    for (int i = 0; i < KIT_STAGE_COUNT; i++)
        if (stage_rows[i].number == number)
            return &stage_rows[i];
    return NULL;
}

/* The same elements, whatever their layout: 3x3 matrices as structures and as 9 planes are one
 * set of data (kit_fill_problem() gives both the same matrices), so their stages share a section. */
static int same_data(kit_problem a, kit_problem b)
{
    const kit_type ta = a.type == KIT_MAT3_SOA ? KIT_MAT3 : a.type, tb = b.type == KIT_MAT3_SOA ? KIT_MAT3 : b.type;
    return ta == tb && a.op == b.op;
}

int kit_ladder_section(int stage)
{
    const stage_row *row = stage_row_of(stage);
    if (!row)
        return 0;
    for (int i = 0; i < KIT_STAGE_COUNT; i++) /* the first stage on the same data gives the section's baseline */
        if (same_data(stage_rows[i].problem, row->problem))
            return stage_rows[i].baseline;
    return row->baseline;
}

kit_problem kit_stage_problem(int stage)
{
    const stage_row *row = stage_row_of(stage);
    return row ? row->problem : KIT_INT_SUM;
}

/* ---------------------------------------------------------------- --help */

/* "1-8" or "13, 14, 15": the stages of one section. */
static void section_stages(int section, char *out, size_t size)
{
    int count = 0, first = 0, last = 0;
    out[0] = '\0';
    for (int i = 0; i < KIT_STAGE_COUNT; i++) {
        if (kit_ladder_section(stage_rows[i].number) != section)
            continue;
        const size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%d", count ? ", " : "", stage_rows[i].number);
        first = count ? first : stage_rows[i].number;
        last = stage_rows[i].number;
        count++;
    }
    if (count > 3 && last - first + 1 == count)
        snprintf(out, size, "%d-%d", first, last);
}

const char *kit_usage(void)
{
    static char text[8192];
    if (text[0])
        return text;
    size_t used = 0;
#define ADD(...) (used += (size_t)snprintf(text + used, used < sizeof text ? sizeof text - used : 0, __VA_ARGS__))
    ADD("usage: reduce_ladder [options]\n"
        "Runs the reduction stages on the GPU, checks each against its exact answer and times it.\n"
        "The ladder has one section per problem, each with the speedup over its baseline stage and,\n"
        "as yardsticks, CUB's reduction of the same problem and a device-to-device copy of its input;\n"
        "every section reads the same bytes (n ints, n floats, n / 9 matrices):\n");
    for (int i = 0; i < KIT_STAGE_COUNT; i++) {
        const int section = kit_ladder_section(stage_rows[i].number);
        int first = 1;
        for (int j = 0; j < i; j++)
            first &= kit_ladder_section(stage_rows[j].number) != section;
        if (!first)
            continue;
        char numbers[128], stages[160];
        section_stages(section, numbers, sizeof numbers);
        snprintf(stages, sizeof stages, "%s %s", strpbrk(numbers, ",-") ? "stages" : "stage", numbers);
        ADD("    %-18s %s (against stage %d)\n", stages, kit_problem_name(stage_rows[i].problem), section);
    }
    ADD("\n"
        "  --stage K       run stage K only (1-%d), with CUB and the copy for its problem; or 'all'\n"
        "                  (default: all)\n"
        "  --impl WHICH    'solutions' (reference kernels, default) or 'labs' (yours)\n"
        "  --n N           ints to reduce: 67108864, 2^26 or 1<<26 (default: 2^26; 2^20 on the CPU\n"
        "                  emulator); the other problems read as many bytes (n floats, n / 9 matrices)\n"
        "  --threads T     block size, a power of two from 64 to 1024 (default: 256)\n"
        "  --reps R        timed repetitions per row, at least 20 (default: 30)\n"
        "  --seed S        input seed (default: 1)\n"
        "  --pattern P     random, positional, ones, last-only (small values), full-range, all-negative,\n"
        "                  all-positive, ties or lone-sign (the whole type, one planted extreme at element\n"
        "                  seed mod n)\n"
        "                  (default: random; what each means for each problem: kit_fill_problem in\n"
        "                  common/kit.h)\n"
        "  --format F      table, csv or json (default: table)\n"
        "  --timeout SEC   a run taking longer counts as hung (default: 10)\n"
        "  --no-baselines  skip the CUB and device-to-device copy rows\n"
        "  --no-host       skip the rows of the whole job, which the full ladder adds to the int sum's\n"
        "                  section (int sums only): the exact sum on the CPU (one thread, and OpenMP's\n"
        "                  threads), the input's copy to the GPU from pageable and from pinned memory,\n"
        "                  and the fastest stage timed together with its copy; the speedup over the\n"
        "                  CPU is a column ('vs CPU')\n"
        "  --host          add those rows to a --stage K run too (K of the int sum: they sum ints)\n"
        "  --sweep         instead of the ladder: time stages 7 and 8, CUB, the copy and an empty\n"
        "                  kernel's launch at every n = 2^10, 2^11, ..., 2^28 (median of 200 runs up\n"
        "                  to 2^20, of --reps above); on the CPU emulator, check stages 7 and 8 at\n"
        "                  every n up to 2^20, untimed (its JSON: \"emulated\": true, timings null)\n"
        "  --accuracy      instead of the ladder: the relative error of float sums against the exact\n"
        "                  sum, for random floats in [0, 1) at n = 2^10, 2^12, ..., 2^26 (up to 2^20\n"
        "                  on the CPU emulator) and for the course's 1 + 2 + ... + 10000: on the CPU,\n"
        "                  sequential, pairwise, Kahan and Neumaier (in float); stage 9 (--impl) and\n"
        "                  whether it gave the same bits in 3 runs; CUB (not on the emulator)\n"
        "  --from N        the smallest n of --sweep or --accuracy, a power of two from 2^10\n"
        "                  (default: 2^10)\n"
        "  --to N          the largest n of --sweep or --accuracy, a power of two up to 2^28\n"
        "                  (default: 2^28 for --sweep, 2^26 for --accuracy)\n"
        "  --counters      also say why each row is as fast as it is: on a GPU, hardware counters\n"
        "                  from Nsight Compute (ncu; DRAM bytes, %% of peak bandwidth, bank conflicts,\n"
        "                  active threads, instructions, occupancy, top stall); on the CPU emulator,\n"
        "                  what it counted in each stage's first pass\n"
        "  --emulate       run on the CPU emulator (what happens anyway without a GPU):\n"
        "                  every check, no timings; see docs/emulator.md\n"
        "  --picture FILE.html  with --stage K: run stage K on the CPU emulator at a small n and\n"
        "                  draw what every thread did (a page to step through in a browser: the\n"
        "                  tree step by step, active lanes, banks, and where a race, a stale read or\n"
        "                  a deadlock happened); block sizes 64, 128 and 256 unless --threads says\n"
        "                  one; unless --n (at most 2^14), n = 2 x threads + 3, taken to 4n - 3 while\n"
        "                  the reference's first pass launches one block and n stays within 2^14, so\n"
        "                  that blocks meet (stage 3 at 64, 128, 256 threads: n = 131, 259, 515;\n"
        "                  stage 8, whose threads add 16 values each: n = 2081, 4129, 8225); exit\n"
        "                  status 1 (after drawing) if a run of the kernel drawn went wrong\n"
        "  --trace FILE.json    the same run's trace, for tools/trace_picture.py (docs/trace_format.md)\n"
        "  --compare       with --picture or --trace and --impl labs: the reference solution's run\n"
        "                  beside yours (its steps and counters; its source is not shown)\n"
        "  --help          show this text\n"
        "\n"
        "Exit status: 0 if every stage run gave a right answer (exact; a float sum within its error\n"
        "bound), 1 if any did not, 2 for bad options or no usable GPU (and no emulator).\n",
        KIT_STAGE_COUNT);
#undef ADD
    return text;
}

void kit_options_default(kit_options *o)
{
    memset(o, 0, sizeof *o);
    o->n = (size_t)1 << 26;
    o->threads = 256;
    o->reps = 30;
    o->seed = 1;
    o->pattern = KIT_PATTERN_RANDOM;
    o->format = KIT_FORMAT_TABLE;
    o->timeout_s = 10.0;
    o->baselines = 1;
    o->host = -1;
    o->sweep_from = KIT_SWEEP_MIN_N;
    o->sweep_to = KIT_SWEEP_MAX_N;
}

/* --from and --to: a power of two from KIT_SWEEP_MIN_N to KIT_SWEEP_MAX_N. */
static kit_status parse_sweep_bound(const char *v, const char *what, size_t *value, kit_error *err)
{
    size_t count = 0;
    if (kit_parse_count(v ? v : "", what, &count, NULL) != KIT_OK || count < KIT_SWEEP_MIN_N ||
        count > KIT_SWEEP_MAX_N || (count & (count - 1)) != 0)
        return kit_fail(err, KIT_BAD_ARGUMENT, "%s must be a power of two from 2^10 to 2^28 (like 2^16, 65536 or "
                        "1<<16), not '%s'", what, v ? v : "");
    *value = count;
    return KIT_OK;
}

int kit_log2(size_t p)
{
    int k = 0;
    while (p > 1) {
        p >>= 1;
        k++;
    }
    return k;
}

/* --picture and --trace: one stage, a small launch, a file of the right kind. */
static kit_status check_trace_options(const kit_options *o, kit_error *err)
{
    const int drawing = o->picture || o->trace;
    if (o->compare && !drawing)
        return kit_fail(err, KIT_BAD_ARGUMENT, "--compare draws the reference beside your lab: give --picture "
                        "FILE.html or --trace FILE.json with it");
    if (!drawing)
        return KIT_OK;
    const char *what = o->picture ? "--picture" : "--trace";
    if (o->stage == 0)
        return kit_fail(err, KIT_BAD_ARGUMENT, "%s draws one stage: give --stage K (1 to %d)", what, KIT_STAGE_COUNT);
    if (o->compare && !o->use_labs)
        return kit_fail(err, KIT_BAD_ARGUMENT, "--compare puts your lab beside the reference solution: add --impl "
                        "labs");
    if (o->sweep || o->accuracy || o->counters || o->host == 1)
        return kit_fail(err, KIT_BAD_ARGUMENT, "%s runs one small launch of stage %d; it takes no %s", what, o->stage,
                        o->sweep ? "--sweep" : o->accuracy ? "--accuracy" : o->counters ? "--counters" : "--host");
    if (o->n_given && o->n > KIT_TRACE_MAX_N)
        return kit_fail(err, KIT_BAD_ARGUMENT, "%s draws a small launch: --n must be at most %zu (2^14), not %zu",
                        what, KIT_TRACE_MAX_N, o->n);
    return KIT_OK;
}

/* A file name that ends in \p suffix and is not empty before it. */
static kit_status check_file_name(const char *v, const char *option, const char *suffix, kit_error *err)
{
    const size_t len = v ? strlen(v) : 0, tail = strlen(suffix);
    if (!v || len <= tail || strcmp(v + len - tail, suffix) != 0)
        return kit_fail(err, KIT_BAD_ARGUMENT, "%s takes a file name ending in %s (like lab3%s), not '%s'", option,
                        suffix, suffix, v ? v : "");
    return KIT_OK;
}

/* What does not go together, once every option is read. */
static kit_status check_combinations(const kit_options *o, int range_given, kit_error *err)
{
    kit_status trace_status = check_trace_options(o, err);
    if (trace_status != KIT_OK)
        return trace_status;
    if (o->sweep && o->accuracy)
        return kit_fail(err, KIT_BAD_ARGUMENT, "--sweep and --accuracy are two different runs: give one");
    if (range_given && !o->sweep && !o->accuracy)
        return kit_fail(err, KIT_BAD_ARGUMENT, "--from and --to set the sizes of --sweep or --accuracy, and "
                        "neither was given");
    if (o->host == 1 && o->stage != 0 && !kit_problem_equal(kit_stage_problem(o->stage), KIT_INT_SUM) &&
        !o->sweep && !o->accuracy)
    {
        char int_sums[128];
        section_stages(kit_ladder_section(1), int_sums, sizeof int_sums);
        return kit_fail(err, KIT_BAD_ARGUMENT, "--host adds the int sum's CPU and copy rows, which go with its "
                        "stages (%s); stage %d computes the %s", int_sums, o->stage,
                        kit_problem_name(kit_stage_problem(o->stage)));
    }
    if (o->accuracy) {
        const size_t to = o->sweep_to_given ? o->sweep_to : KIT_ACCURACY_MAX_N;
        if (o->sweep_from > to)
            return kit_fail(err, KIT_BAD_ARGUMENT, "--from (2^%d) is larger than --to (2^%d): no size to measure",
                            kit_log2(o->sweep_from), kit_log2(to));
        if (o->stage != 0)
            return kit_fail(err, KIT_BAD_ARGUMENT, "--accuracy runs stage 9 (the float sum) and CUB; it takes no "
                            "--stage");
        if (o->n_given)
            return kit_fail(err, KIT_BAD_ARGUMENT, "--accuracy runs every second power of two from --from to --to; "
                            "it takes no --n");
        if (o->counters)
            return kit_fail(err, KIT_BAD_ARGUMENT, "--counters goes with the ladder, not with --accuracy");
        if (o->host == 1)
            return kit_fail(err, KIT_BAD_ARGUMENT, "--host goes with the ladder: --accuracy has its own CPU sums");
        return KIT_OK;
    }
    if (!o->sweep)
        return KIT_OK;
    if (o->sweep_from > o->sweep_to)
        return kit_fail(err, KIT_BAD_ARGUMENT, "--from (2^%d) is larger than --to (2^%d): nothing to sweep",
                        kit_log2(o->sweep_from), kit_log2(o->sweep_to));
    if (o->stage != 0)
        return kit_fail(err, KIT_BAD_ARGUMENT, "--sweep runs stages 7 and 8 (and CUB, the copy and a launch) at "
                        "every n; it takes no --stage");
    if (o->n_given)
        return kit_fail(err, KIT_BAD_ARGUMENT, "--sweep runs every power of two from --from to --to; it takes no --n");
    if (o->counters)
        return kit_fail(err, KIT_BAD_ARGUMENT, "--counters goes with the ladder, not with --sweep");
    if (o->host == 1)
        return kit_fail(err, KIT_BAD_ARGUMENT, "--host goes with the ladder: --sweep has no CPU or host-to-device rows");
    return KIT_OK;
}

/* Parses an unsigned decimal integer that fills the whole string. */
static int parse_u64(const char *text, unsigned long long *value)
{
    if (!text || !*text || *text == '-' || *text == '+' || *text == ' ')
        return 0;
    char *end = NULL;
    errno = 0;
    *value = strtoull(text, &end, 10);
    return errno == 0 && end && *end == '\0';
}

kit_status kit_parse_count(const char *text, const char *what, size_t *value, kit_error *err)
{
    unsigned long long base = 0, exponent = 0;
    const char *caret = strstr(text, "^"), *shift = strstr(text, "<<");
    int ok;
    if (caret || shift) {
        size_t head = (size_t)((caret ? caret : shift) - text);
        char left[32];
        ok = head > 0 && head < sizeof left;
        if (ok) {
            memcpy(left, text, head);
            left[head] = '\0';
            ok = parse_u64(left, &base) && parse_u64((caret ? caret + 1 : shift + 2), &exponent) &&
                 exponent < 63;
        }
        if (ok && caret)
            ok = base == 2;
        if (ok && shift)
            ok = base == 1;
        if (ok)
            base = 1ull << exponent;
    } else {
        ok = parse_u64(text, &base);
    }
    if (!ok && strcmp(what, "--n") == 0)
        return kit_fail(err, KIT_BAD_ARGUMENT, "%s must be a whole number (like 1000, 2^26 or 1<<26), "
                        "not '%s'", what, text);
    if (!ok)
        return kit_fail(err, KIT_BAD_ARGUMENT, "%s must be a whole number, not '%s'", what, text);
    *value = (size_t)base;
    return KIT_OK;
}

/* Takes the value of an option given as "--name value" or "--name=value". */
static const char *option_value(int argc, char **argv, int *i, const char *name, int *matched)
{
    size_t len = strlen(name);
    *matched = 0;
    if (strncmp(argv[*i], name, len) != 0)
        return NULL;
    if (argv[*i][len] == '=') {
        *matched = 1;
        return argv[*i] + len + 1;
    }
    if (argv[*i][len] != '\0')
        return NULL;
    *matched = 1;
    /* "--stage --impl labs": the next option is not this one's value ("-5" still is, and is refused) */
    if (*i + 1 >= argc || strncmp(argv[*i + 1], "--", 2) == 0)
        return NULL;
    return argv[++*i];
}

kit_status kit_parse_options(int argc, char **argv, kit_options *o, kit_error *err)
{
    kit_options_default(o);
    int range_given = 0; /* --from or --to */
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        int m = 0;
        size_t count = 0;
        kit_status s;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            o->help = 1;
        } else if (strcmp(arg, "--no-baselines") == 0) {
            o->baselines = 0;
        } else if (strcmp(arg, "--no-host") == 0) {
            o->host = 0;
        } else if (strcmp(arg, "--host") == 0) {
            o->host = 1;
        } else if (strcmp(arg, "--sweep") == 0) {
            o->sweep = 1;
        } else if (strcmp(arg, "--accuracy") == 0) {
            o->accuracy = 1;
        } else if ((v = option_value(argc, argv, &i, "--from", &m)) || m) {
            if ((s = parse_sweep_bound(v, "--from", &o->sweep_from, err)) != KIT_OK)
                return s;
            range_given = 1;
        } else if ((v = option_value(argc, argv, &i, "--to", &m)) || m) {
            if ((s = parse_sweep_bound(v, "--to", &o->sweep_to, err)) != KIT_OK)
                return s;
            range_given = 1;
            o->sweep_to_given = 1;
        } else if (strcmp(arg, "--emulate") == 0) {
            o->emulate = 1;
        } else if (strcmp(arg, "--counters") == 0) {
            o->counters = 1;
        } else if (strcmp(arg, "--compare") == 0) {
            o->compare = 1;
        } else if ((v = option_value(argc, argv, &i, "--picture", &m)) || m) {
            if ((s = check_file_name(v, "--picture", ".html", err)) != KIT_OK)
                return s;
            o->picture = v;
        } else if ((v = option_value(argc, argv, &i, "--trace", &m)) || m) {
            if ((s = check_file_name(v, "--trace", ".json", err)) != KIT_OK)
                return s;
            o->trace = v;
        } else if ((v = option_value(argc, argv, &i, "--counted-run", &m)) || m) {
            /* internal: --counters runs each row once more under ncu with this */
            if (v && strcmp(v, "cub") == 0) {
                o->counted_run = KIT_COUNTED_CUB;
            } else if (v && strncmp(v, "cub:", 4) == 0 && kit_parse_count(v + 4, "--counted-run", &count, NULL) ==
                       KIT_OK && count >= 1 && count <= KIT_STAGE_COUNT) {
                o->counted_run = KIT_COUNTED_CUB; /* CUB on stage K's problem and input */
                o->counted_cub_of = (int)count;
            } else if (v && kit_parse_count(v, "--counted-run", &count, NULL) == KIT_OK && count >= 1 &&
                       count <= KIT_STAGE_COUNT) {
                o->counted_run = (int)count;
            } else {
                return kit_fail(err, KIT_BAD_ARGUMENT, "--counted-run takes a stage (1 to %d), cub or cub:K, not "
                                "'%s'", KIT_STAGE_COUNT, v ? v : "");
            }
        } else if ((v = option_value(argc, argv, &i, "--stage", &m)) || m) {
            if (!v)
                return kit_fail(err, KIT_BAD_ARGUMENT, "--stage needs a value: 1 to %d, or all", KIT_STAGE_COUNT);
            if (strcmp(v, "all") == 0) {
                o->stage = 0;
            } else if (kit_parse_count(v, "--stage", &count, NULL) != KIT_OK || count < 1 ||
                       count > KIT_STAGE_COUNT) {
                return kit_fail(err, KIT_BAD_ARGUMENT, "unknown stage '%s': use 1 to %d, or all", v,
                                KIT_STAGE_COUNT);
            } else {
                o->stage = (int)count;
            }
        } else if ((v = option_value(argc, argv, &i, "--impl", &m)) || m) {
            if (v && strcmp(v, "labs") == 0)
                o->use_labs = 1;
            else if (v && strcmp(v, "solutions") == 0)
                o->use_labs = 0;
            else
                return kit_fail(err, KIT_BAD_ARGUMENT, "--impl must be 'labs' or 'solutions', not '%s'",
                                v ? v : "");
        } else if ((v = option_value(argc, argv, &i, "--n", &m)) || m) {
            if ((s = kit_parse_count(v ? v : "", "--n", &count, err)) != KIT_OK)
                return s;
            if (count < 1 || count > KIT_MAX_N)
                return kit_fail(err, KIT_BAD_ARGUMENT, "--n must be between 1 and %zu (2^30), not %s",
                                KIT_MAX_N, v);
            o->n = count;
            o->n_given = 1;
        } else if ((v = option_value(argc, argv, &i, "--threads", &m)) || m) {
            if ((s = kit_parse_count(v ? v : "", "--threads", &count, err)) != KIT_OK)
                return s;
            if (count < 64 || count > 1024 || (count & (count - 1)) != 0)
                return kit_fail(err, KIT_BAD_ARGUMENT, "--threads must be a power of two from 64 to 1024, "
                                "not %s", v);
            o->threads = (unsigned)count;
            o->threads_given = 1;
        } else if ((v = option_value(argc, argv, &i, "--reps", &m)) || m) {
            if ((s = kit_parse_count(v ? v : "", "--reps", &count, err)) != KIT_OK)
                return s;
            if (count < KIT_MIN_REPS || count > 100000)
                return kit_fail(err, KIT_BAD_ARGUMENT, "--reps must be between %d and 100000, not %s",
                                KIT_MIN_REPS, v);
            o->reps = (int)count;
        } else if ((v = option_value(argc, argv, &i, "--seed", &m)) || m) {
            unsigned long long seed = 0;
            if (!parse_u64(v, &seed))
                return kit_fail(err, KIT_BAD_ARGUMENT, "--seed must be a whole number, not '%s'", v ? v : "");
            o->seed = seed;
        } else if ((v = option_value(argc, argv, &i, "--pattern", &m)) || m) {
            if ((s = kit_pattern_parse(v ? v : "", &o->pattern, err)) != KIT_OK)
                return s;
        } else if ((v = option_value(argc, argv, &i, "--format", &m)) || m) {
            if (v && strcmp(v, "table") == 0)
                o->format = KIT_FORMAT_TABLE;
            else if (v && strcmp(v, "csv") == 0)
                o->format = KIT_FORMAT_CSV;
            else if (v && strcmp(v, "json") == 0)
                o->format = KIT_FORMAT_JSON;
            else
                return kit_fail(err, KIT_BAD_ARGUMENT, "--format must be table, csv or json, not '%s'",
                                v ? v : "");
        } else if ((v = option_value(argc, argv, &i, "--timeout", &m)) || m) {
            if ((s = kit_parse_count(v ? v : "", "--timeout", &count, err)) != KIT_OK)
                return s;
            if (count < 1 || count > 3600)
                return kit_fail(err, KIT_BAD_ARGUMENT, "--timeout must be 1 to 3600 seconds, not %s", v);
            o->timeout_s = (double)count;
        } else {
            return kit_fail(err, KIT_BAD_ARGUMENT, "unknown option '%s' (try --help)", arg);
        }
    }
    return check_combinations(o, range_given, err);
}

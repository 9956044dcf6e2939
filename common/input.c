/**
 * \file input.c
 * \brief Seeded input patterns and the exact CPU reference (no CUDA here).
 *
 * Every word of every input is a function of (problem, n, pattern, seed, element, component)
 * alone (kit_pattern_word()), so the grader can recompute any case, or any one word, without
 * the harness; kit_fill_problem() (problems.c) and kit_fill_input() only lay the words out.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kit.h"

#ifdef KIT_HAVE_OPENMP
#include <omp.h>
#endif

/* Inputs of KIT_PARALLEL_WORDS words or more are made, and summed, by several cores at once, in
 * as many contiguous pieces: every word is a function of its position alone, so the pieces give
 * the words and sums one core gives. Only the grader's large cases come here (2^26 and 2^30 words;
 * the CPU emulator's grades stop at 9 * (2^20 + 7)): on an H200 machine (2026-11-27) stage 13's
 * correctness took 66.5 s, 53.5 s of them in those cases, where the runner made and checked each
 * input once and kit_grade made and checked it again, on one core each. */
#define KIT_PARALLEL_WORDS ((size_t)1 << 24)

int kit_input_pieces(size_t words)
{
#ifdef KIT_HAVE_OPENMP
    if (words >= KIT_PARALLEL_WORDS) {
        const int cores = omp_get_max_threads(); /* the cores, or OMP_NUM_THREADS (grade_class.py's budget) */
        return cores < 1 ? 1 : cores > KIT_MAX_PIECES ? KIT_MAX_PIECES : cores;
    }
#else
    (void)words;
#endif
    return 1;
}

void kit_for_each_piece(int pieces, size_t count, void (*body)(void *context, int piece, size_t begin, size_t end),
                        void *context)
{
    if (pieces <= 1) {
        body(context, 0, 0, count);
        return;
    }
#ifdef KIT_HAVE_OPENMP
#pragma omp parallel for schedule(static) num_threads(pieces)
#endif
    for (int k = 0; k < pieces; k++)
        body(context, k, count / (size_t)pieces * (size_t)k,
             k + 1 == pieces ? count : count / (size_t)pieces * (size_t)(k + 1));
}

/* splitmix64: a tiny, well-mixed generator; the same seed gives the same input everywhere. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* What the (k + 1)-th call of splitmix64 from `seed` returns: the small patterns were written as
 * one generator run over the words in order, and this keeps their values while making any word
 * reachable on its own. */
static uint64_t random_at(uint64_t seed, uint64_t k)
{
    uint64_t state = seed + k * 0x9E3779B97F4A7C15ull;
    return splitmix64(&state);
}

/* The random pattern's value i: a small signed int in [-8, 8] (-8 about every 17th: ties). */
static inline int32_t small_random_at(uint64_t seed, size_t i)
{
    return (int32_t)(random_at(seed, i) % 17) - 8;
}

/* A hash of (seed, k, salt) for the full-range patterns: independent of random_at's stream, so
 * that two seeds one apart (the grader steps the planted position by 1) share no values. */
static uint64_t hash_at(uint64_t seed, uint64_t k, uint64_t salt)
{
    uint64_t state = seed * 0xD1B54A32D192ED03ull ^ (k + 1) * 0xA24BAED4963EE407ull ^ salt;
    splitmix64(&state);
    return splitmix64(&state);
}

/* ---------------------------------------------------------------- the table of patterns */

/* The small patterns (values at most 15 in magnitude) say what went wrong by the answer's size
 * (a count of lost ones, a lost tail). The full-range ones make a kernel's shortcuts fail: every
 * value may sit anywhere in the type, and one element holds the only extreme, at an index the
 * seed chooses (seed mod n), so that a grader can put it on every residue of a thread's loads. */
typedef struct pattern_row {
    const char *name;
    int full_range; /* values across the whole type, an extreme planted at element seed mod n */
    int sign;       /* full-range rows: -1 every value negative, +1 every value positive, 0 both */
    int ties;       /* the planted extreme again at up to KIT_PATTERN_MAX_TIES - 1 later elements */
    int lone;       /* the extreme alone has the other sign (negative for min, positive for max) */
} pattern_row;

static const pattern_row pattern_rows[KIT_PATTERN_COUNT] = {
    [KIT_PATTERN_RANDOM] = {"random", 0, 0, 0, 0},
    [KIT_PATTERN_POSITIONAL] = {"positional", 0, 0, 0, 0},
    [KIT_PATTERN_ONES] = {"ones", 0, 0, 0, 0},
    [KIT_PATTERN_LAST_ONLY] = {"last-only", 0, 0, 0, 0},
    [KIT_PATTERN_FULL_RANGE] = {"full-range", 1, 0, 0, 0},
    [KIT_PATTERN_ALL_NEGATIVE] = {"all-negative", 1, -1, 0, 0},
    [KIT_PATTERN_ALL_POSITIVE] = {"all-positive", 1, +1, 0, 0},
    [KIT_PATTERN_TIES] = {"ties", 1, 0, 1, 0},
    /* Every block but the extreme's then has a minimum of the other sign, whatever elements it
     * reads: blocks that meet in keys compared as unsigned (no sign flip) keep the wrong one. */
    [KIT_PATTERN_LONE_SIGN] = {"lone-sign", 1, +1, 0, 1},
};

const char *kit_pattern_name(kit_pattern pattern)
{
    return (unsigned)pattern < KIT_PATTERN_COUNT ? pattern_rows[pattern].name : "unknown";
}

int kit_pattern_is_full_range(kit_pattern pattern)
{
    return (unsigned)pattern < KIT_PATTERN_COUNT && pattern_rows[pattern].full_range;
}

kit_status kit_pattern_parse(const char *text, kit_pattern *pattern, kit_error *err)
{
    char names[256] = "";
    for (int p = 0; p < KIT_PATTERN_COUNT; p++) {
        if (strcmp(text, pattern_rows[p].name) == 0) {
            *pattern = (kit_pattern)p;
            return KIT_OK;
        }
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", p == 0 ? "" : p + 1 < KIT_PATTERN_COUNT ? ", " : " or ",
                 pattern_rows[p].name);
    }
    return kit_fail(err, KIT_BAD_ARGUMENT, "unknown input pattern '%s' (use %s)", text, names);
}

/* ---------------------------------------------------------------- where the extreme is */

uint64_t kit_pattern_seed_at(size_t n, size_t index, uint64_t variant)
{
    return (uint64_t)index + variant * (uint64_t)(n ? n : 1);
}

/* Matrices: component c's extreme sits n / 9 matrices after component c - 1's, so the nine land
 * in nine matrices, most often in different blocks. */
static size_t first_planted(size_t n, uint64_t seed, size_t component)
{
    const size_t spread = n >= 9 ? n / 9 : 1;
    return (size_t)((seed % n + (uint64_t)component * spread) % n);
}

size_t kit_pattern_extremes(kit_problem problem, size_t n, kit_pattern pattern, uint64_t seed, size_t component,
                            size_t at[KIT_PATTERN_MAX_TIES])
{
    if (n == 0 || component >= kit_in_words(problem) || (unsigned)pattern >= KIT_PATTERN_COUNT)
        return 0;
    if (pattern == KIT_PATTERN_LAST_ONLY) {
        at[0] = n - 1;
        return 1;
    }
    if (!pattern_rows[pattern].full_range)
        return 0;
    const size_t first = first_planted(n, seed, component);
    at[0] = first;
    if (!pattern_rows[pattern].ties)
        return 1;
    /* The copies spread evenly over what follows the first, the last copy near the very end:
     * each in a block of its own once n is large, so that blocks must settle the tie. */
    const size_t after = n - 1 - first, copies = KIT_PATTERN_MAX_TIES;
    const size_t count = after >= copies - 1 ? copies : after + 1;
    const size_t gap = after >= copies - 1 ? after / (copies - 1) : 1;
    for (size_t j = 1; j < count; j++)
        at[j] = first + j * gap;
    return count;
}

size_t kit_pattern_extreme_index(kit_problem problem, size_t n, kit_pattern pattern, uint64_t seed)
{
    size_t at[KIT_PATTERN_MAX_TIES];
    return kit_pattern_extremes(problem, n, pattern, seed, 0, at) ? at[0] : KIT_NO_EXTREME;
}

/* ---------------------------------------------------------------- the words */

static int32_t word_of(float f)
{
    int32_t w;
    memcpy(&w, &f, sizeof w);
    return w;
}

/* Everything a full-range input's words share, worked out once per fill rather than per word. */
typedef struct full_range_plan {
    int mirrored;   /* max: every value is ~v of the minimum's input of the opposite sign class */
    int sign;       /* the minimum-form sign class of the values but the extreme (-1, 0, +1) */
    int lone;       /* the other values lie in (0, high], else in (extreme, high] */
    int64_t low;    /* the minimum-form extreme lies just above low */
    int64_t high;
    int32_t extreme[KIT_MAX_WORDS]; /* the minimum-form extreme of each component */
    size_t at[KIT_MAX_WORDS][KIT_PATTERN_MAX_TIES];
    size_t count[KIT_MAX_WORDS];
    float heavy;    /* the float sum's planted value */
} full_range_plan;

static void plan_full_range(full_range_plan *plan, kit_problem problem, size_t n, kit_pattern pattern, uint64_t seed)
{
    memset(plan, 0, sizeof *plan);
    const pattern_row *row = &pattern_rows[pattern];
    plan->mirrored = problem.op == KIT_MAX;
    plan->lone = row->lone;
    plan->sign = plan->mirrored && !row->lone ? -row->sign : row->sign; /* lone-sign is its own mirror */
    /* The extreme is 2 mod 4 and above 2^25 in magnitude, so neither it nor its mirror ~e (odd)
     * is a float: a kernel that compares as floats (fminf, fmaxf) returns a rounded value. It
     * leaves two values of room past it for the timed runs' new extremes (kit_vary_problem). */
    plan->low = plan->sign > 0 && !row->lone ? (int64_t)1 << 25 : INT32_MIN;
    plan->high = plan->sign < 0 ? -2 : INT32_MAX; /* ~(-2) = 1: the mirror of all-negative has no 0 */
    const size_t components = kit_in_words(problem);
    for (size_t c = 0; c < components; c++) {
        plan->extreme[c] = (int32_t)(plan->low + 2 + 4 * (int64_t)(hash_at(seed, c, 0xE) % 1024));
        plan->count[c] = kit_pattern_extremes(problem, n, pattern, seed, c, plan->at[c]);
    }
    /* The float sum's planted value outweighs everything a skipped element of the others could
     * hide behind: about 1/16 of the others' sum of magnitudes (each about 45 on average), so
     * losing it is thousands of error bounds off, while it keeps the bound meaningful. */
    int top = 0;
    while (((size_t)1 << top) < n)
        top++;
    const int exponent = top + 2 > 10 ? top + 2 : 10; /* above every other value's 2^9 */
    const float mantissa = 1.0f + (float)(hash_at(seed, 0, 0xF) >> 41) * 0x1p-23f;
    /* Of the others' sign, lone-sign too: of the other sign it would cancel them at some n. */
    plan->heavy = ldexpf(mantissa, exponent) * (row->sign < 0 ? -1.0f : 1.0f);
}

static int planted(const full_range_plan *plan, size_t element, size_t component)
{
    for (size_t j = 0; j < plan->count[component]; j++)
        if (plan->at[component][j] == element)
            return 1;
    return 0;
}

static int32_t full_range_int(const full_range_plan *plan, uint64_t seed, size_t k, size_t element, size_t component)
{
    const int64_t extreme = plan->extreme[component];
    const int64_t bottom = plan->lone ? 0 : extreme; /* the other values lie in (bottom, high] */
    int64_t value = extreme;
    if (!planted(plan, element, component)) {
        /* Strictly inside (bottom, high]: an eighth crowds just above the bottom (the extreme,
         * or 0 for lone-sign), an eighth just below the top of the range, the rest anywhere, so
         * values near INT_MIN and INT_MAX and above 2^24 are everywhere and both signs mix
         * (sign 0). Above the extreme the crowd is 1 or 2 mod 4, so neither a value of it nor
         * its mirror is a float: the extreme rounded to a float is never one of them, and a
         * wrong answer says which mistake it came from (kit_judge). */
        const uint64_t h = hash_at(seed, k, 0x1);
        const uint64_t span = (uint64_t)(plan->high - bottom), r = h >> 3;
        const uint64_t near = span < 4096 ? span : 4096;
        switch (h & 7) {
        case 0: value = bottom + 3 + 4 * (int64_t)((r >> 1) % 1024) + (int64_t)(r & 1); break;
        case 1: value = plan->high - (int64_t)(r % near); break;
        default: value = bottom + 1 + (int64_t)(r % span); break;
        }
    }
    const int32_t v = (int32_t)value;
    return plan->mirrored ? ~v : v;
}

static float full_range_float(const full_range_plan *plan, kit_pattern pattern, uint64_t seed, size_t element)
{
    if (planted(plan, element, 0))
        return plan->heavy;
    /* 24 random bits of mantissa over the 17 binades 2^-8 .. 2^9; one in four negative for
     * mixed signs, so the sum is about half the sum of magnitudes: no cancellation that would
     * make the bound (relative to the magnitudes) loose against the sum. */
    const uint64_t h = hash_at(seed, element, 0x2);
    const int exponent = (int)(h % 17) - 8;
    const float value = ldexpf((float)(0x800000u | (uint32_t)(h >> 8 & 0x7FFFFFu)), exponent - 23);
    const int sign = pattern_rows[pattern].sign;
    const int negative = sign < 0 || (sign == 0 && (h >> 40 & 3) == 0);
    return negative ? -value : value;
}

/* The int sum's small patterns (stages 1 to 8). */
static int sum_small_value(kit_pattern pattern, size_t i, size_t n, uint64_t seed)
{
    switch (pattern) {
    case KIT_PATTERN_RANDOM: return small_random_at(seed, i);
    case KIT_PATTERN_POSITIONAL: {
        /* A hash of (index, seed) in 1..15: every element counts, and neighbours differ. */
        uint64_t s = seed ^ (i * 0xD1B54A32D192ED03ull);
        return 1 + (int)(splitmix64(&s) % 15);
    }
    case KIT_PATTERN_ONES: return 1;
    case KIT_PATTERN_LAST_ONLY: return i + 1 == n ? 7 : 0;
    default: return 0;
    }
}

/* Word k of n_words of a small pattern for min (ties everywhere: the values repeat). */
static int32_t min_small_value(kit_pattern pattern, size_t k, size_t n_words, uint64_t seed)
{
    switch (pattern) {
    case KIT_PATTERN_RANDOM: return small_random_at(seed, k); /* -8 about every 17th: ties */
    case KIT_PATTERN_POSITIONAL: {
        uint64_t s = seed ^ (k * 0xD1B54A32D192ED03ull);
        return 1 + (int32_t)(splitmix64(&s) % 15); /* 1..15, all positive: a min that starts at 0 shows */
    }
    case KIT_PATTERN_ONES: return 1;                             /* all equal: an argmin must say index 0 */
    case KIT_PATTERN_LAST_ONLY: return k + 1 == n_words ? 1 : 7; /* the minimum is the very last element */
    default: return 0;
    }
}

/* A small float pattern's element i (see kit.h, kit_fill_problem). */
static float float_small_value(kit_pattern pattern, size_t i, size_t n, uint64_t seed)
{
    switch (pattern) {
    case KIT_PATTERN_RANDOM: return (float)(random_at(seed, i) >> 40) * 0x1p-24f; /* [0, 1), 24 bits */
    case KIT_PATTERN_POSITIONAL: return (float)(i % 10000 + 1);                   /* 1..10000, again */
    case KIT_PATTERN_ONES: return i == 0 ? 0x1p24f : 1.0f; /* 2^24, then ones: a running sum loses them all */
    case KIT_PATTERN_LAST_ONLY: return i + 1 == n ? 7.0f : 0.0f;
    default: return 0.0f;
    }
}

/* Word (element, component) with a plan made for (problem, n, pattern, seed) when full range. */
static int32_t pattern_word(const full_range_plan *plan, kit_problem problem, size_t n, kit_pattern pattern,
                            uint64_t seed, size_t element, size_t component)
{
    const size_t words = kit_in_words(problem);
    if (pattern_rows[pattern].full_range)
        return problem.type == KIT_FLOAT ? word_of(full_range_float(plan, pattern, seed, element))
                                         : full_range_int(plan, seed, element * words + component, element, component);
    if (problem.type == KIT_FLOAT)
        return word_of(float_small_value(pattern, element, n, seed));
    if (problem.op == KIT_SUM)
        return sum_small_value(pattern, element, n, seed);
    if (words > 1 && pattern == KIT_PATTERN_LAST_ONLY)
        return element + 1 == n ? 1 : 7; /* the whole last matrix */
    const int32_t v = min_small_value(pattern, element * words + component, n * words, seed);
    return problem.op == KIT_MAX ? -v : v; /* max: the mirror image, all negative */
}

int32_t kit_pattern_word(kit_problem problem, size_t n, kit_pattern pattern, uint64_t seed, size_t element,
                         size_t component)
{
    if ((unsigned)pattern >= KIT_PATTERN_COUNT || element >= n || component >= kit_in_words(problem))
        return 0;
    full_range_plan plan;
    if (pattern_rows[pattern].full_range)
        plan_full_range(&plan, problem, n, pattern, seed);
    return pattern_word(&plan, problem, n, pattern, seed, element, component);
}

/* One fill or sum of elements [begin, end) of an input (kit_for_each_piece()'s body). */
typedef struct input_piece_job {
    const full_range_plan *plan;
    kit_problem problem;
    int32_t *words;
    size_t n;
    kit_pattern pattern;
    uint64_t seed;
    int64_t sums[KIT_MAX_PIECES];
} input_piece_job;

/* The sum of n elements, \p piece_sum adding up elements [begin, end) into job->sums[piece]. */
static int64_t sum_in_pieces(input_piece_job *job, size_t n,
                             void (*piece_sum)(void *context, int piece, size_t begin, size_t end))
{
    const int pieces = kit_input_pieces(n);
    kit_for_each_piece(pieces, n, piece_sum, job);
    int64_t total = 0;
    for (int k = 0; k < pieces; k++)
        total += job->sums[k];
    return total;
}

static void fill_small_sum_piece(void *context, int piece, size_t begin, size_t end)
{
    input_piece_job *job = context;
    (void)piece;
    if (job->pattern == KIT_PATTERN_RANDOM)
        for (size_t i = begin; i < end; i++)
            job->words[i] = small_random_at(job->seed, i);
    else
        for (size_t i = begin; i < end; i++)
            job->words[i] = 1;
}

static void sum_small_piece(void *context, int piece, size_t begin, size_t end)
{
    input_piece_job *job = context;
    int64_t total = 0;
    for (size_t i = begin; i < end; i++)
        total += small_random_at(job->seed, i);
    job->sums[piece] = total;
}

/* The int sum's small patterns in loops of their own, with the same values as pattern_word():
 * the 2^30 case makes and checks a billion of them, and the general per-word path took twice as
 * long (2^27 random ints on this 2-core machine: a fill 1.18 s against 0.63 s, a sum 0.72 s
 * against 0.35 s). Each returns 0 for a pattern it does not handle. */
static int fill_small_sum(int32_t *words, size_t n, kit_pattern pattern, uint64_t seed)
{
    if (pattern != KIT_PATTERN_RANDOM && pattern != KIT_PATTERN_ONES)
        return 0;
    input_piece_job job = {.words = words, .n = n, .pattern = pattern, .seed = seed};
    kit_for_each_piece(kit_input_pieces(n), n, fill_small_sum_piece, &job);
    return 1;
}

static int sum_small(size_t n, kit_pattern pattern, uint64_t seed, int64_t *sum)
{
    switch (pattern) {
    case KIT_PATTERN_RANDOM: {
        input_piece_job job = {.n = n, .pattern = pattern, .seed = seed};
        *sum = sum_in_pieces(&job, n, sum_small_piece);
        return 1;
    }
    case KIT_PATTERN_ONES:
        *sum = (int64_t)n;
        return 1;
    default:
        return 0;
    }
}

/* The random pattern of the problems other than the int sum, word by word: pattern_word()'s
 * values without its dispatch for every word. The largest case of stages 9 to 15 fills 2^30
 * words, in the runner and again in kit_grade: through pattern_word() that took 6.3 s of one
 * core's time each, here 2.0 s (2026-11-27, this kit's 2-core development machine). The test of
 * kit_fill_problem() against kit_pattern_word() covers this path. */
static int fill_random_piece(const input_piece_job *job, size_t begin, size_t end)
{
    const kit_problem problem = job->problem;
    if (job->pattern != KIT_PATTERN_RANDOM || (problem.type != KIT_FLOAT && problem.op == KIT_SUM))
        return 0;
    const size_t components = kit_in_words(problem), n = job->n;
    const int32_t sign = problem.op == KIT_MAX ? -1 : 1; /* max: the mirror image, all negative */
    int32_t *words = job->words;
    const uint64_t seed = job->seed;
    if (problem.type == KIT_FLOAT) {
        for (size_t i = begin; i < end; i++)
            words[i] = word_of(float_small_value(KIT_PATTERN_RANDOM, i, n, seed));
    } else if (problem.type == KIT_MAT3_SOA) {
        for (size_t c = 0; c < components; c++)
            for (size_t i = begin; i < end; i++)
                words[c * n + i] = sign * small_random_at(seed, i * components + c);
    } else {
        for (size_t k = begin * components; k < end * components; k++)
            words[k] = sign * small_random_at(seed, k);
    }
    return 1;
}

static void fill_piece(void *context, int piece, size_t begin, size_t end)
{
    const input_piece_job *job = context;
    const size_t components = kit_in_words(job->problem), n = job->n;
    const int planar = job->problem.type == KIT_MAT3_SOA; /* the same matrices as KIT_MAT3, as 9 planes */
    (void)piece;
    if (fill_random_piece(job, begin, end))
        return;
    for (size_t i = begin; i < end; i++)
        for (size_t c = 0; c < components; c++)
            job->words[planar ? c * n + i : i * components + c] =
                pattern_word(job->plan, job->problem, n, job->pattern, job->seed, i, c);
}

void kit_fill_problem(kit_problem problem, int32_t *words, size_t n, kit_pattern pattern, uint64_t seed)
{
    if ((unsigned)pattern >= KIT_PATTERN_COUNT) {
        memset(words, 0, n * kit_in_words(problem) * sizeof *words);
        return;
    }
    if (kit_problem_equal(problem, KIT_INT_SUM) && fill_small_sum(words, n, pattern, seed))
        return;
    full_range_plan plan;
    if (pattern_rows[pattern].full_range)
        plan_full_range(&plan, problem, n, pattern, seed);
    input_piece_job job = {.plan = &plan, .problem = problem, .words = words, .n = n, .pattern = pattern, .seed = seed};
    kit_for_each_piece(kit_input_pieces(n * kit_in_words(problem)), n, fill_piece, &job);
}

void kit_fill_input(int *values, size_t n, kit_pattern pattern, uint64_t seed)
{
    kit_fill_problem(KIT_INT_SUM, values, n, pattern, seed);
}

static void pattern_sum_piece(void *context, int piece, size_t begin, size_t end)
{
    input_piece_job *job = context;
    int64_t total = 0;
    for (size_t i = begin; i < end; i++)
        total += pattern_word(job->plan, KIT_INT_SUM, job->n, job->pattern, job->seed, i, 0);
    job->sums[piece] = total;
}

int64_t kit_pattern_sum(size_t n, kit_pattern pattern, uint64_t seed)
{
    if ((unsigned)pattern >= KIT_PATTERN_COUNT)
        return 0;
    int64_t sum = 0;
    if (sum_small(n, pattern, seed, &sum))
        return sum;
    full_range_plan plan;
    if (pattern_rows[pattern].full_range)
        plan_full_range(&plan, KIT_INT_SUM, n, pattern, seed); /* exact: 2^30 values of magnitude at most 2^31 stay within 2^61 */
    input_piece_job job = {.plan = &plan, .problem = KIT_INT_SUM, .n = n, .pattern = pattern, .seed = seed};
    return sum_in_pieces(&job, n, pattern_sum_piece);
}

// [reference-sum] (shown on the docs' stage 1 page)
int64_t kit_reference_sum(const int *values, size_t n)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += values[i];
    return sum;
}
// [reference-sum]

int kit_expected_int(int64_t exact_sum)
{
    uint32_t low = (uint32_t)(uint64_t)exact_sum;
    int32_t wrapped;
    memcpy(&wrapped, &low, sizeof wrapped); /* two's-complement wrap, without undefined behaviour */
    return wrapped;
}

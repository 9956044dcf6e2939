/**
 * \file problems.c
 * \brief What the kit can reduce: the types and operators of common/stages.def, as one table,
 *        with their inputs, their exact references and how an answer is judged (no CUDA here).
 *
 * Every type is made of 4-byte words, so the harness poisons, guards and copies words and asks
 * this file what they mean. The int sum of stages 1 to 8 keeps its own, older code paths in
 * input.c and harness.c (its messages count lost elements); every other problem goes through
 * the functions here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kit.h"

/* ---------------------------------------------------------------- the table */

/* One row per pair the kit can reduce. A new pair is a row here and a case in the switch
 * statements below that say what its values mean. */
typedef struct problem_row {
    kit_type type;
    kit_op op;
    const char *name;     /* for messages and the ladder */
    size_t in_words;      /* 4-byte words per input element */
    size_t out_words;     /* 4-byte words per result */
    int planar;           /* partial results stored as planes */
    const char *in_ctype; /* the launcher's types (kit_signature) */
    const char *out_ctype;
} problem_row;

static const problem_row problem_rows[] = {
    {KIT_INT, KIT_SUM, "int sum", 1, 1, 0, "int", "int"},
    {KIT_FLOAT, KIT_SUM, "float sum", 1, 1, 0, "float", "float"},
    {KIT_INT, KIT_MIN, "int min", 1, 1, 0, "int", "int"},
    {KIT_INT, KIT_MAX, "int max", 1, 1, 0, "int", "int"},
    {KIT_INT, KIT_ARGMIN, "int argmin", 1, 2, 0, "int", "kit_argmin"},
    {KIT_MAT3, KIT_MIN, "element-wise min of 3x3 int matrices", 9, 9, 0, "kit_mat3", "kit_mat3"},
    {KIT_MAT3_SOA, KIT_MIN, "element-wise min of 3x3 int matrices stored as 9 planes", 9, 9, 1, "int", "int"},
};
#define PROBLEM_ROWS ((int)(sizeof problem_rows / sizeof problem_rows[0]))

static const problem_row *row_of(kit_problem p)
{
    for (int i = 0; i < PROBLEM_ROWS; i++)
        if (problem_rows[i].type == p.type && problem_rows[i].op == p.op)
            return &problem_rows[i];
    return NULL;
}

const char *kit_type_name(kit_type type)
{
    switch (type) {
    case KIT_INT: return "int";
    case KIT_FLOAT: return "float";
    case KIT_MAT3: return "3x3 int matrix";
    case KIT_MAT3_SOA: return "3x3 int matrix (9 planes)";
    }
    return "unknown type";
}

const char *kit_op_name(kit_op op)
{
    switch (op) {
    case KIT_SUM: return "sum";
    case KIT_MIN: return "min";
    case KIT_MAX: return "max";
    case KIT_ARGMIN: return "argmin";
    }
    return "unknown operator";
}

const char *kit_problem_name(kit_problem problem)
{
    const problem_row *row = row_of(problem);
    return row ? row->name : "a type and operator the kit cannot reduce";
}

int kit_problem_equal(kit_problem a, kit_problem b) { return a.type == b.type && a.op == b.op; }

kit_status kit_problem_check(kit_problem problem, kit_error *err)
{
    if (row_of(problem))
        return KIT_OK;
    char list[512] = "";
    for (int i = 0; i < PROBLEM_ROWS; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", problem_rows[i].name);
    return kit_fail(err, KIT_BAD_ARGUMENT, "the kit cannot reduce %s with %s (common/problems.c has: %s)",
                    kit_type_name(problem.type), kit_op_name(problem.op), list);
}

size_t kit_in_words(kit_problem problem)
{
    const problem_row *row = row_of(problem);
    return row ? row->in_words : 1;
}

size_t kit_out_words(kit_problem problem)
{
    const problem_row *row = row_of(problem);
    return row ? row->out_words : 1;
}

int kit_out_planar(kit_problem problem)
{
    const problem_row *row = row_of(problem);
    return row ? row->planar : 0;
}

size_t kit_max_n(kit_problem problem) { return KIT_MAX_N / kit_in_words(problem); }

void kit_problem_ctypes(kit_problem problem, const char **in_type, const char **out_type)
{
    const problem_row *row = row_of(problem);
    *in_type = row ? row->in_ctype : "int";
    *out_type = row ? row->out_ctype : "int";
}

/* ---------------------------------------------------------------- words */

static float float_of(int32_t word)
{
    float f;
    memcpy(&f, &word, sizeof f);
    return f;
}

static int32_t word_of(float f)
{
    int32_t w;
    memcpy(&w, &f, sizeof w);
    return w;
}

int32_t kit_guard_word(kit_problem problem)
{
    /* A read past the end brings this value in; it wins (min, max) or shows in the sum. */
    if (problem.type == KIT_FLOAT)
        return word_of((float)KIT_INPUT_GUARD_VALUE);
    if (problem.op == KIT_MAX)
        return KIT_INPUT_GUARD_VALUE;
    if (problem.op == KIT_SUM)
        return KIT_INPUT_GUARD_VALUE;
    return -KIT_INPUT_GUARD_VALUE; /* min, argmin, matrices */
}

/* ---------------------------------------------------------------- inputs */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---------------------------------------------------------------- the exact float sum */

/*
 * A long accumulator: the sum as a fixed-point number with its last bit at 2^-149 (the
 * smallest float), in 32-bit digits held in int64 (each digit takes 2^30 additions of up
 * to 2^32 before it could overflow; kit_exact_normalize() carries them over). Adding and
 * subtracting are exact, so the timed runs' changes to the input keep it exact.
 */
static void exact_add_float(kit_exact_sum *acc, float f, int sign)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint32_t exponent = (bits >> 23) & 0xFF;
    uint64_t mantissa = bits & 0x7FFFFF;
    if (exponent == 0xFF)
        return; /* inf or NaN: no pattern makes one */
    int shift = 0;
    if (exponent > 0) {
        mantissa |= 0x800000;
        shift = (int)exponent - 1; /* value = mantissa * 2^(exponent - 150) = mantissa * 2^(shift - 149) */
    }
    if (bits >> 31)
        sign = -sign;
    uint64_t placed = mantissa << (shift % 32);
    int digit = shift / 32;
    acc->digit[digit] += sign * (int64_t)(placed & 0xFFFFFFFFu);
    acc->digit[digit + 1] += sign * (int64_t)(placed >> 32);
}

static void exact_normalize(kit_exact_sum *acc)
{
    for (int d = 0; d + 1 < KIT_EXACT_DIGITS; d++) {
        int64_t carry = acc->digit[d] >> 32; /* arithmetic shift: floor division by 2^32 */
        acc->digit[d] -= carry * ((int64_t)1 << 32);
        acc->digit[d + 1] += carry;
    }
}

double kit_exact_to_double(const kit_exact_sum *sum)
{
    kit_exact_sum acc = *sum;
    exact_normalize(&acc);
    double value = 0.0; /* from the top digit down: relative error ~2^-52, plenty for error tables */
    for (int d = KIT_EXACT_DIGITS - 1; d >= 0; d--)
        value += ldexp((double)acc.digit[d], 32 * d - 149);
    return value;
}

float kit_exact_to_float(const kit_exact_sum *sum)
{
    kit_exact_sum acc = *sum;
    exact_normalize(&acc);
    int negative = acc.digit[KIT_EXACT_DIGITS - 1] < 0;
    uint32_t mag[KIT_EXACT_DIGITS]; /* |sum| in plain base-2^32 digits */
    int64_t borrow = 0;
    for (int d = 0; d < KIT_EXACT_DIGITS; d++) {
        int64_t v = negative ? -acc.digit[d] - borrow : acc.digit[d];
        borrow = 0;
        if (v < 0) {
            v += (int64_t)1 << 32;
            borrow = 1;
        }
        mag[d] = (uint32_t)v;
    }
    int top = -1; /* highest set bit, counted from the 2^-149 bit */
    for (int d = KIT_EXACT_DIGITS - 1; d >= 0 && top < 0; d--)
        for (int b = 31; b >= 0; b--)
            if (mag[d] >> b & 1) {
                top = 32 * d + b;
                break;
            }
    if (top < 0)
        return 0.0f;
#define BIT(k) ((k) < 0 ? 0u : (mag[(k) / 32] >> ((k) % 32)) & 1u)
    int low = top - 23 > 0 ? top - 23 : 0; /* the 24 bits kept (fewer for subnormals) */
    uint64_t kept = 0;
    for (int k = top; k >= low; k--)
        kept = kept << 1 | BIT(k);
    int half = BIT(low - 1), sticky = 0;
    for (int k = low - 2; k >= 0 && !sticky; k--)
        sticky = (int)BIT(k);
#undef BIT
    if (half && (sticky || (kept & 1))) /* round to nearest, ties to even */
        kept++;
    float value = ldexpf((float)kept, low - 149); /* exact: kept has at most 25 bits, a power of two if 25 */
    return negative ? -value : value;
}

/* ---------------------------------------------------------------- references */

/* The reference of elements [begin, end) of an input, one piece of it (kit_for_each_piece()): its
 * int sum; its exact float sum, sum of magnitudes and largest magnitude; the first element holding
 * its minimum (argmin); or each component's extreme. */
typedef struct reference_piece_job {
    kit_problem problem;
    const int32_t *words;
    size_t n;
    int64_t sums[KIT_MAX_PIECES];
    kit_exact_sum float_sums[KIT_MAX_PIECES];
    double abs_sums[KIT_MAX_PIECES], abs_max[KIT_MAX_PIECES];
    kit_value best[KIT_MAX_PIECES];
    size_t at[KIT_MAX_PIECES];
} reference_piece_job;

static void reference_piece(void *context, int piece, size_t begin, size_t end)
{
    reference_piece_job *job = context;
    const kit_problem problem = job->problem;
    const int32_t *words = job->words;
    if (problem.op == KIT_SUM && problem.type == KIT_FLOAT) {
        kit_exact_sum *sum = &job->float_sums[piece];
        memset(sum, 0, sizeof *sum);
        double abs_sum = 0.0, abs_max = 0.0;
        for (size_t i = begin; i < end; i++) {
            float x = float_of(words[i]);
            exact_add_float(sum, x, 1);
            abs_sum += fabs((double)x);
            abs_max = fmax(abs_max, fabs((double)x));
            if ((i - begin) % (1u << 24) == (1u << 24) - 1)
                exact_normalize(sum);
        }
        job->abs_sums[piece] = abs_sum;
        job->abs_max[piece] = abs_max;
    } else if (problem.op == KIT_SUM) {
        job->sums[piece] = kit_reference_sum(words + begin, end - begin);
    } else if (problem.op == KIT_ARGMIN) {
        int32_t best = words[begin];
        size_t at = begin;
        for (size_t i = begin + 1; i < end; i++)
            if (words[i] < best) { /* strictly less: the first index of a tie stays */
                best = words[i];
                at = i;
            }
        job->best[piece].w[0] = best;
        job->at[piece] = at;
    } else {
        const size_t components = kit_in_words(problem), n = job->n;
        const int planar = problem.type == KIT_MAT3_SOA;
        for (size_t c = 0; c < components; c++) {
            int32_t best = planar ? words[c * n + begin] : words[begin * components + c];
            for (size_t i = begin + 1; i < end; i++) {
                int32_t v = planar ? words[c * n + i] : words[i * components + c];
                if (problem.op == KIT_MAX ? v > best : v < best)
                    best = v;
            }
            job->best[piece].w[c] = best;
        }
    }
}

void kit_reference_compute(kit_problem problem, const int32_t *words, size_t n, kit_reference *ref)
{
    memset(ref, 0, sizeof *ref);
    ref->problem = problem;
    ref->n = n;
    /* A large input is checked by several cores, a piece each (input.c: kit_input_pieces()); any
     * other is one piece, checked here. The pieces' results are combined in order: the first index
     * of a tie stays, the long accumulators add exactly, and the sum of magnitudes (the float
     * error bound's) is the pieces' running sums added, a one-core sum's last bits apart. */
    const int pieces = kit_input_pieces(n * kit_in_words(problem));
    reference_piece_job job = {.problem = problem, .words = words, .n = n};
    kit_for_each_piece(pieces, n, reference_piece, &job);
    if (problem.op == KIT_SUM && problem.type == KIT_FLOAT) {
        for (int k = 0; k < pieces; k++) {
            for (int d = 0; d < KIT_EXACT_DIGITS; d++)
                ref->float_sum.digit[d] += job.float_sums[k].digit[d];
            ref->abs_sum += job.abs_sums[k];
            ref->abs_max = fmax(ref->abs_max, job.abs_max[k]);
        }
        if (pieces > 1)
            exact_normalize(&ref->float_sum); /* the pieces' carries, added up */
        ref->answer.w[0] = word_of(kit_exact_to_float(&ref->float_sum));
    } else if (problem.op == KIT_SUM) {
        for (int k = 0; k < pieces; k++)
            ref->int_sum += job.sums[k];
        ref->answer.w[0] = kit_expected_int(ref->int_sum);
    } else if (problem.op == KIT_ARGMIN) {
        ref->answer.w[0] = job.best[0].w[0];
        ref->answer.w[1] = (int32_t)job.at[0];
        for (int k = 1; k < pieces; k++)
            if (job.best[k].w[0] < ref->answer.w[0]) {
                ref->answer.w[0] = job.best[k].w[0];
                ref->answer.w[1] = (int32_t)job.at[k];
            }
    } else {
        for (size_t c = 0; c < kit_in_words(problem); c++) {
            int32_t best = job.best[0].w[c];
            for (int k = 1; k < pieces; k++)
                if (problem.op == KIT_MAX ? job.best[k].w[c] > best : job.best[k].w[c] < best)
                    best = job.best[k].w[c];
            ref->answer.w[c] = best;
        }
    }
}

double kit_float_bound(size_t n, double abs_sum)
{
    int depth = 0;
    while (((size_t)1 << depth) < n)
        depth++;
    const double h = depth + KIT_FLOAT_RUN;   /* roundings one value may go through */
    const double u = 0x1p-24;                 /* float's unit roundoff */
    return h * u / (1.0 - h * u) * abs_sum;   /* gamma_h * sum |x_i| (Higham, Accuracy and Stability, 4.2) */
}

/* ---------------------------------------------------------------- judging and showing */

/* Whether \p got is \p answer as a comparison of floats (fminf, fmaxf) leaves it: rounded to a
 * float and back. Float 2^31 does not fit an int: a GPU saturates it to INT_MAX, an x86 CPU (the
 * emulator) gives INT_MIN. Only an answer that is no float can show it. */
static int rounded_through_float(int32_t answer, int32_t got)
{
    const float f = (float)answer;
    if ((double)f == (double)answer)
        return 0;
    if (f >= 0x1p31f)
        return got == INT32_MAX || got == INT32_MIN;
    return got == (int32_t)f;
}

/* The first element whose component \p c holds \p value, or n. */
static size_t first_holding(const kit_reference *ref, const int32_t *input, size_t c, int32_t value)
{
    const size_t components = kit_in_words(ref->problem), n = ref->n;
    const int planar = ref->problem.type == KIT_MAT3_SOA;
    for (size_t i = 0; i < n; i++)
        if ((planar ? input[c * n + i] : input[i * components + c]) == value)
            return i;
    return n;
}

/* Whether the extreme of component c (its value, wherever it is) is the only value on its side of
 * zero (negative for a minimum, non-negative for a maximum): the lone-sign pattern. Then a skipped
 * extreme and a comparison as unsigned numbers give the same answer. */
static int extreme_alone_on_its_side(const kit_reference *ref, const int32_t *input, size_t c)
{
    const kit_problem p = ref->problem;
    const int32_t extreme = ref->answer.w[c];
    const int negative = extreme < 0;
    if (p.op == KIT_MAX ? negative : !negative)
        return 0;
    const size_t components = kit_in_words(p), n = ref->n;
    const int planar = p.type == KIT_MAT3_SOA;
    for (size_t i = 0; i < n; i++) {
        const int32_t v = planar ? input[c * n + i] : input[i * components + c];
        if (v != extreme && (v < 0) == negative)
            return 0;
    }
    return 1;
}

/* ": the minimum, -2147483646, is in element 4103 (4103 mod 4 = 3, mod 16 = 7) ...": the element
 * a kernel that skips part of its loads never read, with the residues a student can check. */
static void name_missed_extreme(const kit_reference *ref, const int32_t *input, size_t c, char *out, size_t size)
{
    const kit_problem p = ref->problem;
    const size_t at = first_holding(ref, input, c, ref->answer.w[c]);
    const size_t components = kit_in_words(p);
    const size_t word = p.type == KIT_MAT3_SOA ? c * ref->n + at : at * components + c;
    char component[48] = "";
    if (components > 1)
        snprintf(component, sizeof component, " of component %zu", c);
    snprintf(out, size, ": the %s%s, %d, is in %s %zu (input word %zu: mod 4 = %zu, mod 9 = %zu, mod 16 = %zu), "
             "and the answer is a value of other elements: that element was never compared. Does every thread "
             "read every int of its loads (x, y, z and w of an int4), and the elements of the tail?",
             p.op == KIT_MAX ? "maximum" : "minimum", component, ref->answer.w[c], components > 1 ? "matrix" : "element",
             at, word, word % 4, word % 9, word % 16);
    if (extreme_alone_on_its_side(ref, input, c))
        snprintf(out + strlen(out), size - strlen(out), " Or, since no other value has its sign: were the ints "
                 "compared as unsigned numbers (%s)?", p.op == KIT_ARGMIN ? "an argmin key (value, index) must flip "
                 "the value's sign bit first" : "every negative int is above every positive one there");
}

void kit_format_value(kit_problem problem, const kit_value *value, char *out, size_t size)
{
    if (problem.type == KIT_FLOAT) {
        snprintf(out, size, "%.9g", (double)float_of(value->w[0]));
    } else if (problem.op == KIT_ARGMIN) {
        snprintf(out, size, "%d at index %d", value->w[0], value->w[1]);
    } else if (kit_out_words(problem) == 9) {
        snprintf(out, size, "[%d %d %d; %d %d %d; %d %d %d]", value->w[0], value->w[1], value->w[2], value->w[3],
                 value->w[4], value->w[5], value->w[6], value->w[7], value->w[8]);
    } else {
        snprintf(out, size, "%d", value->w[0]);
    }
}

int kit_judge(const kit_reference *ref, kit_pattern pattern, const int32_t *input, const kit_value *got,
              char *why, size_t size)
{
    const kit_problem p = ref->problem;
    char want[160], have[160];
    kit_format_value(p, &ref->answer, want, sizeof want);
    kit_format_value(p, got, have, sizeof have);
    const int32_t guard = kit_guard_word(p);
    if (p.type == KIT_FLOAT && p.op == KIT_SUM) {
        const double exact = kit_exact_to_double(&ref->float_sum);
        const double value = (double)float_of(got->w[0]);
        const double bound = kit_float_bound(ref->n, ref->abs_sum);
        const double error = fabs(value - exact);
        if (error <= bound) /* NaN fails here too */
            return 1;
        double guards = (value - exact) / KIT_INPUT_GUARD_VALUE;
        const char *hint = "";
        char detail[300];
        if (value != value)
            hint = ": not a number (was a slot of shared memory read before it was written?)";
        else if (guards >= 0.5 && fabs(guards - floor(guards + 0.5)) < 0.01 && guards < KIT_INPUT_GUARD + 0.5)
            hint = ": that is about a whole number of 2^20s too much: it read past the end of the input (the "
                   "guard after it holds 2^20s); check the bound on n";
        else if (kit_pattern_is_full_range(pattern) && error >= 0.75 * ref->abs_max && error <= 2 * ref->abs_max) {
            /* the planted value is about 1/16 of the others' magnitudes: losing it and a share of the
             * others lands here, losing a share of the others alone falls short */
            size_t at = 0;
            for (size_t i = 0; input && i < ref->n; i++)
                if (fabs((double)float_of(input[i])) == ref->abs_max) {
                    at = i;
                    break;
                }
            if (input)
                snprintf(detail, sizeof detail, ": off by about the input's largest value, at element %zu "
                         "(mod 4 = %zu, mod 16 = %zu): was it skipped? Check that every thread reads every "
                         "float of its loads, and the tail", at, at % 4, at % 16);
            else
                snprintf(detail, sizeof detail, ": off by about the input's largest value, which one element holds: "
                         "was it skipped? Check that every thread reads every float of its loads, and the tail");
            hint = detail;
        }
        else if (pattern == KIT_PATTERN_ONES && value < exact)
            hint = ": the input is 2^24 followed by ones, and a float running sum that holds 2^24 cannot grow by "
                   "1 (the spacing of floats there is 2): one thread (or one float atomicAdd after another) "
                   "summed too many values in a row; sum them as a tree";
        else
            hint = ": further off than a tree's rounding allows; is every element added exactly once, and no "
                   "thread adding a long run of values into one float?";
        snprintf(why, size, "expected %s (the exact sum, rounded), got %s: off by %.3g, but a tree sum may be off "
                 "by at most %.3g (%d roundings per value at most, times the sum of |x|)%s", want, have, error,
                 bound, (int)(bound / (0x1p-24 * (ref->abs_sum > 0 ? ref->abs_sum : 1)) + 0.5), hint);
        return 0;
    }
    const size_t words = kit_out_words(p);
    if (memcmp(got->w, ref->answer.w, words * sizeof(int32_t)) == 0)
        return 1;
    const char *hint = "";
    char detail[600];
    if (p.op == KIT_ARGMIN) {
        const int32_t index = got->w[1];
        if (got->w[0] == ref->answer.w[0] && index >= 0 && (size_t)index < ref->n && input &&
            input[index] == got->w[0])
            hint = index > ref->answer.w[1]
                       ? ": the value is right and so is the index, but another, earlier index holds the same value: "
                         "ties must go to the smallest index (compare the index too when the values are equal)"
                       : ": an index before the first one that holds the minimum?";
        else if (got->w[0] == guard || (index >= 0 && (size_t)index >= ref->n))
            hint = ": past the end of the input (the guard after it holds -2^20): check the bound on n";
        else if (got->w[0] == ref->answer.w[0])
            hint = ": the value is right, but the input does not hold it at that index";
        else if (got->w[0] == 0 && pattern == KIT_PATTERN_POSITIONAL)
            hint = ": 0 is in no element of this input (all are 1..15): the minimum started from 0 instead of the "
                   "identity, INT_MAX (or the first element)";
        else if (got->w[0] == 0 && pattern == KIT_PATTERN_ALL_POSITIVE)
            hint = ": 0 is in no element of this input (all are positive): the minimum started from 0 instead of "
                   "the identity, INT_MAX (or the first element)";
        else if (ref->answer.w[0] < 0 && got->w[0] >= 0 && !(input && extreme_alone_on_its_side(ref, input, 0)))
            hint = ": a non-negative value won over the negative minimum: as unsigned numbers every negative int "
                   "comes after every positive one, so a 64-bit key (value, index) must flip the value's sign bit "
                   "((unsigned)value ^ 0x80000000) before the keys are compared";
        else if (rounded_through_float(ref->answer.w[0], got->w[0]))
            hint = ": that is the minimum rounded to a float: the values were compared as floats, which hold ints "
                   "exactly only up to 2^24; compare them as ints";
        else if (input && got->w[0] > ref->answer.w[0] && kit_pattern_is_full_range(pattern) &&
                 first_holding(ref, input, 0, got->w[0]) < ref->n) {
            name_missed_extreme(ref, input, 0, detail, sizeof detail);
            hint = detail;
        }
    } else {
        int started_at_zero = 0, read_past = 0, identity = 0, as_float = 1, as_unsigned = 0;
        size_t missed = words; /* a component whose answer is another element's value: its extreme was skipped */
        const int32_t id = p.op == KIT_MAX ? INT32_MIN : INT32_MAX;
        for (size_t c = 0; c < words; c++) {
            const int32_t want_c = ref->answer.w[c], got_c = got->w[c];
            if (got_c == want_c)
                continue;
            started_at_zero |= got_c == 0;
            read_past |= got_c == guard;
            identity |= got_c == id;
            as_float &= rounded_through_float(want_c, got_c); /* comparing as floats rounds every extreme */
            as_unsigned |= p.op == KIT_MAX ? want_c >= 0 && got_c < 0 : want_c < 0 && got_c >= 0;
            const int short_of_extreme = p.op == KIT_MAX ? got_c < want_c : got_c > want_c;
            if (missed == words && input && short_of_extreme && kit_pattern_is_full_range(pattern) &&
                first_holding(ref, input, c, got_c) < ref->n)
                missed = c;
        }
        if (read_past)
            hint = p.op == KIT_MAX ? ": 2^20 is in no element: it read past the end of the input (the guard after "
                                     "it holds 2^20); check the bound on n"
                                   : ": -2^20 is in no element: it read past the end of the input (the guard after "
                                     "it holds -2^20); check the bound on n";
        else if (started_at_zero && (pattern == KIT_PATTERN_POSITIONAL || pattern == KIT_PATTERN_ONES ||
                                     pattern == KIT_PATTERN_LAST_ONLY ||
                                     pattern == (p.op == KIT_MAX ? KIT_PATTERN_ALL_NEGATIVE : KIT_PATTERN_ALL_POSITIVE)))
            hint = p.op == KIT_MAX ? ": 0 is in no element (all are negative): the maximum started from 0 "
                                     "instead of the identity, INT_MIN (or the first element)"
                                   : ": 0 is in no element (all are positive): the minimum started from 0 instead "
                                     "of the identity, INT_MAX (or the first element)";
        else if (identity)
            hint = p.op == KIT_MAX ? ": INT_MIN, the identity, came out: a block that read no element wrote its "
                                     "identity and the others' results were lost?"
                                   : ": INT_MAX, the identity, came out: a block that read no element wrote its "
                                     "identity and the others' results were lost?";
        else if (as_unsigned && !(missed < words && extreme_alone_on_its_side(ref, input, missed)))
            hint = ": negative values lost to non-negative ones, as if the ints were compared as unsigned numbers "
                   "(where every negative int is above every positive one)";
        else if (as_float)
            hint = p.op == KIT_MAX ? ": that is the maximum rounded to a float: the values were compared as floats "
                                     "(fmaxf), which hold ints exactly only up to 2^24; use max() on ints"
                                   : ": that is the minimum rounded to a float: the values were compared as floats "
                                     "(fminf), which hold ints exactly only up to 2^24; use min() on ints";
        else if (pattern == KIT_PATTERN_LAST_ONLY)
            hint = ": the minimum is only in the very last element, and it was lost: check the tail bound";
        else if (missed < words) {
            name_missed_extreme(ref, input, missed, detail, sizeof detail);
            hint = detail;
        }
    }
    snprintf(why, size, "expected %s, got %s%s", want, have, hint);
    return 0;
}

/* ---------------------------------------------------------------- varied inputs for timed runs */

int kit_vary_problem(kit_reference *ref, const kit_reference *filled, int32_t *words, uint64_t seed, uint64_t run,
                     size_t at[], int32_t before[])
{
    const kit_problem p = ref->problem;
    const size_t n = ref->n;
    uint64_t state = seed ^ (0xD1B54A32D192ED03ull * (run + 1));
    int count = 0;
    if (p.type == KIT_FLOAT) {
        /* One element becomes +-m, m a power of two far beyond the error bound and any element:
         * every run's sum differs from the filled input's and the previous run's by more than
         * twice the bound, so no remembered answer passes (the sign alternates run to run). */
        double m = fmax(16.0 * kit_float_bound(n, filled->abs_sum), 4.0 * filled->abs_max);
        m = ldexp(1.0, (int)ceil(log2(fmax(m, 1.0))));
        const float value = (float)((run & 1) ? m : -m);
        size_t i = (size_t)(splitmix64(&state) % n);
        at[count] = i;
        before[count++] = words[i];
        exact_add_float(&ref->float_sum, float_of(words[i]), -1);
        exact_add_float(&ref->float_sum, value, 1);
        ref->abs_sum += fabs((double)value) - fabs((double)float_of(words[i]));
        ref->abs_max = fmax(ref->abs_max, fabs((double)value));
        words[i] = word_of(value);
        ref->answer.w[0] = word_of(kit_exact_to_float(&ref->float_sum));
        return count;
    }
    if (p.op == KIT_SUM)
        return 0; /* the int sum varies its input in harness.c */
    /* min, max, argmin and matrices: a new extreme in each component, at a random element;
     * its value alternates between two, so consecutive runs' answers differ. Every pattern leaves
     * two values of room beyond its extreme (kit_fill_problem()); the clamp only keeps an input
     * made elsewhere from overflowing. */
    const size_t components = kit_in_words(p);
    for (size_t c = 0; c < components; c++) {
        size_t i = (size_t)(splitmix64(&state) % n);
        const int64_t step = 1 + (int64_t)(run & 1);
        int64_t wanted = p.op == KIT_MAX ? (int64_t)filled->answer.w[c] + step : (int64_t)filled->answer.w[c] - step;
        const int32_t value = (int32_t)(wanted < INT32_MIN ? INT32_MIN : wanted > INT32_MAX ? INT32_MAX : wanted);
        size_t word = p.type == KIT_MAT3_SOA ? c * n + i : i * components + c;
        at[count] = word;
        before[count++] = words[word];
        words[word] = value;
        ref->answer.w[c] = value;
        if (p.op == KIT_ARGMIN)
            ref->answer.w[1] = (int32_t)i;
    }
    return count;
}

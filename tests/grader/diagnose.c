/**
 * \file diagnose.c
 * \brief From many failed runs to one message with the likely cause (no CUDA here).
 *
 * The harness explains one run ("expected 1000, got 896: with all ones that is 104 elements
 * lost"). Across the whole matrix of runs the grader sees more: which block sizes pass, which
 * sizes fail, whether the same input gives different answers. Each observation below is a
 * sentence that is true of the failures seen; the message lists those that hold.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader.h"

int kit_case_log_add(kit_case_log *log, const kit_case *c)
{
    if (log->count == log->capacity) {
        int capacity = log->capacity ? 2 * log->capacity : 256;
        kit_case *bigger = realloc(log->cases, (size_t)capacity * sizeof *bigger);
        if (!bigger)
            return 0;
        log->cases = bigger;
        log->capacity = capacity;
    }
    log->cases[log->count++] = *c;
    return 1;
}

void kit_case_log_free(kit_case_log *log)
{
    free(log->cases);
    memset(log, 0, sizeof *log);
}

int kit_status_is_fatal(kit_status status)
{
    return status == KIT_TIMEOUT || status == KIT_CUDA_ERROR || status == KIT_NO_GPU ||
           status == KIT_OUT_OF_MEMORY;
}

static int is_power_of_two(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

/* Appends a sentence to out (keeps it NUL-terminated when full). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void say(char *out, size_t size, const char *format, ...)
{
    size_t used = strlen(out);
    if (used + 1 >= size)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(out + used, size - used, format, args);
    va_end(args);
}

static int same_input(const kit_case *a, const kit_case *b)
{
    return a->n == b->n && a->threads == b->threads && a->pattern == b->pattern && a->seed == b->seed;
}

static int same_answer(kit_problem problem, const kit_case *a, const kit_case *b)
{
    return memcmp(a->got.w, b->got.w, kit_out_words(problem) * sizeof(int32_t)) == 0;
}

/* Same input (n, threads, pattern, seed), different answers: nothing but a race does that (or,
 * for a float sum, additions in another order). */
static const kit_case *find_unstable(kit_problem problem, const kit_case *cases, int count, const kit_case **other)
{
    for (int i = 0; i < count; i++) {
        if (cases[i].repeat == 0 || kit_status_is_fatal(cases[i].status))
            continue;
        for (int j = 0; j < i; j++) {
            const kit_case *a = &cases[j], *b = &cases[i];
            if (same_input(a, b) && (a->status == KIT_OK || a->status == KIT_WRONG_RESULT) &&
                (b->status == KIT_OK || b->status == KIT_WRONG_RESULT) && !same_answer(problem, a, b)) {
                *other = a;
                return b;
            }
        }
    }
    return NULL;
}

/* "0.5 (bits 0x3f000000)" for floats, where two answers may print alike; else kit_format_value's. */
static void show_answer(kit_problem problem, const kit_value *value, char *out, size_t size)
{
    char text[160];
    kit_format_value(problem, value, text, sizeof text);
    if (problem.type == KIT_FLOAT)
        snprintf(out, size, "%s (bits 0x%08x)", text, (unsigned)value->w[0]);
    else
        snprintf(out, size, "%s", text);
}

int kit_check_reproducible(int stage, kit_case *cases, int count)
{
    const kit_problem problem = kit_grade_problem(stage);
    int failed = 0;
    for (int i = 0; i < count; i++) {
        kit_case *b = &cases[i];
        if (b->repeat == 0 || b->status != KIT_OK)
            continue;
        const kit_case *a = NULL; /* the first run of this input */
        for (int j = i - 1; j >= 0 && !a; j--)
            if (cases[j].repeat == 0 && same_input(&cases[j], b))
                a = &cases[j];
        if (!a || a->status != KIT_OK || same_answer(problem, a, b))
            continue;
        char first[200], now[200];
        show_answer(problem, &a->got, first, sizeof first);
        show_answer(problem, &b->got, now, sizeof now);
        const char *why =
            problem.type == KIT_FLOAT
                ? "both are within the error bound, but the same input must give the same bits every run: a float "
                  "atomicAdd adds in whatever order the blocks finish, and float addition is not associative; stage "
                  "%d asks for a multi-pass tree (each block writes its partial sum, the next pass adds those), whose "
                  "order of additions is the same every run"
                : "the same input must give the same answer every run (stage %d): a race?";
        char reason[600];
        snprintf(reason, sizeof reason, why, stage);
        snprintf(b->message, sizeof b->message,
                 "stage %d, n = %zu, %u threads, %s input, seed %llu: not reproducible: run 1 gave %.120s, run %d gave "
                 "%.120s%s: %.420s",
                 stage, b->n, b->threads, kit_pattern_name(b->pattern), b->seed, first, b->repeat + 1, now,
                 problem.type == KIT_FLOAT ? " (bits differ)" : "", reason);
        b->status = KIT_WRONG_RESULT;
        failed++;
    }
    return failed;
}

/* Block sizes with and without failures, as "64, 128 and 512". */
static void list_threads(char *out, size_t size, const unsigned *values, int count)
{
    out[0] = '\0';
    for (int i = 0; i < count; i++)
        say(out, size, "%s%u", i == 0 ? "" : i + 1 == count ? " and " : ", ", values[i]);
}

int kit_diagnose(int stage, const kit_case *cases, int count, char *out, size_t size)
{
    out[0] = '\0';
    const kit_problem problem = kit_grade_problem(stage);
    const int int_sum = kit_problem_equal(problem, KIT_INT_SUM);
    int failed = 0, ran = 0;
    const kit_case *first = NULL, *fatal = NULL;
    for (int i = 0; i < count; i++) {
        ran++;
        if (cases[i].status == KIT_OK)
            continue;
        failed++;
        if (!first)
            first = &cases[i];
        if (!fatal && kit_status_is_fatal(cases[i].status))
            fatal = &cases[i];
    }
    if (failed == 0)
        return 0;

    /* An unfilled skeleton: every run found no result at all. */
    if (failed == ran && first->status == KIT_NO_RESULT && strstr(first->message, "wrote no result")) {
        int all_empty = 1;
        for (int i = 0; i < count; i++)
            all_empty &= cases[i].status == KIT_NO_RESULT && strstr(cases[i].message, "wrote no result") != NULL;
        if (all_empty) {
            say(out, size, "%s", first->message);
            return failed;
        }
    }

    say(out, size, "stage %d failed %d of %d run%s. ", stage, failed, ran, ran == 1 ? "" : "s");
    if (fatal) {
        size_t length = strlen(fatal->message);
        int ends = length > 0 && strchr(".?!", fatal->message[length - 1]) != NULL;
        /* On the CPU emulator (its messages say "emulator:") there is no GPU to lose. */
        const char *lost = !strstr(fatal->message, "emulator") ? "The GPU became unusable"
                           : fatal->status == KIT_TIMEOUT ? "The emulated launch did not finish"
                                                          : "The emulated launch failed";
        say(out, size, "%s, so the remaining runs were skipped: %s%s ", lost, fatal->message, ends ? "" : ".");
        if (fatal == first)
            return failed;
    }

    /* A race: the same input gave different answers (for a float sum: different bits, each
     * within the error bound perhaps, but not reproducible). */
    const kit_case *other = NULL, *unstable = find_unstable(problem, cases, count, &other);
    if (unstable) {
        char before[200], after[200];
        show_answer(problem, &other->got, before, sizeof before);
        show_answer(problem, &unstable->got, after, sizeof after);
        if (problem.type == KIT_FLOAT)
            say(out, size, "The same input gave different bits on repeated runs (n = %zu, %u threads: %s, then %s): "
                "not reproducible. Float atomics (an atomicAdd per block into one sum) add in the order the blocks "
                "finish, which changes from run to run; a multi-pass tree adds in the same order every time. If "
                "there is no atomic, a race: is a __syncthreads() missing between the steps of the tree? ",
                unstable->n, unstable->threads, before, after);
        else
            say(out, size, "The same input gave different %s on repeated runs (n = %zu, %u threads: %s, then %s): "
                "a race. Is a __syncthreads() missing between the steps of the tree, or does the last warp read "
                "shared memory without __syncwarp() (volatile is not enough)? ",
                int_sum ? "sums" : "answers", unstable->n, unstable->threads, before, after);
    }

    /* All ones: the int sum's answer counts elements (when it is a count at all: 0..2n). */
    for (int i = 0; i < count && int_sum; i++) {
        const kit_case *c = &cases[i];
        if (c->pattern != KIT_PATTERN_ONES || c->status != KIT_WRONG_RESULT)
            continue;
        long long diff = (long long)c->got.w[0] - c->expected.w[0];
        long long magnitude = diff < 0 ? -diff : diff;
        const char *plural = magnitude == 1 ? "" : "s";
        if (diff < 0 && magnitude <= (long long)c->n)
            say(out, size, "With all ones, n = %zu and %u threads gave %d: %lld element%s lost. ", c->n, c->threads,
                c->got.w[0], magnitude, plural);
        else if (diff > 0 && magnitude <= (long long)c->n && diff % KIT_INPUT_GUARD_VALUE != 0)
            say(out, size, "With all ones, n = %zu and %u threads gave %d: %lld element%s counted twice; do the "
                "blocks overlap (block count or block start index)? ", c->n, c->threads, c->got.w[0], magnitude,
                plural);
        break;
    }

    /* Block sizes: some always pass, some fail. */
    /* (Not when a race showed: how often a race bites depends on the block size too.) */
    unsigned passing[16], failing[16];
    int passing_count = 0, failing_count = 0, thin = 0;
    for (unsigned t = 32; t <= 1024; t *= 2) {
        int runs = 0, fails = 0;
        for (int i = 0; i < count; i++) {
            if (cases[i].threads != t || (fatal && &cases[i] >= fatal))
                continue;
            runs++;
            fails += cases[i].status != KIT_OK;
        }
        thin |= runs > 0 && runs < 4; /* too few runs of this block size to tell */
        if (runs && fails)
            failing[failing_count++] = t;
        else if (runs)
            passing[passing_count++] = t;
    }
    if (!unstable && !thin && passing_count > 0 && failing_count > 0) {
        char good[96], bad[96];
        list_threads(good, sizeof good, passing, passing_count);
        list_threads(bad, sizeof bad, failing, failing_count);
        if (passing_count == 1 && passing[0] < failing[0])
            say(out, size, "It passes with %s threads only (the fewest warps) and fails with %s: warps that do not "
                "wait for each other? Look for a missing __syncthreads() between steps. ", good, bad);
        else if (passing_count == 1)
            say(out, size, "It passes with %s threads only and fails with %s: is the block size hard-coded "
                "(a constant where blockDim.x or the launcher's threads belongs)? ", good, bad);
        else
            say(out, size, "It fails with %s threads but passes with %s. ", bad, good);
    }

    /* Sizes: failures only where n is not a power of two, or not a multiple of a block. */
    int failing_pow2 = 0, passing_pow2 = 0, failing_multiple = 0, passing_multiple = 0;
    size_t smallest_failing = (size_t)-1, largest_passing = 0;
    for (int i = 0; i < count; i++) {
        const kit_case *c = &cases[i];
        if (fatal && c >= fatal)
            break;
        int multiple = c->n % (2 * (size_t)c->threads) == 0 && c->n > 2 * (size_t)c->threads;
        if (c->status == KIT_OK) {
            passing_pow2 += is_power_of_two(c->n);
            passing_multiple += multiple;
            if (c->n > largest_passing)
                largest_passing = c->n;
        } else {
            failing_pow2 += is_power_of_two(c->n);
            failing_multiple += multiple;
            if (c->n < smallest_failing)
                smallest_failing = c->n;
        }
    }
    int pow2_only = failing_pow2 == 0 && passing_pow2 > 0;
    int multiples_only = failing_multiple == 0 && passing_multiple > 0;
    /* Vector loads (int2, int4, 8 ints a step): every failing n leaves a remainder of the
     * width, and some n that is a multiple of it but not a power of two passed. */
    unsigned width = 0;
    for (unsigned w = 16; w >= 2 && !unstable; w /= 2) {
        int failing_multiple_of_w = 0, passing_odd_multiple = 0;
        for (int i = 0; i < count && !(fatal && &cases[i] >= fatal); i++) {
            const kit_case *c = &cases[i];
            if (c->status != KIT_OK)
                failing_multiple_of_w += c->n % w == 0;
            else
                passing_odd_multiple += c->n % w == 0 && !is_power_of_two(c->n);
        }
        if (failing_multiple_of_w == 0 && passing_odd_multiple > 0)
            width = w;
    }
    if (unstable) {
        /* A race makes sizes fail at random: no size rule is worth naming. */
    } else if (width) {
        say(out, size, "Every failing n leaves a remainder when divided by %u, and n that are multiples of %u "
            "passed (not only powers of two): with loads of %u ints (int2, int4, or %u per step), are the last "
            "n %% %u values added? Try --n %zu. ", width, width, width, width, width,
            smallest_failing == (size_t)-1 ? (size_t)1003 : smallest_failing);
    } else if (pow2_only && multiples_only)
        say(out, size, "Every failing n is neither a power of two nor a multiple of 2 x threads, and every such n "
            "passed: does the code assume the count of values (in the array or in the last block) is a power "
            "of two or fills whole blocks? ");
    else if (pow2_only)
        say(out, size, "Every failing n is not a power of two, and every power of two passed: does the code "
            "assume the count of values is a power of two? ");
    else if (multiples_only)
        say(out, size, "Every failing n leaves a partly filled last block, and every n that fills whole blocks "
            "passed: check the bound on n and that the block count rounds up. ");
    if (!unstable && smallest_failing > largest_passing && largest_passing > 0)
        say(out, size, "Every n up to %zu passed and every n from %zu failed: a problem with more blocks or "
            "more passes (the block index, or the count the launcher returns)? ", largest_passing,
            smallest_failing);

    say(out, size, "First failure: %s", first->message);
    return failed;
}

/* ---------------------------------------------------------------- the case a picture draws */

static int fits_a_trace(const kit_case *c, size_t max_n, unsigned min_threads, unsigned max_threads)
{
    return c->n > 0 && c->n <= max_n && c->threads >= min_threads && c->threads <= max_threads;
}

static void draw_case(kit_picture_case *out, kit_picture_kind kind, const kit_case *c, size_t n, unsigned threads)
{
    out->kind = kind;
    out->n = n;
    out->threads = threads;
    out->pattern = c->pattern;
    out->seed = c->seed;
    out->failed_n = c->n;
    out->failed_threads = c->threads;
}

kit_picture_kind kit_choose_picture_case(const kit_case *cases, int count, size_t max_n, unsigned min_threads,
                                         unsigned max_threads, kit_picture_case *out)
{
    memset(out, 0, sizeof *out);
    const kit_case *first = NULL, *smallest = NULL, *block_size_fits = NULL;
    for (int i = 0; i < count; i++) {
        const kit_case *c = &cases[i];
        if (c->status == KIT_OK)
            continue;
        if (!first)
            first = c;
        if (fits_a_trace(c, max_n, min_threads, max_threads) && (!smallest || c->n < smallest->n))
            smallest = c;
        if (!block_size_fits && c->threads >= min_threads && c->threads <= max_threads)
            block_size_fits = c;
    }
    if (!first) {
        out->kind = KIT_PICTURE_NO_FAILURE;
        out->threads = min_threads;
        out->pattern = KIT_PATTERN_RANDOM;
        out->seed = 1;
        return out->kind;
    }
    if (fits_a_trace(first, max_n, min_threads, max_threads))
        draw_case(out, KIT_PICTURE_FIRST_FAILURE, first, first->n, first->threads);
    else if (smallest)
        draw_case(out, KIT_PICTURE_SMALLEST_FAILURE, smallest, smallest->n, smallest->threads);
    else {
        const kit_case *c = block_size_fits ? block_size_fits : first;
        const unsigned threads = c->threads < min_threads ? min_threads : c->threads > max_threads ? max_threads
                                                                                                   : c->threads;
        draw_case(out, KIT_PICTURE_LIKE_A_FAILURE, c, c->n < max_n ? c->n : max_n, threads);
    }
    return out->kind;
}

const char *kit_picture_kind_name(kit_picture_kind kind)
{
    switch (kind) {
    case KIT_PICTURE_FIRST_FAILURE: return "first";
    case KIT_PICTURE_SMALLEST_FAILURE: return "smallest";
    case KIT_PICTURE_LIKE_A_FAILURE: return "like";
    case KIT_PICTURE_NO_FAILURE: break;
    }
    return "none";
}

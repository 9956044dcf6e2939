/**
 * \file answers.c
 * \brief kit_grade's own judgement of the answers a runner reports (no CUDA here).
 *
 * A runner reports each case as its problem's words (kit_value_to_words()); kit_grade never
 * takes its word for what is right: it makes the case's input again from problem, n, pattern
 * and seed (common/problems.c, the same code the harness fills it with), computes the
 * reference, and judges the answer with kit_judge(), as the harness did. The int sum needs no
 * stored input (kit_pattern_sum()); the others keep the last input, which the repeats and the
 * block sizes of one n reuse: up to 2^30 words (4 GiB) for the largest case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader.h"

void kit_value_to_words(kit_problem problem, const kit_value *value, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t w = 0; w < kit_out_words(problem) && used < size; w++)
        used += (size_t)snprintf(out + used, size - used, "%s%x", w ? "," : "", (unsigned)value->w[w]);
}

size_t kit_value_from_words(kit_problem problem, const char *text, kit_value *value)
{
    memset(value, 0, sizeof *value);
    const char *p = text;
    for (size_t w = 0; w < kit_out_words(problem); w++) {
        if (w > 0) {
            if (*p != ',')
                return 0;
            p++;
        }
        char *end = NULL;
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
        unsigned long word = strtoul(p, &end, 16);
        if (end == p || end - p > 8 || word > 0xFFFFFFFFul)
            return 0;
        value->w[w] = (int32_t)(uint32_t)word;
        p = end;
    }
    return (size_t)(p - text);
}

/* The last input made for a problem other than the int sum, and its reference. */
static struct {
    int valid;
    kit_problem problem;
    size_t n;
    kit_pattern pattern;
    unsigned long long seed;
    int32_t *words;
    kit_reference ref;
} last;

int kit_grade_judge(kit_problem problem, size_t n, kit_pattern pattern, unsigned long long seed, const kit_value *got,
                    kit_value *expected, char *why, size_t size)
{
    why[0] = '\0';
    memset(expected, 0, sizeof *expected);
    if (kit_problem_equal(problem, KIT_INT_SUM)) {
        static size_t sum_n = 0;
        static kit_pattern sum_pattern;
        static unsigned long long sum_seed;
        static int sum = 0;
        if (n != sum_n || pattern != sum_pattern || seed != sum_seed) {
            sum = kit_expected_int(kit_pattern_sum(n, pattern, seed));
            sum_n = n;
            sum_pattern = pattern;
            sum_seed = seed;
        }
        expected->w[0] = sum;
        if (got->w[0] == sum)
            return 1;
        snprintf(why, size, "expected %d, got %d", sum, got->w[0]);
        return 0;
    }
    if (!last.valid || !kit_problem_equal(last.problem, problem) || last.n != n || last.pattern != pattern ||
        last.seed != seed) {
        last.valid = 0;
        free(last.words);
        last.words = malloc(n * kit_in_words(problem) * sizeof *last.words);
        if (!last.words) {
            snprintf(why, size, "the grader has no memory to check an answer for n = %zu (%zu MiB)", n,
                     n * kit_in_words(problem) * sizeof(int32_t) >> 20);
            return -1;
        }
        kit_fill_problem(problem, last.words, n, pattern, seed);
        kit_reference_compute(problem, last.words, n, &last.ref);
        last.problem = problem;
        last.n = n;
        last.pattern = pattern;
        last.seed = seed;
        last.valid = 1;
    }
    *expected = last.ref.answer;
    return kit_judge(&last.ref, pattern, last.words, got, why, size);
}

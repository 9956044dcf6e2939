/**
 * \file accuracy.c
 * \brief Float sums on the CPU in four orders (accuracy.h), for `reduce_ladder --accuracy`.
 *
 * Every intermediate is assigned to a float variable: C11 rounds an assignment to the
 * variable's type (6.3.1.5, 5.2.4.2.2), so each addition is rounded to binary32 even where the
 * compiler evaluates in wider registers (FLT_EVAL_METHOD != 0). No -ffast-math: it would let
 * the compiler reorder the additions and delete the compensations (the kit's CMake never sets
 * it). u below is float's unit roundoff, 2^-24.
 */
#include <math.h>

#include "accuracy.h"

/*
 * One running sum, left to right: what a single CPU thread writes, and what one float
 * atomicAdd after another amounts to. Each addition rounds the whole sum so far, so the value
 * added first goes through n - 1 roundings: the error bound is (n - 1) u sum|x|. Once the sum
 * is large, small values lose their low bits or vanish (2^24 + 1 == 2^24 in float): the
 * course's 1 + 2 + ... + 10000 comes out as 50002896, not 50005000.
 */
float kit_float_sum_sequential(const float *x, size_t n)
{
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++)
        sum = sum + x[i];
    return sum;
}

/*
 * Pairwise (recursive halving), the order of a reduction tree: each value goes through only
 * ceil(log2 n) additions, so the bound is ceil(log2 n) u sum|x| instead of (n - 1) u sum|x|,
 * and partial sums that are added together are of a similar size. It removes the sequential
 * sum's growth with n (at 2^24 random values: about 1e-8 instead of 1e-2), with no extra work:
 * still n - 1 additions.
 */
float kit_float_sum_pairwise(const float *x, size_t n)
{
    if (n == 0)
        return 0.0f;
    if (n == 1)
        return x[0];
    const size_t half = n / 2;
    const float left = kit_float_sum_pairwise(x, half);
    const float right = kit_float_sum_pairwise(x + half, n - half);
    const float sum = left + right;
    return sum;
}

/*
 * Kahan's compensated sum: one running sum, as the sequential one, plus a correction c that
 * holds what the last addition rounded away, (t - sum) - y, and is taken off the next value.
 * It removes the sequential sum's growth with n: the bound is 2 u sum|x| + O(n u^2) sum|x|,
 * whatever the order. What it still misses: when a value is larger than the running sum, the
 * rounding error is in the sum's bits, not the value's, and (t - sum) - y does not recover it
 * (1e8 + 1 - 1e8 gives 0).
 */
float kit_float_sum_kahan(const float *x, size_t n)
{
    float sum = 0.0f, c = 0.0f;
    for (size_t i = 0; i < n; i++) {
        const float y = x[i] - c;
        const float t = sum + y;
        const float lost = t - sum;
        c = lost - y; /* what rounding took from y in sum + y (negated) */
        sum = t;
    }
    return sum;
}

/*
 * Neumaier's variant (Kahan-Babuska): the correction is computed from whichever of the two
 * operands is the smaller, so it is right when a value is larger than the sum so far too
 * (1e8 + 1 - 1e8 gives 1), and the corrections are added up separately and added once at the
 * end. It removes Kahan's failure on values larger than the running sum, at the cost of one
 * comparison per value.
 * What it gives up: nothing is fed back, so sum is the sequential sum bit for bit, and c is a
 * second plain running sum of everything sum rounds away, with a running sum's error: up to
 * about n u times what c holds. While sum loses little, c is tiny and so is that; once sum
 * stalls, c holds a large part of the total. At 2^26 random floats in [0, 1) sum stops at
 * 2^24 (floats are 2 apart there, so a value below 1 is lost whole), c must carry the other
 * half, 16776922.8, and ends at 16777216, 293 off: the result is 2^25 (relative error 8.7e-6),
 * where Kahan's, which puts c back into the next value so its sum keeps growing, is 0.8 off
 * (2.5e-8). Not a bug: the algorithm in float, the same bits at -O0 and -O3 (test_host holds
 * them). Neither compensated sum's bound promises anything once n u nears 1 (here n u = 4);
 * Neumaier's, whose correction piles up instead of being fed back, is the one that shows it.
 */
float kit_float_sum_neumaier(const float *x, size_t n)
{
    float sum = 0.0f, c = 0.0f;
    for (size_t i = 0; i < n; i++) {
        const float t = sum + x[i];
        float lost;
        if (fabsf(sum) >= fabsf(x[i])) {
            const float kept = sum - t;
            lost = kept + x[i]; /* the low bits of x[i] that t lost */
        } else {
            const float kept = x[i] - t;
            lost = kept + sum; /* the low bits of sum that t lost */
        }
        c = c + lost;
        sum = t;
    }
    const float result = sum + c;
    return result;
}

double kit_relative_error(double computed, double exact)
{
    const double error = fabs(computed - exact);
    return exact != 0.0 ? error / fabs(exact) : error;
}

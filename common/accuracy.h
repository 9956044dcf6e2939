/**
 * \file accuracy.h
 * \brief Float sums on the CPU in four orders, for `reduce_ladder --accuracy` (no CUDA here).
 *
 * Each adds n floats in float arithmetic (every addition rounded to binary32), in another
 * order or with another correction, so the table can show how the error of each grows with n
 * against the exact sum (kit_reference_compute(), kit_exact_to_double()):
 *   - kit_float_sum_sequential: left to right, one running sum: error up to about n u sum|x|;
 *   - kit_float_sum_pairwise: a tree (recursive halving), the order a GPU tree adds in: about
 *     log2(n) u sum|x|;
 *   - kit_float_sum_kahan: one running sum plus a running correction (compensated): about
 *     2 u sum|x|, whatever n;
 *   - kit_float_sum_neumaier: Kahan's, also right when an element is larger than the sum so far;
 *     but its correction is a second running sum, so once n u nears 1 and the running sum
 *     stalls it can be far worse than Kahan's (2^26 random floats in [0, 1): 8.7e-6 against
 *     2.5e-8; accuracy.c says why).
 * u = 2^-24, float's unit roundoff (Higham, Accuracy and Stability of Numerical Algorithms,
 * chapter 4).
 */
#ifndef KIT_ACCURACY_H
#define KIT_ACCURACY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** x[0] + x[1] + ... + x[n-1], left to right, in one float (0 for n = 0). */
float kit_float_sum_sequential(const float *x, size_t n);

/** The sum of the first half plus the sum of the second half, each summed the same way down to
 *  single elements (0 for n = 0). */
float kit_float_sum_pairwise(const float *x, size_t n);

/** Kahan's compensated sum, in float (0 for n = 0). */
float kit_float_sum_kahan(const float *x, size_t n);

/** Neumaier's compensated sum (Kahan-Babuska), in float (0 for n = 0). */
float kit_float_sum_neumaier(const float *x, size_t n);

/** |computed - exact| / |exact|; |computed| when exact is 0 (0 only for an exact 0). */
double kit_relative_error(double computed, double exact);

#ifdef __cplusplus
}
#endif

#endif /* KIT_ACCURACY_H */

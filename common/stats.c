/**
 * \file stats.c
 * \brief Robust summaries of repeated timings: median, quartiles, spread (no CUDA here).
 */
#include <stdlib.h>

#include "kit.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between the two nearest ranks of sorted[0..count). */
static double quantile(const double *sorted, int count, double q)
{
    double pos = q * (count - 1);
    int lo = (int)pos;
    int hi = lo + 1 < count ? lo + 1 : lo;
    return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

void kit_timing_summarize(double *ms, int count, kit_timing *timing)
{
    timing->reps = count;
    if (count < 1) {
        timing->median_ms = timing->min_ms = timing->max_ms = timing->q1_ms = timing->q3_ms = 0.0;
        return;
    }
    qsort(ms, (size_t)count, sizeof *ms, compare_doubles);
    timing->min_ms = ms[0];
    timing->max_ms = ms[count - 1];
    timing->median_ms = quantile(ms, count, 0.5);
    timing->q1_ms = quantile(ms, count, 0.25);
    timing->q3_ms = quantile(ms, count, 0.75);
}

double kit_timing_spread(const kit_timing *t)
{
    return t->median_ms > 0 ? (t->q3_ms - t->q1_ms) / t->median_ms : 0.0;
}

/**
 * \file speedup_rule.c
 * \brief When a measured speedup is enough, too little, or too noisy to tell (no CUDA here).
 *
 * The required speedup is relative to what the reference reaches on the same GPU in the same
 * run, so one rule works on any GPU: the reference stage 7 is 8.81x over stage 1 on an H200 and
 * 6.43x on an H100 (the ladder runs of 2026-11-23 in docs/results). Comparing with reference
 * stage K itself (not K-1) matters: stage 6 gains only 1.01x (H100) to 1.04x (H200) over stage
 * 5, so "faster than the previous stage" would be decided by noise.
 *
 * Speedups are over the reference of the row's baseline stage (stages.def's last column):
 * stage 1 for the int sums, stage 13 for the coalesced 3x3 matrices. A row that is its own
 * baseline (stage 1, and stages 9 to 14) has a reference speedup of 1, so the rule reads: the
 * student's stage at no less than speedup.fraction of the reference's speed.
 */
#include "grader.h"

double kit_median_spread(double *values, int count, double *spread)
{
    kit_timing summary;
    kit_timing_summarize(values, count, &summary);
    *spread = summary.median_ms > 0 ? kit_timing_spread(&summary) : 1.0;
    return summary.median_ms;
}

/** Most a noisy measurement may fall short of the requirement and still pass. */
#define KIT_NOISE_ALLOWANCE 0.10
/** Smallest relative gap below the requirement that counts as a clear miss. */
#define KIT_MIN_MARGIN 0.02

kit_verdict kit_speedup_decide(const kit_grade_config *config, int stage, kit_speedup *s, int last_attempt)
{
    s->achieved = s->student_ms > 0 ? s->baseline_ms / s->student_ms : 0.0;
    s->reference = s->reference_ms > 0 ? s->baseline_ms / s->reference_ms : 0.0;
    s->required = config->speedup_fraction * s->reference;
    if (stage >= 1 && stage <= KIT_STAGE_COUNT && config->min_speedup[stage] > s->required)
        s->required = config->min_speedup[stage];
    s->within_noise = 0;

    double margin = s->spread > KIT_MIN_MARGIN ? s->spread : KIT_MIN_MARGIN;
    int quiet = s->spread <= config->max_spread;
    if (s->achieved >= s->required)
        s->verdict = KIT_VERDICT_PASS;
    else if (quiet && s->achieved < s->required * (1.0 - margin))
        s->verdict = KIT_VERDICT_FAIL;
    else if (!last_attempt)
        s->verdict = KIT_VERDICT_MEASURE_AGAIN;
    else {
        /* Out of attempts and still within the noise: the benefit of the doubt goes to the stage. */
        double allowance = s->spread < KIT_NOISE_ALLOWANCE ? s->spread : KIT_NOISE_ALLOWANCE;
        s->within_noise = s->achieved >= s->required * (1.0 - allowance);
        s->verdict = s->within_noise ? KIT_VERDICT_PASS : KIT_VERDICT_FAIL;
    }
    return s->verdict;
}

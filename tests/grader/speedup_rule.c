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
 *
 * The emulator's load rule (kit_loads_decide) is here too: for the stage whose lesson is
 * coalescing, what the clock cannot show on a GPU whose L1 absorbs strided loads.
 */
#include <stdio.h>

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

/* 1234567 as "1,234,567" */
static const char *grouped(size_t value)
{
    static char text[32];
    char plain[32];
    int len = snprintf(plain, sizeof plain, "%zu", value), out = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            text[out++] = ',';
        text[out++] = plain[i];
    }
    text[out] = '\0';
    return text;
}

/* a / b, 0 when b is 0 */
static double ratio(unsigned long long a, unsigned long long b) { return b ? (double)a / (double)b : 0.0; }

kit_outcome kit_loads_decide(const kit_grade_config *config, int stage, size_t n, unsigned threads,
                             const kit_load_counts *mine, const kit_load_counts *reference, char *message,
                             size_t size)
{
    message[0] = '\0';
    const double most = stage >= 1 && stage <= KIT_STAGE_COUNT ? config->max_sectors_per_request[stage] : 0;
    if (most <= 0 || mine->requests == 0 || mine->needed == 0 || reference->needed == 0)
        return KIT_OUTCOME_MISSING;
    const double my_per_request = ratio(mine->sectors, mine->requests),
                 their_per_request = ratio(reference->sectors, reference->requests);
    const double my_excess = ratio(mine->sectors, mine->needed),
                 their_excess = ratio(reference->sectors, reference->needed);
    const int pass = my_excess <= most * their_excess;
    char counted[400];
    snprintf(counted, sizeof counted, "counted by the CPU emulator over every launch of every pass at n = %s, %u threads, as Nsight "
             "Compute counts l1tex__t_sectors_pipe_lsu_mem_global_op_ld per request; allowed: %g x the reference's "
             "sectors for the bytes read (stage%d.max_sectors_per_request, tests/grader/grading.conf)", grouped(n), threads,
             most, stage);
    if (pass) {
        snprintf(message, size, "stage %d asks L1 for %.1f sectors per warp load, %.2f times the sectors "
                 "its bytes fill (the reference: %.1f, %.2f times); %s", stage, my_per_request, my_excess,
                 their_per_request, their_excess, counted);
        return KIT_OUTCOME_PASS;
    }
    /* an array of kit_mat3 and nearly a sector a lane: each thread reads its own 36-byte matrix */
    const int matrices = kit_grade_problem(stage).type == KIT_MAT3;
    const char *why = matrices && my_per_request >= 24
                          ? "its lanes read 36 bytes apart (each thread its own kit_mat3), each int in a sector of "
                            "its own; load the warp's 288 consecutive ints with consecutive lanes, then exchange them "
                            "through shared memory"
                      : matrices ? "its lanes read ints spread over more sectors than they fill; load the warp's 288 "
                                   "consecutive ints with consecutive lanes, then exchange them through shared memory"
                                 : "its lanes read words spread over more sectors than they fill; let consecutive "
                                   "lanes read consecutive words";
    snprintf(message, size, "stage %d asks L1 for %.1f sectors per warp load where the reference asks "
             "for %.1f (%.2f times the sectors its bytes fill, the reference's %.2f times): %s. No speed points: a GPU "
             "whose L1 keeps the lines between the loads (an H100) may time it as fast; %s",
             stage, my_per_request, their_per_request, my_excess, their_excess, why, counted);
    return KIT_OUTCOME_FAIL;
}

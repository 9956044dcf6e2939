/* Audit fixture, forbidden: declares the kit's reference launcher itself (extern "C") and calls it. */
#include "stage.h"

extern "C" const kit_pass_fn kit_solutions_reduce_naive;

static size_t launch_calls_reference_stage(const int *in, int *out, size_t n, unsigned threads)
{
    return kit_solutions_reduce_naive(in, out, n, threads);
}

KIT_REGISTER_STAGE(calls_reference_stage, launch_calls_reference_stage)

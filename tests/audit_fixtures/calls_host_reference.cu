/* Audit fixture, forbidden: a matrices stage that asks the kit's host code (common/problems.c)
 * for the answer: kit_mat3 is stage.h's, kit_reference_compute is not. */
#include "stage.h"

extern "C" void kit_reference_compute(int problem_type, int problem_op, const int *words, size_t n, void *reference);

static size_t launch_matrices(const kit_mat3 *in, kit_mat3 *out, size_t n, unsigned threads)
{
    (void)threads;
    kit_reference_compute(2, 1, in[0].m, n, out);
    return 1;
}

KIT_REGISTER_STAGE(calls_host_reference, launch_matrices)

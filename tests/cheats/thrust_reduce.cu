/*
 * Cheat, slot 7: the launcher calls thrust::reduce.
 *
 * What it pretends: a stage 7 ("many elements per thread").
 * What it does: no kernel of its own. thrust::reduce(thrust::device, in, in + n, 0) sums
 * the input on the GPU (Thrust launches CUB's kernels and allocates its own scratch space),
 * returns the sum to the host, and the launcher copies it into out[0] and returns 1.
 * Every sum is right; it is about as fast as CUB plus one round trip to the host.
 *
 * How the grader must treat it: 0 points for stage 7 (GPU and emulator alike): the stage's
 * own kernel must do the work. (On the CPU emulator it does not compile: no Thrust there.)
 */
#include <cuda_runtime.h>

#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include "stage.h"

/** "One pass": Thrust sums everything; the result goes to out[0]. Returns 1 partial sum. */
static size_t launch_thrust_reduce(const int *in, int *out, size_t n, unsigned threads)
{
    (void)threads;
    int sum = thrust::reduce(thrust::device, in, in + n, 0);
    if (cudaMemcpy(out, &sum, sizeof sum, cudaMemcpyHostToDevice) != cudaSuccess)
        return 0;
    return 1;
}

KIT_REGISTER_STAGE(thrust_reduce, launch_thrust_reduce)

/*
 * Cheat, slot 7: the launcher hands the whole job to cub::DeviceReduce::Sum.
 *
 * What it pretends: a stage 7 ("many elements per thread") that beats the reference.
 * What it does: no kernel of its own. The launcher calls CUB's device-wide reduction, which
 * writes the final sum straight into out[0], and returns 1. CUB needs scratch space; to
 * stay away from cudaMalloc (which a grader might look for) the scratch lives in a static
 * __device__ array whose address the launcher asks for with cudaGetSymbolAddress.
 * Every sum is right and it is as fast as CUB, so correctness, speed and the sanitizers
 * all pass if nobody looks at what did the work.
 *
 * How the grader must treat it: 0 points for stage 7 (GPU and emulator alike). The stage's
 * own kernel must do the work; CUB, Thrust and the kit's own solutions are off limits.
 * (On the CPU emulator it does not even compile: there is no CUB there.)
 */
#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>

#include "stage.h"

/** CUB's scratch space: a few KiB are enough for any n up to 2^30; 1 MiB to be safe. */
static __device__ unsigned char cub_scratch[1 << 20];

/** "One pass": CUB reduces everything into out[0]. Returns 1 partial sum. */
static size_t launch_cub_device_reduce(const int *in, int *out, size_t n, unsigned threads)
{
    (void)threads; /* CUB picks its own block size */
    void *scratch = NULL;
    if (cudaGetSymbolAddress(&scratch, cub_scratch) != cudaSuccess)
        return 0;
    size_t needed = 0;
    cub::DeviceReduce::Sum(NULL, needed, in, out, (int)n); /* size query only, no launch */
    if (needed > sizeof cub_scratch)
        return 0;
    size_t bytes = sizeof cub_scratch;
    cub::DeviceReduce::Sum(scratch, bytes, in, out, (int)n);
    return 1;
}

KIT_REGISTER_STAGE(cub_device_reduce, launch_cub_device_reduce)

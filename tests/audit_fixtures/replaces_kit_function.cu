/* Audit fixture, forbidden: defines the harness's kit_timing_spread under another name bound to it by an asm label. */
#include <stdio.h>

#include "stage.h"

extern "C" double never_noisy(const void *timing) asm("kit_timing_spread");

extern "C" double never_noisy(const void *timing)
{
    (void)timing;
    return 0.0;
}

static __global__ void block_sums(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    block_sums<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(replaces_kit_function, launch)

/* Audit fixture, clean: warps add up with __reduce_add_sync (sm_80 and later), one atomic-free partial sum per block. */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

static __global__ void reduce_add_sync(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    int sum = __reduce_add_sync(FULL_WARP, i < n ? in[i] : 0);
    if (tid % 32 == 0)
        warp_sums[tid / 32] = sum;
    __syncthreads();
    if (tid < 32) {
        sum = __reduce_add_sync(FULL_WARP, tid < blockDim.x / 32 ? warp_sums[tid] : 0);
        if (tid == 0)
            out[blockIdx.x] = sum;
    }
}

static size_t launch_reduce_add_sync(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    reduce_add_sync<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(clean_reduce_add_sync, launch_reduce_add_sync)

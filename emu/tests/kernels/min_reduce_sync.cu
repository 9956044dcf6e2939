/*
 * Emulator fixture (stage 10's slot), a valid kernel: a minimum from INT_MAX (<climits>) with
 * a grid-strided loop over a capped grid, __reduce_min_sync in each warp and over the warps'
 * minimums, and min() on ints.
 */
#include <climits>

#include "stage.h"

#define FULL 0xffffffffu

static __global__ void min_reduce_sync(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_mins[32];
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    int m = INT_MAX;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        m = min(m, in[i]);
    m = __reduce_min_sync(FULL, m);
    if (lane == 0)
        warp_mins[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = __reduce_min_sync(FULL, lane < blockDim.x / 32 ? warp_mins[lane] : INT_MAX);
        if (lane == 0)
            out[blockIdx.x] = m;
    }
}

static size_t launch_min_reduce_sync(const int *in, int *out, size_t n, unsigned threads)
{
    size_t blocks = (n + 8 * threads - 1) / (8 * threads);
    if (blocks > 64)
        blocks = 64;
    min_reduce_sync<<<(unsigned int)blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(min_reduce_sync, launch_min_reduce_sync)

/*
 * Known-wrong kernel, slot 7: right sums, stage 3's speed.
 *
 * One element per thread and a full tree per blockDim.x values: correct at every size, but
 * on an H200 stage 3 is 2.08x over stage 1 where the reference stage 7 is 8.81x (2026-11-23).
 * The grader must reject it in the speedup case, and say why: its grid (one block per 256
 * ints: 262,144 blocks at 2^26 where the reference launches one wave).
 */
#include "stage.h"

static __global__ void too_slow_for_stage_7(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_too_slow_for_stage_7(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    too_slow_for_stage_7<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(too_slow_for_stage_7, launch_too_slow_for_stage_7)

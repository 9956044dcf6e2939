/*
 * Known-wrong kernel, slot 3: the loop never halves s.
 *
 * The step `s >>= 1` is missing, so s stays at blockDim.x / 2 and the loop never ends. The
 * harness's wait gives up after a few seconds (kit_sync), and Check's per-test timeout backs
 * it up; only this test fails, and quickly.
 * The grader must reject it: "did not finish within". The CPU emulator stops it at the same
 * limit (CPU time per launch) and names the block, a thread and the __syncthreads() line.
 */
#include "stage.h"

static __global__ void endless_loop(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    unsigned int s = blockDim.x / 2;
    while (s > 0) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
        /* missing: s >>= 1; */
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_endless_loop(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    endless_loop<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(endless_loop, launch_endless_loop)

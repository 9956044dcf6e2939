/*
 * Known-wrong kernel, slot 5: the last warp finishes in shared memory without __syncwarp().
 *
 * The slides' version: no volatile, no __syncwarp(). The compiler may keep sdata[tid] in a
 * register and read the neighbours' values before they are written; on an H200 the sum was
 * wrong in 20 of 20 runs.
 * The grader must reject it: wrong sums.
 */
#include "stage.h"

/** The last six steps, warp-synchronous style: no barrier between them. */
static __device__ void last_warp(int *sdata, unsigned int tid)
{
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

static __global__ void warp_unroll_no_volatile(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    int sum = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        last_warp(sdata, tid);
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_warp_unroll_no_volatile(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    warp_unroll_no_volatile<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(warp_unroll_no_volatile, launch_warp_unroll_no_volatile)

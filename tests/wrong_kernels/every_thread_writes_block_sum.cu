/*
 * Known-wrong kernel, slot 3: every thread of the block writes the block's sum.
 *
 * The tree is stage 3's and right, but after the last __syncthreads() the write is not
 * guarded by `if (tid == 0)`: all blockDim.x threads store sdata[0] into out[blockIdx.x].
 * They store the same value, so every sum is right on a GPU, and compute-sanitizer's
 * racecheck does not see it (it checks shared memory only; this is a write-write race on
 * global memory). Thousands of redundant stores per block, and a data race by the CUDA
 * memory model. The CPU emulator's race check (ThreadSanitizer over the block's threads)
 * reports it.
 * The grader must take away the sanitizer points (a race on out[blockIdx.x]); correctness
 * stands: 6 points on a GPU and on the emulator.
 */
#include "stage.h"

static __global__ void every_thread_writes_block_sum(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    out[blockIdx.x] = sdata[0]; /* the `if (tid == 0)` that belongs here is missing */
}

static size_t launch_every_thread_writes_block_sum(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    every_thread_writes_block_sum<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(every_thread_writes_block_sum, launch_every_thread_writes_block_sum)

/*
 * Emulator fixture (stage 3's slot): every thread of a block writes the block's result.
 *
 * After the last __syncthreads() every thread, not only thread 0, stores sdata[0] into
 * out[blockIdx.x]. They all store the same value, so the sum is right in every thread order
 * and on a GPU; yet it is a write-write race on global memory: nothing orders the threads'
 * stores to the same word (on a GPU the word takes one of them; had the values differed the
 * result would depend on which warp came last). compute-sanitizer's racecheck looks at shared
 * memory only; the emulator's race build (ThreadSanitizer) sees global memory too and must
 * report the two stores, naming both GPU threads.
 */
#include "stage.h"

static __global__ void every_thread_writes_result(const int *in, int *out, unsigned int n)
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
    out[blockIdx.x] = sdata[0]; /* every thread: the race */
}

static size_t launch_every_thread_writes_result(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    every_thread_writes_result<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(every_thread_writes_result, launch_every_thread_writes_result)

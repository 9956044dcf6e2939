/*
 * Emulator fixture (stage 3's slot): threads past n return before the barriers.
 *
 * `if (i >= n) return;` looks like a harmless guard, but the threads that leave never reach
 * the __syncthreads() the rest of their block waits at: undefined behaviour in CUDA (a hang
 * or a wrong sum). The emulator stops at the barrier and names the threads.
 */
#include "stage.h"

static __global__ void return_before_barrier(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    sdata[tid] = in[i];
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s && i + s < n)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_return_before_barrier(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    return_before_barrier<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(return_before_barrier, launch_return_before_barrier)

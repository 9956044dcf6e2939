/*
 * Emulator fixture (stage 3's slot): the two halves of the block wait at different barriers.
 *
 * The working threads and the idle ones each have their own __syncthreads(). CUDA requires
 * every thread of a block to reach the same one; the emulator reports both lines.
 */
#include "stage.h"

static __global__ void barrier_in_branch(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
            __syncthreads();
        } else {
            __syncthreads();
        }
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_barrier_in_branch(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    barrier_in_branch<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(barrier_in_branch, launch_barrier_in_branch)

/*
 * Emulator fixture (stage 3's slot): the tree has no barrier between its steps.
 *
 * Thread tid reads sdata[tid + s] while thread tid + s may still be adding into it. On a
 * GPU the result depends on how warps happen to be scheduled; on the emulator it depends on
 * the thread order (reverse order happens to be right), and ThreadSanitizer reports the race.
 */
#include "stage.h"

static __global__ void no_barrier_in_tree(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s]; /* no __syncthreads() after this step */
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_no_barrier_in_tree(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    no_barrier_in_tree<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(no_barrier_in_tree, launch_no_barrier_in_tree)

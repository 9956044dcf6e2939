/*
 * Emulator fixture (stage 1's slot): the tree loop runs one step too far.
 *
 * With `s <= blockDim.x` the last step has thread 0 read sdata[blockDim.x], one past the end
 * of the block's shared array. A GPU reads whatever lies there (often another array, or
 * nothing wrong shows); the emulator checks every index of a shared array.
 */
#include "stage.h"

static __global__ void shared_index_past_end(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s <= blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_shared_index_past_end(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    shared_index_past_end<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(shared_index_past_end, launch_shared_index_past_end)

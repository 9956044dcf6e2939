/*
 * Known-wrong kernel, slot 1: the write-back tests the global index, not threadIdx.x.
 *
 * `if (i == 0)` is true in block 0 only, so every other block leaves its partial sum
 * unwritten. One block (n <= blockDim.x) still gives the right sum.
 * The grader must reject it: blocks that "wrote no partial sum".
 */
#include "stage.h"

static __global__ void only_block_zero_writes(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (i == 0) /* should be tid == 0 */
        out[blockIdx.x] = sdata[0];
}

static size_t launch_only_block_zero_writes(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    only_block_zero_writes<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(only_block_zero_writes, launch_only_block_zero_writes)

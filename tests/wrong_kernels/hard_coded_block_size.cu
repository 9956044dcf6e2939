/*
 * Known-wrong kernel, slot 3: the block size is a constant in the index.
 *
 * Written and tested with 256 threads, the input index uses 256 where blockDim.x belongs.
 * With smaller blocks, values between the blocks are skipped; with larger ones, blocks
 * overlap and count values twice. Small inputs (one block) still pass.
 * The grader must reject it: right with 256 threads only.
 */
#include "stage.h"

#define BLOCK_SIZE 256

static __global__ void hard_coded_block_size(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * BLOCK_SIZE + threadIdx.x; /* should be blockDim.x */
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

static size_t launch_hard_coded_block_size(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    hard_coded_block_size<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(hard_coded_block_size, launch_hard_coded_block_size)

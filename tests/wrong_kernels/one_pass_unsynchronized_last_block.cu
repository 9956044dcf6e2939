/*
 * Known-wrong kernel, slot 8: "the last block" taken to be the block with the last index.
 *
 * Each block writes its sum to an array of its own, and block gridDim.x - 1 adds them all
 * up and writes out[0]. Nothing makes it wait for the others: blocks are not run in index
 * order, and the block with the last index often ends before blocks it reads from have
 * written, so it adds what an earlier launch left there. The last-block-done pattern takes a
 * ticket instead (after a __threadfence(), an atomicAdd on a counter): the block that draws
 * the last ticket is the one that ends last. One block alone is right (small n).
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu
#define MAX_BLOCKS 1024

static __device__ int block_sums[MAX_BLOCKS];

static __device__ int warp_total(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

static __device__ int block_total(int v)
{
    __shared__ int warp_sums[32];
    v = warp_total(v);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    v = warp_total(threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x % 32] : 0);
    __syncthreads(); /* warp_sums is used again by the last block */
    return v;
}

static __global__ void one_pass_unsynchronized_last_block(const int *in, int *out, unsigned int n)
{
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = block_total(sum);
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = sum;
    if (blockIdx.x != gridDim.x - 1) /* the mistake: no ticket, no __threadfence() */
        return;
    int total = 0;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        total += ((volatile int *)block_sums)[b];
    total = block_total(total);
    if (threadIdx.x == 0)
        out[0] = total;
}

static size_t launch_one_pass_unsynchronized_last_block(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    one_pass_unsynchronized_last_block<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(one_pass_unsynchronized_last_block, launch_one_pass_unsynchronized_last_block)

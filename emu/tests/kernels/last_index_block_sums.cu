/*
 * Emulator fixture (stage 8's slot), rejected in every order of the blocks: "the last
 * block" taken to be the block with the last index.
 *
 * The launcher clears an array of block sums; then each block writes its sum there, and
 * block gridDim.x - 1 adds the array up and writes out[0], without waiting for anyone (no
 * ticket, no atomic). Right only when that block runs after all the others. A GPU promises no
 * order, and the emulator never runs blocks by index (forward: from the middle of the grid
 * round; reverse: the last first; random: shuffled), so the sum misses the blocks that had
 * not run yet: wrong in every order, the grader's included. Right for one block (n small).
 */
#include "stage.h"

#define MAX_BLOCKS 1024

static __device__ int block_sums[MAX_BLOCKS];

static __global__ void clear_block_sums(unsigned int blocks)
{
    for (unsigned int b = blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += blockDim.x * gridDim.x)
        block_sums[b] = 0;
}

static __device__ int block_total(int v, int *scratch)
{
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            scratch[threadIdx.x] += scratch[threadIdx.x + s];
        __syncthreads();
    }
    v = scratch[0];
    __syncthreads(); /* scratch is used again */
    return v;
}

static __global__ void last_index_block_sums(const int *in, int *out, unsigned int n)
{
    __shared__ int scratch[1024];
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = block_total(sum, scratch);
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = sum;
    __syncthreads(); /* the block's own sum is there for its other threads */
    if (blockIdx.x != gridDim.x - 1) /* the mistake: nothing says the other blocks are done */
        return;
    int total = 0;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        total += block_sums[b];
    total = block_total(total, scratch);
    if (threadIdx.x == 0)
        out[0] = total;
}

static size_t launch_last_index_block_sums(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 4 * threads - 1) / (4 * threads));
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    clear_block_sums<<<(blocks + 255) / 256, 256>>>(blocks);
    last_index_block_sums<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(last_index_block_sums, launch_last_index_block_sums)

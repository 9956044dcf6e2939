/*
 * Emulator fixture (stage 8's slot), a valid kernel: the last-block-done pattern (CUDA's
 * threadFenceReduction sample) in one launch.
 *
 * Thread 0 of each block writes its block's sum to block_sums[blockIdx.x], then draws a
 * ticket with atomicInc on a counter. The block that draws the last ticket knows every other
 * block has written: its threads add up block_sums (plain loads), thread 0 writes out[0] and
 * puts the counter back to 0 (a plain store) for the next launch. Exact in every order of the
 * blocks, and race-free for ThreadSanitizer: each block's write comes before its atomic, the
 * last block's atomic comes after every other block's (an atomic acquires and releases), and
 * its barrier hands that on to its other threads.
 */
#include "stage.h"

#define MAX_BLOCKS 1024

static __device__ int block_sums[MAX_BLOCKS];
static __device__ unsigned int blocks_done = 0;

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

static __global__ void blocks_take_a_ticket(const int *in, int *out, unsigned int n)
{
    __shared__ int scratch[1024];
    __shared__ bool last;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = block_total(sum, scratch);
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = sum;
        __threadfence();
        last = atomicInc(&blocks_done, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    int total = 0;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        total += block_sums[b];
    total = block_total(total, scratch);
    if (threadIdx.x == 0) {
        out[0] = total;
        blocks_done = 0;
    }
}

static size_t launch_blocks_take_a_ticket(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 4 * threads - 1) / (4 * threads));
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    blocks_take_a_ticket<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(blocks_take_a_ticket, launch_blocks_take_a_ticket)

/*
 * Emulator fixture (stage 8's slot), a wrong kernel: the last-block-done pattern without its
 * __threadfence().
 *
 * blocks_take_a_ticket.cu with the fence between thread 0's store of its block's sum and its
 * atomicInc taken out. The atomic orders nothing by itself (it is relaxed): on a GPU the block
 * that draws the last ticket may read a block sum that has not reached L2 yet, the value an
 * earlier launch left there. The emulator hides a store no fence published from the blocks
 * that run after the storing one, until the kernel ends, so the last block adds stale sums
 * and the result is wrong (at one block there is nothing to meet, and it is right).
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

static __global__ void ticket_without_threadfence(const int *in, int *out, unsigned int n)
{
    __shared__ int scratch[1024];
    __shared__ bool last;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = block_total(sum, scratch);
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = sum; /* the mistake: no __threadfence() before the ticket */
        last = atomicInc(&blocks_done, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    int total = 0;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        total += ((volatile int *)block_sums)[b];
    total = block_total(total, scratch);
    if (threadIdx.x == 0) {
        out[0] = total;
        blocks_done = 0;
    }
}

static size_t launch_ticket_without_threadfence(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 4 * threads - 1) / (4 * threads));
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    ticket_without_threadfence<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(ticket_without_threadfence, launch_ticket_without_threadfence)

/*
 * Planted bug for the trace pictures (issue 25), stage 8: the last-block pattern without its
 * __threadfence(). Each block stores its sum in a scratch array, then draws a ticket with an
 * atomicAdd; the block that draws the last ticket adds the scratch array up. Without a fence
 * between the store and the ticket, the last block may read a sum another block stored but never
 * published (on the emulator: the old value). The picture must show that stale read, in the last
 * block, with the store it missed.
 */
#include "stage.h"

#define WARP_MASK 0xffffffffu

static int *scratch;          /* one sum per block, then the ticket counter after them */
static size_t scratch_blocks; /* blocks the scratch array has room for */

static __global__ void reduce_one_pass(const int *in, int *out, unsigned int n, int *sums, unsigned int *ticket)
{
    __shared__ int warp_sums[32];
    __shared__ bool last;
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(WARP_MASK, sum, offset);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (tid == 0) {
        int block_sum = 0;
        for (unsigned int w = 0; w < blockDim.x / 32; w++)
            block_sum += warp_sums[w];
        sums[blockIdx.x] = block_sum;
        /* the mistake: no __threadfence() here, so the sum may not be seen before the ticket */
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && tid == 0) {
        int total = 0;
        for (unsigned int b = 0; b < gridDim.x; b++)
            total += sums[b];
        out[0] = total;
        *ticket = 0;
    }
}

static size_t launch_reduce_one_pass(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    if (blocks > 4)
        blocks = 4;
    if (scratch_blocks < blocks) {
        if (scratch)
            cudaFree(scratch);
        cudaMalloc(&scratch, (blocks + 1) * sizeof(int));
        cudaMemset(scratch, 0, (blocks + 1) * sizeof(int));
        scratch_blocks = blocks;
    }
    reduce_one_pass<<<blocks, threads>>>(in, out, (unsigned int)n, scratch, (unsigned int *)(scratch + scratch_blocks));
    return 1;
}

KIT_REGISTER_STAGE(reduce_one_pass, launch_reduce_one_pass)

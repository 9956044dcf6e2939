/*
 * Planted bug for the trace pictures (issue 25), stage 8, written as a student writes lab 8:
 * the kit's one-pass kernel (a grid-stride loop of int4 loads, five shuffles a warp, one barrier)
 * whose blocks meet through __device__ variables, as the lab's blocks_and_sum does, but in the
 * last-block-done pattern: each block's thread 0 stores its block's sum in a __device__ array,
 * then takes a ticket from a __device__ counter with atomicAdd, and the block that takes the last
 * ticket adds the array up. The __threadfence() between the store and the ticket is missing, so
 * the last block may read a sum another block stored but never published (on the emulator: the
 * value from before the store). The picture must show the blocks' tickets on blocks_done in the
 * order they ran, and the last block's stale read of block_sums, at its line, in that block.
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu
#define MAX_BLOCKS 1024

static __device__ int block_sums[MAX_BLOCKS];       /* one sum per block */
static __device__ unsigned int blocks_done = 0;     /* the tickets taken; 0 between launches */

static __device__ __forceinline__ int warp_total(int v)
{
    v += __shfl_xor_sync(FULL_WARP, v, 16);
    v += __shfl_xor_sync(FULL_WARP, v, 8);
    v += __shfl_xor_sync(FULL_WARP, v, 4);
    v += __shfl_xor_sync(FULL_WARP, v, 2);
    v += __shfl_xor_sync(FULL_WARP, v, 1);
    return v;
}

static __global__ void reduce_one_pass(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int4 *in4 = (const int4 *)in;
    const unsigned int n4 = n / 4, stride = blockDim.x * gridDim.x;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n4; i += stride) {
        int4 a = in4[i];
        sum += a.x + a.y + a.z + a.w;
    }
    if (blockIdx.x == 0 && tid < n % 4)
        sum += in[4 * n4 + tid];
    sum = warp_total(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp != 0)
        return;
    sum = warp_total(lane < blockDim.x / 32 ? warp_sums[lane] : 0);
    if (lane == 0) {
        if (gridDim.x == 1) {
            out[0] = sum;
            return;
        }
        block_sums[blockIdx.x] = sum;
        /* the mistake: no __threadfence() here, so the sum may not be seen before the ticket */
        const unsigned int ticket = atomicAdd(&blocks_done, 1u);
        if (ticket == gridDim.x - 1) { /* the last block to take a ticket adds the sums up */
            int total = 0;
            for (unsigned int b = 0; b < gridDim.x; b++)
                total += block_sums[b];
            out[0] = total;
            blocks_done = 0;
        }
    }
}

/** As the lab's launcher: 16 values a thread, at most MAX_BLOCKS blocks. Returns 1. */
static size_t launch_reduce_one_pass(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int per_block = 16 * threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    reduce_one_pass<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(reduce_one_pass, launch_reduce_one_pass)

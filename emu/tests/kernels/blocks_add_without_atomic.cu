/*
 * Emulator fixture (stage 8's slot), rejected by the race build: the blocks meet in out[0]
 * with a plain `+=` instead of an atomicAdd.
 *
 * A clearing kernel zeroes out[0]; then thread 0 of every block adds its block's sum into it
 * as a load, an add and a store. On a GPU two blocks that finish together both load the old
 * value and one sum is lost; on the emulator, whose blocks run one after another, the sum
 * comes out right, so only ThreadSanitizer can reject it: the threads of two blocks write the
 * same word with nothing ordering them (no atomic, no kernel boundary), a data race between
 * "blockIdx (a,0,0) threadIdx (0,0,0)" and "blockIdx (b,0,0) threadIdx (0,0,0)", threads of the same index.
 */
#include "stage.h"

static __global__ void clear_out(int *out)
{
    out[0] = 0;
}

static __global__ void blocks_add_without_atomic(const int *in, int *out, unsigned int n)
{
    __shared__ int block_sum;
    if (threadIdx.x == 0)
        block_sum = 0;
    __syncthreads();
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    atomicAdd(&block_sum, sum);
    __syncthreads();
    if (threadIdx.x == 0)
        out[0] += block_sum; /* the mistake: atomicAdd(out, block_sum) */
}

static size_t launch_blocks_add_without_atomic(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 4 * threads - 1) / (4 * threads));
    clear_out<<<1, 1>>>(out);
    blocks_add_without_atomic<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(blocks_add_without_atomic, launch_blocks_add_without_atomic)

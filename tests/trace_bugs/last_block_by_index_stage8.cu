/*
 * Planted bug for the trace pictures (issue 25), stage 8: the kit's own one-pass kernel, its
 * blocks meeting in one atomicAdd on the __device__ word blocks_and_sum, with the ordering
 * broken: the block with the last index is taken for the last block to add, and it reads the
 * word with a plain load instead of using what its atomic returned. A GPU runs the blocks in any
 * order (the emulator never by index), so that block reads the total before the blocks that run
 * after it have added, writes a partial sum to out[0], and puts the word back to 0 too early.
 * The picture must show every block's atomic on blocks_and_sum with its value, and that block's
 * early read of blocks_and_sum, at its line.
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu
#define COUNT_SHIFT 48 /* the word: blocks counted in bits 48-63, their sums in bits 0-47 */

static __device__ unsigned long long blocks_and_sum; /* static storage: 0 when the program starts */

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
        atomicAdd(&blocks_and_sum, (1ull << COUNT_SHIFT) + (unsigned int)sum);
        if (blockIdx.x == gridDim.x - 1) { /* the mistake: the last index is not the last block to add */
            const unsigned long long total = blocks_and_sum;
            out[0] = (int)(unsigned int)total;
            blocks_and_sum = 0;
        }
    }
}

/** As the lab's launcher: 16 values a thread, at most 1,024 blocks. Returns 1. */
static size_t launch_reduce_one_pass(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int per_block = 16 * threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > 1024)
        blocks = 1024;
    reduce_one_pass<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(reduce_one_pass, launch_reduce_one_pass)

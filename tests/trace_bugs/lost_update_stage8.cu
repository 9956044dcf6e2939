/*
 * Planted bug for the trace pictures (issue 25), stage 8: the kit's own one-pass kernel with its
 * atomic broken: each block's thread 0 reads the __device__ word blocks_and_sum, adds its count
 * and sum and stores the word back, a plain read-modify-write where the lab needs one atomicAdd.
 * Blocks that do so at the same time on a GPU read the same old value and one add is lost; on
 * the emulator the store, which nothing publishes, is not seen by the blocks that run after, so
 * no block counts them all and out[0] is never written. The picture must show each block's load
 * and store of blocks_and_sum, and the lost update (a stale read of a word the block stores
 * back) at its line, in the block that read it, naming the atomic as the way out.
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
        const unsigned long long after = blocks_and_sum + (1ull << COUNT_SHIFT) + (unsigned int)sum;
        blocks_and_sum = after; /* the mistake: a load and a store, not one atomicAdd */
        if ((after >> COUNT_SHIFT) == gridDim.x) {
            out[0] = (int)(unsigned int)after;
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

/*
 * Valid kernel, slot 7: the whole sum in one pass, blocks meeting in out[0] with atomicAdd.
 *
 * What it is: a correct "many elements per thread" stage that needs no second pass. The
 * launcher first starts a one-thread kernel of its own that sets out[0] to 0 (the harness
 * fills out with poison before every pass, and the stage must not rely on anything it did
 * not write). Then one wave of blocks walks the input with a grid-stride loop of int4 loads
 * (two in flight per thread), each block sums its share (warp shuffles, a 32-int shared
 * array between the warps, the first warp finishes) and thread 0 adds the block's sum into
 * out[0] with one atomicAdd. Both kernels run in order on stream 0; integer adds are exact
 * and commutative, so the order in which the blocks arrive does not change the sum. It
 * returns 1: the pass leaves one value, and the harness stops there.
 *
 * How the grader must treat it: full marks for stage 7. Right at every n and block size,
 * race-free (the atomics are the only shared global writes, and racecheck's shared memory
 * is written and read across a __syncthreads()), and as fast as the reference (one wave,
 * 16-byte loads, no second launch over the partial sums: only the tiny zeroing kernel).
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

/** Resets the single result the pass will add into. */
static __global__ void zero_result(int *out)
{
    out[0] = 0;
}

/** Sums the 32 lanes' values; every lane gets the total. */
static __device__ __forceinline__ int lanes_total(int v)
{
    v += __shfl_xor_sync(FULL_WARP, v, 16);
    v += __shfl_xor_sync(FULL_WARP, v, 8);
    v += __shfl_xor_sync(FULL_WARP, v, 4);
    v += __shfl_xor_sync(FULL_WARP, v, 2);
    v += __shfl_xor_sync(FULL_WARP, v, 1);
    return v;
}

/** Each block sums a grid-strided share of the input and adds it into out[0]. */
static __global__ void atomic_block_sums(const int *in, int *out, unsigned int n)
{
    __shared__ int per_warp[32];
    const int4 *in4 = reinterpret_cast<const int4 *>(in);
    const unsigned int n4 = n / 4;
    const unsigned int stride = blockDim.x * gridDim.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int sum = 0;
    for (; i + stride < n4; i += 2 * stride) {
        const int4 a = in4[i];
        const int4 b = in4[i + stride];
        sum += (a.x + a.y) + (a.z + a.w) + (b.x + b.y) + (b.z + b.w);
    }
    if (i < n4) {
        const int4 a = in4[i];
        sum += (a.x + a.y) + (a.z + a.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) /* the last n % 4 ints, past the whole int4s */
        sum += in[4 * n4 + threadIdx.x];

    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    sum = lanes_total(sum);
    if (lane == 0)
        per_warp[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lanes_total(lane < blockDim.x / 32 ? per_warp[lane] : 0);
        if (lane == 0)
            atomicAdd(out, sum);
    }
}

/** Blocks of `threads` that the GPU keeps resident at once (asked once per block size). */
static unsigned int one_wave(unsigned threads)
{
    static int sms = 0;
    static int per_sm[11] = {0}; /* by log2(threads) */
    int device = 0;
    if (sms == 0) {
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        if (sms < 1)
            sms = 1;
    }
    int slot = 0;
    while ((1u << slot) < threads)
        slot++;
    if (per_sm[slot] == 0) {
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[slot], atomic_block_sums, (int)threads, 0);
        if (per_sm[slot] < 1)
            per_sm[slot] = 1;
    }
    return (unsigned int)sms * (unsigned int)per_sm[slot];
}

/** One pass that leaves one value: zero out[0], then every block adds into it. Returns 1. */
static size_t launch_atomic_block_sums(const int *in, int *out, size_t n, unsigned threads)
{
    const size_t per_block = 8 * (size_t)threads; /* at least two int4s per thread */
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > one_wave(threads))
        blocks = one_wave(threads);
    zero_result<<<1, 1>>>(out);
    atomic_block_sums<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(atomic_block_sums, launch_atomic_block_sums)

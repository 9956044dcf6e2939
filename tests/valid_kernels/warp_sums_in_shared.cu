/*
 * Valid kernel, slot 7: every warp reduces with __shfl_xor_sync; warp sums meet in shared memory.
 *
 * What it is: a correct "many elements per thread" stage without a shared-memory tree.
 * Each thread sums int4s a grid apart (two loads in flight per trip), the block's warps
 * each reduce their 32 values with butterfly shuffles (__shfl_xor_sync: afterwards every
 * lane holds the warp's sum), lane 0 of each warp stores it in a 32-int shared array, one
 * __syncthreads(), and the first warp reduces those blockDim.x / 32 values the same way.
 * One wave of blocks; the last n % 4 ints are added by block 0.
 *
 * How the grader must treat it: full marks for stage 7. Right at every n and block size
 * (a block of 64 has 2 warp sums, one of 1024 has 32: the array is always big enough),
 * race-free (each shared slot is written by one lane before the barrier and read after
 * it), and as fast as the reference.
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

/** Butterfly: after five exchanges every lane holds the sum of all 32. */
static __device__ __forceinline__ int butterfly_sum(int v)
{
#pragma unroll
    for (int mask = 16; mask >= 1; mask >>= 1)
        v += __shfl_xor_sync(FULL_WARP, v, mask);
    return v;
}

static __global__ void warp_sums_in_shared(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    const int4 *quads = reinterpret_cast<const int4 *>(in);
    const unsigned int nquads = n >> 2;
    const unsigned int step = blockDim.x * gridDim.x;
    int sum = 0;
    unsigned int q = blockIdx.x * blockDim.x + threadIdx.x;
    while (q + step < nquads) {
        const int4 a = quads[q];
        const int4 b = quads[q + step];
        sum += a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w;
        q += 2 * step;
    }
    if (q < nquads) {
        const int4 a = quads[q];
        sum += a.x + a.y + a.z + a.w;
    }
    const unsigned int rest = n & 3u;
    if (blockIdx.x == 0 && threadIdx.x < rest)
        sum += in[(nquads << 2) + threadIdx.x];

    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    sum = butterfly_sum(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        const unsigned int warps = blockDim.x >> 5;
        sum = butterfly_sum(lane < warps ? warp_sums[lane] : 0);
        if (lane == 0)
            out[blockIdx.x] = sum;
    }
}

/** One wave of blocks, at least 16 ints per thread. Returns the number of partial sums. */
static size_t launch_warp_sums_in_shared(const int *in, int *out, size_t n, unsigned threads)
{
    static int sms = 0, threads_per_sm = 0;
    if (sms == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        if (sms < 1)
            sms = 1;
        if (threads_per_sm < 1024)
            threads_per_sm = 1024;
    }
    const unsigned int wave = (unsigned int)sms * ((unsigned int)threads_per_sm / threads);
    const size_t per_block = 16 * (size_t)threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > wave)
        blocks = wave;
    warp_sums_in_shared<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(warp_sums_in_shared, launch_warp_sums_in_shared)

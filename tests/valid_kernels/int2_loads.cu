/*
 * Valid kernel, slot 7: a grid-stride loop of int2 loads, unrolled four times.
 *
 * What it is: a correct "many elements per thread" stage in another style. The input is
 * read as int2 (8 bytes) instead of int4: each thread keeps four int2 loads in flight per
 * trip of the loop, one grid apart. The grid is exactly one wave of resident blocks, from
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor for this kernel at this block size times
 * the SM count (cudaDeviceGetAttribute). Every tail is handled: the loop of four, then
 * single int2s, then the one int left over when n is odd (block 0, thread 0). The block's
 * tree is a template unroll in shared memory, finished by warp shuffles.
 *
 * How the grader must treat it: full marks for stage 7. Right at every n (odd, tiny,
 * 2^30) and block size, race-free, and fast enough: at one wave of 2048 threads per SM,
 * four 8-byte loads per thread are 64 KiB in flight per SM, far more than HBM needs.
 * The harness's buffers are 16-byte aligned, so the int2 view is aligned.
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

static __device__ __forceinline__ int pair_sum(int2 p)
{
    return p.x + p.y;
}

/** Each thread sums int2s a grid apart, four per trip; then the block reduces. */
template <unsigned int blockSize>
static __global__ void int2_loads(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[blockSize];
    const int2 *pairs = reinterpret_cast<const int2 *>(in);
    const unsigned int npairs = n / 2;
    const unsigned int grid = blockSize * gridDim.x;
    unsigned int p = blockIdx.x * blockSize + threadIdx.x;
    int sum = 0;
    for (; p + 3 * grid < npairs; p += 4 * grid) {
        const int2 a = pairs[p];
        const int2 b = pairs[p + grid];
        const int2 c = pairs[p + 2 * grid];
        const int2 d = pairs[p + 3 * grid];
        sum += (pair_sum(a) + pair_sum(b)) + (pair_sum(c) + pair_sum(d));
    }
    for (; p < npairs; p += grid)
        sum += pair_sum(pairs[p]);
    if ((n & 1u) && blockIdx.x == 0 && threadIdx.x == 0)
        sum += in[n - 1];

    const unsigned int tid = threadIdx.x;
    sdata[tid] = sum;
    __syncthreads();
#pragma unroll
    for (unsigned int s = blockSize / 2; s >= 32; s /= 2) {
        if (tid < s)
            sdata[tid] = sum = sum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        sum = sdata[tid];
        for (int k = 16; k > 0; k /= 2)
            sum += __shfl_down_sync(FULL_WARP, sum, k);
        if (tid == 0)
            out[blockIdx.x] = sum;
    }
}

/** One wave of int2_loads<blockSize> blocks, asked of the occupancy calculator once. */
template <unsigned int blockSize>
static unsigned int wave_of()
{
    static unsigned int wave = 0;
    if (wave == 0) {
        int device = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, int2_loads<blockSize>, (int)blockSize, 0);
        wave = (unsigned int)(sms > 0 ? sms : 1) * (unsigned int)(per_sm > 0 ? per_sm : 1);
    }
    return wave;
}

/** Enough blocks for at least 8 ints per thread, at most one wave. */
template <unsigned int blockSize>
static size_t pass(const int *in, int *out, size_t n)
{
    const size_t per_block = 8 * (size_t)blockSize;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > wave_of<blockSize>())
        blocks = wave_of<blockSize>();
    int2_loads<blockSize><<<blocks, blockSize>>>(in, out, (unsigned int)n);
    return blocks;
}

/** One pass. Returns the number of partial sums. */
static size_t launch_int2_loads(const int *in, int *out, size_t n, unsigned threads)
{
    switch (threads) {
    case 64: return pass<64>(in, out, n);
    case 128: return pass<128>(in, out, n);
    case 256: return pass<256>(in, out, n);
    case 512: return pass<512>(in, out, n);
    case 1024: return pass<1024>(in, out, n);
    default: return 0; /* not a block size the stage supports: the harness reports it */
    }
}

KIT_REGISTER_STAGE(int2_loads, launch_int2_loads)

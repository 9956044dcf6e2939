/*
 * Valid kernel, slot 6: stage 6's complete unroll, each step chosen by `if constexpr`.
 *
 * What it is: a correct "block size as a template parameter" stage in another style. Each
 * step of the shared-memory tree is an `if constexpr (blockSize >= 2 * s)` block, so an
 * instantiation holds only the steps its block size needs (no run-time test of the block
 * size, no dead branch left to the optimiser), with a `constexpr` count of the steps; the last
 * warp folds its 64 values with __shfl_down_sync, its offsets a `constexpr` array walked by
 * a fully unrolled loop.
 *
 * How the grader must treat it: full marks for stage 6 (10 on a GPU, 8 on the emulator).
 * Right at every n and every block size (64 to 1024), race-free (a __syncthreads() after
 * every shared-memory step; the warp step exchanges registers), as fast as the reference.
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu

/** log2 of a power of two, at compile time. */
static __host__ __device__ constexpr unsigned int log2_of(unsigned int v)
{
    return v <= 1 ? 0 : 1 + log2_of(v / 2);
}

/** Two inputs per thread, the tree unrolled by if constexpr, then the last warp by shuffles. */
template <unsigned int blockSize>
static __global__ void if_constexpr_steps(const int *in, int *out, unsigned int n)
{
    static_assert(blockSize >= 64 && (blockSize & (blockSize - 1)) == 0, "a power of two from 64");
    constexpr unsigned int shared_steps = log2_of(blockSize) - 5; /* down to 32 values */
    static_assert(shared_steps >= 1 && shared_steps <= 5, "64 to 1024 threads");
    __shared__ int sdata[blockSize];
    const unsigned int tid = threadIdx.x;
    const unsigned int i = blockIdx.x * (2 * blockSize) + tid;
    int v = i < n ? in[i] : 0;
    if (i + blockSize < n)
        v += in[i + blockSize];
    sdata[tid] = v;
    __syncthreads();

    if constexpr (blockSize >= 1024) {
        if (tid < 512)
            sdata[tid] = v = v + sdata[tid + 512];
        __syncthreads();
    }
    if constexpr (blockSize >= 512) {
        if (tid < 256)
            sdata[tid] = v = v + sdata[tid + 256];
        __syncthreads();
    }
    if constexpr (blockSize >= 256) {
        if (tid < 128)
            sdata[tid] = v = v + sdata[tid + 128];
        __syncthreads();
    }
    if constexpr (blockSize >= 128) {
        if (tid < 64)
            sdata[tid] = v = v + sdata[tid + 64];
        __syncthreads();
    }

    if (tid < 32) {
        v += sdata[tid + 32];
        constexpr unsigned int offsets[] = {16, 8, 4, 2, 1};
#pragma unroll
        for (unsigned int k = 0; k < sizeof offsets / sizeof offsets[0]; k++)
            v += __shfl_down_sync(FULL_WARP, v, offsets[k]);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

/** One pass with the instantiation for `threads`. Returns the number of partial sums. */
static size_t launch_if_constexpr_steps(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * (size_t)threads - 1) / (2 * (size_t)threads));
    unsigned int count = (unsigned int)n;
    switch (threads) {
    case 64: if_constexpr_steps<64><<<blocks, 64>>>(in, out, count); break;
    case 128: if_constexpr_steps<128><<<blocks, 128>>>(in, out, count); break;
    case 256: if_constexpr_steps<256><<<blocks, 256>>>(in, out, count); break;
    case 512: if_constexpr_steps<512><<<blocks, 512>>>(in, out, count); break;
    case 1024: if_constexpr_steps<1024><<<blocks, 1024>>>(in, out, count); break;
    default: return 0; /* not a block size the stage supports: the harness reports it */
    }
    return blocks;
}

KIT_REGISTER_STAGE(if_constexpr_steps, launch_if_constexpr_steps)

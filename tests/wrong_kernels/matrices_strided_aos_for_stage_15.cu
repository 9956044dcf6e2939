/*
 * Known-wrong kernel, slot 15: stage 13's strided reads handed in as stage 15.
 *
 * Stage 13's kernel unchanged but for its name: each thread reads whole matrices (const kit_mat3
 * a = in[i]), so a warp's load instruction touches 32 ints 36 bytes apart, each in a sector of
 * its own: 32 sectors for 128 useful bytes, 288 sector requests per 32 matrices where stage
 * 15's coalesced int4 loads make 36. Right at every n: only the reading is wrong, and it is the
 * whole lesson of stage 15.
 *
 * The clock cannot always tell. On an H100 (2026-11-23; 256 threads) the L1 keeps each line
 * for the 9 loads that share it, and this runs at stage 15's speed (2455 against 2520 GB/s at
 * 256 MiB), so the speed rule (0.8 x the speedup reference stage 15 reaches over reference
 * stage 13) passes it there. The grader rejects it for what it does instead: its emulated-speed
 * part (tests/grader/grading.conf, stage15.max_sectors_per_request) counts on the CPU emulator the
 * sectors each warp-level load asks L1 for, as Nsight Compute does: 32.0 per request, 8 times
 * the sectors its bytes fill, where the reference's loads fetch just the sectors their bytes
 * fill (12.0 per request, its int4s and ints). It fails with "sectors per warp load", and the
 * stage earns no speed points, on a GPU too.
 */
#include <climits>
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define IDENTITY INT_MAX /* min(x, INT_MAX) = x (stage 10) */

/** The smallest of the 32 lanes' values; every lane gets it (stage 10). */
static __device__ __forceinline__ int warp_min(int v)
{
    v = min(v, __shfl_xor_sync(FULL_WARP, v, 16));
    v = min(v, __shfl_xor_sync(FULL_WARP, v, 8));
    v = min(v, __shfl_xor_sync(FULL_WARP, v, 4));
    v = min(v, __shfl_xor_sync(FULL_WARP, v, 2));
    v = min(v, __shfl_xor_sync(FULL_WARP, v, 1));
    return v;
}

/**
 * The block's minimum of each component of the threads' m, in thread 0's m: stage 10's tree
 * once for each component, through the block's warp_mins.
 */
static __device__ __forceinline__ void block_min(kit_mat3 &m, int (*warp_mins)[32])
{
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int c = 0; c < 9; c++) {
        m.m[c] = warp_min(m.m[c]);
        if (lane == 0)
            warp_mins[c][warp] = m.m[c];
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int c = 0; c < 9; c++) /* some warps read twice: min(x, x) = x */
            m.m[c] = warp_min(warp_mins[c][lane % (blockDim.x / 32)]);
    }
}

/** Each thread reads whole matrices of a grid-strided share; then the block's minimum of each
 *  component. */
static __global__ void matrices_strided_aos_for_stage_15(const kit_mat3 *in, kit_mat3 *out,
                                                         unsigned int n)
{
    __shared__ int warp_mins[9][32];
    kit_mat3 m; /* this thread's minimum of each component so far */
#pragma unroll
    for (int c = 0; c < 9; c++)
        m.m[c] = IDENTITY;

    const unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const kit_mat3 a = in[i]; /* 9 loads; the next lane's are 36 bytes further on */
#pragma unroll
        for (int c = 0; c < 9; c++)
            m.m[c] = min(m.m[c], a.m[c]);
    }

    block_min(m, warp_mins);
    if (threadIdx.x == 0)
        out[blockIdx.x] = m;
}

/** Blocks of `threads` that the whole GPU keeps resident at once (one full wave). */
static unsigned int resident_blocks(unsigned threads)
{
    static int sms = 0, threads_per_sm = 0;
    if (sms == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        if (sms < 1 || threads_per_sm < (int)threads) {
            sms = 1;
            threads_per_sm = (int)threads;
        }
    }
    return (unsigned int)sms * ((unsigned int)threads_per_sm / threads);
}

/** One pass over at most one wave of blocks. Returns the number of partial results (kit_mat3s). */
static size_t launch_matrices_strided_aos_for_stage_15(const kit_mat3 *in, kit_mat3 *out, size_t n,
                                                       unsigned threads)
{
    unsigned int per_block = 4 * threads; /* at least 4 matrices per thread */
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > resident_blocks(threads))
        blocks = resident_blocks(threads);
    matrices_strided_aos_for_stage_15<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(matrices_strided_aos_for_stage_15, launch_matrices_strided_aos_for_stage_15)

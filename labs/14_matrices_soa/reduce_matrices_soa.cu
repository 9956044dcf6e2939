/*
 * Stage 14: the same matrices as 9 planes (a structure of arrays): coalesced by layout.
 *
 * Idea: in stage 13 a warp's 32 lanes read ints 36 bytes apart, 8 times the sector requests
 * of a coalesced read, and only the L1 cache keeps that from costing time. Store the
 * matrices the other way round, component by component: plane c holds component c of every
 * matrix, matrix i's component c at in[c * n + i] (a structure of arrays, SoA). Now lane k of a
 * warp reading component c of matrix i + k reads in[c * n + i + k]: 32 consecutive ints, 128
 * bytes in 4 sectors, as coalesced as stage 7's reads. A warp's iteration still reads 9 ints a
 * lane, its 32 matrices' 1,152 bytes, but in 9 requests of 4 sectors each: 36 sector requests
 * where stage 13 makes 288.
 *
 * The partial results follow the layout: a pass that returns count results writes component c
 * of block b's result at out[c * count + b] (count = gridDim.x here), so the next pass reads
 * them as 9 planes of count ints, with n = count, like the input.
 *
 * Changed since stage 13: the loop reads in[c * n + i] for the 9 components where stage 13
 * reads in[i] as a kit_mat3, and thread 0 writes its block's 9 minimums into 9 planes of
 * out. The tree, the 9 loads a thread keeps in flight per iteration (36 bytes) and the grid (4
 * matrices a thread or more, at most one wave) are stage 13's: the same bytes are read, only
 * the addresses of a warp's loads differ.
 *
 * Measured on an H100 (2026-11-23; 256 threads; median of 25 timed runs of all passes): at
 * 2^25 matrices (1.2 GB) 0.42 ms, the same as stage 13, whose strided loads the L1 cache
 * absorbs there (stage 13's page); at 2^26 / 9 matrices (268 MB) 0.108 ms, 4% slower than stage
 * 13's 0.104 ms (it reads 9 streams at once, one per plane, where stage 13 reads one). What the
 * layout buys is independence from the L1: 36 sector requests where stage 13 makes 288,
 * whichever cache the loads go through.
 *
 * What it costs outside the kernel: every program that makes or uses the matrices must agree
 * on the planes, and a matrix is no longer one piece of memory (a copy of matrix i is 9 reads
 * n ints apart). Stage 15 keeps the matrices as the report stores them and gets the coalescing
 * in the kernel instead.
 *
 * Block sizes: 64, 128, 256, 512 or 1024.
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 14 --impl labs   Grade: cmake --build build --target check-stage14
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab14.html
 */
#include <climits>
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define IDENTITY INT_MAX /* min(x, INT_MAX) = x (stage 10) */

//! [kernel]
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

/** Each thread reads the 9 planes at its grid-strided matrices; then the block's minimum of each
 *  component, written into 9 planes of out. */
static __global__ void reduce_matrices_soa(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_mins[9][32];
    kit_mat3 m; /* this thread's minimum of each component so far */
#pragma unroll
    for (int c = 0; c < 9; c++)
        m.m[c] = IDENTITY;

    // [todo] TODO(student): a grid-stride loop over matrices, each component read from its plane.
    // Stage 13's loop over i (b * blockDim.x + t, a step of blockDim.x * gridDim.x, while i < n),
    // but matrix i's component c is in[c * n + i]: plane c starts at in + c * n.
    return; /* delete this line once your code is in place */
    // [todo] end of TODO

    block_min(m, warp_mins);
    if (threadIdx.x == 0) {
        // [todo-write] TODO(student): the block's result as result blockIdx.x of 9 planes.
        // The pass returns gridDim.x results, so plane c of out starts at out + c * gridDim.x:
        // write component c of this block's result (m.m[c]) at index blockIdx.x of that plane.
        // [todo-write] end of TODO
    }
}
//! [kernel]

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

//! [launcher]
/** One pass over at most one wave of blocks. Returns the number of partial results: out holds
 *  that many ints in each of its 9 planes. */
static size_t launch_reduce_matrices_soa(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int per_block = 4 * threads; /* at least 4 matrices per thread */
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > resident_blocks(threads))
        blocks = resident_blocks(threads);
    reduce_matrices_soa<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_matrices_soa, launch_reduce_matrices_soa)

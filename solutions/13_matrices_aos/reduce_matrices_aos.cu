/*
 * Stage 13: 3x3 matrices, 9 ints per thread: the layout of the course's report.
 *
 * Idea: the element-wise minimum of n 3x3 int matrices: component c of the result is the
 * smallest component c of all n matrices, for each of the 9 components. The course's student
 * report stores matrix i as its 9 ints one after the other (an array of structures, AoS: a
 * kit_mat3 here, 36 bytes), and gives each thread one whole matrix. This stage keeps that
 * layout and that reading; stages 14 and 15 read the same matrices coalesced.
 *
 * How a warp reads memory: one load instruction runs for the 32 lanes of a warp at once, and
 * the memory system serves it in 32-byte sectors. When lane k reads int k of 32 consecutive
 * ints, the warp's 128 bytes lie in 4 sectors: the access is coalesced. Here lane k reads
 * component c of matrix i + k, at byte 36 (i + k) + 4c: the 32 ints of one instruction are 36
 * bytes apart, each in a sector of its own, so one instruction asks for 32 sectors (1,024
 * bytes of sector traffic for 128 useful bytes), and the 9 components take 9 such
 * instructions: 288 sector requests per warp and iteration, where the warp's 32 matrices
 * (1,152 bytes) fill 36 sectors.
 *
 * What that costs depends on the L1 cache. The 9 instructions of an iteration touch the same
 * 9 lines of 128 bytes, one after the other. Measured on an H100 (2026-11-23; 2^26 / 9
 * matrices, 256 MiB; 256 threads; median of 30 runs; docs/results/ladder-H100-2026-11-23.json):
 * 2.39 TB/s, within a few per cent of stages 14 and 15. The L1 keeps each line from the first of its 9
 * loads to the last, so DRAM and L2 deliver each byte once, and the L1 serves 8 times the
 * sector requests fast enough to keep up with the HBM. Take the L1 away and the cost appears:
 * the same loads made through __ldcg() (cached in L2 only) fetch all 288 sectors from L2,
 * 8 times the traffic, and took about three times as long as stage 15's loads through
 * __ldcg() in a test on the same H100 (not a committed run). So this layout is slow wherever the L1 does not hold the lines between
 * the loads that share them: loads that bypass it, GPUs that do not cache global loads in L1,
 * threads that touch more lines than it holds, or reading only some components (then most of
 * every sector fetched is wasted, in DRAM too).
 *
 * Changed since stage 10 (min): one whole matrix (9 ints) per iteration of the grid-stride loop,
 * nine running minimums per thread, and stage 10's tree once for each component: nine warp
 * minimums through shared memory, nine in the first warp; each block writes one kit_mat3.
 * From the report's kernel: a grid-stride loop instead of one matrix per thread, a bound on n
 * (the report's read past the end when n is not a multiple of the block size), the shuffles
 * instead of its tree in shared memory (the tree is not this lesson: stages 13, 14 and 15 share
 * it, so they differ only in how they read), the blocks' results in out where the report wrote
 * them over its own input, and the kit's further passes over them instead of a final loop on
 * the CPU.
 *
 * Each iteration keeps 9 loads (36 bytes) a thread in flight, as stages 14 and 15 do: the three
 * read the same bytes at the same depth, and differ only in how a warp's addresses fall into
 * sectors. The grid: 4 matrices a thread or more (144 bytes), at most one wave of blocks.
 *
 * Block sizes: 64, 128, 256, 512 or 1024.
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 13 --impl labs   Grade: cmake --build build --target check-stage13
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab13.html
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

/** Each thread reads whole matrices of a grid-strided share; then the block's minimum of each
 *  component. */
static __global__ void reduce_matrices_aos(const kit_mat3 *in, kit_mat3 *out, unsigned int n)
{
    __shared__ int warp_mins[9][32];
    kit_mat3 m; /* this thread's minimum of each component so far */
#pragma unroll
    for (int c = 0; c < 9; c++)
        m.m[c] = IDENTITY;

    // [todo] TODO(student): a grid-stride loop over whole matrices, the minimum of each component.
    const unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const kit_mat3 a = in[i]; /* 9 loads; the next lane's are 36 bytes further on */
#pragma unroll
        for (int c = 0; c < 9; c++)
            m.m[c] = min(m.m[c], a.m[c]);
    }
    // [todo] end of TODO

    block_min(m, warp_mins);
    if (threadIdx.x == 0)
        out[blockIdx.x] = m;
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
/** One pass over at most one wave of blocks. Returns the number of partial results (kit_mat3s). */
static size_t launch_reduce_matrices_aos(const kit_mat3 *in, kit_mat3 *out, size_t n, unsigned threads)
{
    unsigned int per_block = 4 * threads; /* at least 4 matrices per thread */
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > resident_blocks(threads))
        blocks = resident_blocks(threads);
    reduce_matrices_aos<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_matrices_aos, launch_reduce_matrices_aos)

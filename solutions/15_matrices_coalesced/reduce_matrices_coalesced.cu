/*
 * Stage 15: the report's matrices (9 ints each, one after the other), read with coalesced loads.
 *
 * Idea: stage 14 made the reads coalesced by changing the layout. The layout is often not
 * ours to change: here the input stays stage 13's array of kit_mat3, and the kernel changes
 * how a warp reads it. A warp takes 32 matrices at a time, a group: 288 consecutive ints,
 * 1,152 bytes. It reads them as 72 int4s with consecutive lanes reading consecutive int4s
 * (lane k reads int4s k, k + 32 and, for k < 8, k + 64 of the group): three instructions of
 * 512, 512 and 128 bytes, 36 sector requests in all, none wasted, where stage 13's nine
 * instructions make 288. A group starts 1,152 bytes after the one before, a multiple of 16,
 * so its int4s are aligned wherever the input is (the harness's are 16-byte aligned).
 *
 * The ints arrive in the wrong lanes: lane k holds ints 4k..4k+3 of the group, a piece of
 * matrix 4k / 9 (rounded down) and perhaps of the next, while the loop wants each lane to hold
 * one whole matrix. So the lanes exchange them through shared memory: each lane stores what it read
 * into its warp's 1,152 bytes of shared memory, the warp waits for all 32 (__syncwarp), and
 * lane k reads matrix k of the group, ints 9k..9k+8, from there. Lane k's int j is in bank
 * (9k + j) % 32, and 9 has no common factor with 32, so the 32 lanes of one read hit 32
 * different banks: no conflict. A second __syncwarp keeps the next group's stores from
 * overwriting ints a lane has not read yet. The warps of a block never share their part of
 * shared memory, so no __syncthreads() is needed in the loop.
 *
 * The last n % 32 matrices do not make a group; the first warp of block 0 reads them as whole
 * kit_mat3s, as stage 13 does (at most 31 matrices, 1,116 bytes: nothing to gain there).
 *
 * Changed since stage 13: the loop steps over groups of 32 matrices, one group per warp and
 * iteration (the warps of the grid take groups grid-strided), and reads them as above; the
 * tree is stage 13's, and so is the grid (4 matrices a thread or more, at most one wave of
 * blocks). A lane still keeps 36 bytes in flight per iteration (its three int4 loads, one of
 * them shared with other lanes), as stages 13 and 14 do. Shared memory: 1,152 bytes per warp,
 * given at launch (36 bytes per thread: 36,864 bytes for 1024 threads).
 *
 * Measured on an H100 (2026-11-23; 2^26 / 9 matrices, 256 threads, median of 30 runs;
 * docs/results/ladder-H100-2026-11-23.json): 2.44 TB/s, a few per cent above stage 13. On that GPU the L1 cache already absorbs most of stage
 * 13's cost (its page), so the gain in time is small; what this stage removes is the
 * dependence on it: with every load made through __ldcg() (cached in L2 only) this stage
 * still took about a third of stage 13's time in a test on the same GPU (not a committed run).
 *
 * Graded by its loads as well as its time: as the clock of such a GPU cannot tell stage 13's
 * reading from this one, the grader counts on the CPU emulator what each warp-level load asks
 * the L1 for, in 32-byte sectors, as Nsight Compute does. Stage 13's loop asks for 32 sectors
 * per load, 8 times what its bytes fill; this stage for 12 on average (16, 16 and 4 for its
 * three int4 loads), just what its bytes fill. A stage 15 whose loads fetch more than 1.25
 * times the sectors its bytes fill, against this one's, earns no speed points
 * (tests/grader/grading.conf, stage15.max_sectors_per_request); any coalesced width passes.
 *
 * Block sizes: 64, 128, 256, 512 or 1024. Inputs must be 16-byte aligned (the harness's are).
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 15 --impl labs   Grade: cmake --build build --target check-stage15
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab15.html
 */
#include <climits>
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define IDENTITY INT_MAX /* min(x, INT_MAX) = x (stage 10) */
#define GROUP_INT4S 72   /* 32 matrices of 36 bytes: 1,152 bytes, 72 int4s */

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

/** Each warp reads groups of 32 matrices with coalesced loads and hands each lane one matrix
 *  through shared memory; then the block's minimum of each component. */
static __global__ void reduce_matrices_coalesced(const kit_mat3 *in, kit_mat3 *out, unsigned int n)
{
    extern __shared__ int4 groups_read[]; /* GROUP_INT4S int4s for each warp of the block */
    __shared__ int warp_mins[9][32];
    kit_mat3 m; /* this thread's minimum of each component so far */
#pragma unroll
    for (int c = 0; c < 9; c++)
        m.m[c] = IDENTITY;

    // [todo] TODO(student): groups of 32 matrices: 72 coalesced int4s, handed out through shared memory.
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int4 *mine = groups_read + GROUP_INT4S * warp; /* this warp's 1,152 bytes */
    const int *matrices = (const int *)mine;
    const int4 *in4 = (const int4 *)in;
    const unsigned int groups = n / 32, warps = blockDim.x / 32;
    for (unsigned int g = blockIdx.x * warps + warp; g < groups; g += gridDim.x * warps) {
        const int4 *group = in4 + GROUP_INT4S * g; /* matrices 32g..32g+31, 16-byte aligned */
        /* Three loads in flight: lanes 8-31 read lanes 0-7's third int4 again, from the same
         * four sectors: no extra traffic, and no branch around a load. */
        const int4 a = group[lane], b = group[lane + 32], c = group[lane % 8 + 64];
        mine[lane] = a;
        mine[lane + 32] = b;
        if (lane < 8)
            mine[lane + 64] = c;
        __syncwarp(); /* all 72 int4s are in shared memory */
#pragma unroll
        for (int j = 0; j < 9; j++) /* matrix `lane` of the group: banks (9 lane + j) % 32 */
            m.m[j] = min(m.m[j], matrices[9 * lane + j]);
        __syncwarp(); /* every lane has read its matrix before the next group is stored */
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 32) { /* the last n % 32 matrices, read whole */
        const kit_mat3 a = in[32 * groups + threadIdx.x];
#pragma unroll
        for (int j = 0; j < 9; j++)
            m.m[j] = min(m.m[j], a.m[j]);
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
/** One pass over at most one wave of blocks, with GROUP_INT4S int4s of shared memory per warp.
 *  Returns the number of partial results (kit_mat3s). */
static size_t launch_reduce_matrices_coalesced(const kit_mat3 *in, kit_mat3 *out, size_t n,
                                               unsigned threads)
{
    unsigned int per_block = 4 * threads; /* at least 4 matrices per thread */
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > resident_blocks(threads))
        blocks = resident_blocks(threads);
    const size_t shared = threads / 32 * GROUP_INT4S * sizeof(int4); /* 36,864 bytes at 1024 threads */
    reduce_matrices_coalesced<<<blocks, threads, shared>>>(in, out, (unsigned int)n);
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_matrices_coalesced, launch_reduce_matrices_coalesced)

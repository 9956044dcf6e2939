/*
 * Cheat (timing trick), slot 8: one launch only where stage 8's latency case used to be.
 *
 * What it pretends: a stage 8 ("one pass: the blocks meet in one atomic") that needs one
 * launch at every n. What it does: wrong_kernels/too_slow_for_stage_8.cu (a zeroing kernel,
 * then every block's atomicAdd into out[0]) loses its speed points in the latency case, n
 * near 2^18, where the second launch costs as much as the reduction. This file runs that
 * two-launch version everywhere except in the window an earlier grader timed, n in
 * [2^18 - 2^18/64, 2^18] at 256 threads, where a one-launch kernel takes over: blocks meet in
 * one 64-bit word (the number of blocks that have added, above their sums), and the block
 * that completes the count writes out[0] and puts the word back to 0. Both paths are right at
 * every n they run at.
 *
 * How the grader must treat it: no speed points (8 of 10 on a GPU; 8 of 8 on the emulator,
 * which does not time): the latency case's n is drawn within a factor of 2 of 2^18, and its
 * block size from the supported ones, at grading time, so it is timed with two launches.
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define WINDOW_TOP (1u << 18)
#define WINDOW_BOTTOM (WINDOW_TOP - WINDOW_TOP / 64)
#define WINDOW_THREADS 256u
#define COUNT_SHIFT 48 /* blocks counted in bits 48-63, their sums in bits 0-47 */

/** Blocks added so far, and their sum; 0 between launches. */
static __device__ unsigned long long blocks_and_sum;

static __device__ __forceinline__ int warp_total(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

/** The block's sum of a grid-strided share of int4s (and block 0's share of the tail), in thread 0. */
static __device__ __forceinline__ int block_sum(const int *in, unsigned int n)
{
    __shared__ int warp_sums[32];
    const int4 *in4 = (const int4 *)in;
    const unsigned int n4 = n / 4, stride = blockDim.x * gridDim.x;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        int4 a = in4[i];
        sum += a.x + a.y + a.z + a.w;
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        sum += in[4 * n4 + threadIdx.x];
    sum = warp_total(sum);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    return warp_total(threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x % 32] : 0);
}

static __global__ void clear_result(int *out)
{
    out[0] = 0;
}

/** Two launches: out[0] was cleared by clear_result; every block adds into it. */
static __global__ void add_into_cleared(const int *in, int *out, unsigned int n)
{
    int sum = block_sum(in, n);
    if (threadIdx.x == 0)
        atomicAdd(out, sum);
}

/** One launch: the blocks meet in blocks_and_sum; the one that completes the count writes out[0]. */
static __global__ void meet_in_one_word(const int *in, int *out, unsigned int n)
{
    int sum = block_sum(in, n);
    if (threadIdx.x != 0)
        return;
    const unsigned long long mine = (1ull << COUNT_SHIFT) + (unsigned int)sum;
    const unsigned long long after = atomicAdd(&blocks_and_sum, mine) + mine;
    if ((after >> COUNT_SHIFT) == gridDim.x) {
        out[0] = (int)(unsigned int)after;
        blocks_and_sum = 0;
    }
}

static size_t launch_launches_twice_outside_latency_window(const int *in, int *out, size_t n, unsigned threads)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    unsigned int wave = sms > 0 && per_sm >= (int)threads ? (unsigned int)(sms * (per_sm / (int)threads)) : 1;
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > wave)
        blocks = wave;
    if (n >= WINDOW_BOTTOM && n <= WINDOW_TOP && threads == WINDOW_THREADS) {
        meet_in_one_word<<<blocks, threads>>>(in, out, (unsigned int)n);
    } else {
        clear_result<<<1, 1>>>(out);
        add_into_cleared<<<blocks, threads>>>(in, out, (unsigned int)n);
    }
    return 1;
}

KIT_REGISTER_STAGE(launches_twice_outside_latency_window, launch_launches_twice_outside_latency_window)

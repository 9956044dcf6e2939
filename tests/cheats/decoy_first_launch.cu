/*
 * Cheat (timing trick), slot 15: a coalesced decoy launch first, the strided loop after it.
 *
 * What it pretends: a stage 15 ("3x3 matrices, loads a warp shares"). What it runs is stage
 * 13's loop as it is: each thread reads whole matrices, so a warp's load touches about 9 times
 * the 32-byte sectors it needs. On an H100 that is hidden by the L1 cache (it times like stage
 * 15), which is why the CPU emulator counts each warp load's sectors and the load rule
 * (stage15.max_sectors_per_request) takes the speed points of a stage that does not share its
 * loads. An earlier grader counted the loads of the first launch of the first pass only; so
 * this launcher first starts a decoy: one warp that reads the first 32 ints of the input, one
 * coalesced request of 4 sectors, and keeps them in a scratch array (so the loads are not
 * optimised away). The real work, a second launch, was never counted. Every answer is right.
 *
 * How the grader must treat it: no speed points (8 of 10 on a GPU, 8 of 8 on the emulator):
 * the load rule counts every launch of every pass, at the drawn n and block sizes, so the
 * decoy's 4 sectors a request are drowned by the strided loop's 9 times too many.
 */
#include <climits>
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define GROUP_INT4S 72 /* 32 matrices of 9 ints: 288 ints, 72 int4s */

static __device__ __forceinline__ int warp_min(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = min(v, __shfl_xor_sync(FULL_WARP, v, offset));
    return v;
}

/** The block's minimum of each component of the threads' m, written as result blockIdx.x. */
static __device__ __forceinline__ void write_block_min(kit_mat3 m, kit_mat3 *out)
{
    __shared__ int warp_mins[9][32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int c = 0; c < 9; c++) {
        m.m[c] = warp_min(m.m[c]);
        if (lane == 0)
            warp_mins[c][warp] = m.m[c];
    }
    __syncthreads();
    if (warp == 0) {
        for (int c = 0; c < 9; c++)
            m.m[c] = warp_min(lane < blockDim.x / 32 ? warp_mins[c][lane] : INT_MAX);
        if (lane == 0)
            out[blockIdx.x] = m;
    }
}

/** Stage 13's loop: each thread reads whole matrices, the next lane's 36 bytes further on
 *  (a warp's load touches 9 times the sectors it needs). */
static __global__ void strided_matrices(const kit_mat3 *in, kit_mat3 *out, unsigned int n)
{
    kit_mat3 m;
    for (int c = 0; c < 9; c++)
        m.m[c] = INT_MAX;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        const kit_mat3 a = in[i];
        for (int c = 0; c < 9; c++)
            m.m[c] = min(m.m[c], a.m[c]);
    }
    write_block_min(m, out);
}

/** At least 4 matrices a thread, at most one wave of blocks. */
static unsigned int blocks_for(size_t n, unsigned threads)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    unsigned int wave = sms > 0 && per_sm >= (int)threads ? (unsigned int)(sms * (per_sm / (int)threads)) : 1;
    unsigned int blocks = (unsigned int)((n + 4 * threads - 1) / (4 * threads));
    return blocks < wave ? blocks : wave;
}

/** What the decoy read: one int a lane (its own slot, so no two lanes write the same word). */
static __device__ volatile int decoy_seen[32];

/** The decoy: one warp, one coalesced 128-byte load of the first ints. */
static __global__ void decoy(const int *in, unsigned int ints)
{
    if (threadIdx.x < ints)
        decoy_seen[threadIdx.x] = in[threadIdx.x];
}

static size_t launch_decoy_first_launch(const kit_mat3 *in, kit_mat3 *out, size_t n, unsigned threads)
{
    decoy<<<1, 32>>>((const int *)in, (unsigned int)(9 * n < 32 ? 9 * n : 32));
    unsigned int blocks = blocks_for(n, threads);
    strided_matrices<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(decoy_first_launch, launch_decoy_first_launch)

/*
 * Cheat (timing trick), slot 15: the launcher tests __CUDA_ARCH__, which only the emulator's
 * host code used to see.
 *
 * What it pretends: a stage 15 ("3x3 matrices, loads a warp shares"). Its launcher, host
 * code, chooses its kernel with #ifdef __CUDA_ARCH__: the coalesced one (a warp reads 32
 * matrices as 72 consecutive int4s into shared memory, each lane takes its own) where it is
 * defined, stage 13's strided loop where it is not. nvcc compiles host code without
 * __CUDA_ARCH__, so on a GPU the strided loop always runs (an H100's L1 hides its 9 times too
 * many sectors, so it times like stage 15). An earlier CPU emulator compiled the whole file
 * with __CUDA_ARCH__ defined, so the launcher picked the coalesced kernel exactly where the
 * loads were counted, and the load rule passed. It never tests KIT_EMULATOR (refused by the
 * audit: cheats/detects_emulator.cu). Both kernels are right at every n.
 *
 * How the grader must treat it: no speed points (8 of 10 on a GPU, 8 of 8 on the emulator):
 * the emulator's host code does not see __CUDA_ARCH__, as with nvcc's host pass, so it counts
 * the strided loop that a GPU runs, and the load rule takes the speed points.
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

/** Stage 15's loads: a warp reads 32 matrices as 72 consecutive int4s into shared memory,
 *  then each lane takes its own matrix from there. */
static __global__ void coalesced_matrices(const kit_mat3 *in, kit_mat3 *out, unsigned int n)
{
    __shared__ int4 staged[32][GROUP_INT4S];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    const int *mine = (const int *)staged[warp];
    const int4 *in4 = (const int4 *)in;
    kit_mat3 m;
    for (int c = 0; c < 9; c++)
        m.m[c] = INT_MAX;
    for (unsigned int g = blockIdx.x * warps + warp; g < n / 32; g += gridDim.x * warps) {
        for (unsigned int k = lane; k < GROUP_INT4S; k += 32)
            staged[warp][k] = in4[GROUP_INT4S * g + k];
        __syncwarp();
        for (int c = 0; c < 9; c++)
            m.m[c] = min(m.m[c], mine[9 * lane + c]);
        __syncwarp();
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 32) { /* the last n % 32 matrices */
        const kit_mat3 a = in[n / 32 * 32 + threadIdx.x];
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

static size_t launch_host_code_tests_cuda_arch(const kit_mat3 *in, kit_mat3 *out, size_t n, unsigned threads)
{
    unsigned int blocks = blocks_for(n, threads);
#ifdef __CUDA_ARCH__
    coalesced_matrices<<<blocks, threads>>>(in, out, (unsigned int)n);
#else
    strided_matrices<<<blocks, threads>>>(in, out, (unsigned int)n);
#endif
    return blocks;
}

KIT_REGISTER_STAGE(host_code_tests_cuda_arch, launch_host_code_tests_cuda_arch)

/*
 * Cheat (timing trick), slot 7: fast only at the size and block size the grader times.
 *
 * What it pretends: a stage 7 ("many elements per thread") that reaches the reference's speed.
 * What it does: the grader's speedup case is n = 2^26 at 256 threads (tests/grader/grading.conf).
 * Exactly there the launcher runs a fast kernel (int4 loads, a grid of a power-of-two number
 * of blocks, no bounds checks) that is only right when n is a multiple of
 * 4 * threads * blocks, which 2^26 is. At every other n or block size it runs a correct but
 * slow kernel: stage 3's sequential addressing, one element per thread. So every sum the
 * grader checks is right (the 2^26 correctness case at 256 threads takes the fast path and
 * is right too), the sanitizers see nothing (their inputs are small: the slow path), and the
 * speedup measured at 2^26 and 256 threads is the fast kernel's.
 *
 * How the grader must treat it: full correctness and sanitizer points, but no speed points
 * (8 of 10 on a GPU; 8 of 8 on the emulator, which never times). The speed must be measured
 * where the stage cannot tell it is being timed (another n or block size as well), and the
 * stage must reach the required speedup there too.
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
/** The grader's speedup case (tests/grader/grading.conf: speedup.n, speedup.threads). */
#define TIMED_N (1u << 26)
#define TIMED_THREADS 256u

/**
 * Fast, and right only when n is a multiple of 4 * blockDim.x * gridDim.x: whole rounds of
 * int4s, no tail, no bounds checks.
 */
static __global__ void fast_whole_rounds(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    const int4 *in4 = (const int4 *)in;
    unsigned int stride = blockDim.x * gridDim.x;
    unsigned int rounds = n / (4 * stride); /* assumes nothing is left over */
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int sum = 0;
#pragma unroll 4
    for (unsigned int r = 0; r < rounds; r++) {
        int4 a = in4[i + r * stride];
        sum += (a.x + a.y) + (a.z + a.w);
    }
    for (int k = 16; k > 0; k >>= 1)
        sum += __shfl_xor_sync(FULL_WARP, sum, k);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
        for (int k = 16; k > 0; k >>= 1)
            sum += __shfl_xor_sync(FULL_WARP, sum, k);
        if (threadIdx.x == 0)
            out[blockIdx.x] = sum;
    }
}

/** Slow and correct everywhere: stage 3, one element per thread and a whole tree per block. */
static __global__ void slow_sequential(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/** The largest power of two of blocks that the GPU keeps resident at once. */
static unsigned int power_of_two_wave(unsigned threads)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    unsigned int wave = sms > 0 && per_sm >= (int)threads ? (unsigned int)sms * ((unsigned int)per_sm / threads) : 1;
    unsigned int blocks = 1;
    while (2 * blocks <= wave)
        blocks *= 2;
    return blocks;
}

/** The fast kernel where the grader times, the slow one everywhere else. */
static size_t launch_fast_only_for_speed_case(const int *in, int *out, size_t n, unsigned threads)
{
    if (n == TIMED_N && threads == TIMED_THREADS) {
        static unsigned int blocks = 0;
        if (blocks == 0)
            blocks = power_of_two_wave(threads); /* 4 * 256 * blocks divides 2^26 */
        fast_whole_rounds<<<blocks, threads>>>(in, out, (unsigned int)n);
        return blocks;
    }
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    slow_sequential<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(fast_only_for_speed_case, launch_fast_only_for_speed_case)

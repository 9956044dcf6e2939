/*
 * Cheat (timing trick), slot 11: fast only inside the window where the speed case used to be.
 *
 * What it pretends: a stage 11 ("maximum: the same tree, another operator") at the
 * reference's speed.
 * What it does: fast_only_for_speed_case.cu is beaten by timing at an n near 2^26 but not
 * 2^26 itself (an earlier grader took n = 2^26 minus a little). This one widens its net to
 * that window: for n in [2^26 - 2^26/64, 2^26] at 256 threads the launcher runs a fast,
 * correct kernel (int4 loads, one wave of blocks, every tail handled); at every other n or
 * block size stage 3's tree with max(), one value per thread, right but several times slower.
 * Every answer it gives is right, so correctness, the sanitizers and the emulator's checks
 * all pass.
 *
 * How the grader must treat it: no speed points (8 of 10 on a GPU; 8 of 8 on the emulator,
 * which does not time): the speed case's n is drawn within a factor of 2 of 2^26 and its
 * block size from the supported ones at grading time, so it lands in this window at 256
 * threads about once in 500 gradings.
 */
#include <climits>
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define WINDOW_TOP (1u << 26)
#define WINDOW_BOTTOM (WINDOW_TOP - WINDOW_TOP / 64)
#define WINDOW_THREADS 256u

/** The largest of the 32 lanes' values; every lane gets it. */
static __device__ __forceinline__ int warp_max(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = max(v, __shfl_xor_sync(FULL_WARP, v, offset));
    return v;
}

/** Fast and right: grid-stride int4 loads, two in flight, then the block's maximum. */
static __global__ void fast_max(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_maxes[32];
    const int4 *in4 = (const int4 *)in;
    const unsigned int n4 = n / 4, stride = blockDim.x * gridDim.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int m = INT_MIN;
    for (; i + stride < n4; i += 2 * stride) {
        int4 a = in4[i], b = in4[i + stride];
        m = max(m, max(max(max(a.x, a.y), max(a.z, a.w)), max(max(b.x, b.y), max(b.z, b.w))));
    }
    if (i < n4) {
        int4 a = in4[i];
        m = max(m, max(max(a.x, a.y), max(a.z, a.w)));
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        m = max(m, in[4 * n4 + threadIdx.x]);
    m = warp_max(m);
    if (threadIdx.x % 32 == 0)
        warp_maxes[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        m = warp_max(threadIdx.x < blockDim.x / 32 ? warp_maxes[threadIdx.x] : INT_MIN);
        if (threadIdx.x == 0)
            out[blockIdx.x] = m;
    }
}

/** Slow and right: stage 3's tree with max(), one value per thread. */
static __global__ void slow_max(const int *in, int *out, unsigned int n)
{
    extern __shared__ int values[];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    values[tid] = i < n ? in[i] : INT_MIN;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            values[tid] = max(values[tid], values[tid + s]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = values[0];
}

static size_t launch_fast_path_in_speed_window(const int *in, int *out, size_t n, unsigned threads)
{
    if (n >= WINDOW_BOTTOM && n <= WINDOW_TOP && threads == WINDOW_THREADS) {
        int device = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        unsigned int blocks = sms > 0 && per_sm >= (int)threads ? (unsigned int)(sms * (per_sm / (int)threads)) : 1;
        fast_max<<<blocks, threads>>>(in, out, (unsigned int)n);
        return blocks;
    }
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    slow_max<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(fast_path_in_speed_window, launch_fast_path_in_speed_window)

/*
 * Known-wrong kernel, slot 14: int4 loads from planes that are not 16-byte aligned.
 *
 * Stage 14's input is 9 planes of n ints, plane c at in + c * n. The harness aligns `in` to
 * 16 bytes, so plane 0 is aligned; this kernel assumes every plane is, and reads each plane
 * as n / 4 int4s from in + c * n (then the last n % 4 ints of the plane one by one). When n
 * is a multiple of 4 that is right and fast. When it is not, plane c starts c * n ints in,
 * (c * n) % 4 ints past a 16-byte boundary: plane 1 at n % 4 = 1 is one int off, and an int4
 * load needs a 16-byte-aligned address.
 *
 * How the grader must treat it: 0 points, on a GPU (the load faults: "misaligned address",
 * and the context is lost) and on the CPU emulator, whose misaligned vector load faults too
 * ("misaligned"); the grader's sizes are drawn with any remainder modulo 4.
 */
#include <climits>
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

static __device__ __forceinline__ int warp_min(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = min(v, __shfl_xor_sync(FULL_WARP, v, offset));
    return v;
}

static __global__ void misaligned_int4_loads(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_mins[9][32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned int stride = blockDim.x * gridDim.x, n4 = n / 4;
    int m[9];
    for (int c = 0; c < 9; c++) {
        const int *plane = in + (size_t)c * n;
        const int4 *plane4 = (const int4 *)plane; /* the mistake: aligned only when c * n % 4 == 0 */
        m[c] = INT_MAX;
        for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
            int4 a = plane4[i];
            m[c] = min(m[c], min(min(a.x, a.y), min(a.z, a.w)));
        }
        if (blockIdx.x == 0 && threadIdx.x < n % 4)
            m[c] = min(m[c], plane[4 * n4 + threadIdx.x]);
    }
    for (int c = 0; c < 9; c++) {
        m[c] = warp_min(m[c]);
        if (lane == 0)
            warp_mins[c][warp] = m[c];
    }
    __syncthreads();
    if (warp == 0)
        for (int c = 0; c < 9; c++) {
            int v = warp_min(lane < blockDim.x / 32 ? warp_mins[c][lane] : INT_MAX);
            if (lane == 0)
                out[c * gridDim.x + blockIdx.x] = v;
        }
}

static size_t launch_misaligned_int4_loads(const int *in, int *out, size_t n, unsigned threads)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    unsigned int wave = sms > 0 && per_sm >= (int)threads ? (unsigned int)(sms * (per_sm / (int)threads)) : 1;
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > wave)
        blocks = wave;
    misaligned_int4_loads<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(misaligned_int4_loads, launch_misaligned_int4_loads)

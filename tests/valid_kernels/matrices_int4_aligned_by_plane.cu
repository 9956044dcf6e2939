/*
 * Valid kernel, slot 14: the 9 planes read with int4 loads, each plane from its own first
 * 16-byte boundary.
 *
 * Stage 14's input is 9 planes of n ints, plane c at in + c * n. The harness aligns `in` to
 * 16 bytes, so plane c starts (c * n) % 4 ints past a boundary: only plane 0 is sure to be
 * aligned (wrong_kernels/misaligned_int4_loads.cu reads them all as if they were). Here each
 * plane is split in three: a head of (4 - (c * n) % 4) % 4 ints up to the plane's first
 * boundary, a body of whole int4s, all aligned, and a tail of the 0 to 3 ints after the last
 * whole int4. Every thread takes the body's int4s of a grid-stride loop, two in flight; the
 * first threads of block 0 take the head and tail ints one by one. The block's minimum of
 * each plane is a warp shuffle tree, and block b writes result b of each of the 9 planes of
 * out (out + c * gridDim.x), as the reference does.
 *
 * How the grader must treat it: full marks (10 on a GPU, 8 on the emulator): vector loads
 * are allowed, and every one of these is aligned at every n.
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

static __device__ __forceinline__ int min4(int4 a)
{
    return min(min(a.x, a.y), min(a.z, a.w));
}

static __global__ void matrices_int4_aligned_by_plane(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_mins[9][32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned int stride = blockDim.x * gridDim.x;
    int m[9];
    for (int c = 0; c < 9; c++) {
        const int *plane = in + (size_t)c * n;
        const unsigned int misaligned = (unsigned int)(((size_t)c * n) % 4); /* in is 16-byte aligned */
        unsigned int head = misaligned ? 4 - misaligned : 0;
        if (head > n)
            head = n;
        const unsigned int body4 = (n - head) / 4, tail = (n - head) % 4;
        const int4 *body = (const int4 *)(plane + head); /* 16-byte aligned */
        m[c] = INT_MAX;
        unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
        for (; i + stride < body4; i += 2 * stride) {
            int4 a = body[i], b = body[i + stride];
            m[c] = min(m[c], min(min4(a), min4(b)));
        }
        if (i < body4)
            m[c] = min(m[c], min4(body[i]));
        if (blockIdx.x == 0 && threadIdx.x < head)
            m[c] = min(m[c], plane[threadIdx.x]);
        if (blockIdx.x == 0 && threadIdx.x < tail)
            m[c] = min(m[c], plane[head + 4 * body4 + threadIdx.x]);
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

static size_t launch_matrices_int4_aligned_by_plane(const int *in, int *out, size_t n, unsigned threads)
{
    static unsigned int wave[1025]; /* blocks the GPU holds at once, by block size */
    if (wave[threads] == 0) {
        int device = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        wave[threads] = sms > 0 && per_sm >= (int)threads ? (unsigned int)(sms * (per_sm / (int)threads)) : 1;
    }
    unsigned int blocks = (unsigned int)((n + 8 * threads - 1) / (8 * threads)); /* 8 matrices a thread or more */
    if (blocks > wave[threads])
        blocks = wave[threads];
    matrices_int4_aligned_by_plane<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(matrices_int4_aligned_by_plane, launch_matrices_int4_aligned_by_plane)

/*
 * Known-wrong kernel, slot 11: the maximum taken with fmaxf on floats.
 *
 * Each thread converts its ints to float and keeps a running fmaxf; the warp and the block
 * do the same; the block's maximum is converted back to int. A float has 24 bits of
 * mantissa, so every int of magnitude above 2^24 is rounded to a multiple of a power of two:
 * the maximum comes back as a neighbouring value that may be in no element, and two ints
 * that round to the same float cannot be told apart. With the kit's old inputs (small ints)
 * every conversion was exact and every answer right.
 *
 * How the grader must treat it: 0 points, "expected X, got Y", on a GPU and on the emulator:
 * inputs reach the whole int range, with values near INT_MIN and INT_MAX.
 */
#include <climits>
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

static __device__ __forceinline__ float warp_max(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(FULL_WARP, v, offset));
    return v;
}

static __global__ void max_through_fmaxf(const int *in, int *out, unsigned int n)
{
    __shared__ float warp_maxes[32];
    const unsigned int stride = blockDim.x * gridDim.x;
    float m = (float)INT_MIN; /* no int is below it */
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        m = fmaxf(m, (float)in[i]);
    m = warp_max(m);
    if (threadIdx.x % 32 == 0)
        warp_maxes[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        m = warp_max(threadIdx.x < blockDim.x / 32 ? warp_maxes[threadIdx.x] : (float)INT_MIN);
        if (threadIdx.x == 0)
            out[blockIdx.x] = (int)m; /* the float's value, not the int that was read */
    }
}

static size_t launch_max_through_fmaxf(const int *in, int *out, size_t n, unsigned threads)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    unsigned int wave = sms > 0 && per_sm >= (int)threads ? (unsigned int)(sms * (per_sm / (int)threads)) : 1;
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > wave)
        blocks = wave;
    max_through_fmaxf<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(max_through_fmaxf, launch_max_through_fmaxf)

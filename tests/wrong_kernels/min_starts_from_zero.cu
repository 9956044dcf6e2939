/*
 * Known-wrong kernel, slot 10: a minimum that starts from 0, a sum's identity, not from INT_MAX.
 *
 * Stage 10 with one change: every thread's running minimum starts at 0. Right on every input
 * that holds a value <= 0 (the kit's random input, ints in [-8, 8]), wrong on the others: on
 * the positional input (1..15), all ones and last-only (7s and a single 1) it returns 0, a
 * value that is in no element. On a GPU and on the CPU emulator; the message must say that the
 * minimum started from 0 instead of the identity.
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu

static __device__ int warp_min(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = min(v, __shfl_xor_sync(FULL_WARP, v, offset));
    return v;
}

static __global__ void min_starts_from_zero(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_mins[32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int4 *in4 = (const int4 *)in;
    const unsigned int n4 = n / 4, stride = blockDim.x * gridDim.x;
    int m = 0; /* the mistake: min(x, 0) is not x */
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        int4 a = in4[i];
        m = min(m, min(min(a.x, a.y), min(a.z, a.w)));
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        m = min(m, in[4 * n4 + threadIdx.x]);
    m = warp_min(m);
    if (lane == 0)
        warp_mins[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = warp_min(warp_mins[lane % (blockDim.x / 32)]);
        if (lane == 0)
            out[blockIdx.x] = m;
    }
}

static size_t launch_min_starts_from_zero(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int per_block = 16 * threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > 1024)
        blocks = 1024;
    min_starts_from_zero<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(min_starts_from_zero, launch_min_starts_from_zero)

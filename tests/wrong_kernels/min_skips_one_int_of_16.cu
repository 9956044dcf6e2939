/*
 * Known-wrong kernel, slot 10: the unrolled loop folds 15 of the 16 ints it loads.
 *
 * Stage 7's loop with min(): four int4 loads in flight per iteration, 16 ints, but the last
 * int4's .w is left out of the min (an easy slip when the 16 terms are typed by hand). The
 * tails (the int4s after the last whole iteration, the last n % 4 ints) are folded whole.
 * With the kit's old inputs, ints in [-8, 8] where the minimum -8 sits at about one index in
 * 17, every block still sees a -8 it did fold, so every answer was right. It is wrong as soon
 * as the minimum is unique and sits in a skipped slot: the 4th int of the 4th load of an
 * iteration, one int in 16 of the unrolled part.
 *
 * How the grader must treat it: 0 points, "expected X, got Y", on a GPU and on the emulator:
 * a unique extreme is placed at a random position, inside every one of a thread's loads in
 * turn, so one of the cases puts it where this loop never looks.
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

static __global__ void min_skips_one_int_of_16(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_mins[32];
    const int4 *in4 = (const int4 *)in;
    const unsigned int n4 = n / 4, stride = blockDim.x * gridDim.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int m = INT_MAX;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        int4 a = in4[i], b = in4[i + stride], c = in4[i + 2 * stride], d = in4[i + 3 * stride];
        m = min(m, min(min4(a), min4(b)));
        m = min(m, min(min4(c), min(min(d.x, d.y), d.z))); /* d.w is never looked at */
    }
    for (; i < n4; i += stride)
        m = min(m, min4(in4[i]));
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        m = min(m, in[4 * n4 + threadIdx.x]);
    m = warp_min(m);
    if (threadIdx.x % 32 == 0)
        warp_mins[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        m = warp_min(threadIdx.x < blockDim.x / 32 ? warp_mins[threadIdx.x] : INT_MAX);
        if (threadIdx.x == 0)
            out[blockIdx.x] = m;
    }
}

static size_t launch_min_skips_one_int_of_16(const int *in, int *out, size_t n, unsigned threads)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    unsigned int wave = sms > 0 && per_sm >= (int)threads ? (unsigned int)(sms * (per_sm / (int)threads)) : 1;
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > wave)
        blocks = wave;
    min_skips_one_int_of_16<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(min_skips_one_int_of_16, launch_min_skips_one_int_of_16)

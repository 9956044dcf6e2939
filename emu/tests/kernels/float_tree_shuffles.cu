/*
 * Emulator fixture (stage 9's slot), a valid kernel: a float sum as a tree. Each thread adds
 * two values on load, each warp folds its 32 with __shfl_down_sync on floats, the warps' sums
 * meet in shared memory and the first warp folds them again: one partial sum per block, and
 * the harness calls it again on the partial sums. Within the error bound, and the same bits
 * in every order of the threads and of the blocks.
 */
#include "stage.h"

#define FULL 0xffffffffu

static __device__ float warp_fold(float v)
{
    for (unsigned int delta = 16; delta > 0; delta /= 2)
        v += __shfl_down_sync(FULL, v, delta);
    return v; /* lane 0 holds the warp's sum */
}

static __global__ void float_tree_shuffles(const float *in, float *out, unsigned int n)
{
    __shared__ float warp_sums[32];
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const unsigned int i = blockIdx.x * 2 * blockDim.x + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    v = warp_fold(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_fold(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

static size_t launch_float_tree_shuffles(const float *in, float *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    float_tree_shuffles<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(float_tree_shuffles, launch_float_tree_shuffles)

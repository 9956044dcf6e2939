/*
 * Emulator fixture (stage 5's slot): a full-warp mask, but only 16 lanes shuffle.
 *
 * The last steps are left to lanes 0-15, yet the mask still names all 32 lanes. Every lane
 * a mask names must make the call; here lanes 16-31 have gone on and exited. Undefined in
 * CUDA (a hang on some GPUs); the emulator names the missing lane.
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu

static __global__ void shuffle_half_warp(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    int sum = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 16; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 16) {
        sum = sdata[tid] + sdata[tid + 16];
        sum += __shfl_down_sync(FULL_WARP, sum, 8);
        sum += __shfl_down_sync(FULL_WARP, sum, 4);
        sum += __shfl_down_sync(FULL_WARP, sum, 2);
        sum += __shfl_down_sync(FULL_WARP, sum, 1);
    }
    if (tid == 0)
        out[blockIdx.x] = sum;
}

static size_t launch_shuffle_half_warp(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    shuffle_half_warp<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(shuffle_half_warp, launch_shuffle_half_warp)

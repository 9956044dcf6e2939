/*
 * Emulator fixture (stage 5's slot): the mask names lanes 0-15, the shuffle reads beyond them.
 *
 * __shfl_down_sync(0x0000ffff, v, 8) in lane 8 reads lane 16, which is not in the mask: CUDA
 * gives an undefined value. The emulator reports the reading lane and the line.
 */
#include "stage.h"

#define LOW_HALF 0x0000ffffu

static __global__ void shuffle_inactive_lane(const int *in, int *out, unsigned int n)
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
        sum += __shfl_down_sync(LOW_HALF, sum, 8);
        sum += __shfl_down_sync(LOW_HALF, sum, 4);
        sum += __shfl_down_sync(LOW_HALF, sum, 2);
        sum += __shfl_down_sync(LOW_HALF, sum, 1);
    }
    if (tid == 0)
        out[blockIdx.x] = sum;
}

static size_t launch_shuffle_inactive_lane(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    shuffle_inactive_lane<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(shuffle_inactive_lane, launch_shuffle_inactive_lane)

/*
 * Emulator fixture (stage 5's slot): the mask names lanes 0-15, and the upper ones read beyond it.
 *
 * __shfl_down_sync(0x0000ffff, v, 8) in lanes 8-15 reads lanes 16-23, which are not in the
 * mask. CUDA leaves that value undefined; it does not fault. Lane 0's result never depends
 * on it (lane 0 reads lane 8, 4, 2, 1 of values that came from lanes 0-15 only), so this
 * half-warp reduction gives the exact sum on a GPU, and must on the emulator: a shuffle from
 * a lane outside the mask returns an unspecified value there too (0x5EEDF00D, so a result that
 * does use it is visibly wrong) and is no error. It used to be a fault in the emulator, which
 * rejected this valid kernel. It must be accepted: exact in every thread order, and no race
 * under ThreadSanitizer.
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

/*
 * Emulator fixture (stage 5's slot): like shuffle_inactive_lane.cu, the mask names lanes 0-15
 * and lanes 8-15 read lanes 16-23, outside it; but here every lane's value counts.
 *
 * Each of lanes 0-15 adds its shuffled value to the block's sum with atomicAdd, so the values
 * lanes 8-15 read from outside the mask (undefined in CUDA) end up in the result. A GPU gives
 * some sum, not the right one by design; the emulator gives those reads a recognisable value
 * (0x5EEDF00D), so the sum is wrong in every case, and it records the read (file, line, lane:
 * emu_undefined_shuffle_note()) for the harness's wrong-result message. No fault: the read
 * alone is no error, only the wrong sum it makes.
 */
#include "stage.h"

#define LOW_HALF 0x0000ffffu

static __global__ void shuffle_inactive_lane_used(const int *in, int *out, unsigned int n)
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
    if (tid == 0)
        sdata[32] = 0; /* the block's sum; sdata[32..] is no longer read */
    __syncthreads();
    if (tid < 16) {
        const int mine = sdata[tid] + sdata[tid + 16];
        const int below = __shfl_down_sync(LOW_HALF, mine, 8); /* lanes 8-15: outside the mask */
        atomicAdd(&sdata[32], tid < 8 ? mine + below : below);
    }
    __syncthreads();
    if (tid == 0)
        out[blockIdx.x] = sdata[32];
}

static size_t launch_shuffle_inactive_lane_used(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    shuffle_inactive_lane_used<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(shuffle_inactive_lane_used, launch_shuffle_inactive_lane_used)

/*
 * Emulator fixture (stage 5's slot): the pre-Volta last-warp unroll, volatile but no __syncwarp().
 *
 * The six steps trust the 32 lanes of warp 0 to run in lockstep. Since Volta they need not:
 * on an H200 this gave the right sum 20 times in 20 and compute-sanitizer's racecheck still
 * reported hazards. The emulator runs each lane to the end on its own, so lane 0 reads its
 * neighbours before they have added (a wrong sum), and ThreadSanitizer reports the race.
 */
#include "stage.h"

static __device__ void warp_steps(volatile int *sdata, unsigned int tid)
{
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

static __global__ void volatile_last_warp(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    int sum = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        warp_steps(sdata, tid);
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_volatile_last_warp(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    volatile_last_warp<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(volatile_last_warp, launch_volatile_last_warp)

/*
 * Emulator fixture (stage 3's slot): a fixed-size shared array, but blocks of up to 1024 threads.
 *
 * `__shared__ int sdata[256]` is right for 256 threads only; the harness also runs 512 and 1024
 * (the stage allows 64 to 1024), and then thread 256 and up store past the end of the array.
 * A GPU writes into whatever lies behind it (other shared variables, or an out-of-range
 * fault); the emulator checks every index of a shared array and names the first bad one.
 */
#include "stage.h"

static __global__ void static_shared_too_small(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_static_shared_too_small(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    static_shared_too_small<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(static_shared_too_small, launch_static_shared_too_small)

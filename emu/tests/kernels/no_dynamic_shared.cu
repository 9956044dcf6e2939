/*
 * Emulator fixture (stage 3's slot): an extern __shared__ array, but no size at the launch.
 *
 * `extern __shared__ int sdata[]` gets its size from the third value in <<< >>>; this launch
 * passes only two, so the array has no elements and every access is out of bounds (on a
 * GPU: an illegal address, or silent garbage).
 */
#include "stage.h"

static __global__ void no_dynamic_shared(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
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

static size_t launch_no_dynamic_shared(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    no_dynamic_shared<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(no_dynamic_shared, launch_no_dynamic_shared)

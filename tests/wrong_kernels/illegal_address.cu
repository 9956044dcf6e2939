/*
 * Known-wrong kernel, slot 3: writes through a pointer that was never allocated.
 *
 * A copy of each block's sum was meant to go to a scratch buffer, but no one ever
 * allocated it: the __device__ pointer is still null, and the first write is an illegal
 * address. The CUDA context is unusable afterwards; in the grader that ends this test only.
 * The grader must reject it: "crashed" (an illegal memory access).
 */
#include "stage.h"

/** Meant to point at a buffer of per-block sums; never set, so it is null. */
__device__ int *block_sums_copy;

static __global__ void illegal_address(const int *in, int *out, unsigned int n)
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
    if (tid == 0) {
        block_sums_copy[blockIdx.x] = sdata[0]; /* null pointer: illegal address */
        out[blockIdx.x] = sdata[0];
    }
}

static size_t launch_illegal_address(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    illegal_address<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(illegal_address, launch_illegal_address)

/* Audit fixture, forbidden: a file-scope object whose constructor runs before main (gcc's _GLOBAL__sub_I_ in .init_array). */
#include <stdio.h>

#include "stage.h"

struct greeting {
    greeting() { puts("hello before main"); }
};
static greeting hello;

static __global__ void block_sums(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    block_sums<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(static_object_constructor, launch)

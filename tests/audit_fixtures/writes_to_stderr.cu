/* Audit fixture, forbidden: a constructor points stderr at the runner's reply pipe (descriptor 3) and writes a verdict with fprintf. */
#include <stdio.h>

#include "stage.h"

__attribute__((constructor)) static void forge(void)
{
    stderr->_fileno = 3;
    fprintf(stderr, "done cases=999 verdict=pass\n");
}

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

KIT_REGISTER_STAGE(writes_to_stderr, launch)

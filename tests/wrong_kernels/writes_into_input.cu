/*
 * Known-wrong kernel, slot 1: reduces in place in the input array.
 *
 * Some course code runs the tree on g_idata itself instead of shared memory. The sum comes
 * out right once, but the input is destroyed: run it again and it is wrong, and the caller
 * has lost its data. The harness compares the input after every run.
 * The grader must reject it: "the input changed".
 */
#include "stage.h"

static __global__ void writes_into_input(const int *in, int *out, unsigned int n)
{
    int *data = (int *)in; /* casts away const to work in place */
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0 && i + s < n)
            data[i] += data[i + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = data[blockIdx.x * blockDim.x];
}

static size_t launch_writes_into_input(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    writes_into_input<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(writes_into_input, launch_writes_into_input)

/*
 * Known-wrong kernel, slot 4: the launcher rounds the block count down.
 *
 * blocks = n / (2 * threads) leaves the last, partly filled block out whenever n is not a
 * multiple of 2 * threads (the `if` keeps at least one block, so small inputs pass).
 * The grader must reject it: with all ones, elements lost.
 */
#include "stage.h"

static __global__ void grid_drops_elements(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    int sum = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_grid_drops_elements(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)(n / (2 * threads)); /* rounds down */
    if (blocks == 0)
        blocks = 1;
    grid_drops_elements<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(grid_drops_elements, launch_grid_drops_elements)

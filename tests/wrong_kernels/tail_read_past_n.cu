/*
 * Known-wrong kernel, slot 7: the course slides' grid-stride loop.
 *
 * Each step adds in[i] and in[i + blockDim.x], and the loop only checks i < n, so whenever n
 * is not a multiple of 2 * blockDim.x the second load reads past the end of the input. The
 * harness puts a guard of known values (2^20 each) after the input, so every such read shows
 * in the sum.
 * The grader must reject it: "read ... values past the end of the input".
 */
#include "stage.h"

static __global__ void tail_read_past_n(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;
    unsigned int grid_size = 2 * blockDim.x * gridDim.x;
    int sum = 0;
    while (i < n) {
        sum += in[i] + in[i + blockDim.x]; /* the second load is not checked against n */
        i += grid_size;
    }
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

static size_t launch_tail_read_past_n(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    if (blocks > 256)
        blocks = 256;
    tail_read_past_n<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(tail_read_past_n, launch_tail_read_past_n)

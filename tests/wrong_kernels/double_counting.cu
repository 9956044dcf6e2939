/*
 * Known-wrong kernel, slot 4: two loads per thread, but blocks still start blockDim.x apart.
 *
 * Stage 3's index (blockIdx.x * blockDim.x) with stage 4's second load: block b reads
 * [b*T, b*T + 2T), so each block also adds what the next block adds. Bounds are checked,
 * so nothing is read past n; the sum is simply too big.
 * The grader must reject it: with all ones, elements counted twice.
 */
#include "stage.h"

static __global__ void double_counting(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; /* should be blockIdx.x * (2 * blockDim.x) */
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

static size_t launch_double_counting(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    double_counting<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(double_counting, launch_double_counting)

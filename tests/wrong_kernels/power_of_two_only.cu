/*
 * Known-wrong kernel, slot 3: the tree halves the number of values the block holds.
 *
 * "Only add the values that exist": the tree starts at half of the block's count of values
 * instead of half of blockDim.x. Halving an odd count drops a value, so the sum is right
 * only when every block holds a power-of-two count: always when n is a power of two.
 * The grader must reject it: wrong sums, every one at an n that is not a power of two.
 */
#include "stage.h"

static __global__ void power_of_two_only(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    unsigned int first = blockIdx.x * blockDim.x;
    unsigned int count = n - first < blockDim.x ? n - first : blockDim.x; /* values in this block */
    for (unsigned int s = count / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_power_of_two_only(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    power_of_two_only<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(power_of_two_only, launch_power_of_two_only)

/*
 * Known-wrong kernel, slot 9: one float atomicAdd per element, a running sum in disguise.
 *
 * A clearing kernel sets out[0] to 0.0f, then every thread adds its one element into out[0]
 * with atomicAdd. The atomics of one address are done one after another, so out[0] is a
 * running float sum over the whole input, in whatever order the adds arrive: every element's
 * contribution goes through up to n roundings where the stage allows ceil(log2 n) + 512.
 *
 * An `==` test on small integer inputs would pass it: integers and their partial sums below
 * 2^24 are exact in a float, so 1 + 2 + ... + 100 or n ones come out right in any order. The
 * kit's float inputs do not: 2^24 followed by ones (floats between 2^24 and 2^25 are 2 apart,
 * so every one added after 2^24 is lost: on a GPU, where block 0 runs among the first, nearly
 * all n - 1 of them, and on the CPU emulator, which starts each launch at another block, about
 * half; the bound at n = 2^20 is about 565), and at large n random values in [0, 1) (a running
 * float sum of 2^24 of them was off by 8.4e-3 of the sum on an H100, issue 13; the bound at
 * 2^24 is 3.2e-5 of it). The grader must reject it in the
 * correctness part, with kit_judge's message for a float outside the bound (on the ones
 * input, its hint about a running sum that holds 2^24). It is not reproducible either, but the
 * repeats run only after every correctness case has passed.
 */
#include "stage.h"

static __global__ void clear_result(float *out)
{
    out[0] = 0.0f;
}

static __global__ void float_sum_sequential(const float *in, float *out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, in[i]);
}

static size_t launch_float_sum_sequential(const float *in, float *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    clear_result<<<1, 1>>>(out);
    float_sum_sequential<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(float_sum_sequential, launch_float_sum_sequential)

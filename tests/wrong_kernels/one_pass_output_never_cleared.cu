/*
 * Known-wrong kernel, slot 8: atomics into an out[0] that nobody cleared.
 *
 * Every block adds its sum into out[0] with atomicAdd, which is right, but out[0] is never
 * set to 0 first: the harness leaves poison (0xA5A5A5A5) in out before every pass, as a
 * GPU's memory holds whatever was there, so the answer is the sum plus the poison. Wrong at
 * every n, on a GPU and on the CPU emulator, and the message must say what out[0] held.
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu

static __device__ int warp_total(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

static __global__ void one_pass_output_never_cleared(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = warp_total(sum);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = warp_total(threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0);
        if (threadIdx.x == 0)
            atomicAdd(out, sum); /* into whatever out[0] held */
    }
}

static size_t launch_one_pass_output_never_cleared(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > 1024)
        blocks = 1024;
    one_pass_output_never_cleared<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(one_pass_output_never_cleared, launch_one_pass_output_never_cleared)

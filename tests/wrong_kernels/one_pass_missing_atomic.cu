/*
 * Known-wrong kernel, slot 8: the blocks meet in out[0] with a plain `+=`, not an atomic.
 *
 * The launcher clears out[0] with a kernel of its own, then every block adds its sum into
 * out[0] as `out[0] += sum`: a load, an add and a store. Two blocks that finish at the same
 * time both load the old value and one add is lost. One block alone is right (small n); a
 * wave of a thousand blocks on a GPU loses sums. On the CPU emulator, whose blocks run one
 * after another, the sums come out right, and only the race check sees two blocks writing
 * out[0] with nothing ordering them.
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu

static __global__ void clear_result(int *out)
{
    out[0] = 0;
}

static __device__ int warp_total(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

static __global__ void one_pass_missing_atomic(const int *in, int *out, unsigned int n)
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
            out[0] += sum; /* the mistake: atomicAdd(out, sum) */
    }
}

static size_t launch_one_pass_missing_atomic(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > 1024)
        blocks = 1024;
    clear_result<<<1, 1>>>(out);
    one_pass_missing_atomic<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(one_pass_missing_atomic, launch_one_pass_missing_atomic)

/*
 * Emulator fixture (stage 9's slot), a kernel stage 9 must reject: the same block sums as
 * float_tree_shuffles.cu, then one float atomicAdd per block into out[0] (cleared by a first
 * kernel). Within the error bound, but not reproducible: the blocks add in the order they
 * finish, which changes from run to run on a GPU, and (a + b) + c is not a + (b + c) in
 * floats. The emulator runs the blocks in another order in each of its orders (and the
 * default order moves its start at every launch), so the bits differ between them.
 */
#include "stage.h"

#define FULL 0xffffffffu

static __global__ void clear_first(float *out)
{
    out[0] = 0.0f;
}

static __global__ void float_atomic_per_block(const float *in, float *out, unsigned int n)
{
    __shared__ float warp_sums[32];
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    float v = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    for (unsigned int delta = 16; delta > 0; delta /= 2)
        v += __shfl_down_sync(FULL, v, delta);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (tid == 0) {
        float sum = 0.0f;
        for (unsigned int w = 0; w < blockDim.x / 32; w++)
            sum += warp_sums[w];
        atomicAdd(out, sum); /* the mistake: blocks add in the order they finish */
    }
}

static size_t launch_float_atomic_per_block(const float *in, float *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 4 * threads - 1) / (4 * threads));
    clear_first<<<1, 1>>>(out);
    float_atomic_per_block<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(float_atomic_per_block, launch_float_atomic_per_block)

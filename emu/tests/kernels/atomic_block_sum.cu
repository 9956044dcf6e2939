/*
 * Emulator fixture (stage 4's slot), a valid alternative kernel: atomics instead of a tree.
 *
 * Each warp reduces with __shfl_xor_sync (a butterfly: every lane gets the sum). Lane 0 of an
 * even warp adds its warp's sum into a __shared__ int with atomicAdd, lane 0 of an odd warp
 * into the block's result out[blockIdx.x] (global memory), which thread 0 zeroed before the
 * barrier; after a second barrier thread 0 adds the shared sum in too. Exact in any order of
 * the atomics (integer addition), and race-free: the barriers order the plain stores.
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

static __global__ void atomic_block_sum(const int *in, int *out, unsigned int n)
{
    __shared__ int block_sum;
    unsigned int tid = threadIdx.x;
    if (tid == 0) {
        block_sum = 0;
        out[blockIdx.x] = 0;
    }
    __syncthreads();
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;
    int sum = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        sum += __shfl_xor_sync(FULL_WARP, sum, lane_mask);
    if ((tid & 31) == 0) {
        if ((tid / 32) % 2 == 0)
            atomicAdd(&block_sum, sum);
        else
            atomicAdd(&out[blockIdx.x], sum);
    }
    __syncthreads();
    if (tid == 0)
        atomicAdd(&out[blockIdx.x], block_sum);
}

static size_t launch_atomic_block_sum(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    atomic_block_sum<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(atomic_block_sum, launch_atomic_block_sum)

/*
 * Emulator fixture (stage 7's slot), a valid alternative kernel: int4 and int2 loads.
 *
 * Grid-stride loops over int4s (the first half) and int2s (the rest), then each warp
 * reduces with __shfl_down_sync, __syncwarp() before lane 0 stores the warp's sum, and warp 0
 * reduces the warps' sums with __reduce_add_sync (sm_80 and later). The inputs are 16-byte
 * aligned (stage.h), as vector loads need.
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

static __global__ void vector_loads(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    unsigned int tid = threadIdx.x;
    unsigned int stride = blockDim.x * gridDim.x;
    unsigned int first = blockIdx.x * blockDim.x + tid;
    /* the first half of the input as int4s, the rest as int2s, and the last int if n is odd */
    unsigned int n4 = n / 8;
    unsigned int base2 = 4 * n4;
    unsigned int n2 = (n - base2) / 2;
    const int4 *in4 = reinterpret_cast<const int4 *>(in);
    const int2 *in2 = reinterpret_cast<const int2 *>(in + base2);
    int sum = 0;
    for (unsigned int i = first; i < n4; i += stride) {
        int4 v = in4[i];
        sum += v.x + v.y + v.z + v.w;
    }
    for (unsigned int i = first; i < n2; i += stride) {
        int2 v = in2[i];
        sum += v.x + v.y;
    }
    if (first == 0 && (n - base2) % 2 != 0)
        sum += in[n - 1];
    for (unsigned int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(FULL_WARP, sum, offset);
    __syncwarp();
    if ((tid & 31) == 0)
        warp_sums[tid / 32] = sum;
    __syncthreads();
    if (tid < 32) {
        sum = tid < blockDim.x / 32 ? warp_sums[tid] : 0;
        sum = __reduce_add_sync(FULL_WARP, sum);
        if (tid == 0)
            out[blockIdx.x] = sum;
    }
}

static size_t launch_vector_loads(const int *in, int *out, size_t n, unsigned threads)
{
    size_t per_block = 8 * (size_t)threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > 264)
        blocks = 264;
    vector_loads<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(vector_loads, launch_vector_loads)

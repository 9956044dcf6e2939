/* Audit fixture, clean: stage 5 with cooperative groups, the last warp reduced by cg::reduce. */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include "stage.h"

namespace cg = cooperative_groups;

static __global__ void reduce_cooperative(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    cg::thread_block block = cg::this_thread_block();
    unsigned int tid = threadIdx.x, i = blockIdx.x * (blockDim.x * 2) + tid;
    int sum = i < n ? in[i] : 0;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
    sdata[tid] = sum;
    block.sync();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] = sum = sum + sdata[tid + s];
        block.sync();
    }
    if (tid < 32) {
        cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
        sum = cg::reduce(warp, sdata[tid] + sdata[tid + 32], cg::plus<int>());
        if (warp.thread_rank() == 0)
            out[blockIdx.x] = sum;
    }
}

static size_t launch_cooperative(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    reduce_cooperative<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(clean_cooperative_groups, launch_cooperative)

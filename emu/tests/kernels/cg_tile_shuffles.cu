/*
 * Emulator fixture (stage 5's slot), a valid alternative kernel: a tile's own shuffles.
 *
 * Shared-memory tree down to 64 values, then the first warp as a thread_block_tile<32>:
 * tile.shfl_down in a loop, tile.sync() between the tree and the shuffles, a 16-thread
 * sub-tile (tiled_partition<16>(tile)) for the last steps, and block.sync() as the barrier.
 */
#include <cooperative_groups.h>

#include "stage.h"

namespace cg = cooperative_groups;

static __global__ void cg_tile_shuffles(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    cg::thread_block block = cg::this_thread_block();
    unsigned int tid = block.thread_rank();
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;
    int sum = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
    sdata[tid] = sum;
    block.sync();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        block.sync();
    }
    if (tid < 32) {
        cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
        sum = sdata[tid] + sdata[tid + 32];
        warp.sync();
        sum += warp.shfl_down(sum, 16);
        auto half = cg::tiled_partition<16>(warp);
        for (unsigned int offset = half.size() / 2; offset > 0; offset /= 2)
            sum += half.shfl_down(sum, offset);
        if (warp.thread_rank() == 0 && half.meta_group_rank() == 0)
            out[blockIdx.x] = sum;
    }
}

static size_t launch_cg_tile_shuffles(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    cg_tile_shuffles<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(cg_tile_shuffles, launch_cg_tile_shuffles)

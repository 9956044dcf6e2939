/*
 * Emulator fixture (stage 4's slot), a valid alternative kernel: cooperative groups.
 *
 * The block and its warps as groups: each thread adds two inputs, each warp-sized tile reduces
 * with cg::reduce (cooperative_groups/reduce.h), tile 0 of the block gathers the tiles' sums
 * from shared memory and reduces them again. Exact on a GPU; the emulator must compile it
 * with g++ and give the exact sum in every thread order, with no race reported.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "stage.h"

namespace cg = cooperative_groups;

static __global__ void cg_tile_reduce(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    unsigned int i = blockIdx.x * (2 * block.size()) + block.thread_rank();
    int sum = (i < n) ? in[i] : 0;
    if (i + block.size() < n)
        sum += in[i + block.size()];

    sum = cg::reduce(tile, sum, cg::plus<int>());
    if (tile.thread_rank() == 0)
        warp_sums[tile.meta_group_rank()] = sum;
    cg::sync(block);

    if (tile.meta_group_rank() == 0) {
        sum = tile.thread_rank() < tile.meta_group_size() ? warp_sums[tile.thread_rank()] : 0;
        sum = cg::reduce(tile, sum, cg::plus<int>());
        if (block.thread_rank() == 0)
            out[block.group_index().x] = sum;
    }
}

static size_t launch_cg_tile_reduce(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    cg_tile_reduce<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(cg_tile_reduce, launch_cg_tile_reduce)

/*
 * Emulator fixture (stage 11's slot), a valid kernel: a maximum from INT_MIN with cooperative
 * groups: cg::reduce(tile, v, cg::greater<int>()) in each tile of 32, the tiles' maximums in
 * shared memory, max() over them in thread 0.
 */
#include <climits>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "stage.h"

namespace cg = cooperative_groups;

static __global__ void max_cg_reduce(const int *in, int *out, unsigned int n)
{
    __shared__ int tile_max[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int m = INT_MIN;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        m = max(m, in[i]);
    m = cg::reduce(tile, m, cg::greater<int>());
    if (tile.thread_rank() == 0)
        tile_max[tile.meta_group_rank()] = m;
    block.sync();
    if (block.thread_rank() == 0) {
        for (unsigned int t = 1; t < tile.meta_group_size(); t++)
            m = max(m, tile_max[t]);
        out[blockIdx.x] = m;
    }
}

static size_t launch_max_cg_reduce(const int *in, int *out, size_t n, unsigned threads)
{
    size_t blocks = (n + 4 * threads - 1) / (4 * threads);
    if (blocks > 128)
        blocks = 128;
    max_cg_reduce<<<(unsigned int)blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(max_cg_reduce, launch_max_cg_reduce)

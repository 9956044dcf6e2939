/*
 * Emulator fixture (stage 8's slot), a wrong kernel: a cooperative launch whose blocks but
 * block 0 return before the grid sync.
 *
 * Block 0 waits at this_grid().sync() for blocks that have already ended: on a GPU the sync
 * never completes (every thread of the grid must reach it). The emulator reports the block
 * that waits, the line, and a block that ended.
 */
#include <cooperative_groups.h>

#include "stage.h"

namespace cg = cooperative_groups;

#define MAX_BLOCKS 8192

static __device__ int block_sums[MAX_BLOCKS];

static __global__ void grid_sync_after_return(const int *in, int *out, unsigned int n)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ int block_sum;
    if (threadIdx.x == 0)
        block_sum = 0;
    __syncthreads();
    int sum = 0;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.num_threads())
        sum += in[i];
    atomicAdd(&block_sum, sum);
    __syncthreads();
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = block_sum;
    if (blockIdx.x != 0) /* the mistake: only block 0 reaches the grid sync */
        return;
    grid.sync();
    if (threadIdx.x == 0) {
        int total = 0;
        for (unsigned int b = 0; b < gridDim.x; b++)
            total += block_sums[b];
        out[0] = total;
    }
}

static size_t launch_grid_sync_after_return(const int *in, int *out, size_t n, unsigned threads)
{
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sync_after_return, (int)threads, 0);
    unsigned int blocks = (unsigned int)((n + 63) / 64);
    if (blocks > (unsigned int)per_sm * 132)
        blocks = (unsigned int)per_sm * 132;
    unsigned int count = (unsigned int)n;
    void *args[] = {&in, &out, &count};
    cudaLaunchCooperativeKernel(grid_sync_after_return, dim3(blocks), dim3(threads), args);
    return 1;
}

KIT_REGISTER_STAGE(grid_sync_after_return, launch_grid_sync_after_return)

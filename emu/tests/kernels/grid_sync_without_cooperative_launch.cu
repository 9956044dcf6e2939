/*
 * Emulator fixture (stage 8's slot), a wrong kernel: this_grid().sync() in a kernel launched
 * with <<< >>>.
 *
 * A grid sync needs a cooperative launch (cudaLaunchCooperativeKernel), which guarantees that
 * every block is resident; in an ordinary launch the grid group is not valid and its sync
 * fails on a GPU. The emulator reports the call and its source line.
 */
#include <cooperative_groups.h>

#include "stage.h"

namespace cg = cooperative_groups;

#define MAX_BLOCKS 1024

static __device__ int block_sums[MAX_BLOCKS];

static __global__ void grid_sync_without_cooperative_launch(const int *in, int *out, unsigned int n)
{
    __shared__ int block_sum;
    if (threadIdx.x == 0)
        block_sum = 0;
    __syncthreads();
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    atomicAdd(&block_sum, sum);
    __syncthreads();
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = block_sum;
    cg::this_grid().sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int total = 0;
        for (unsigned int b = 0; b < gridDim.x; b++)
            total += block_sums[b];
        out[0] = total;
    }
}

static size_t launch_grid_sync_without_cooperative_launch(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 4 * threads - 1) / (4 * threads));
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    grid_sync_without_cooperative_launch<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(grid_sync_without_cooperative_launch, launch_grid_sync_without_cooperative_launch)

/*
 * Emulator fixture (stage 8's slot), a valid kernel: one cooperative launch whose blocks meet
 * at a grid sync.
 *
 * The launcher asks the occupancy API how many blocks fit at once (every block of a
 * cooperative launch must be resident), checks that one block more is refused with
 * cudaErrorCooperativeLaunchTooLarge, and launches with cudaLaunchCooperativeKernel((void *)kernel,
 * ...), as CUDA's samples do. Each
 * block walks its grid-stride share (grid.thread_rank(), grid.num_threads()), adds it up in
 * shared memory and thread 0 stores the block's sum at block_sums[grid.block_rank()] with a
 * plain store; this_grid().sync() makes every block wait for all the others and publishes
 * those stores; block 0 then adds the grid.num_blocks() sums and writes out[0].
 */
#include <cooperative_groups.h>

#include "stage.h"

namespace cg = cooperative_groups;

#define MAX_BLOCKS 8192 /* 132 SMs x 32 blocks of 64 threads fit at once: 4224 */

static __device__ int block_sums[MAX_BLOCKS];

static __device__ int block_total(int v, int *scratch)
{
    cg::thread_block block = cg::this_thread_block();
    scratch[block.thread_rank()] = v;
    block.sync();
    for (unsigned int s = block.size() / 2; s > 0; s >>= 1) {
        if (block.thread_rank() < s)
            scratch[block.thread_rank()] += scratch[block.thread_rank() + s];
        block.sync();
    }
    v = scratch[0];
    block.sync(); /* scratch is used again */
    return v;
}

static __global__ void grid_sync_block_zero_adds(const int *in, int *out, unsigned int n)
{
    __shared__ int scratch[1024];
    cg::grid_group grid = cg::this_grid();
    if (!grid.is_valid())
        return; /* not a cooperative launch: out[0] keeps the harness's poison */
    int sum = 0;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.num_threads())
        sum += in[i];
    sum = block_total(sum, scratch);
    if (threadIdx.x == 0)
        block_sums[grid.block_rank()] = sum;
    grid.sync();
    if (grid.block_rank() != 0)
        return;
    int total = 0;
    for (unsigned long long b = threadIdx.x; b < grid.num_blocks(); b += blockDim.x)
        total += block_sums[b];
    total = block_total(total, scratch);
    if (threadIdx.x == 0)
        out[0] = total;
}

static size_t launch_grid_sync_block_zero_adds(const int *in, int *out, size_t n, unsigned threads)
{
    int per_sm = 0, sms = 0, device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sync_block_zero_adds, (int)threads, 0);
    unsigned int resident = (unsigned int)(per_sm * sms);
    unsigned int count = (unsigned int)n;
    void *args[] = {&in, &out, &count};
    /* One block more than fit at once must be refused, and launch nothing. */
    if (cudaLaunchCooperativeKernel(grid_sync_block_zero_adds, dim3(resident + 1), dim3(threads), args) !=
        cudaErrorCooperativeLaunchTooLarge)
        return 1; /* out[0] keeps the harness's poison: the test fails */
    cudaGetLastError();
    unsigned int blocks = (unsigned int)((n + 4 * threads - 1) / (4 * threads));
    if (blocks > resident)
        blocks = resident;
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    cudaLaunchCooperativeKernel((void *)grid_sync_block_zero_adds, dim3(blocks), dim3(threads), args, 0, 0);
    return 1;
}

KIT_REGISTER_STAGE(grid_sync_block_zero_adds, launch_grid_sync_block_zero_adds)

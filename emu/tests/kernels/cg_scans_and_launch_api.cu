/*
 * Emulator fixture (stage 4's slot), a valid alternative kernel using the less common API.
 *
 * In a __device__ function (with its own __shared__ array): cg::inclusive_scan and
 * exclusive_scan over a tile, tile.shfl, ballot, any, all, a tile sized at run time
 * (tiled_partition(block, 8)) and __reduce_or/xor/and/max_sync. In the launcher:
 * cudaOccupancyMaxPotentialBlockSize (an sm_90 GPU says 1024 threads, 2 blocks per SM), a
 * launch asking for 100 KB of dynamic shared memory without cudaFuncSetAttribute (a launch
 * error, cudaErrorInvalidValue, as on a GPU), and the launch itself through cudaLaunchKernel.
 * Any wrong answer poisons the sum or makes the launcher report no result.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include "stage.h"

namespace cg = cooperative_groups;

static __device__ int warp_total(int v)
{
    __shared__ int scratch[1024]; /* shared memory declared in a device function */
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    int incl = cg::inclusive_scan(tile, v);           /* lane 31 holds the warp's total */
    int excl = cg::exclusive_scan(tile, v, cg::plus<int>());
    if (incl - excl != v) return 1 << 30;             /* poison the sum if the scans disagree */
    scratch[threadIdx.x] = incl;
    tile.sync();
    int total = scratch[threadIdx.x | 31];
    if (total != tile.shfl(incl, 31)) return 1 << 26;
    tile.sync();
    unsigned votes = tile.ballot(v != 12345678);
    if (votes != 0xffffffffu || !tile.all(1) || tile.any(0)) return 1 << 29;
    cg::thread_group g = cg::tiled_partition(cg::this_thread_block(), 8);
    if (g.size() != 8 || g.thread_rank() != tile.thread_rank() % 8) return 1 << 28;
    g.sync();
    if (__reduce_or_sync(0xffffffffu, 1u) != 1u || __reduce_xor_sync(0xffffffffu, 1u) != 0u ||
        __reduce_and_sync(0xffffffffu, 3u) != 3u || __reduce_max_sync(0xffffffffu, (int)tile.thread_rank()) != 31)
        return 1 << 27;
    return total;
}

static __global__ void cg_scans_and_launch_api(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sums[];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int t = warp_total(v);
    if (threadIdx.x % 32 == 0)
        sums[threadIdx.x / 32] = t;
    __syncthreads();
    if (threadIdx.x == 0) {
        int s = 0;
        for (unsigned w = 0; w < blockDim.x / 32; w++)
            s += sums[w];
        out[blockIdx.x] = s;
    }
}

static size_t launch_cg_scans_and_launch_api(const int *in, int *out, size_t n, unsigned threads)
{
    int min_grid = 0, block = 0;
    if (cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, cg_scans_and_launch_api, 0, 0) != cudaSuccess || block != 1024 ||
        min_grid != 132 * 2)
        return 0;
    /* too much dynamic shared memory without the attribute: a launch error, as on a GPU */
    cg_scans_and_launch_api<<<1, threads, 100 * 1024>>>(in, out, (unsigned)n);
    if (cudaGetLastError() != cudaErrorInvalidValue)
        return 0;
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    unsigned int count = (unsigned int)n;
    void *args[] = {(void *)&in, (void *)&out, (void *)&count};
    if (cudaLaunchKernel(cg_scans_and_launch_api, dim3(blocks), dim3(threads), args, threads / 32 * sizeof(int), 0) != cudaSuccess)
        return 0;
    return blocks;
}

KIT_REGISTER_STAGE(cg_scans_and_launch_api, launch_cg_scans_and_launch_api)

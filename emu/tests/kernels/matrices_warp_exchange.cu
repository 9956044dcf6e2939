/*
 * Emulator fixture (stage 15's slot), a valid kernel: matrices stored as structures, read
 * with coalesced loads. Each warp takes 32 matrices at a time: its lanes read the 9 x 32
 * consecutive ints together (lane l reads ints l, l + 32, ...) into the warp's slice of a 2-D
 * __shared__ array, __syncwarp(), then each lane takes its own matrix's 9 ints from there,
 * and __syncwarp() again before the slice is reused. The block's 9 minimums: __reduce_min_sync
 * in each warp, the warps' through shared memory.
 */
#include <climits>

#include "stage.h"

#define FULL 0xffffffffu

static __global__ void matrices_warp_exchange(const kit_mat3 *in, kit_mat3 *out, unsigned int n)
{
    __shared__ int staged[32][9 * 32];
    __shared__ int warp_mins[9][32];
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const unsigned int warps = blockDim.x / 32, all_warps = warps * gridDim.x;
    const int *words = reinterpret_cast<const int *>(in);
    const size_t total = 9 * (size_t)n;
    int m[9];
    for (int c = 0; c < 9; c++)
        m[c] = INT_MAX;
    for (size_t group = (size_t)blockIdx.x * warps + warp; group * 32 < n; group += all_warps) {
        for (int k = 0; k < 9; k++) {
            const size_t word = group * 32 * 9 + (size_t)k * 32 + lane;
            staged[warp][k * 32 + lane] = word < total ? words[word] : INT_MAX;
        }
        __syncwarp();
        for (int c = 0; c < 9; c++)
            m[c] = min(m[c], staged[warp][lane * 9 + c]);
        __syncwarp(); /* every lane has read the slice before the next group overwrites it */
    }
    for (int c = 0; c < 9; c++) {
        m[c] = __reduce_min_sync(FULL, m[c]);
        if (lane == 0)
            warp_mins[c][warp] = m[c];
    }
    __syncthreads();
    if (warp == 0)
        for (int c = 0; c < 9; c++) {
            const int v = __reduce_min_sync(FULL, lane < warps ? warp_mins[c][lane] : INT_MAX);
            if (lane == 0)
                out[blockIdx.x].m[c] = v;
        }
}

static size_t launch_matrices_warp_exchange(const kit_mat3 *in, kit_mat3 *out, size_t n, unsigned threads)
{
    size_t blocks = (n + 4 * threads - 1) / (4 * threads);
    if (blocks > 64)
        blocks = 64;
    matrices_warp_exchange<<<(unsigned int)blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(matrices_warp_exchange, launch_matrices_warp_exchange)

/*
 * Emulator fixture (stage 15's slot), a kernel stage 15 must reject: matrices_warp_exchange.cu
 * without the __syncwarp() between the lanes' stores into the warp's slice of shared memory
 * and their loads of their own matrices from it (nor the one before the slice is reused). A
 * lane may read ints other lanes have not stored yet: lanes run independently (Volta's
 * independent thread scheduling) and nothing makes them wait. On the emulator a lane runs
 * alone up to its next meeting point, so it reads uninitialised shared memory, and the
 * results change with the order of the threads.
 */
#include <climits>

#include "stage.h"

#define FULL 0xffffffffu

static __global__ void matrices_exchange_without_syncwarp(const kit_mat3 *in, kit_mat3 *out, unsigned int n)
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
        for (int c = 0; c < 9; c++) /* the mistake: no __syncwarp() before or after */
            m[c] = min(m[c], staged[warp][lane * 9 + c]);
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

static size_t launch_matrices_exchange_without_syncwarp(const kit_mat3 *in, kit_mat3 *out, size_t n, unsigned threads)
{
    size_t blocks = (n + 4 * threads - 1) / (4 * threads);
    if (blocks > 64)
        blocks = 64;
    matrices_exchange_without_syncwarp<<<(unsigned int)blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(matrices_exchange_without_syncwarp, launch_matrices_exchange_without_syncwarp)

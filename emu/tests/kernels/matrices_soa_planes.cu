/*
 * Emulator fixture (stage 14's slot), a valid kernel: the element-wise minimum of matrices
 * stored as 9 planes (component c of matrix i at in[c * n + i]). Each thread keeps 9
 * minimums; where every plane starts on 16 bytes (n a multiple of 4) it reads int4s, else
 * ints. Each warp reduces the 9 with __reduce_min_sync, the warps meet in a 2-D __shared__
 * array, and the first warp writes the block's 9 minimums as planes of the partial results:
 * component c of block b at out[c * gridDim.x + b].
 */
#include <climits>

#include "stage.h"

#define FULL 0xffffffffu

static __global__ void matrices_soa_planes(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_mins[9][32];
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const unsigned int stride = blockDim.x * gridDim.x, first = blockIdx.x * blockDim.x + tid;
    int m[9];
    for (int c = 0; c < 9; c++) {
        m[c] = INT_MAX;
        const int *plane = in + (size_t)c * n;
        if (n % 4 == 0) {
            const int4 *plane4 = reinterpret_cast<const int4 *>(plane);
            for (unsigned int i = first; i < n / 4; i += stride) {
                const int4 v = plane4[i];
                m[c] = min(m[c], min(min(v.x, v.y), min(v.z, v.w)));
            }
        } else {
            for (unsigned int i = first; i < n; i += stride)
                m[c] = min(m[c], plane[i]);
        }
        m[c] = __reduce_min_sync(FULL, m[c]);
        if (lane == 0)
            warp_mins[c][warp] = m[c];
    }
    __syncthreads();
    if (warp == 0)
        for (int c = 0; c < 9; c++) {
            const int v = __reduce_min_sync(FULL, lane < blockDim.x / 32 ? warp_mins[c][lane] : INT_MAX);
            if (lane == 0)
                out[(size_t)c * gridDim.x + blockIdx.x] = v;
        }
}

static size_t launch_matrices_soa_planes(const int *in, int *out, size_t n, unsigned threads)
{
    size_t blocks = (n + 8 * threads - 1) / (8 * threads);
    if (blocks > 80)
        blocks = 80;
    matrices_soa_planes<<<(unsigned int)blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(matrices_soa_planes, launch_matrices_soa_planes)

/*
 * Emulator fixture (stage 13's slot), a valid kernel: the element-wise minimum of 3x3 int
 * matrices stored as structures (kit_mat3), 9 ints a thread: a grid-strided loop over whole
 * structures from INT_MAX, then a tree over a __shared__ array of kit_mat3 (struct loads,
 * stores and assignments in shared memory).
 */
#include <climits>

#include "stage.h"

static __device__ void min_into(kit_mat3 &a, const kit_mat3 &b)
{
    for (int c = 0; c < 9; c++)
        a.m[c] = min(a.m[c], b.m[c]);
}

static __global__ void matrices_struct_tree(const kit_mat3 *in, kit_mat3 *out, unsigned int n)
{
    __shared__ kit_mat3 tree[1024];
    const unsigned int tid = threadIdx.x;
    kit_mat3 mine;
    for (int c = 0; c < 9; c++)
        mine.m[c] = INT_MAX;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {
        const kit_mat3 next = in[i];
        min_into(mine, next);
    }
    tree[tid] = mine;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s)
            min_into(tree[tid], tree[tid + s]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = tree[0];
}

static size_t launch_matrices_struct_tree(const kit_mat3 *in, kit_mat3 *out, size_t n, unsigned threads)
{
    size_t blocks = (n + 2 * threads - 1) / (2 * threads);
    if (blocks > 96)
        blocks = 96;
    matrices_struct_tree<<<(unsigned int)blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(matrices_struct_tree, launch_matrices_struct_tree)

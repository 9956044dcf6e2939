/*
 * Known-wrong kernel, slot 12: an argmin that compares values only, so ties go anywhere.
 *
 * Stage 12 with the tie rule left out: a thread keeps the last of equal values it meets
 * (`v <= best`), and the shuffles and the block's step keep whichever pair they hold on a tie
 * (`other_v < v`, the index never looked at). The blocks still meet in an atomicMin on a
 * packed (value, index) key, which does order ties by index, but each block offers an index
 * that is already not its first. The value is always right; the index is one that holds it,
 * but not the first one wherever a thread meets two equal minimums, or a shuffle meets two in
 * the wrong order: on the kit's inputs, full of ties (random ints in [-8, 8]: the minimum at
 * about one index in 17; all ones: every index ties and the answer is index 0), that is at
 * every n above a few times the grid's threads, on a GPU and on the CPU emulator. The message
 * must say that ties go to the smallest index.
 */
#include <climits>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define NO_KEY 0xffffffffffffffffull

static __device__ unsigned long long best_key = NO_KEY;
static __device__ unsigned int blocks_done;

static __device__ void warp_argmin(int &v, unsigned int &i)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        const int other_v = __shfl_xor_sync(FULL_WARP, v, offset);
        const unsigned int other_i = __shfl_xor_sync(FULL_WARP, i, offset);
        if (other_v < v) { /* the mistake: on equal values, the index decides nothing */
            v = other_v;
            i = other_i;
        }
    }
}

static __global__ void argmin_loses_ties(const int *in, kit_argmin *out, unsigned int n)
{
    __shared__ int warp_values[32];
    __shared__ unsigned int warp_indices[32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int best = INT_MAX;
    unsigned int best_i = 0xffffffffu;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        if (in[i] <= best) { /* the mistake: the last of equal values */
            best = in[i];
            best_i = i;
        }
    warp_argmin(best, best_i);
    if (lane == 0) {
        warp_values[warp] = best;
        warp_indices[warp] = best_i;
    }
    __syncthreads();
    if (warp != 0)
        return;
    best = warp_values[lane % (blockDim.x / 32)];
    best_i = warp_indices[lane % (blockDim.x / 32)];
    warp_argmin(best, best_i);
    if (lane != 0)
        return;
    kit_argmin result;
    if (gridDim.x == 1) {
        result.value = best;
        result.index = (int)best_i;
        out[0] = result;
        return;
    }
    atomicMin(&best_key, (unsigned long long)((unsigned int)best ^ 0x80000000u) << 32 | best_i);
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
        __threadfence();
        const unsigned long long key = atomicExch(&best_key, NO_KEY);
        blocks_done = 0;
        result.value = (int)((unsigned int)(key >> 32) ^ 0x80000000u);
        result.index = (int)(unsigned int)key;
        out[0] = result;
    }
}

static size_t launch_argmin_loses_ties(const int *in, kit_argmin *out, size_t n, unsigned threads)
{
    unsigned int per_block = 16 * threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > 1024)
        blocks = 1024;
    argmin_loses_ties<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(argmin_loses_ties, launch_argmin_loses_ties)

/*
 * Emulator fixture (stage 12's slot), a valid kernel: an argmin in one pass. Each thread keeps
 * its smallest value and the first index that holds it, each warp combines them with
 * __shfl_down_sync on the value and the index (a tie goes to the smaller index), and lane 0
 * of each warp packs them into one 64-bit key, the value's sign bit flipped so that unsigned
 * order is int order, then the index: atomicMin on the key in a static __device__ word keeps
 * the smallest value and, among equal values, the smallest index. After a __threadfence()
 * each block draws a ticket (atomicInc, which wraps back to 0 by itself); the block with the
 * last one writes out[0] and puts the word back (atomicExch) for the next launch.
 */
#include <climits>

#include "stage.h"

#define FULL 0xffffffffu
#define MAX_BLOCKS 264

static __device__ unsigned long long best_key = ~0ull;
static __device__ unsigned int tickets = 0;

static __device__ void better(int &value, int &index, int other_value, int other_index)
{
    if (other_value < value || (other_value == value && other_index < index)) {
        value = other_value;
        index = other_index;
    }
}

static __global__ void argmin_packed_atomic(const int *in, kit_argmin *out, unsigned int n)
{
    __shared__ bool last;
    const unsigned int tid = threadIdx.x;
    int value = INT_MAX, index = INT_MAX;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        if (in[i] < value) { /* i grows: the first index of a value stays */
            value = in[i];
            index = (int)i;
        }
    for (unsigned int delta = 16; delta > 0; delta /= 2) {
        int other_value = __shfl_down_sync(FULL, value, delta);
        int other_index = __shfl_down_sync(FULL, index, delta);
        better(value, index, other_value, other_index);
    }
    if (tid % 32 == 0 && index != INT_MAX)
        atomicMin(&best_key, (unsigned long long)((unsigned int)value ^ 0x80000000u) << 32 | (unsigned int)index);
    __syncthreads();
    if (tid == 0) {
        __threadfence(); /* this block's atomicMin before its ticket */
        last = atomicInc(&tickets, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && tid == 0) {
        const unsigned long long key = atomicExch(&best_key, ~0ull); /* read, and put back */
        out[0].value = (int)((unsigned int)(key >> 32) ^ 0x80000000u);
        out[0].index = (int)(key & 0xffffffffu);
    }
}

static size_t launch_argmin_packed_atomic(const int *in, kit_argmin *out, size_t n, unsigned threads)
{
    size_t blocks = (n + 4 * threads - 1) / (4 * threads);
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    argmin_packed_atomic<<<(unsigned int)blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(argmin_packed_atomic, launch_argmin_packed_atomic)

/*
 * Emulator fixture (stage 12's slot), a kernel stage 12 must reject: argmin_packed_atomic.cu
 * with the tie rule reversed in the thread's loop (`<=` for `<`) and in the warp (the larger
 * index wins a tie), so each warp reports the last index of its smallest value. On an input
 * full of ties the index comes out wrong (a later index than the first that holds the
 * minimum); the value is right.
 */
#include <climits>

#include "stage.h"

#define FULL 0xffffffffu
#define MAX_BLOCKS 264

static __device__ unsigned long long best_key = ~0ull;
static __device__ unsigned int tickets = 0;

static __device__ void better(int &value, int &index, int other_value, int other_index)
{
    if (other_value < value || (other_value == value && other_index > index)) { /* the mistake */
        value = other_value;
        index = other_index;
    }
}

static __global__ void argmin_last_tie(const int *in, kit_argmin *out, unsigned int n)
{
    __shared__ bool last;
    const unsigned int tid = threadIdx.x;
    int value = INT_MAX, index = INT_MAX;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        if (in[i] <= value) { /* the mistake: a later equal value takes the index */
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

static size_t launch_argmin_last_tie(const int *in, kit_argmin *out, size_t n, unsigned threads)
{
    size_t blocks = (n + 4 * threads - 1) / (4 * threads);
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    argmin_last_tie<<<(unsigned int)blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(argmin_last_tie, launch_argmin_last_tie)

/*
 * Known-wrong kernel, slot 12: the blocks meet in a 64-bit key whose value half is the int's
 * bits as they are, without the sign bit flipped.
 *
 * Everything else is the reference's plan (solutions/12_argmin): the first smallest pair in a
 * thread, a warp and a block, with ties to the smaller index; then one atomicMin per block on
 * a key (value above index) and a ticket, and the last block writes out[0]. But the key is
 * ((unsigned long long)(unsigned)value << 32) | index: as unsigned numbers the negative ints
 * come after every non-negative one, so when one block's minimum is negative and another's is
 * not, the atomicMin keeps the non-negative one. Keys of two negatives, or of two
 * non-negatives, still order right, so with the old inputs (ints in [-8, 8]: every block's
 * minimum is -8) every answer was right; a one-block grid never uses the key at all.
 *
 * How the grader must treat it: 0 points, "expected X, got Y", on a GPU and on the emulator:
 * full-range inputs give blocks minimums of both signs (a unique negative extreme among
 * positive values, values near INT_MIN and INT_MAX).
 */
#include <climits>
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define NO_INDEX 0xffffffffu
#define NO_KEY 0xffffffffffffffffull

static __device__ unsigned long long best_key = NO_KEY;
static __device__ unsigned int blocks_done;

static __device__ __forceinline__ bool before(int v, unsigned int i, int best, unsigned int best_i)
{
    return v < best || (v == best && i < best_i);
}

static __device__ __forceinline__ void warp_argmin(int &v, unsigned int &i)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        int other_v = __shfl_xor_sync(FULL_WARP, v, offset);
        unsigned int other_i = __shfl_xor_sync(FULL_WARP, i, offset);
        if (before(other_v, other_i, v, i)) {
            v = other_v;
            i = other_i;
        }
    }
}

/** The mistake: the value's bits unflipped, so negative values make the largest keys. */
static __device__ __forceinline__ unsigned long long key_of(int v, unsigned int i)
{
    return (unsigned long long)(unsigned int)v << 32 | i;
}

static __global__ void argmin_key_without_sign_flip(const int *in, kit_argmin *out, unsigned int n)
{
    __shared__ int warp_values[32];
    __shared__ unsigned int warp_indices[32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int best = INT_MAX;
    unsigned int best_i = NO_INDEX;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        if (before(in[i], i, best, best_i)) {
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
    best = lane < blockDim.x / 32 ? warp_values[lane] : INT_MAX;
    best_i = lane < blockDim.x / 32 ? warp_indices[lane] : NO_INDEX;
    warp_argmin(best, best_i);
    if (lane != 0)
        return;
    if (gridDim.x == 1) {
        out[0].value = best;
        out[0].index = (int)best_i;
        return;
    }
    atomicMin(&best_key, key_of(best, best_i));
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
        __threadfence();
        const unsigned long long key = atomicExch(&best_key, NO_KEY);
        blocks_done = 0;
        out[0].value = (int)(unsigned int)(key >> 32);
        out[0].index = (int)(unsigned int)key;
    }
}

static size_t launch_argmin_key_without_sign_flip(const int *in, kit_argmin *out, size_t n, unsigned threads)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    unsigned int wave = sms > 0 && per_sm >= (int)threads ? (unsigned int)(sms * (per_sm / (int)threads)) : 1;
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > wave)
        blocks = wave;
    argmin_key_without_sign_flip<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(argmin_key_without_sign_flip, launch_argmin_key_without_sign_flip)

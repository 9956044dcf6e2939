/*
 * Planted bug for the trace pictures (issue 25), stage 12: the tie rule is turned round, so where
 * two equal values meet (in a thread's loop or in a shuffle) the larger index wins. The picture
 * of a run on the ties pattern must show a shuffle that kept the larger of two tied indices.
 */
#include <climits>
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define NO_INDEX 0xffffffffu              /* the identity's index: after every real one (n <= 2^30) */
#define NO_KEY 0xffffffffffffffffull      /* the identity (INT_MAX, NO_INDEX) as a key: the largest */

/** The smallest key any block has offered in this launch; NO_KEY between launches. */
[[maybe_unused]] /* until the lab's kernel uses it */
static __device__ unsigned long long best_key = NO_KEY;
/** Tickets drawn in this launch: blocks whose key is in best_key; 0 between launches. */
[[maybe_unused]] /* until the lab's kernel uses it */
static __device__ unsigned int blocks_done; /* static storage: 0 when the program starts */

//! [kernel]
/** Whether (v, i) comes before (best, best_i): a smaller value, or the same one at a smaller index. */
static __device__ __forceinline__ bool before(int v, unsigned int i, int best, unsigned int best_i)
{
    bool first = false;
    // [todo-tie] TODO(student): the rule for ties: the smaller index wins.
    first = v < best || (v == best && i > best_i); /* the mistake: a tie goes to the larger index */
    // [todo-tie] end of TODO
    return first;
}

/** The first of the 32 lanes' (value, index) pairs; every lane gets it. */
static __device__ __forceinline__ void warp_argmin(int &v, unsigned int &i)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
        const int other_v = __shfl_xor_sync(FULL_WARP, v, offset);
        const unsigned int other_i = __shfl_xor_sync(FULL_WARP, i, offset);
        if (before(other_v, other_i, v, i)) {
            v = other_v;
            i = other_i;
        }
    }
}

/** The four ints of an int4 whose first int is at index `first`, taken in index order. */
static __device__ __forceinline__ void take4(int4 a, unsigned int first, int &best, unsigned int &best_i)
{
    if (before(a.x, first, best, best_i)) { best = a.x; best_i = first; }
    if (before(a.y, first + 1, best, best_i)) { best = a.y; best_i = first + 1; }
    if (before(a.z, first + 2, best, best_i)) { best = a.z; best_i = first + 2; }
    if (before(a.w, first + 3, best, best_i)) { best = a.w; best_i = first + 3; }
}

/** A pair as one 64-bit key that orders like the pair: the value, sign bit flipped, above the index. */
[[maybe_unused]] /* until the lab's kernel uses it */
static __device__ __forceinline__ unsigned long long key_of(int v, unsigned int i)
{
    return (unsigned long long)((unsigned int)v ^ 0x80000000u) << 32 | i;
}

/** The first smallest value in one launch: thread, warp, block, then an atomicMin and a ticket
 *  per block. */
static __global__ void reduce_argmin(const int *in, kit_argmin *out, unsigned int n)
{
    __shared__ int warp_values[32];
    __shared__ unsigned int warp_indices[32];
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    int best = INT_MAX;          /* the identity: every real pair comes before (INT_MAX, NO_INDEX) */
    unsigned int best_i = NO_INDEX;

    /* 1. In a thread: stage 7's loop. */
    const int4 *in4 = (const int4 *)in;
    const unsigned int n4 = n / 4, stride = blockDim.x * gridDim.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        int4 a = in4[i], b = in4[i + stride], c = in4[i + 2 * stride], d = in4[i + 3 * stride];
        take4(a, 4 * i, best, best_i);
        take4(b, 4 * (i + stride), best, best_i);
        take4(c, 4 * (i + 2 * stride), best, best_i);
        take4(d, 4 * (i + 3 * stride), best, best_i);
    }
    for (; i < n4; i += stride)
        take4(in4[i], 4 * i, best, best_i);
    if (blockIdx.x == 0 && tid < n % 4 && before(in[4 * n4 + tid], 4 * n4 + tid, best, best_i)) {
        best = in[4 * n4 + tid]; /* one of the last n % 4 ints */
        best_i = 4 * n4 + tid;
    }

    /* 2. and 3. In a warp, then in the block. */
    warp_argmin(best, best_i);
    if (lane == 0) {
        warp_values[warp] = best;
        warp_indices[warp] = best_i;
    }
    __syncthreads();
    if (warp != 0)
        return;
    best = warp_values[lane % (blockDim.x / 32)]; /* some pairs read twice: the first of (p, p) is p */
    best_i = warp_indices[lane % (blockDim.x / 32)];
    warp_argmin(best, best_i);

    /* 4. Between blocks. */
    if (lane == 0) {
        // [todo] TODO(student): one block writes out[0]; more blocks meet in an atomicMin and a ticket.
        kit_argmin result;
        if (gridDim.x == 1) {
            result.value = best;
            result.index = (int)best_i;
            out[0] = result;
            return;
        }
        atomicMin(&best_key, key_of(best, best_i));
        __threadfence(); /* this block's key is in best_key before its ticket is drawn */
        if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) { /* the last ticket: every key is in */
            __threadfence();
            const unsigned long long key = atomicExch(&best_key, NO_KEY); /* read it, and reset it */
            blocks_done = 0; /* for the next launch, which starts after this one ends */
            result.value = (int)((unsigned int)(key >> 32) ^ 0x80000000u);
            result.index = (int)(unsigned int)key;
            out[0] = result;
        }
        // [todo] end of TODO
    }
}
//! [kernel]

/** Blocks of `threads` that the whole GPU keeps resident at once (one full wave). */
static unsigned int resident_blocks(unsigned threads)
{
    static int sms = 0, threads_per_sm = 0;
    if (sms == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        if (sms < 1 || threads_per_sm < (int)threads) {
            sms = 1;
            threads_per_sm = (int)threads;
        }
    }
    return (unsigned int)sms * ((unsigned int)threads_per_sm / threads);
}

//! [launcher]
/** One launch over at most one wave of blocks; the pair is in out[0] when it ends. Returns 1. */
static size_t launch_reduce_argmin(const int *in, kit_argmin *out, size_t n, unsigned threads)
{
    unsigned int per_block = 16 * threads; /* 16 values a thread or more: one block up to 16 x threads */
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > resident_blocks(threads))
        blocks = resident_blocks(threads);
    reduce_argmin<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_argmin, launch_reduce_argmin)

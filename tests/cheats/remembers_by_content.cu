/*
 * Cheat, slot 7: a correct stage 7 that remembers its answer, keyed on what it can check cheaply.
 *
 * What it pretends: a stage 7 far faster than reading its input allows.
 * What it does: before each pass a one-thread kernel compares the input pointer, n and the
 * first and last element (and its own block count) with those of the last pass it read in full. On a match the blocks
 * write the partial sums they remembered and read nothing else; otherwise they read the
 * input (a grid-stride loop) and remember. Every correctness case the grader runs gets the
 * right sum: a new input differs in its first or last element, or in n, and the repeated runs
 * of one input want the same answer. A timing loop that reduces the same buffer again and
 * again would measure a few microseconds a pass.
 *
 * How the grader must treat it: full correctness, no speed points. The grader changes a few
 * elements of the input before every timed repetition (never chosen by the stage) and checks
 * every repetition's sum, so the remembered answer is wrong there, and a repetition faster
 * than reading the input at the copy bandwidth fails as well.
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define MEMO_BLOCKS 1024u   /* at most this many blocks, so the memory holds every partial sum */
#define MEMO_MIN_N (1u << 16) /* only first passes are remembered: the later ones reuse one buffer */

static __device__ const int *memo_in;
static __device__ unsigned int memo_n, memo_blocks;
static __device__ int memo_first, memo_last, memo_valid, memo_hit;
static __device__ int memo_sums[MEMO_BLOCKS];

/* One thread: is this the input the blocks remember? */
static __global__ void look_up(const int *in, unsigned int n, unsigned int blocks)
{
    memo_hit = n >= MEMO_MIN_N && memo_valid && memo_in == in && memo_n == n && memo_blocks == blocks &&
               memo_first == in[0] && memo_last == in[n - 1];
}

static __global__ void remember(const int *in, unsigned int n, unsigned int blocks)
{
    if (!memo_hit && n >= MEMO_MIN_N) {
        memo_in = in;
        memo_n = n;
        memo_blocks = blocks;
        memo_first = in[0];
        memo_last = in[n - 1];
        memo_valid = 1;
    }
}

static __global__ void sum_or_recall(const int *in, int *out, unsigned int n)
{
    extern __shared__ int warp_sums[];
    if (memo_hit) {
        if (threadIdx.x == 0)
            out[blockIdx.x] = memo_sums[blockIdx.x];
        return;
    }
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(FULL_WARP, sum, offset);
    unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < blockDim.x / 32 ? warp_sums[lane] : 0;
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(FULL_WARP, sum, offset);
        if (lane == 0) {
            out[blockIdx.x] = sum;
            if (n >= MEMO_MIN_N)
                memo_sums[blockIdx.x] = sum;
        }
    }
}

static size_t launch_remembers_by_content(const int *in, int *out, size_t n, unsigned threads)
{
    size_t per_block = 8 * (size_t)threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > MEMO_BLOCKS)
        blocks = MEMO_BLOCKS;
    if (blocks >= n) /* a pass must leave fewer values than it got */
        blocks = (unsigned int)(n / 2 > 0 ? n / 2 : 1);
    look_up<<<1, 1>>>(in, (unsigned int)n, blocks);
    sum_or_recall<<<blocks, threads, threads / 32 * sizeof(int)>>>(in, out, (unsigned int)n);
    remember<<<1, 1>>>(in, (unsigned int)n, blocks);
    return blocks;
}

KIT_REGISTER_STAGE(remembers_by_content, launch_remembers_by_content)

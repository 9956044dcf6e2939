/*
 * Cheat, slot 7: a correct, fast stage 7 that remembers its last answer.
 *
 * What it pretends: a stage 7 ("many elements per thread") faster than any GPU can read.
 * What it does: the kernel is a real one pass reduction (grid-stride int4 loads, one wave of
 * blocks, warp shuffles), and every block also copies its partial sum into a __device__
 * array. The launcher remembers which input it last read in full (input pointer and n, on
 * the host and in __device__ variables). When the same pointer and n come again, it does
 * not read the input at all: a tiny kernel copies the remembered partial sums into out.
 * The grader's timing loop reduces the same buffer over and over, so every timed pass but
 * the first costs a few microseconds: an absurd speedup. Only passes over at least 2^16
 * values are remembered (the later passes over the partial sums are cheap anyway, and
 * remembering them would push the first pass's answer out of the one-entry memory).
 *
 * It is wrong as soon as the input changes in place (same pointer, same n, new values): the
 * grader's correctness runs refill one buffer with another pattern and get the previous
 * pattern's sum back.
 *
 * How the grader must treat it: 0 points for stage 7 (GPU and emulator alike). A stage may
 * not remember results between passes; the message must say it gave the answer of an
 * earlier input (remembered it) rather than only "expected X, got Y".
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
/** Passes over fewer values than this are computed every time. */
#define MEMO_MIN_N (1u << 16)
/** Most partial sums the memory holds (one wave of blocks is far below this). */
#define MEMO_CAPACITY 16384

/* The remembered pass, on the device: which input, how many values, and its partial sums. */
static __device__ const int *memo_in;
static __device__ unsigned int memo_n;
static __device__ unsigned int memo_count;
static __device__ int memo_sums[MEMO_CAPACITY];

/* The same key on the host, so the launcher can choose without waiting for the GPU. */
static const int *host_memo_in = NULL;
static size_t host_memo_n = 0;
static unsigned int host_memo_count = 0;

static __device__ __forceinline__ int warp_total(int v)
{
    for (int k = 16; k > 0; k >>= 1)
        v += __shfl_xor_sync(FULL_WARP, v, k);
    return v;
}

/** A real pass: each block sums a grid-strided share; with `remember`, it keeps a copy. */
static __global__ void memo_reduce(const int *in, int *out, unsigned int n, int remember)
{
    __shared__ int warp_sums[32];
    const int4 *in4 = (const int4 *)in;
    unsigned int n4 = n / 4;
    unsigned int stride = blockDim.x * gridDim.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int sum = 0;
    for (; i + stride < n4; i += 2 * stride) {
        int4 a = in4[i], b = in4[i + stride];
        sum += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w);
    }
    if (i < n4) {
        int4 a = in4[i];
        sum += a.x + a.y + a.z + a.w;
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        sum += in[4 * n4 + threadIdx.x];

    unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    sum = warp_total(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < blockDim.x / 32 ? warp_sums[lane] : 0;
        sum = warp_total(sum);
        if (lane == 0) {
            out[blockIdx.x] = sum;
            if (remember) {
                memo_sums[blockIdx.x] = sum;
                if (blockIdx.x == 0) {
                    memo_in = in;
                    memo_n = n;
                    memo_count = gridDim.x;
                }
            }
        }
    }
}

/** The shortcut: copies the remembered partial sums into out, never touching the input. */
static __global__ void memo_replay(const int *in, int *out, unsigned int n)
{
    unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (memo_in == in && memo_n == n && k < memo_count)
        out[k] = memo_sums[k];
}

/** Blocks of `threads` that the GPU keeps resident at once. */
static unsigned int wave_blocks(unsigned threads)
{
    static int sms = 0, per_sm = 0;
    if (sms == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        if (sms < 1 || per_sm < (int)threads) {
            sms = 1;
            per_sm = (int)threads;
        }
    }
    return (unsigned int)sms * ((unsigned int)per_sm / threads);
}

/** One pass, or the remembered one when the same input comes again. */
static size_t launch_memoizes_sum(const int *in, int *out, size_t n, unsigned threads)
{
    if (n >= MEMO_MIN_N && in == host_memo_in && n == host_memo_n) {
        memo_replay<<<(host_memo_count + 255) / 256, 256>>>(in, out, (unsigned int)n);
        return host_memo_count;
    }
    unsigned int per_block = 8 * threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > wave_blocks(threads))
        blocks = wave_blocks(threads);
    int remember = n >= MEMO_MIN_N && blocks <= MEMO_CAPACITY;
    memo_reduce<<<blocks, threads>>>(in, out, (unsigned int)n, remember);
    if (remember) {
        host_memo_in = in;
        host_memo_n = n;
        host_memo_count = blocks;
    }
    return blocks;
}

KIT_REGISTER_STAGE(memoizes_sum, launch_memoizes_sum)

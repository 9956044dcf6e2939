/*
 * Cheat (timing trick), slot 7: the kernel runs on a stream of its own, off the timer.
 *
 * What it pretends: a stage 7 ("many elements per thread").
 * What it does: the kernel is a correct grid-stride reduction, but the launcher starts it on
 * a stream it created with cudaStreamNonBlocking. Such a stream does not wait for the
 * default stream (stream 0) and stream 0 does not wait for it. The harness records its
 * CUDA events and waits for the GPU on stream 0 (kit_sync polls cudaStreamQuery(0)), so the
 * timer closes before the kernel has done anything: near-zero times, an absurd speedup.
 * The same gap makes the harness's checks racy: the poisoning cudaMemset, the copies of the
 * results and the next pass are ordered on stream 0 only, so the answer it reads back may
 * be the poison, an older pass or the right sum, depending on timing.
 *
 * How the grader must treat it: 0 points for stage 7 (GPU and emulator alike): the stage's
 * own kernel must do the work on the stream the grader times, with <<<...>>> on stream 0;
 * no streams, events or graphs of its own. (On the CPU emulator it does not compile: the
 * emulator has no cudaStreamCreateWithFlags.)
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

/** A correct pass: grid-stride int4 loads, then the block reduces with shuffles. */
static __global__ void side_stream(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    const int4 *in4 = (const int4 *)in;
    unsigned int n4 = n / 4;
    unsigned int stride = blockDim.x * gridDim.x;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        int4 a = in4[i];
        sum += (a.x + a.y) + (a.z + a.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        sum += in[4 * n4 + threadIdx.x];
    for (int k = 16; k > 0; k >>= 1)
        sum += __shfl_down_sync(FULL_WARP, sum, k);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
        for (int k = 16; k > 0; k >>= 1)
            sum += __shfl_down_sync(FULL_WARP, sum, k);
        if (threadIdx.x == 0)
            out[blockIdx.x] = sum;
    }
}

/** Launches on a non-blocking stream, created once; returns without waiting. */
static size_t launch_side_stream(const int *in, int *out, size_t n, unsigned threads)
{
    static cudaStream_t side = NULL;
    static unsigned int wave = 0;
    if (!side) {
        if (cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess)
            return 0;
        int device = 0, sms = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        wave = sms > 0 ? (unsigned int)sms : 1;
    }
    unsigned int per_block = 16 * threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    unsigned int cap = wave * (2048 / threads);
    if (blocks > cap)
        blocks = cap;
    side_stream<<<blocks, threads, 0, side>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(side_stream, launch_side_stream)

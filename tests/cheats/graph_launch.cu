/*
 * Cheat, slot 7: the launch is captured into a CUDA graph, and the graph is launched.
 *
 * What it pretends: a stage 7 ("many elements per thread").
 * What it does: the kernel is a correct grid-stride reduction. The launcher does not launch
 * it with <<<...>>> on stream 0 for the grader to see: it captures the launch on a private
 * stream into a CUDA graph (cudaStreamBeginCapture ... cudaStreamEndCapture), instantiates
 * it, keeps the executable graph for the same (in, out, n, threads), and starts it with
 * cudaGraphLaunch on stream 0. Sums are right; but a graph can hold any number of kernels,
 * copies or library calls, none of which the source shows as a launch of the stage's
 * kernel, and its launch cost differs from a plain launch's, so the timing compares
 * different things.
 *
 * How the grader must treat it: 0 points for stage 7 (GPU and emulator alike): the stage's
 * own kernel must do the work, launched with <<<...>>>; no streams or graphs of its own.
 * (On the CPU emulator it does not compile: the emulator has no graph API.)
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

/** A correct pass: each thread sums int4s a grid apart, two at a time, then the block reduces. */
static __global__ void graph_launch(const int *in, int *out, unsigned int n)
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
    for (int k = 16; k > 0; k >>= 1)
        sum += __shfl_xor_sync(FULL_WARP, sum, k);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
        for (int k = 16; k > 0; k >>= 1)
            sum += __shfl_xor_sync(FULL_WARP, sum, k);
        if (threadIdx.x == 0)
            out[blockIdx.x] = sum;
    }
}

/** One executable graph per (in, out, n, threads), kept for the rest of the program. */
struct kept_graph {
    const int *in;
    int *out;
    size_t n;
    unsigned threads;
    unsigned int blocks;
    cudaGraphExec_t exec;
};
#define KEPT_GRAPHS 64
static kept_graph kept[KEPT_GRAPHS];
static int kept_count = 0, kept_next = 0;

static size_t launch_graph_launch(const int *in, int *out, size_t n, unsigned threads)
{
    for (int k = 0; k < kept_count; k++) {
        if (kept[k].in == in && kept[k].out == out && kept[k].n == n && kept[k].threads == threads) {
            if (cudaGraphLaunch(kept[k].exec, 0) != cudaSuccess)
                return 0;
            return kept[k].blocks;
        }
    }
    static cudaStream_t capture = NULL;
    static unsigned int sms = 0;
    if (!capture) {
        if (cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking) != cudaSuccess)
            return 0;
        int device = 0, count = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
        sms = count > 0 ? (unsigned int)count : 1;
    }
    unsigned int per_block = 16 * threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > sms * (2048 / threads))
        blocks = sms * (2048 / threads);

    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    if (cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
        return 0;
    graph_launch<<<blocks, threads, 0, capture>>>(in, out, (unsigned int)n);
    if (cudaStreamEndCapture(capture, &graph) != cudaSuccess)
        return 0;
    cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    if (made != cudaSuccess)
        return 0;
    if (kept_count == KEPT_GRAPHS) { /* full: replace the oldest (after the GPU is done with it) */
        cudaDeviceSynchronize();
        cudaGraphExecDestroy(kept[kept_next].exec);
        kept[kept_next] = kept_graph{in, out, n, threads, blocks, exec};
        kept_next = (kept_next + 1) % KEPT_GRAPHS;
    } else {
        kept[kept_count++] = kept_graph{in, out, n, threads, blocks, exec};
    }
    if (cudaGraphLaunch(exec, 0) != cudaSuccess)
        return 0;
    return blocks;
}

KIT_REGISTER_STAGE(graph_launch, launch_graph_launch)

/* Audit fixture, forbidden: captures its launch into a CUDA graph once and replays the graph. */
#include <cuda_runtime.h>

#include "stage.h"

static __global__ void reduce_in_graph(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_graph_capture(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeGlobal);
    reduce_in_graph<<<blocks, threads, threads * sizeof(int), cudaStreamPerThread>>>(in, out, (unsigned int)n);
    cudaStreamEndCapture(cudaStreamPerThread, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphLaunch(exec, cudaStreamPerThread);
    return blocks;
}

KIT_REGISTER_STAGE(graph_capture, launch_graph_capture)

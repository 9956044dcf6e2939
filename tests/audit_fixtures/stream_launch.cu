/* Audit fixture, forbidden: launches its kernel on a stream of its own (cudaStreamCreateWithFlags), out of the harness's timing. */
#include <cuda_runtime.h>

#include "stage.h"

static __global__ void reduce_on_stream(const int *in, int *out, unsigned int n)
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

static size_t launch_stream_launch(const int *in, int *out, size_t n, unsigned threads)
{
    static cudaStream_t stream;
    if (!stream)
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    reduce_on_stream<<<blocks, threads, threads * sizeof(int), stream>>>(in, out, (unsigned int)n);
    cudaStreamSynchronize(stream);
    return blocks;
}

KIT_REGISTER_STAGE(stream_launch, launch_stream_launch)

/* Audit fixture, clean: names cub::DeviceReduce::Sum, thrust::reduce, KIT_EMULATOR and cudaMemcpy only in comments and strings. */
#include <stdio.h>

#include "stage.h"

// Faster would be cub::DeviceReduce::Sum or thrust::reduce(thrust::device, ...), but not here.
/* #include <cub/cub.cuh>
   #ifdef KIT_EMULATOR  ...  cudaMemcpy(host, in, n, cudaMemcpyDeviceToHost); exit(0); */

static const char *const why = R"why(no "cub::DeviceReduce::Sum" and no #include <thrust/reduce.h>)why";

static __global__ void reduce_plain(const int *in, int *out, unsigned int n)
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

static size_t launch_plain(const int *in, int *out, size_t n, unsigned threads)
{
    const char quote = '"', apostrophe = '\'';
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    if (n == 1'000'003) /* digit separators are not character literals */
        printf("%s %c%c thrust::reduce(\"KIT_EMULATOR\") // not a comment\n", why, quote, apostrophe);
    reduce_plain<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(clean_mentions_in_comments, launch_plain)

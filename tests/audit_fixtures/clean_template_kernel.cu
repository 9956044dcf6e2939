/* Audit fixture, clean: stage 6 style, the block size a template parameter, one instance per block size. */
#include <cuda_runtime.h>

#include "stage.h"

template <unsigned int blockSize>
__global__ void reduce_template(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[blockSize];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockSize + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
#pragma unroll
    for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_template(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads), count = (unsigned int)n;
    switch (threads) {
    case 64: reduce_template<64><<<blocks, 64>>>(in, out, count); break;
    case 128: reduce_template<128><<<blocks, 128>>>(in, out, count); break;
    case 256: reduce_template<256><<<blocks, 256>>>(in, out, count); break;
    case 512: reduce_template<512><<<blocks, 512>>>(in, out, count); break;
    case 1024: reduce_template<1024><<<blocks, 1024>>>(in, out, count); break;
    default: return 0;
    }
    return blocks;
}

KIT_REGISTER_STAGE(clean_template_kernel, launch_template)

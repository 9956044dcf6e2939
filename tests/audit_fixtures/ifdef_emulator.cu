/* Audit fixture, forbidden: behaves differently on the kit's CPU emulator (#ifdef KIT_EMULATOR) than on a GPU. */
#include "stage.h"

static __global__ void reduce_probe(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
#ifdef KIT_EMULATOR
        __syncthreads(); /* only where the race check would see the race */
#endif
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_ifdef_emulator(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    reduce_probe<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(ifdef_emulator, launch_ifdef_emulator)

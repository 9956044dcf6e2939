/* Audit fixture, clean: names nvcc gives external linkage: a non-static kernel, a non-static __device__ variable, a non-static launcher (its kit_erased_launcher<...>::pass is then weak), a class with a vtable in an anonymous namespace. */
#include <stdio.h>

#include "stage.h"

__device__ unsigned int launches_seen;

namespace {
struct counter {
    virtual ~counter() {}
    virtual unsigned int next(unsigned int x) const { return x + 1; }
};
counter *volatile keep_counter = nullptr;
unsigned int count_on_host(unsigned int x)
{
    counter c;
    return keep_counter ? keep_counter->next(x) : c.next(x);
}
} // namespace

__global__ void count_launch()
{
    launches_seen++;
}

static __global__ void block_sums(const int *in, int *out, unsigned int n)
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

size_t launch(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    count_launch<<<count_on_host(0), 1>>>();
    block_sums<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(clean_global_names, launch)

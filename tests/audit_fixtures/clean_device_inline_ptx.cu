/* Audit fixture, clean: inline PTX in device code: a __device__ function, a function declared by a macro that says __device__, a __host__ __device__ function under __CUDA_ARCH__. */
#include <stdio.h>

#include "stage.h"

#define DEVICE_INLINE __device__ __forceinline__

static __device__ int load_nc(const int *p)
{
    int v;
    asm volatile("ld.global.nc.s32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

DEVICE_INLINE unsigned int lane_id()
{
    unsigned int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

static __host__ __device__ int twice(int x)
{
#ifdef __CUDA_ARCH__
    int y;
    asm("add.s32 %0, %1, %1;" : "=r"(y) : "r"(x));
    return y;
#else
    return 2 * x;
#endif
}

static __global__ void touch(const int *in, int *out)
{
    if (lane_id() == 0)
        out[0] = twice(load_nc(in)) / 2;
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

static size_t launch(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    touch<<<1, 32>>>(in, out);
    block_sums<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(clean_device_inline_ptx, launch)

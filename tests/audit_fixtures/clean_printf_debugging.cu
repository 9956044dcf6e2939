/* Audit fixture, clean: host-side debug printing (printf, puts, printf("%c") for a character: no FILE) and assert around an ordinary launch. */
#include <assert.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "stage.h"

static __global__ void reduce_printing(const int *in, int *out, unsigned int n)
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
    if (n == 1 && tid == 0)
        printf("device: block %u\n", blockIdx.x);
}

static size_t launch_printing(const int *in, int *out, size_t n, unsigned threads)
{
    assert(threads >= 32);
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    printf("launching %u blocks of %u\n", blocks, threads);
    reduce_printing<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        printf("launch failed: %s (%s)\n", cudaGetErrorString(err), cudaGetErrorName(err));
    puts("launched");
    printf("%c", '\n');
    return blocks;
}

KIT_REGISTER_STAGE(clean_printf_debugging, launch_printing)

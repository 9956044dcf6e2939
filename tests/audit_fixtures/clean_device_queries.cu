/* Audit fixture, clean: sizes its grid with device queries (properties, occupancy, kernel attributes) and waits for the device. */
#include <cuda_runtime.h>

#include "stage.h"

static __global__ void reduce_sized(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_sized(const int *in, int *out, size_t n, unsigned threads)
{
    int device = 0, count = 0, sms = 0, per_sm = 0, min_grid = 0, best_block = 0;
    cudaGetDeviceCount(&count);
    cudaGetDevice(&device);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaFuncSetAttribute(reduce_sized, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(threads * sizeof(int)));
    cudaFuncAttributes attributes;
    cudaFuncGetAttributes(&attributes, reduce_sized);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_sized, (int)threads, threads * sizeof(int));
    cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, reduce_sized, 0, 0);
    size_t blocks = (n + threads - 1) / threads, wave = (size_t)(sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
    if (blocks > wave)
        blocks = wave;
    reduce_sized<<<(unsigned int)blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    cudaPeekAtLastError();
    cudaDeviceSynchronize();
    return blocks;
}

KIT_REGISTER_STAGE(clean_device_queries, launch_sized)

/* Audit fixture, forbidden: cub::DeviceReduce::Sum does the reduction, its temp storage in a static __device__ array (no cudaMalloc). */
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include "stage.h"

static __device__ unsigned char temp_storage[1 << 16];

static size_t launch_cub_device_reduce(const int *in, int *out, size_t n, unsigned threads)
{
    (void)threads;
    void *temp = nullptr;
    size_t bytes = sizeof temp_storage;
    cudaGetSymbolAddress(&temp, temp_storage);
    cub::DeviceReduce::Sum(temp, bytes, in, out, (int)n);
    return 1;
}

KIT_REGISTER_STAGE(cub_device_reduce, launch_cub_device_reduce)

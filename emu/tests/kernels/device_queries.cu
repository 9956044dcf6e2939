/*
 * Emulator fixture (stage 7's slot), a valid alternative kernel whose launcher asks the device.
 *
 * Everything a launcher may ask, and what an sm_90 GPU answers: cudaGetDevice,
 * cudaDeviceGetAttribute, cudaGetDeviceProperties (compute capability 9.0, warps of 32, 48 KB
 * of shared memory per block), cudaOccupancyMaxActiveBlocksPerMultiprocessor, cudaFuncGetAttributes,
 * cudaFuncSetAttribute (64 KB of dynamic shared memory, more than the 48 KB default),
 * cudaGetLastError, cudaPeekAtLastError and cudaDeviceSynchronize. The preprocessor must see
 * nvcc's macros and no KIT_EMULATOR, and the kernel the sm_90 path of `#if __CUDA_ARCH__`:
 * any other answer makes the launcher report no result, or the kernel a wrong sum.
 */
#include <cuda_runtime.h>

#include "stage.h"

#if !defined(__CUDACC__) || !defined(__NVCC__) || !defined(__CUDACC_VER_MAJOR__) || __CUDACC_VER_MAJOR__ < 12
#error "a stage file sees nvcc's predefined macros"
#endif
#if !defined(__CUDACC_VER_MINOR__) || !defined(__CUDACC_VER_BUILD__) || CUDART_VERSION < 12000
#error "a stage file sees nvcc's version macros and CUDART_VERSION"
#endif
#ifdef KIT_EMULATOR
#error "a stage file must not see KIT_EMULATOR"
#endif

#define FULL_WARP 0xffffffffu
#define DYNAMIC_SHARED (64 * 1024)

static __global__ void device_queries(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
#if __CUDA_ARCH__ >= 800
    sum = __reduce_add_sync(FULL_WARP, sum);
#else
    sum = 0; /* not the path an sm_90 GPU takes: a wrong sum if the emulator took it */
#endif
    if ((tid & 31) == 0)
        sdata[tid / 32 + DYNAMIC_SHARED / sizeof(int) - 32] = sum; /* the last 128 bytes of 64 KB */
    __syncthreads();
    if (tid == 0) {
        int total = 0;
        for (unsigned int w = 0; w < blockDim.x / 32; w++)
            total += sdata[w + DYNAMIC_SHARED / sizeof(int) - 32];
        out[blockIdx.x] = total;
    }
}

static size_t launch_device_queries(const int *in, int *out, size_t n, unsigned threads)
{
    int device = -1, sms = 0, per_sm = 0, warp = 0, major = 0, minor = 0, shared = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device != 0)
        return 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess || prop.major != 9 || prop.minor != 0 ||
        major != 9 || minor != 0 || warp != 32 || prop.warpSize != 32 || sms < 100 || prop.multiProcessorCount != sms ||
        per_sm != 2048 || prop.sharedMemPerBlock != 48 * 1024 || shared < DYNAMIC_SHARED ||
        prop.maxThreadsPerBlock != 1024 || prop.name[0] == '\0')
        return 0;

    if (cudaFuncSetAttribute(device_queries, cudaFuncAttributeMaxDynamicSharedMemorySize, DYNAMIC_SHARED) !=
        cudaSuccess)
        return 0;
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, device_queries) != cudaSuccess || attr.maxDynamicSharedSizeBytes != DYNAMIC_SHARED ||
        attr.maxThreadsPerBlock < (int)threads)
        return 0;
    int per_multiprocessor = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, device_queries, (int)threads,
                                                      DYNAMIC_SHARED) != cudaSuccess ||
        per_multiprocessor < 1 || per_multiprocessor > 3) /* 228 KB per SM: three blocks of 64 KB (+1 KB) */
        return 0;

    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    unsigned int wave = (unsigned int)(sms * per_multiprocessor);
    if (blocks > wave)
        blocks = wave;
    device_queries<<<blocks, threads, DYNAMIC_SHARED>>>(in, out, (unsigned int)n);
    if (cudaPeekAtLastError() != cudaSuccess || cudaGetLastError() != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess)
        return 0;
    return blocks;
}

KIT_REGISTER_STAGE(device_queries, launch_device_queries)

/**
 * \file emu/include/cuda_runtime_api.h
 * \brief The emulator's stand-in for CUDA's runtime API: the calls the kit's harness and
 *        stage files make, implemented on the CPU (emu/src/runtime.cpp).
 *
 * Plain C, so common/harness.c compiles against it unchanged. Names, numbers and meanings
 * follow CUDA's: "device" memory is host memory, copies are memcpy, a kernel runs to the
 * end inside its launch, so a stream is never busy. A fault the emulator finds in a kernel
 * (a barrier deadlock, an index outside shared memory, ...) is a sticky error as on a GPU:
 * cudaStreamQuery and later calls return it, and cudaGetErrorString gives the emulator's
 * message with block, thread and source line.
 */
#ifndef EMU_CUDA_RUNTIME_API_H
#define EMU_CUDA_RUNTIME_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks the emulated build: code that must know can test it. */
#define KIT_EMULATOR 1

/** CUDA's error codes, with CUDA's numbers (only those the emulator can return). */
typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevice = 101,
    cudaErrorNoDevice = 100,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchTimeout = 702,
    cudaErrorIllegalInstruction = 715,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
    cudaErrorUnknown = 999
} cudaError_t;

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
} cudaMemcpyKind;

/** The attributes cudaDeviceGetAttribute answers (CUDA's numbers). */
typedef enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76
} cudaDeviceAttr;

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

/** The fields of CUDA's cudaDeviceProp that the kit reads. */
struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int major, minor;
    int multiProcessorCount;
    int maxThreadsPerMultiProcessor;
    int l2CacheSize;
    int clockRate;
    int memoryClockRate;
    int memoryBusWidth;
};

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);

cudaError_t cudaMalloc(void **ptr, size_t bytes);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMallocHost(void **ptr, size_t bytes);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t stream);

cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);

cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);

/** Events read the host's clock: they time the emulator, never a GPU. */
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop);

/* ---------------------------------------------------------------- emulator controls */

/** The order in which the emulator resumes a block's threads after each barrier. */
typedef enum emu_order {
    EMU_ORDER_FORWARD = 0, /**< thread 0, 1, 2, ... */
    EMU_ORDER_REVERSE,     /**< the last thread first */
    EMU_ORDER_RANDOM       /**< a new seeded shuffle at every barrier */
} emu_order;

/** Sets the thread order (and the seed of EMU_ORDER_RANDOM) for the next launches. */
void emu_set_order(emu_order order, unsigned long long seed);
/** Name of an order ("forward", "reverse", "random"). */
const char *emu_order_name(emu_order order);
/** 1 in the race-detection build (ThreadSanitizer), 0 otherwise. */
int emu_race_mode(void);

#ifdef __cplusplus
}
#endif

#endif /* EMU_CUDA_RUNTIME_API_H */

/**
 * \file runtime.cpp
 * \brief The CUDA runtime calls the kit makes, on the CPU: memory is host memory, copies
 *        are memcpy, a kernel has finished when its launch returns.
 */
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/sysinfo.h>

#include "emu_internal.h"

namespace emu {

cudaError_t sticky_error = cudaSuccess;
cudaError_t last_error = cudaSuccess;
char fault_message[900];

void record_fault(cudaError_t code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(fault_message, sizeof fault_message, format, args);
    va_end(args);
    sticky_error = code;
}

void clear_fault()
{
    sticky_error = cudaSuccess;
    last_error = cudaSuccess;
    fault_message[0] = '\0';
}

/* What every call returns after a kernel fault, as on a GPU whose context is lost. */
static cudaError_t status() { return sticky_error; }

/* The emulated device. Four "SMs" of 2048 threads keep stage 7's one-wave grid small enough
 * to emulate quickly, yet make every block loop several times at n = 2^20. */
static const int kSms = 4;
static const int kThreadsPerSm = 2048;

} // namespace emu

using namespace emu;

extern "C" {

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) { return device == 0 ? status() : cudaErrorInvalidDevice; }

cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return status();
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    std::memset(prop, 0, sizeof *prop);
    std::snprintf(prop->name, sizeof prop->name, "the kit's CPU emulator (no GPU)");
    struct sysinfo info;
    if (sysinfo(&info) == 0)
        prop->totalGlobalMem = (size_t)info.totalram * info.mem_unit;
    prop->sharedMemPerBlock = 48 * 1024;
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
    prop->major = 7; /* Volta's rules: the lanes of a warp are scheduled independently */
    prop->minor = 0;
    prop->multiProcessorCount = kSms;
    prop->maxThreadsPerMultiProcessor = kThreadsPerSm;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = 48 * 1024; break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMultiProcessorCount: *value = kSms; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = kThreadsPerSm; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 7; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    default: *value = 0; break; /* clock rates, bus width, L2: no such thing here */
    }
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    struct sysinfo info;
    if (sysinfo(&info) != 0)
        return cudaErrorUnknown;
    *free_bytes = ((size_t)info.freeram + info.bufferram) * info.mem_unit;
    *total_bytes = (size_t)info.totalram * info.mem_unit;
    return status();
}

cudaError_t cudaDeviceSynchronize(void) { return status(); }

cudaError_t cudaDeviceReset(void)
{
    clear_fault();
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **ptr, size_t bytes)
{
    *ptr = nullptr;
    if (sticky_error)
        return sticky_error;
    /* 256-byte alignment, as cudaMalloc gives: int4 loads of the input are legal. */
    void *memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
    if (!memory)
        return last_error = cudaErrorMemoryAllocation;
    *ptr = memory;
    return cudaSuccess;
}

cudaError_t cudaFree(void *ptr)
{
    std::free(ptr);
    return status();
}

cudaError_t cudaMallocHost(void **ptr, size_t bytes) { return cudaMalloc(ptr, bytes); }
cudaError_t cudaFreeHost(void *ptr) { return cudaFree(ptr); }

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    if (sticky_error)
        return sticky_error;
    if ((int)kind < 0 || kind > cudaMemcpyDefault)
        return last_error = cudaErrorInvalidValue;
    if (bytes)
        std::memmove(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t)
{
    return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void *ptr, int value, size_t bytes)
{
    if (sticky_error)
        return sticky_error;
    std::memset(ptr, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t) { return cudaMemset(ptr, value, bytes); }

/* Launch errors only: a fault inside a kernel shows at the next synchronising call
 * (cudaStreamQuery, cudaMemcpy, ...), as a GPU's asynchronous errors do, even though the
 * emulator has already run the kernel when its launch returns. */
cudaError_t cudaGetLastError(void)
{
    cudaError_t error = last_error;
    last_error = cudaSuccess;
    return error;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchTimeout: return "cudaErrorLaunchTimeout";
    case cudaErrorIllegalInstruction: return "cudaErrorIllegalInstruction";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaErrorUnknown";
    }
}

const char *cudaGetErrorString(cudaError_t error)
{
    if (error != cudaSuccess && error == sticky_error && fault_message[0])
        return fault_message; /* the emulator's diagnostic: block, thread, line */
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    default: return "unknown error";
    }
}

cudaError_t cudaStreamQuery(cudaStream_t) { return status(); }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return status(); }

struct CUevent_st {
    double seconds;
};

static double host_seconds()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    *event = new CUevent_st{0.0};
    return status();
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    delete event;
    return status();
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t)
{
    event->seconds = host_seconds();
    return status();
}

cudaError_t cudaEventSynchronize(cudaEvent_t) { return status(); }

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    *ms = (float)((stop->seconds - start->seconds) * 1e3);
    return status();
}

/* The CUB baseline's entry point (common/baselines.cu on a GPU): a plain sum here, so the
 * harness links; the emulated ladder never times it. */
cudaError_t kit_cub_sum(void *temp, size_t *temp_bytes, const int *in, int *out, size_t n)
{
    if (!temp) {
        *temp_bytes = 16;
        return status();
    }
    int sum = 0;
    for (size_t i = 0; i < n; i++)
        sum = (int)((unsigned)sum + (unsigned)in[i]);
    *out = sum;
    return status();
}

} // extern "C"

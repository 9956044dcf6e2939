/**
 * \file runtime.cpp
 * \brief The CUDA runtime calls the kit makes, on the CPU: memory is host memory, copies
 *        are memcpy, a kernel has finished when its launch returns.
 */
#include <cstdarg>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/sysinfo.h>

#include "emu_internal.h"

namespace emu {

cudaError_t sticky_error = cudaSuccess;
cudaError_t last_error = cudaSuccess;
char fault_message[1400];

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

/* Whether the sticky fault has been reported by a call since the kernel that made it. On a GPU
 * a kernel's fault surfaces at a later call (asynchronously); cudaGetLastError returns it from
 * then on. The emulator knows it when the launch returns, but a launcher's cudaGetLastError()
 * right after its launch says cudaSuccess, as a GPU's does while the kernel is still running. */
static bool fault_reported = false;

/* What every call returns after a kernel fault, as on a GPU whose context is lost. */
static cudaError_t status()
{
    if (sticky_error)
        fault_reported = true;
    return sticky_error;
}

/* ---------------------------------------------------------------- the emulated device
 * To stage files the device is an sm_90 GPU: the figures of an H100 SXM5 80 GB (132 SMs of
 * 2048 threads, 32 blocks and 228 KB of shared memory per SM, 48 KB per block, 227 KB with
 * cudaFuncSetAttribute, 64K registers, warps of 32, 50 MB of L2), so a launcher that sizes its
 * grid from the device sees what it would see on the GPU the kit is measured on. Only the
 * harness's view (emu_get_device_properties, emu_device_get_attribute) names the emulator. */
static const char kGpuName[] = "NVIDIA H100 80GB HBM3";
static const size_t kGlobalMemory = (size_t)81559 * 1024 * 1024;
static const int kClockKhz = 1980000;
static const int kMemoryClockKhz = 2619000;
static const int kMemoryBusBits = 5120;
static const int kL2Bytes = 50 * 1024 * 1024;

static void describe_gpu(struct cudaDeviceProp *prop)
{
    std::memset(prop, 0, sizeof *prop);
    std::snprintf(prop->name, sizeof prop->name, "%s", kGpuName);
    std::memcpy(prop->uuid.bytes, "GPU-emulated-sm9", 16);
    prop->totalGlobalMem = kGlobalMemory;
    prop->sharedMemPerBlock = kSharedPerBlock;
    prop->regsPerBlock = 65536;
    prop->warpSize = 32;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
    prop->totalConstMem = 65536;
    prop->major = 9; /* Hopper; Volta's rules hold: the lanes of a warp are scheduled independently */
    prop->minor = 0;
    prop->textureAlignment = 512;
    prop->texturePitchAlignment = 32;
    prop->multiProcessorCount = kSmCount;
    prop->canMapHostMemory = 1;
    prop->maxTexture1D = 131072;
    prop->maxTexture1DMipmap = 32768;
    prop->maxTexture2D[0] = 131072;
    prop->maxTexture2D[1] = 65536;
    prop->surfaceAlignment = 512;
    prop->concurrentKernels = 1;
    prop->ECCEnabled = 1;
    prop->asyncEngineCount = 3;
    prop->unifiedAddressing = 1;
    prop->memoryBusWidth = kMemoryBusBits;
    prop->l2CacheSize = kL2Bytes;
    prop->persistingL2CacheMaxSize = 32505856;
    prop->maxThreadsPerMultiProcessor = kThreadsPerSm;
    prop->streamPrioritiesSupported = 1;
    prop->globalL1CacheSupported = 1;
    prop->localL1CacheSupported = 1;
    prop->sharedMemPerMultiprocessor = kSharedPerSm;
    prop->regsPerMultiprocessor = 65536;
    prop->managedMemory = 1;
    prop->concurrentManagedAccess = 1;
    prop->computePreemptionSupported = 1;
    prop->canUseHostPointerForRegisteredMem = 1;
    prop->cooperativeLaunch = 1;
    prop->sharedMemPerBlockOptin = kSharedPerBlockOptin;
    prop->maxBlocksPerMultiProcessor = kBlocksPerSm;
    prop->accessPolicyMaxWindowSize = 134213632;
    prop->reservedSharedMemPerBlock = kSharedReservedPerBlock;
    prop->hostRegisterSupported = 1;
    prop->sparseCudaArraySupported = 1;
    prop->timelineSemaphoreInteropSupported = 1;
    prop->memoryPoolsSupported = 1;
    prop->clusterLaunch = 1;
    prop->unifiedFunctionPointers = 1;
    prop->deviceNumaId = -1;
    prop->hostNumaId = -1;
    prop->gpuPciDeviceID = 0x233010de;
}

static int gpu_attribute(cudaDeviceAttr attr)
{
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: return 1024;
    case cudaDevAttrMaxBlockDimX: return 1024;
    case cudaDevAttrMaxBlockDimY: return 1024;
    case cudaDevAttrMaxBlockDimZ: return 64;
    case cudaDevAttrMaxGridDimX: return 2147483647;
    case cudaDevAttrMaxGridDimY: return 65535;
    case cudaDevAttrMaxGridDimZ: return 65535;
    case cudaDevAttrMaxSharedMemoryPerBlock: return (int)kSharedPerBlock;
    case cudaDevAttrTotalConstantMemory: return 65536;
    case cudaDevAttrWarpSize: return 32;
    case cudaDevAttrMaxPitch: return 2147483647;
    case cudaDevAttrMaxRegistersPerBlock: return 65536;
    case cudaDevAttrClockRate: return kClockKhz;
    case cudaDevAttrTextureAlignment: return 512;
    case cudaDevAttrGpuOverlap: return 1;
    case cudaDevAttrMultiProcessorCount: return kSmCount;
    case cudaDevAttrConcurrentKernels: return 1;
    case cudaDevAttrEccEnabled: return 1;
    case cudaDevAttrMemoryClockRate: return kMemoryClockKhz;
    case cudaDevAttrGlobalMemoryBusWidth: return kMemoryBusBits;
    case cudaDevAttrL2CacheSize: return kL2Bytes;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return kThreadsPerSm;
    case cudaDevAttrAsyncEngineCount: return 3;
    case cudaDevAttrUnifiedAddressing: return 1;
    case cudaDevAttrComputeCapabilityMajor: return 9;
    case cudaDevAttrComputeCapabilityMinor: return 0;
    case cudaDevAttrStreamPrioritiesSupported: return 1;
    case cudaDevAttrGlobalL1CacheSupported: return 1;
    case cudaDevAttrLocalL1CacheSupported: return 1;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return (int)kSharedPerSm;
    case cudaDevAttrMaxRegistersPerMultiprocessor: return 65536;
    case cudaDevAttrManagedMemory: return 1;
    case cudaDevAttrConcurrentManagedAccess: return 1;
    case cudaDevAttrComputePreemptionSupported: return 1;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: return 1;
    case cudaDevAttrCooperativeLaunch: return 1;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return (int)kSharedPerBlockOptin;
    case cudaDevAttrHostRegisterSupported: return 1;
    case cudaDevAttrMaxBlocksPerMultiprocessor: return kBlocksPerSm;
    case cudaDevAttrMaxPersistingL2CacheSize: return 32505856;
    case cudaDevAttrMaxAccessPolicyWindowSize: return 134213632;
    case cudaDevAttrReservedSharedMemoryPerBlock: return (int)kSharedReservedPerBlock;
    case cudaDevAttrMemoryPoolsSupported: return 1;
    case cudaDevAttrClusterLaunch: return 1;
    case cudaDevAttrNumaId: return -1;
    case cudaDevAttrHostNumaId: return -1;
    default: return 0;
    }
}

/* ---------------------------------------------------------------- kernels' attributes */

struct kernel_attributes {
    const void *kernel;
    int max_dynamic_shared;
    int carveout;
};
static kernel_attributes kernels[256];
static unsigned kernel_count = 0;

static kernel_attributes *find_kernel(const void *kernel, bool add)
{
    for (unsigned i = 0; i < kernel_count; i++)
        if (kernels[i].kernel == kernel)
            return &kernels[i];
    if (!add || kernel_count == sizeof kernels / sizeof kernels[0])
        return nullptr;
    kernels[kernel_count] = {kernel, (int)kSharedPerBlock, -1};
    return &kernels[kernel_count++];
}

size_t kernel_dynamic_shared_limit(const void *kernel)
{
    const kernel_attributes *k = find_kernel(kernel, false);
    return k ? (size_t)k->max_dynamic_shared : kSharedPerBlock;
}

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
    describe_gpu(prop);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    *value = gpu_attribute(attr);
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version)
{
    *version = 13000;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    *version = 13000;
    return cudaSuccess;
}

const char *emu_device_description(void) { return "the kit's CPU emulator (no GPU)"; }

cudaError_t emu_get_device_properties(struct cudaDeviceProp *prop, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    describe_gpu(prop);
    std::snprintf(prop->name, sizeof prop->name, "%s", emu_device_description());
    prop->memoryBusWidth = 0; /* no memory bandwidth to claim */
    return cudaSuccess;
}

cudaError_t emu_device_get_attribute(int *value, cudaDeviceAttr attr, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    *value = attr == cudaDevAttrMemoryClockRate || attr == cudaDevAttrGlobalMemoryBusWidth ||
                     attr == cudaDevAttrClockRate
                 ? 0
                 : gpu_attribute(attr);
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    /* The host's memory is what the emulator has, but no more than the GPU it stands for. */
    struct sysinfo info;
    if (sysinfo(&info) != 0)
        return cudaErrorUnknown;
    size_t host_free = ((size_t)info.freeram + info.bufferram) * info.mem_unit;
    *total_bytes = kGlobalMemory;
    *free_bytes = host_free < kGlobalMemory ? host_free : kGlobalMemory;
    return status();
}

cudaError_t cudaDeviceSynchronize(void) { return status(); }

cudaError_t cudaDeviceReset(void)
{
    clear_fault();
    fault_reported = false; /* kernels' attributes stay: a launcher may set them only once */
    return cudaSuccess;
}

/* ---------------------------------------------------------------- kernels: attributes, occupancy */

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    if (!attr || !func)
        return last_error = cudaErrorInvalidDeviceFunction;
    const kernel_attributes *k = find_kernel(func, false);
    std::memset(attr, 0, sizeof *attr);
    /* What the emulator cannot know before the kernel runs: its static shared memory (0 here)
     * and its registers (32 a thread, which never limits occupancy on sm_90). */
    attr->sharedSizeBytes = 0;
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = 32;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = k ? k->max_dynamic_shared : (int)kSharedPerBlock;
    attr->preferredShmemCarveout = k ? k->carveout : -1;
    return status();
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    if (!func)
        return last_error = cudaErrorInvalidDeviceFunction;
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || (size_t)value > kSharedPerBlockOptin)
            return last_error = cudaErrorInvalidValue;
        if (kernel_attributes *k = find_kernel(func, true))
            k->max_dynamic_shared = value;
        return status();
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100)
            return last_error = cudaErrorInvalidValue;
        if (kernel_attributes *k = find_kernel(func, true))
            k->carveout = value;
        return status();
    default: /* cluster attributes: accepted, nothing to do without clusters */
        return (int)attr >= (int)cudaFuncAttributeClusterDimMustBeSet && attr < cudaFuncAttributeMax
                   ? status()
                   : (last_error = cudaErrorInvalidValue);
    }
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache)
{
    return func ? status() : (last_error = cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func, int block_size,
                                                                   size_t dynamic_shared, unsigned int)
{
    if (!blocks || !func || block_size <= 0)
        return cudaErrorInvalidValue;
    *blocks = 0;
    if (block_size > 1024 || dynamic_shared > kernel_dynamic_shared_limit(func))
        return status();
    int warps = (block_size + 31) / 32;
    int by_threads = kThreadsPerSm / 32 / warps;
    /* shared memory in 128-byte units, plus the 1 KB the driver keeps per block */
    size_t per_block = (dynamic_shared + 127) / 128 * 128 + kSharedReservedPerBlock;
    int by_shared = (int)(kSharedPerSm / per_block);
    int result = by_threads < kBlocksPerSm ? by_threads : kBlocksPerSm;
    *blocks = by_shared < result ? by_shared : result;
    return status();
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                                          size_t dynamic_shared)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size, dynamic_shared,
                                                                  cudaOccupancyDefault);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *bytes, const void *func, int blocks, int block_size)
{
    if (!bytes || !func || blocks <= 0 || block_size <= 0 || block_size > 1024)
        return cudaErrorInvalidValue;
    int warps = (block_size + 31) / 32;
    if (blocks > kBlocksPerSm || blocks * warps > kThreadsPerSm / 32) {
        *bytes = 0;
        return status();
    }
    size_t per_block = kSharedPerSm / (size_t)blocks / 128 * 128;
    size_t available = per_block > kSharedReservedPerBlock ? per_block - kSharedReservedPerBlock : 0;
    size_t limit = kernel_dynamic_shared_limit(func);
    *bytes = available < limit ? available : limit;
    return status();
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
    device_memory_added(memory, bytes); /* what the counters call global memory */
    return cudaSuccess;
}

cudaError_t cudaFree(void *ptr)
{
    if (ptr)
        device_memory_removed(ptr);
    std::free(ptr);
    return status();
}

cudaError_t cudaMallocHost(void **ptr, size_t bytes) { return cudaMalloc(ptr, bytes); }
cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned int) { return cudaMalloc(ptr, bytes); }
cudaError_t cudaMallocManaged(void **ptr, size_t bytes, unsigned int) { return cudaMalloc(ptr, bytes); }
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
    if (sticky_error && fault_reported)
        return sticky_error; /* a lost context: every call says so, and it cannot be cleared */
    cudaError_t error = last_error;
    last_error = cudaSuccess;
    return error;
}

cudaError_t cudaPeekAtLastError(void) { return sticky_error && fault_reported ? sticky_error : last_error; }

const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchTimeout: return "cudaErrorLaunchTimeout";
    case cudaErrorIllegalInstruction: return "cudaErrorIllegalInstruction";
    case cudaErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorCooperativeLaunchTooLarge: return "cudaErrorCooperativeLaunchTooLarge";
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
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorIllegalInstruction: return "an illegal instruction was encountered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    case cudaErrorNotSupported: return "operation not supported";
    default: return "unknown error";
    }
}

/* Streams: every kernel has finished when its launch returns, so one stream is as good as any. */
struct CUstream_st {
    unsigned int flags;
};

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    if (!stream)
        return last_error = cudaErrorInvalidValue;
    *stream = new CUstream_st{flags};
    return status();
}

cudaError_t cudaStreamCreate(cudaStream_t *stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

static bool is_special_stream(cudaStream_t stream)
{
    return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (is_special_stream(stream))
        return last_error = cudaErrorInvalidResourceHandle;
    delete stream;
    return status();
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

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int) { return cudaEventCreate(event); }

/* A kernel has finished when its launch returns: an event is complete once recorded. */
cudaError_t cudaEventQuery(cudaEvent_t) { return status(); }

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

/* The CUB baseline's entry point (common/baselines.cu on a GPU, same signature): the host
 * computes what CUB's reduction gives, so the harness links and kit_time_cub's checked runs
 * are right; the emulated ladder never times it. type and op are common/kit.h's kit_type and
 * kit_op; the results are common/stage.h's types (kit_argmin: value, then index; kit_mat3: 9
 * ints), mirrored here since the runtime does not include the kit's headers. Same two-call
 * protocol as CUB: temp == NULL asks for the scratch size (16 bytes), which the second call
 * is given. n = 0 gives the operator's identity (argmin: INT_MAX at index -1). */
enum { KIT_INT = 0, KIT_FLOAT = 1, KIT_MAT3 = 2, KIT_MAT3_SOA = 3 };
enum { KIT_SUM = 0, KIT_MIN = 1, KIT_MAX = 2, KIT_ARGMIN = 3 };

cudaError_t kit_cub_reduce(int type, int op, void *temp, size_t *temp_bytes, const void *in, void *out, size_t n)
{
    bool known = (type == KIT_INT && (op == KIT_SUM || op == KIT_MIN || op == KIT_MAX || op == KIT_ARGMIN)) ||
                 (type == KIT_FLOAT && op == KIT_SUM) || ((type == KIT_MAT3 || type == KIT_MAT3_SOA) && op == KIT_MIN);
    if (!known || !temp_bytes)
        return last_error = cudaErrorInvalidValue;
    if (sticky_error)
        return sticky_error;
    if (!temp) {
        *temp_bytes = 16;
        return cudaSuccess;
    }
    if (*temp_bytes < 16 || (n && !in) || !out)
        return last_error = cudaErrorInvalidValue;
    const int *ints = static_cast<const int *>(in);
    int *result = static_cast<int *>(out);
    if (type == KIT_FLOAT) { /* in double, rounded to float once: CUB's tree is as close */
        const float *floats = static_cast<const float *>(in);
        double sum = 0.0;
        for (size_t i = 0; i < n; i++)
            sum += (double)floats[i];
        *static_cast<float *>(out) = (float)sum;
    } else if (type == KIT_INT && op == KIT_SUM) { /* wraps around, as the GPU's int adds do */
        unsigned int sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += (unsigned int)ints[i];
        std::memcpy(result, &sum, sizeof sum);
    } else if (type == KIT_INT && op == KIT_MAX) {
        int best = INT_MIN;
        for (size_t i = 0; i < n; i++)
            best = ints[i] > best ? ints[i] : best;
        *result = best;
    } else if (type == KIT_INT) { /* min, argmin: the first index of the smallest value */
        int best = INT_MAX;
        long long at = -1;
        for (size_t i = 0; i < n; i++)
            if (ints[i] < best || at < 0) {
                best = ints[i];
                at = (long long)i;
            }
        result[0] = best;
        if (op == KIT_ARGMIN)
            result[1] = (int)at;
    } else { /* matrices: the element-wise minimum, 9 components */
        int best[9];
        for (int c = 0; c < 9; c++)
            best[c] = INT_MAX;
        for (size_t i = 0; i < n; i++)
            for (size_t c = 0; c < 9; c++) {
                int v = type == KIT_MAT3 ? ints[9 * i + c] : ints[c * n + i]; /* a structure, or 9 planes */
                best[c] = v < best[c] ? v : best[c];
            }
        std::memcpy(result, best, sizeof best);
    }
    return cudaSuccess;
}

} // extern "C"

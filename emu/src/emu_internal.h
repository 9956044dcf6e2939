/**
 * \file emu_internal.h
 * \brief What the emulator's runtime (CUDA API) and scheduler (kernels) share.
 */
#ifndef EMU_INTERNAL_H
#define EMU_INTERNAL_H

#include "cuda_runtime_api.h"
#include "emu_control.h"

namespace emu {

/** A fault found in a kernel; like a GPU's, it is sticky: every later call returns it. */
extern cudaError_t sticky_error;
/** The error cudaGetLastError returns (and clears), e.g. a bad launch configuration. */
extern cudaError_t last_error;
/** The emulator's message for the sticky error: block, thread, source line. */
extern char fault_message[1400];

/** Records a kernel fault: sticky error \p code with a printf-style message. */
void record_fault(cudaError_t code, const char *format, ...) __attribute__((format(printf, 2, 3)));

/** Forgets a sticky fault (cudaDeviceReset). */
void clear_fault();

/** A misaligned load or store in the running kernel (emu/tools/misaligned_access.cpp, before the
 *  access): records cudaErrorMisalignedAddress, "emulator: kernel<<<grid, block>>> launched at
 *  file:line, block b: thread t loads an int4 at file:line through address 0x..., not a multiple
 *  of 16 bytes: a misaligned address, which fails the kernel on a GPU", and ends the launch at
 *  once, as the scheduler's other kernel faults. Inside a kernel only (counting.lane set); does
 *  not return. \p access: "loads", "stores" or "accesses"; \p type: "int4", ... */
[[noreturn]] void misaligned_address_error(const char *access, const char *type, const char *file, unsigned line,
                                           const void *address, unsigned long long bytes);

/* The emulated device, an sm_90 GPU (runtime.cpp has the whole description). */
constexpr int kSmCount = 132;
constexpr int kThreadsPerSm = 2048;
constexpr int kBlocksPerSm = 32;
constexpr size_t kSharedPerBlock = 48 * 1024;        /* without opting in */
constexpr size_t kSharedPerBlockOptin = 227 * 1024;  /* cudaFuncAttributeMaxDynamicSharedMemorySize's limit */
constexpr size_t kSharedPerSm = 228 * 1024;
constexpr size_t kSharedReservedPerBlock = 1024;     /* what the driver keeps per block (sm_80 on) */

/** The most dynamic shared memory a launch of \p kernel may ask for (48 KB unless raised by
 *  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ...)). */
size_t kernel_dynamic_shared_limit(const void *kernel);

/* ---------------------------------------------------------------- counters (counters.cpp)
 * The scheduler tells the counters where a launch, a block and a meeting start and end; the
 * instrumented stage files report every memory access (ThreadSanitizer's callbacks, plain
 * build only). */

/** One thread's shared-memory accesses since its last meeting point. */
struct lane_log {
    unsigned *entries; /* word << 4 | (words - 1) << 1 | store */
    unsigned length, capacity;
};

/** What the access callbacks read on every access; the scheduler keeps it current. */
struct count_state {
    lane_log *lane;                   /* the running GPU thread's log; null outside a kernel */
    emu_launch_counters *record;      /* the launch being counted; null: not counting */
    unsigned long long shared_base;   /* the block's shared memory */
    unsigned long long shared_bytes;
    unsigned long long device_low, device_span; /* every device allocation lies in here */
    unsigned long long stack_low, stack_span;   /* every fiber's stack lies in here */
};
extern count_state counting;
extern lane_log lane_logs[1024];

/** A launch of \p blocks blocks of \p threads threads with \p dynamic_shared bytes starts. */
void counters_launch_begin(unsigned long long blocks, unsigned threads, size_t dynamic_shared);
/** The launch ended; \p static_shared: bytes of the static __shared__ variables it declared. */
void counters_launch_end(size_t static_shared);
/** A block starts: \p shared, \p bytes its shared memory. */
void counters_block_begin(const void *shared, size_t bytes, unsigned threads);
/** Every thread of the block met at a __syncthreads*. */
void counters_block_barrier(unsigned threads);
/** The lanes \p mask of the warp starting at thread \p base (\p lanes lanes) met. */
void counters_warp_meeting(unsigned base, unsigned lanes, unsigned mask);
/** Every thread of the block has exited. */
void counters_block_end(unsigned threads);

/* ---------------------------------------------------------------- when other blocks see a store
 * (counters.cpp, plain build: the same instrumentation). A kernel's plain (and volatile)
 * stores to global memory are seen by its own block at once, by other blocks only after a
 * __threadfence() of the storing thread (or of a thread of its block that passed a
 * __syncthreads() after the store), an atomic on the same address, a grid sync, or the end of
 * the kernel: docs/emulator.md, "When other blocks see a store". */

/** A block starts or resumes (a cooperative launch, after a grid sync). */
void stores_block_begin();
/** Every thread of the running block met at a __syncthreads*. */
void stores_block_barrier();
/** The running block stopped: its stores no fence published are hidden from the blocks that
 *  run after it (memory gets their old values back until the kernel ends). */
void stores_block_end();
/** The kernel ended (or faulted): every store is seen. */
void stores_launch_end();
/** Thread \p thread of the running block made a __threadfence(). */
void stores_fence(unsigned thread);

/** The cudaMalloc allocation [*\p begin, *\p end) that holds \p a: false when none does. */
bool device_allocation(unsigned long long a, unsigned long long *begin, unsigned long long *end);

/** cudaMalloc gave [\p p, \p p + \p bytes); cudaFree takes it back. */
void device_memory_added(const void *p, size_t bytes);
void device_memory_removed(const void *p);

/* ---------------------------------------------------------------- the trace (trace.cpp)
 * What every thread of a small launch did, for a picture (emu_control.h, emu_trace_*). Off
 * unless emu_trace_start() was called: each hook is behind one test of `tracing`. */
extern bool tracing;

/** A load or store of \p bytes at \p p by the running thread; \p pc: its instruction. */
void trace_access(const volatile void *p, unsigned bytes, bool store, const void *pc);
/** An atomic of \p bytes at \p p, before it happens. */
void trace_atomic(const void *p, unsigned bytes, const void *pc);
/** Thread \p thread of the running block made a __threadfence(). */
void trace_fence(unsigned thread, const void *pc);
/** Thread \p thread arrived at a __syncthreads* (block_kind \p kind) at file:line. */
void trace_barrier(unsigned thread, int kind, const char *file, int line);
/** Thread \p thread's warp operation (warp_kind \p kind) returned \p result. */
void trace_warp(unsigned thread, int kind, unsigned mask, unsigned long long value, int param,
                unsigned long long result, const char *file, int line);
/** The lanes \p mask of the warp at \p base (\p lanes lanes) met. */
void trace_warp_meeting(unsigned base, unsigned lanes, unsigned mask);
/** Every thread of the running block met at a __syncthreads*: the next step begins. */
void trace_block_barrier();
/** A launch begins (the scheduler's launch_config, field by field). */
void trace_launch(const char *kernel, const char *file, int line, const unsigned grid[3], const unsigned block[3], size_t shmem);
/** A static __shared__ array \p name of \p bytes at \p offset in the block's shared memory. */
void trace_shared_array(const char *name, size_t offset, size_t bytes);
/** A block begins (blockIdx is set), ends; the launch ends. */
void trace_block_begin();
void trace_block_end();
void trace_launch_end();
/** The source position of the fault about to be reported (an index, a misaligned load). */
void trace_fault_at(const char *file, int line);
/** The running launch faulted: \p message, the running \p thread (-1: none). */
void trace_fault(int code, const char *message, int thread);
/** Where thread \p thread stood at the fault (the scheduler's fiber_state). */
void trace_thread_state(unsigned thread, int state, const char *file, int line);

/** CUDA's name of warp operation \p kind ("__shfl_down_sync", ...; scheduler.cpp). */
const char *warp_op_name(int kind);
/** CUDA's name of block barrier \p kind ("__syncthreads", "__syncthreads_count", ...). */
const char *barrier_name(int kind);

} // namespace emu

#endif /* EMU_INTERNAL_H */

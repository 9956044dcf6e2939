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

} // namespace emu

#endif /* EMU_INTERNAL_H */

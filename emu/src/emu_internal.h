/**
 * \file emu_internal.h
 * \brief What the emulator's runtime (CUDA API) and scheduler (kernels) share.
 */
#ifndef EMU_INTERNAL_H
#define EMU_INTERNAL_H

#include "cuda_runtime_api.h"

namespace emu {

/** A fault found in a kernel; like a GPU's, it is sticky: every later call returns it. */
extern cudaError_t sticky_error;
/** The error cudaGetLastError returns (and clears), e.g. a bad launch configuration. */
extern cudaError_t last_error;
/** The emulator's message for the sticky error: block, thread, source line. */
extern char fault_message[900];

/** Records a kernel fault: sticky error \p code with a printf-style message. */
void record_fault(cudaError_t code, const char *format, ...) __attribute__((format(printf, 2, 3)));

/** Forgets a sticky fault (cudaDeviceReset). */
void clear_fault();

} // namespace emu

#endif /* EMU_INTERNAL_H */

/**
 * \file kit_cuda.h
 * \brief The kit's one CUDA error check, for harness code that returns a ::kit_status.
 *
 * KIT_CUDA_TRY(call, err) runs a CUDA runtime call; if it fails, it writes
 * "file:line: call failed: <CUDA's message>" into \p err and makes the enclosing function
 * return KIT_CUDA_ERROR. KIT_LAUNCH_TRY(err) does the same for the last kernel launch
 * (cudaGetLastError), so a bad launch configuration is reported where it happened.
 */
#ifndef KIT_CUDA_H
#define KIT_CUDA_H

#include <cuda_runtime_api.h>

#include "kit.h"

/** Fills \p err for a failed CUDA call; returns KIT_CUDA_ERROR. */
kit_status kit_cuda_failure(kit_error *err, cudaError_t code, const char *call,
                            const char *file, int line);

/** Runs a CUDA runtime call; on failure fills \p err and returns KIT_CUDA_ERROR from the caller. */
#define KIT_CUDA_TRY(call, err)                                                   \
    do {                                                                          \
        cudaError_t kit_code_ = (call);                                           \
        if (kit_code_ != cudaSuccess)                                             \
            return kit_cuda_failure((err), kit_code_, #call, __FILE__, __LINE__); \
    } while (0)

/** Checks the last kernel launch (cudaGetLastError) the same way. */
#define KIT_LAUNCH_TRY(err) KIT_CUDA_TRY(cudaGetLastError(), err)

#endif /* KIT_CUDA_H */

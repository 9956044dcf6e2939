/**
 * \file no_gpu.h
 * \brief Why no GPU is usable, in the kit's words.
 *
 * On a machine without an NVIDIA GPU (no NVIDIA kernel driver loaded: no
 * /proc/driver/nvidia/version), CUDA's runtime says "CUDA driver version is insufficient for
 * CUDA runtime version" (cudaErrorInsufficientDriver), which reads as "update your driver";
 * the kit says "no NVIDIA GPU here (no NVIDIA driver loaded)" instead: even the error's name
 * read like a broken driver to a fresh instructor. Where a driver is loaded, CUDA's own message
 * stays: then it means what it says.
 */
#ifndef KIT_NO_GPU_H
#define KIT_NO_GPU_H

#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

/** Writes why no GPU is usable: \p code from cudaGetDeviceCount (cudaSuccess: it found 0). */
static inline void kit_no_gpu_reason(cudaError_t code, char *out, size_t size)
{
    if (code == cudaSuccess)
        snprintf(out, size, "no NVIDIA GPU here (0 CUDA devices)");
    else if (access("/proc/driver/nvidia/version", F_OK) != 0 &&
             ((int)code == 35 || (int)code == 100)) /* cudaErrorInsufficientDriver, cudaErrorNoDevice (not in
                                                        the emulator's header, which compiles this too) */
        snprintf(out, size, "no NVIDIA GPU here (no NVIDIA driver loaded)");
    else
        snprintf(out, size, "no usable NVIDIA GPU: %s (%s)", cudaGetErrorString(code), cudaGetErrorName(code));
}

#endif /* KIT_NO_GPU_H */

/**
 * \file emu/include/cuda_runtime.h
 * \brief What `#include <cuda_runtime.h>` gives a stage file in the emulated build: the
 *        runtime API, and in C++ the kernel language (emu_kernel.h).
 */
#ifndef EMU_CUDA_RUNTIME_H
#define EMU_CUDA_RUNTIME_H

#include "cuda_runtime_api.h"

#ifdef __cplusplus
#include "emu_kernel.h"
#endif

#endif /* EMU_CUDA_RUNTIME_H */

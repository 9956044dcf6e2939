/**
 * \file emu/include/cuda_runtime.h
 * \brief What `#include <cuda_runtime.h>` gives a stage file in the emulated build: the
 *        runtime API, and in C++ the kernel language and CUDA's template API (emu_kernel.h).
 *
 * As nvcc does with CUDA's cuda_runtime.h, the build force-includes this header into every
 * stage file, so a stage file that includes nothing still sees the whole language. The
 * include guard is CUDA's own.
 */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__

#include "cuda_runtime_api.h"

#ifdef __cplusplus
#include "emu_kernel.h"
#endif

#endif /* __CUDA_RUNTIME_H__ */

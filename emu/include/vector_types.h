/**
 * \file emu/include/vector_types.h
 * \brief CUDA's vector_types.h on the emulator: everything is in cuda_runtime.h.
 */
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__
#include "cuda_runtime.h"
#endif

/**
 * \file emu/include/vector_functions.h
 * \brief CUDA's vector_functions.h on the emulator: everything is in cuda_runtime.h.
 */
#ifndef __VECTOR_FUNCTIONS_H__
#define __VECTOR_FUNCTIONS_H__
#include "cuda_runtime.h"
#endif

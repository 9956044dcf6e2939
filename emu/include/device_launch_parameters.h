/**
 * \file emu/include/device_launch_parameters.h
 * \brief CUDA's device_launch_parameters.h on the emulator: everything is in cuda_runtime.h.
 */
#ifndef __DEVICE_LAUNCH_PARAMETERS_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
#include "cuda_runtime.h"
#endif

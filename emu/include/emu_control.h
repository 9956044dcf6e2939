/**
 * \file emu/include/emu_control.h
 * \brief The emulator's own controls, for the kit's harness and test programs only.
 *
 * A stage file must not be able to tell the emulator from a GPU, so nothing here is visible
 * to one: stage files see CUDA's API only (cuda_runtime_api.h), and that API answers like an
 * sm_90 GPU (runtime.cpp). The harness side, compiled with KIT_EMULATOR (a compile definition
 * that emu/CMakeLists.txt sets on the emu_harness_* libraries and hands on to the programs
 * that link them, never to stage files), gets this header through cuda_runtime_api.h; a
 * program may also include it directly.
 *
 * Plain C, like the harness.
 */
#ifndef EMU_CONTROL_H
#define EMU_CONTROL_H

#include "cuda_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The order in which the emulator resumes a block's threads after each barrier. */
typedef enum emu_order {
    EMU_ORDER_FORWARD = 0, /**< thread 0, 1, 2, ... */
    EMU_ORDER_REVERSE,     /**< the last thread first */
    EMU_ORDER_RANDOM       /**< a new seeded shuffle at every barrier */
} emu_order;

/** Sets the thread order (and the seed of EMU_ORDER_RANDOM) for the next launches. */
void emu_set_order(emu_order order, unsigned long long seed);
/** Name of an order ("forward", "reverse", "random"). */
const char *emu_order_name(emu_order order);
/** 1 in the race-detection build (ThreadSanitizer), 0 otherwise. */
int emu_race_mode(void);

/**
 * The time limit of each later launch, in seconds of CPU time (the harness calls it with its
 * own limit, kit_workspace::timeout_s: 10 s, or the ladder's --timeout). A launch still
 * running then is stopped and fails with cudaErrorLaunchTimeout (sticky, like any fault),
 * whose message names the block, a thread and the line where it last met the others. The
 * environment variable KIT_EMU_TIMEOUT, when set, overrides every call. 10 s by default.
 */
void emu_set_timeout(double seconds);
/** The limit in force (seconds of CPU time per launch). */
double emu_timeout(void);
/**
 * Called when a launch runs past its limit, with the emulator's message (kernel, block,
 * thread, line) and the limit. \p stopped 1: the launch was stopped, and the call that
 * launched it returns (cudaDeviceSynchronize then says cudaErrorLaunchTimeout); the hook may
 * end the process itself. \p stopped 0: a thread spins where it cannot be stopped (the
 * ThreadSanitizer build): called from the emulator's watchdog thread, after which the process
 * ends with exit status 124. NULL (the default): no hook.
 */
typedef void (*emu_timeout_hook)(const char *message, double seconds, int stopped);
void emu_set_timeout_hook(emu_timeout_hook hook);

/**
 * A shuffle that reads a lane outside its mask (or one its warp does not have) gets an
 * undefined value, as on a GPU, and no fault: a kernel that never uses the value is right.
 * The emulator records the first such read since emu_undefined_shuffle_forget() (or since
 * the program started), over every launch, so that a wrong result can name it. Writes the
 * note ("a shuffle (__shfl_down_sync) at F:L read lane X outside its mask 0x0000ffff (thread
 * T of block B, kernel launched at F:L): on a GPU that value is undefined ...", then how many
 * such reads in how many launches) into \p buffer (\p size bytes, always terminated), or ""
 * when there was none. Returns the note's full length (0: none).
 */
size_t emu_undefined_shuffle_note(char *buffer, size_t size);
/** Forgets the recorded undefined shuffle reads (before a run whose result will be checked). */
void emu_undefined_shuffle_forget(void);

/** What the harness calls the device in its reports: "the kit's CPU emulator (no GPU)". */
const char *emu_device_description(void);

/**
 * The harness's view of the device: cudaGetDeviceProperties() as a stage file sees it (an
 * sm_90 GPU: SM count, threads per SM, shared memory, ...), except that the name is
 * emu_device_description() and nothing claims a memory bandwidth (memoryBusWidth 0).
 */
cudaError_t emu_get_device_properties(struct cudaDeviceProp *prop, int device);
/** cudaDeviceGetAttribute(), the harness's view: 0 for the memory clock and bus width. */
cudaError_t emu_device_get_attribute(int *value, enum cudaDeviceAttr attr, int device);

/*
 * In the harness's own code (KIT_EMULATOR), the two device queries give the harness's view,
 * so common/harness.c reports "the kit's CPU emulator (no GPU)" without a line of its own
 * about the emulator. Define EMU_NO_HARNESS_VIEW before including to get the GPU's answers.
 */
#if defined(KIT_EMULATOR) && !defined(EMU_NO_HARNESS_VIEW)
#define cudaGetDeviceProperties emu_get_device_properties
#define cudaDeviceGetAttribute emu_device_get_attribute
#endif

#ifdef __cplusplus
}
#endif

#endif /* EMU_CONTROL_H */

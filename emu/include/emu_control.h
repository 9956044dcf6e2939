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

#include <stdio.h>

#include "cuda_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The order in which the emulator resumes a block's threads after each barrier, and runs the
 * blocks of a grid (one after another; never by index, which a GPU does not promise either).
 */
typedef enum emu_order {
    EMU_ORDER_FORWARD = 0, /**< threads 0, 1, 2, ...; blocks from a start block up to the last, then
                                from block 0 up to the one before the start; the start is the middle
                                block (blocks / 2) at the program's first launch and moves at every
                                launch (never block 0), so the blocks of two launches of a kernel
                                finish in different orders, as on a GPU */
    EMU_ORDER_REVERSE,     /**< the last thread first; the last block first */
    EMU_ORDER_RANDOM       /**< threads: a new seeded shuffle at every barrier; blocks: a shuffle
                                made from the seed, the same at every launch of a grid */
} emu_order;

/** Sets the thread and block order (and the seed of EMU_ORDER_RANDOM) for the next launches. */
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
 * ---------------------------------------------------------------- counters
 * What would make a launch slow on a GPU, counted while the emulator runs it: shared-memory
 * requests of a warp and their bank conflicts, idle lanes, barriers, global loads and their
 * width, blocks against the GPU's resident capacity. Deterministic: the same numbers on every
 * run and in every thread order (emu_set_order) for a kernel without races. The definitions
 * are in docs/emulator.md, "What the emulator counts"; in short:
 *
 *  - a warp is 32 consecutive threads of a block (linear thread index / 32);
 *  - a shared-memory request: the lanes of a warp that reach a meeting point together (a
 *    block barrier, a warp meeting, or the end of the block for the lanes that exited) bring
 *    their shared-memory accesses since their previous meeting point (or their start); the
 *    k-th access of each of these lanes (loads and stores in one sequence, in program order)
 *    make up request k;
 *  - banks: 32 banks of 4 bytes, bank = (byte offset in the block's shared memory / 4) % 32;
 *    a request's wavefronts are the largest number of distinct 4-byte words one bank is asked
 *    for; conflicts = wavefronts - requests;
 *  - global: every load and store of a kernel thread to memory cudaMalloc gave, by its width;
 *  - a global load request: grouped as shared-memory requests are (the k-th global load of
 *    each lane of a warp that meet together), from per-lane logs of their own; its sectors are
 *    the distinct 32-byte sectors (address / 32) its lanes touch, what Nsight Compute counts as
 *    l1tex__t_sectors_pipe_lsu_mem_global_op_ld for l1tex__t_requests_pipe_lsu_mem_global_op_ld:
 *    32 lanes reading 32 consecutive ints ask for 4 sectors, 32 consecutive int4s for 16, ints
 *    36 bytes apart (one kit_mat3 a lane) for 32; its sectors needed are the fewest that its
 *    distinct bytes fill, (bytes + 31) / 32 (4 in all three examples).
 *
 * The build that counts is the plain one (emu_runtime_plain, with GCC): the stage files are
 * compiled with ThreadSanitizer's instrumentation, whose callbacks the emulator's runtime
 * answers itself (libtsan is not linked). The race build counts nothing.
 */

/** The most launches kept after emu_counters_reset(): the later ones are not counted. */
#define EMU_COUNTERS_MAX_LAUNCHES 64

/** What one launch did (all counts over the whole grid). */
typedef struct emu_launch_counters {
    unsigned long long grid_blocks, block_threads; /* the launch's grid (x*y*z) and block size */
    unsigned long long shared_bytes_per_block;     /* static + dynamic shared memory */
    /* blocks of this launch the emulated GPU holds at once: SMs x min(maxBlocksPerMultiProcessor,
     * maxThreadsPerMultiProcessor / block_threads, sharedMemPerMultiprocessor /
     * shared_bytes_per_block) of the emulator's own cudaDeviceProp (132 x min(32, 2048 /
     * block_threads, 233472 / shared bytes); no shared memory: no shared-memory limit) */
    unsigned long long resident_blocks;
    unsigned long long block_barriers; /* __syncthreads* meetings, once per block per meeting */
    unsigned long long warp_meetings;  /* __syncwarp, shuffle, vote, __reduce_*_sync meetings, once per
                                          warp per meeting (not __activemask) */
    unsigned long long global_loads, global_load_bytes; /* thread-level loads from device memory */
    unsigned long long global_loads_by_width[5];        /* loads of 1, 2, 4, 8, 16 bytes */
    unsigned long long global_stores, global_store_bytes, global_atomics;
    unsigned long long shared_requests, shared_load_requests, shared_store_requests; /* warp-level; a
                                          request where some lanes load and others store is neither */
    unsigned long long shared_wavefronts, shared_bank_conflicts; /* conflicts = wavefronts - requests */
    unsigned long long shared_active_lanes, shared_idle_lanes, shared_divergent_requests;
    unsigned long long global_load_requests; /* warp-level global loads (the k-th of each lane that met) */
    unsigned long long global_load_sectors;  /* distinct 32-byte sectors of each request, summed */
    unsigned long long global_load_sectors_needed; /* (distinct bytes + 31) / 32 of each request, summed:
                                              sectors / needed is how many times the bytes asked for
                                              the L1 fetches (1 when coalesced, 8 for ints 36 bytes apart) */
} emu_launch_counters;

/** Forgets every launch counted so far. */
void emu_counters_reset(void);
/** Launches counted since the reset (at most EMU_COUNTERS_MAX_LAUNCHES; a launch refused for
 *  its configuration, or after a sticky fault, ran nothing and is not counted). */
size_t emu_counters_launches(void);
/** Copies launch \p launch (0: the first since the reset) into \p out: 0, or -1 for no such launch. */
int emu_counters_get(size_t launch, emu_launch_counters *out);
/** 1 when this build counts (the plain build, stage files instrumented), 0 otherwise. */
int emu_counters_available(void);

/*
 * ---------------------------------------------------------------- the trace
 * What every GPU thread of a small launch did, for a picture of a kernel
 * (tools/trace_picture.py): each load and store of shared memory, of memory cudaMalloc gave and
 * of the stage file's __device__ variables (value, bytes, source line), each barrier, warp
 * operation, fence and atomic, the threads active in each step (a step: the time between two
 * barriers of a block), and where a race, a stale read (a store no fence published), an early
 * read (before a block that ran later wrote the word), an access past the end of a named array
 * or the launch's fault happened. The JSON is described in docs/trace_format.md. Plain build only
 * (the race build traces nothing); off unless started, at the cost of one test per access.
 * Meant for a few blocks: past 16 blocks a launch, 16 launches or 2^20 records, the rest is
 * counted, not kept.
 */

/** The trace format's version, the "version" of docs/trace_format.md. */
#define EMU_TRACE_VERSION 2

/** 1 when this build can trace (the plain, counting build), 0 otherwise. */
int emu_trace_available(void);
/** Forgets what was recorded and records the next launches: 0, or -1 when this build cannot. */
int emu_trace_start(void);
/** Stops recording (what was recorded stays, for emu_trace_write_json()). */
void emu_trace_stop(void);
/** Names the device memory at \p base: \p valid_bytes the kernel may touch, and \p guard_bytes on
 *  each side that still count as this array (an access there is "past the end"). Kept until
 *  emu_trace_forget_names(). */
void emu_trace_name(const void *base, size_t valid_bytes, size_t guard_bytes, const char *name);
/** Forgets every name emu_trace_name() gave. */
void emu_trace_forget_names(void);
/** Records kept since emu_trace_start(). */
size_t emu_trace_events(void);
/** Writes what was recorded as one JSON object (a "run" of docs/trace_format.md without its
 *  own keys): 0, or -1 on a write error. */
int emu_trace_write_json(FILE *out);

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

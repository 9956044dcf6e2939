/**
 * \file counters.h
 * \brief Why a stage is fast or slow: hardware counters from Nsight Compute, and what the CPU
 * emulator counts instead.
 *
 * On a GPU, `reduce_ladder --counters` runs each row once more under NVIDIA's `ncu` (the
 * Nsight Compute command line, part of the CUDA toolkit), in a child process that profiles
 * exactly one run of the stage (`--counted-run`, between cudaProfilerStart and
 * cudaProfilerStop), and sums what ncu measured over the run's kernels (one per pass). No
 * CUDA here: the parent calls ncu before it opens the GPU itself.
 *
 * On the CPU emulator the same option prints what the emulator counted in the stage's first
 * pass (kit_emu_counts): bank conflicts, idle lanes, barriers, load widths, blocks against
 * the GPU's capacity. Deterministic, so the docs' pictures and a test can compare them.
 */
#ifndef KIT_COUNTERS_H
#define KIT_COUNTERS_H

#include <stddef.h>

#include "kit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What Nsight Compute measured for one run of a ladder row (all its kernels together). */
typedef struct kit_hw_counters {
    int kernels;                  /**< kernels profiled (a stage's passes; CUB's kernels) */
    double duration_ns;           /**< their GPU time, summed (ncu's gpu__time_duration) */
    double dram_bytes_read;       /**< bytes read from DRAM (HBM) */
    double warp_instructions;     /**< warp-level instructions executed */
    double thread_instructions;   /**< thread-level instructions with their predicate on */
    double branch_instructions;   /**< warp-level branch instructions executed */
    double shared_requests;       /**< warp-level shared-memory load and store instructions */
    double shared_bank_conflicts; /**< extra shared-memory wavefronts caused by bank conflicts */
    double occupancy_percent;     /**< achieved occupancy (active warps / maximum), time-weighted */
    char top_stall[40];           /**< the reason warps waited most, e.g. "long_scoreboard" */
    double top_stall_percent;     /**< its share of all the waiting, in percent */
    /* How well global loads coalesce (stages 13-15). Optional: an ncu output that lacks either
     * metric (an older run, a saved CSV) still parses, with has_global_loads 0. */
    int has_global_loads;         /**< 1 when the two counts below were measured */
    double global_load_requests;  /**< warp-level global load requests to L1 (one per load instruction and warp) */
    double global_load_sectors;   /**< 32-byte sectors those requests asked L1 for */
} kit_hw_counters;

/** Bank conflicts per shared-memory request (0 when there were no requests). */
double kit_hw_conflicts_per_request(const kit_hw_counters *c);
/** Threads doing useful work per executed warp instruction (32 = no idle lane). */
double kit_hw_active_threads(const kit_hw_counters *c);
/**
 * Sectors per global load request: 4 when a warp reads 32 consecutive ints (128 bytes), 16
 * for 32 consecutive int4, 32 when every lane's int lies in a sector of its own (32 lanes 36
 * bytes apart: stage 13's array of 3x3 matrices). 0 without requests or when
 * has_global_loads is 0.
 */
double kit_hw_sectors_per_request(const kit_hw_counters *c);

/** One sentence on what a stall reason means ("waiting for global memory", ...). */
const char *kit_stall_meaning(const char *reason);

/** The metrics kit_ncu_parse() reads, as one comma-separated list for `ncu --metrics`. */
const char *kit_ncu_metrics(void);

/**
 * Reads the output of `ncu --csv --page raw --metrics <kit_ncu_metrics()> ...` (its own
 * "==PROF==" lines may be mixed in) and sums every kernel it lists into \p out.
 * KIT_BAD_ARGUMENT with one line when ncu said it may not read the counters
 * (ERR_NVGPUCTRPERM), when it profiled no kernel, or when a metric is missing. The global
 * load metrics (l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum and
 * l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum) are optional: without their columns, or
 * without a number in one kernel's row ("n/a"), has_global_loads is 0 and the rest is read.
 */
kit_status kit_ncu_parse(const char *text, kit_hw_counters *out, kit_error *err);

/**
 * Finds ncu: $KIT_NCU if set, else `ncu` on PATH, else /usr/local/cuda/bin/ncu. Writes its
 * path into \p path; KIT_BAD_ARGUMENT with the message to print when there is none.
 */
kit_status kit_ncu_find(char *path, size_t size, kit_error *err);

/**
 * Runs `ncu --csv --page raw --profile-from-start off --metrics ... <program> <args...>` and
 * parses its output (kit_ncu_parse). \p program_argv is NULL-terminated; its program must
 * profile exactly the region it means (cudaProfilerStart/Stop). Spawns the process: call it
 * before this process touches CUDA (CUDA and fork() do not mix).
 */
kit_status kit_ncu_measure(const char *ncu, char *const program_argv[], kit_hw_counters *out,
                           kit_error *err);

/** What the CPU emulator counted in a stage's first pass (see docs/emulator.md). */
typedef struct kit_emu_counts {
    unsigned long long blocks;             /**< blocks pass 1 launched */
    unsigned long long threads_per_block;  /**< its block size */
    unsigned long long resident_blocks;    /**< blocks of that size the emulated GPU (an H100's 132 SMs) holds at once */
    double elements_per_thread;            /**< n / (blocks * threads) */
    unsigned long long block_barriers;     /**< __syncthreads meetings, once per block */
    unsigned long long warp_meetings;      /**< __syncwarp and shuffle meetings, once per warp */
    unsigned long long global_loads;       /**< thread-level loads from device memory */
    unsigned long long global_load_bytes;  /**< their bytes */
    unsigned long long shared_requests;    /**< warp-level shared-memory accesses */
    unsigned long long shared_bank_conflicts; /**< extra wavefronts from bank conflicts */
    unsigned long long shared_active_lanes;   /**< lanes taking part, summed over requests */
    unsigned long long shared_idle_lanes;     /**< lanes of the warp sitting out, summed */
    unsigned long long divergent_shared_requests; /**< requests where only some lanes take part */
    unsigned long long global_load_requests;  /**< warp-level global loads (as ncu's l1tex__t_requests_...) */
    unsigned long long global_load_sectors;   /**< 32-byte sectors they touch (as l1tex__t_sectors_...): 4 a
                                                   request of 32 consecutive ints, 16 of int4s, 32 of ints 36 B apart */
    unsigned long long global_load_sectors_needed; /**< the fewest sectors each request's distinct bytes fill, summed */
    unsigned long long launches;              /**< the launches counted (1 for kit_count_first_pass()) */
} kit_emu_counts;

/** Bytes per global load (0 without loads): 4 for an int, 16 for an int4. */
double kit_emu_load_width(const kit_emu_counts *c);
/** Bank conflicts per shared-memory request (0 without requests). */
double kit_emu_conflicts_per_request(const kit_emu_counts *c);
/** Idle lanes as a percentage of all lane slots of the shared-memory requests. */
double kit_emu_idle_lane_percent(const kit_emu_counts *c);
/** Block barriers (__syncthreads meetings) per block. */
double kit_emu_barriers_per_block(const kit_emu_counts *c);

/**
 * Runs \p stage once, checked (kit_run_checked), and fills \p counts with what the CPU
 * emulator counted in its first pass. KIT_BAD_ARGUMENT when this build is not the emulator
 * or the emulator build does not count (its ThreadSanitizer flavour).
 */
kit_status kit_count_first_pass(const kit_stage *stage, kit_workspace *ws, unsigned threads,
                                kit_emu_counts *counts, kit_error *err);

/**
 * Runs \p stage once, checked, and sums the global loads (requests, sectors, sectors needed) of
 * every launch of every pass: what the load rule counts, so that no launch (a decoy first one,
 * a later pass) escapes it. KIT_BAD_ARGUMENT as kit_count_first_pass(), and when the stage
 * launched more kernels than the emulator keeps counts of.
 */
kit_status kit_count_all_launches(const kit_stage *stage, kit_workspace *ws, unsigned threads,
                                  kit_emu_counts *counts, kit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* KIT_COUNTERS_H */

/**
 * \file kit.h
 * \brief The harness: stages, inputs, the CPU reference, checked and timed runs.
 *
 * Everything here returns a ::kit_status and, on failure, fills a ::kit_error with one
 * sentence a student can act on. Nothing here prints or exits: the ladder program and the
 * tests decide what to show and how to end.
 */
#ifndef KIT_H
#define KIT_H

#include <stddef.h>
#include <stdint.h>

#include "stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a harness call found. KIT_OK is 0; every other value is a failure. */
typedef enum kit_status {
    KIT_OK = 0,
    KIT_WRONG_RESULT,  /**< the stage finished but its sum is not the exact sum */
    KIT_NO_RESULT,     /**< some blocks left their partial sum unwritten (poison still there) */
    KIT_OUT_OF_BOUNDS, /**< the stage wrote outside the partial sums it said it wrote */
    KIT_INPUT_CHANGED, /**< the stage wrote into its input */
    KIT_BAD_LAUNCHER,  /**< the launcher returned a count of partial sums that cannot be right */
    KIT_TIMEOUT,       /**< the GPU did not finish in time: an endless loop or a deadlock */
    KIT_CUDA_ERROR,    /**< a CUDA call failed (the message names the call, file and line) */
    KIT_NO_GPU,        /**< no CUDA device is usable */
    KIT_BAD_ARGUMENT,  /**< a value given by the user is out of range */
    KIT_OUT_OF_MEMORY, /**< the GPU or host has too little memory for this n */
    KIT_TOO_FAST       /**< a timed run took less than reading its input allows
                            (kit_workspace::min_rep_ms): it cannot have read the input */
} kit_status;

/** A failure, as one line of text. */
typedef struct kit_error {
    kit_status status;  /**< what went wrong (KIT_OK if nothing did) */
    char message[1024]; /**< one sentence for the student: what was expected, what happened */
} kit_error;

/** Short upper-case name of a status ("OK", "WRONG", "NO RESULT", ...). */
const char *kit_status_name(kit_status status);

/** Records \p status and a printf-style message in \p err (if not NULL); returns \p status. */
kit_status kit_fail(kit_error *err, kit_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---------------------------------------------------------------- stages */

/** Number of stages in common/stages.def. */
#define KIT_STAGE_COUNT 7

/** One row of common/stages.def, bound to one implementation (labs or solutions). */
typedef struct kit_stage {
    int number;               /**< 1..KIT_STAGE_COUNT */
    const char *dir;          /**< folder under labs/ and solutions/, e.g. "03_sequential_addressing" */
    const char *name;         /**< kernel and file name, e.g. "reduce_sequential_addressing" */
    const char *title;        /**< a few words on the idea */
    unsigned min_threads;     /**< smallest supported block size (power of two) */
    unsigned max_threads;     /**< largest supported block size (power of two) */
    const kit_pass_fn *pass;  /**< the stage's launcher */
    const char *impl;         /**< "labs" or "solutions" */
    const char *source;       /**< path of the stage's .cu file, for messages */
} kit_stage;

/** The reference solutions, in stage order. */
extern const kit_stage kit_solutions_stages[KIT_STAGE_COUNT];
/** The labs (the student's kernels), in stage order. */
extern const kit_stage kit_labs_stages[KIT_STAGE_COUNT];

/** The stage with this number in \p table, or NULL. */
const kit_stage *kit_find_stage(const kit_stage *table, int number);

/** KIT_OK if \p threads is a power of two the stage supports; else KIT_BAD_ARGUMENT. */
kit_status kit_check_threads(const kit_stage *stage, unsigned threads, kit_error *err);

/* ---------------------------------------------------------------- inputs and reference */

/** The input patterns. Each catches a different kind of mistake. */
typedef enum kit_pattern {
    KIT_PATTERN_RANDOM,     /**< small signed ints in [-8, 8], seeded */
    KIT_PATTERN_POSITIONAL, /**< 1..15, a function of the index: a dropped or doubled element shows */
    KIT_PATTERN_ONES,       /**< all ones: the sum is n, so a count of lost elements is visible */
    KIT_PATTERN_LAST_ONLY   /**< zeros and one 7 in the very last slot: catches a lost tail */
} kit_pattern;

/** Number of input patterns. */
#define KIT_PATTERN_COUNT 4

/** Name of a pattern ("random", "positional", "ones", "last-only"). */
const char *kit_pattern_name(kit_pattern pattern);
/** Parses a pattern name; KIT_BAD_ARGUMENT if unknown. */
kit_status kit_pattern_parse(const char *text, kit_pattern *pattern, kit_error *err);

/** Fills \p values[0..n) with \p pattern; the same seed always gives the same input. */
void kit_fill_input(int *values, size_t n, kit_pattern pattern, uint64_t seed);

/** The exact sum of \p values, in 64 bits. */
int64_t kit_reference_sum(const int *values, size_t n);

/**
 * What a 32-bit int reduction must return for an exact sum: the sum modulo 2^32, as the
 * GPU's two's-complement adds give it. For the kit's patterns and n <= 2^27 no wrap happens.
 */
int kit_expected_int(int64_t exact_sum);

/* ---------------------------------------------------------------- the GPU */

/** The device the harness runs on. */
typedef struct kit_gpu {
    char name[256];         /**< e.g. "NVIDIA H200" */
    int sm_count;           /**< streaming multiprocessors */
    int l2_bytes;           /**< size of the L2 cache */
    int cc_major, cc_minor; /**< compute capability, e.g. 9 and 0 */
    double peak_gbps;       /**< theoretical DRAM bandwidth from clock and bus width; 0 if unknown */
    size_t free_bytes, total_bytes; /**< device memory free and in total, in bytes */
} kit_gpu;
/** \var kit_gpu::cc_major
 *  Compute capability, major part (9 on Hopper). */
/** \var kit_gpu::free_bytes
 *  Device memory free when the GPU was opened, in bytes. */

/** Opens device 0 and describes it; KIT_NO_GPU with a clear message if there is none. */
kit_status kit_gpu_open(kit_gpu *gpu, kit_error *err);

/** Device memory a workspace for \p n ints needs, in bytes. */
size_t kit_workspace_bytes(size_t n);

/* ---------------------------------------------------------------- runs */

/**
 * Device buffers for one input size: the input (followed by a guard of known values, so a
 * read past n shows in the sum) and two partial-sum buffers used in turn by the passes
 * (each between two poisoned guards, so a write outside them shows).
 */
typedef struct kit_workspace {
    size_t n;             /**< number of input ints */
    size_t capacity;      /**< partial sums each partial buffer holds */
    int *host_input;      /**< the input as it is on the GPU now (always equal to device_input) */
    int64_t expected;     /**< exact sum of host_input */
    kit_pattern pattern;  /**< the input pattern last filled in */
    uint64_t seed;        /**< the seed it was filled with */
    double timeout_s;     /**< how long one run may take before it counts as hung */
    double min_rep_ms;    /**< the floor: a timed run of a stage (or CUB) faster than this fails
                               with KIT_TOO_FAST; 0 (the default) = no floor. See kit_read_floor_ms() */
    uint64_t varied_runs; /**< timed runs whose input was varied so far: the variation generator's counter */
    int64_t last_run_sum; /**< exact sum of the input the latest timed run saw (the next one's differs) */
    int *device_input;    /**< n ints followed by KIT_INPUT_GUARD ints of KIT_INPUT_GUARD_VALUE */
    int *device_partial[2]; /**< the two partial-sum buffers, used in turn by the passes */
    void *cub_temp;       /**< scratch space for the CUB baseline (allocated on first use) */
    size_t cub_temp_bytes; /**< size of cub_temp */
} kit_workspace;

/** Value written into unwritten partial sums before each checked pass. */
#define KIT_POISON ((int)0xA5A5A5A5)
/** Ints after the input that hold KIT_INPUT_GUARD_VALUE, and around each partial buffer. */
#define KIT_INPUT_GUARD 1024
/** Ints of poison before and after each partial-sum buffer: a write outside it shows. */
#define KIT_PARTIAL_GUARD 64
/** What a read past the end of the input adds to the sum, per element read. */
#define KIT_INPUT_GUARD_VALUE (1 << 20)
/** Input elements a timed run changes before each repetition (see kit_time_stage()). */
#define KIT_VARIED_ELEMENTS 16

/** Allocates a workspace for \p n ints (1 <= n <= KIT_MAX_N). */
kit_status kit_workspace_init(kit_workspace *ws, size_t n, kit_error *err);
/** Generates the input, copies it to the GPU and computes its exact sum. */
kit_status kit_workspace_fill(kit_workspace *ws, kit_pattern pattern, uint64_t seed, kit_error *err);
/** Frees everything the workspace holds (safe on a zeroed or half-built workspace). */
void kit_workspace_free(kit_workspace *ws);

/**
 * Runs \p stage once with every check the kit has: partial buffers poisoned before each
 * pass (both of them before the first, as in a timed run), every partial sum written,
 * nothing written outside them, the input unchanged, and the final value equal to the exact
 * sum. \p got receives the stage's answer when it has one.
 */
kit_status kit_run_checked(const kit_stage *stage, kit_workspace *ws, unsigned threads,
                           int *got, kit_error *err);

/** Robust summary of repeated timings. */
typedef struct kit_timing {
    double median_ms;     /**< the median run: what GB/s and the speedups use */
    double min_ms, max_ms; /**< fastest and slowest run */
    double q1_ms, q3_ms;  /**< quartiles: (q3 - q1) / median is the spread */
    int reps;             /**< timed runs behind these figures */
} kit_timing;
/** \var kit_timing::min_ms
 *  The fastest timed run, in milliseconds. */
/** \var kit_timing::q1_ms
 *  First quartile of the timed runs: (q3 - q1) / median is the spread. */

/** Relative spread of a timing: (q3 - q1) / median (0 when the median is 0). */
double kit_timing_spread(const kit_timing *t);

/** Sorts \p ms[0..count) and summarizes it into \p timing (all zero when count < 1). */
void kit_timing_summarize(double *ms, int count, kit_timing *timing);

/**
 * Times all passes of \p stage with CUDA events: \p warmup untimed runs, then \p reps timed
 * runs. When its first pass starts, a timed run looks to the stage exactly like a checked
 * one, and no run can reuse an earlier answer. Before every run (warm-up ones too), outside
 * the timed region:
 *   - KIT_VARIED_ELEMENTS input elements change (positions and values from a generator seeded
 *     with kit_workspace::seed and kit_workspace::varied_runs; values stay in the pattern's
 *     small range, and the sum always differs from the previous run's and the filled input's);
 *     host_input and expected follow, and the original values are written back when timing
 *     ends, so a later kit_run_checked() sees the input kit_workspace_fill() made;
 *   - both partial-sum buffers and their guards are poisoned, as kit_run_checked() does;
 *   - the GPU is waited for, so each timed region starts on an idle GPU.
 * After every run its single value is read back and compared with the exact sum of that run's
 * input (KIT_WRONG_RESULT names the repetition), and a timed run faster than
 * kit_workspace::min_rep_ms fails with KIT_TOO_FAST. The timed region holds the passes only:
 * from an event recorded on the legacy default stream before the first launch to one after
 * the last, so it covers the stage's work on every blocking stream. (From the third pass on,
 * a pass's output buffer still holds the partial sums of two passes before, where a checked
 * run poisons it again: poisoning between passes would be timed.)
 */
kit_status kit_time_stage(const kit_stage *stage, kit_workspace *ws, unsigned threads,
                          int warmup, int reps, kit_timing *timing, kit_error *err);

/**
 * kit_time_stage(), and every timed repetition's time too: \p samples_ms[0..reps) receives
 * them in the order they ran (NULL: not wanted). The grader's statistics need the samples.
 */
kit_status kit_time_stage_samples(const kit_stage *stage, kit_workspace *ws, unsigned threads,
                                  int warmup, int reps, double *samples_ms, kit_timing *timing,
                                  kit_error *err);

/**
 * Times cub::DeviceReduce::Sum on the workspace's input, under the same conditions as
 * kit_time_stage() (input varied and partial buffers poisoned before each run, each run's
 * answer checked, the kit_workspace::min_rep_ms floor), so the ladder compares like with like.
 */
kit_status kit_time_cub(kit_workspace *ws, int warmup, int reps, kit_timing *timing, kit_error *err);

/**
 * Times a device-to-device copy of the input: the bandwidth ceiling. The partial buffers are
 * poisoned before each run, as for the stages (the same state of the L2 cache); the input is
 * not varied and no floor applies.
 */
kit_status kit_time_copy(kit_workspace *ws, int warmup, int reps, kit_timing *timing, kit_error *err);

/**
 * The least time a reduction of \p n ints can take, given \p copy = kit_time_copy() on a
 * workspace of the same n; 0 (no floor) when \p copy has no runs. For kit_workspace::min_rep_ms.
 *
 * The copy moves 8n bytes (n ints read, n written); a reduction reads 4n. A reduction is
 * allowed to read at most 1.5 times as fast as the copy's read+write rate, so the floor is
 * copy.median_ms * (4n / 8n) / 1.5 = copy.median_ms / 3. Why 1.5: on an H200 the copy moves
 * 4092 GB/s read+write, and CUB's reduction reads 3780 to 4452 GB/s at 2^26 to 2^28 ints, at
 * most 1.09 times the copy's rate: 1.5 leaves a margin of about 1.4 for noise and other GPUs
 * (at 2^26 on the H200 the floor is 0.131 / 3 = 0.044 ms; CUB takes 0.071 ms). A kernel that
 * skips its input (a remembered answer) takes a few microseconds. Meant for inputs far larger
 * than the L2 cache (the grader's 2^26); the message of KIT_TOO_FAST assumes the floor came
 * from a copy measured in the same run.
 */
double kit_read_floor_ms(size_t n, const kit_timing *copy);

/** How many times the copy's read+write rate a reduction may read at (kit_read_floor_ms()). */
#define KIT_READ_OVER_COPY 1.5

/**
 * Waits for all the GPU's work, but at most \p timeout_s seconds: KIT_TIMEOUT if it is still
 * busy, KIT_CUDA_ERROR if the work failed. It records an event on the legacy default stream
 * (which follows all earlier work of every blocking stream), polls it until the timeout, then
 * calls cudaDeviceSynchronize() for whatever else is left (work on non-blocking streams).
 */
kit_status kit_sync(double timeout_s, kit_error *err);
/** Waits for the GPU, but at most \p timeout_s seconds: KIT_TIMEOUT if it is still busy. */
kit_status kit_sync(double timeout_s, kit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* KIT_H */

/**
 * \file options.h
 * \brief Command-line options of the ladder program (parsing only; no CUDA here).
 */
#ifndef KIT_OPTIONS_H
#define KIT_OPTIONS_H

#include "kit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How the ladder prints its results. */
typedef enum kit_format { KIT_FORMAT_TABLE, KIT_FORMAT_CSV, KIT_FORMAT_JSON } kit_format;

/** Everything the ladder can be asked to do. */
typedef struct kit_options {
    int stage;          /**< 1..KIT_STAGE_COUNT, or 0 for all */
    int use_labs;       /**< 1: the kernels in labs/; 0: the reference solutions */
    size_t n;           /**< number of ints to reduce */
    int n_given;        /**< 1: --n was given (the CPU emulator's default n is smaller) */
    unsigned threads;   /**< block size */
    int reps;           /**< timed repetitions per row (at least KIT_MIN_REPS) */
    uint64_t seed;      /**< input seed */
    kit_pattern pattern;  /**< input pattern */
    kit_format format;    /**< table, csv or json */
    double timeout_s;   /**< a run longer than this counts as hung */
    int baselines;      /**< 1: also time CUB and a device-to-device copy */
    int emulate;        /**< 1: run on the CPU emulator even when there is a GPU */
    int counters;       /**< 1: also say why, with hardware counters (ncu) or the emulator's counts */
    int counted_run;    /**< internal, for --counters: 1..KIT_STAGE_COUNT, or KIT_COUNTED_CUB: run
                             that row once for the profiler, print nothing; 0: not such a run */
    int help;           /**< 1: --help was given */
    int host;           /**< the CPU rows and the host-to-device rows: 1 (--host), 0 (--no-host), or -1 (the
                             default: with the full ladder, not with --stage K) */
    int sweep;          /**< 1: --sweep: stages 7 and 8, CUB, the copy and an empty launch at every n */
    size_t sweep_from;  /**< --from: the sweep's smallest n, a power of two (default KIT_SWEEP_MIN_N) */
    size_t sweep_to;    /**< --to: the sweep's largest n, a power of two (default KIT_SWEEP_MAX_N) */
    int sweep_to_given; /**< 1: --to was given (the CPU emulator's sweep otherwise ends at KIT_EMULATED_N quietly) */
} kit_options;

/** The emulated ladder's n when --n is not given: 2^20 takes the CPU a fraction of a second
 *  per stage (2^26, the GPU's default, took over a minute for the seven stages on 2 cores). */
#define KIT_EMULATED_N ((size_t)1 << 20)

/** The smallest n --sweep runs (and --from takes). */
#define KIT_SWEEP_MIN_N ((size_t)1 << 10)
/** The largest n --sweep runs (and --to takes): 1 GiB of ints. */
#define KIT_SWEEP_MAX_N ((size_t)1 << 28)
/** Up to this n the sweep times each row KIT_SWEEP_SMALL_REPS times (or --reps, if more): a run
 *  takes microseconds there, and its median moves with a few dozen runs. Above it, --reps. */
#define KIT_SWEEP_SMALL_N ((size_t)1 << 20)
/** Timed repetitions per row of the sweep up to KIT_SWEEP_SMALL_N. */
#define KIT_SWEEP_SMALL_REPS 200

/** kit_options::counted_run for the CUB row. */
#define KIT_COUNTED_CUB (KIT_STAGE_COUNT + 1)

/** Fewest timed repetitions a row may use: fewer gives a median that moves. */
#define KIT_MIN_REPS 20

/** The defaults: all stages, solutions, n = 2^26 (KIT_EMULATED_N on the CPU emulator), 256
 *  threads, 30 repetitions. */
void kit_options_default(kit_options *options);

/** Parses argv into \p options; KIT_BAD_ARGUMENT with one line in \p err for any bad value. */
kit_status kit_parse_options(int argc, char **argv, kit_options *options, kit_error *err);

/** Parses a count: decimal ("67108864"), a power of two ("2^26") or a shift ("1<<26"). */
kit_status kit_parse_count(const char *text, const char *what, size_t *value, kit_error *err);

/** The k of a power of two 2^k (for a number that is not one: the k of the largest below it). */
int kit_log2(size_t p);

/** The --help text. */
const char *kit_usage(void);

#ifdef __cplusplus
}
#endif

#endif /* KIT_OPTIONS_H */

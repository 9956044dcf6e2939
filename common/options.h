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
    int stage;          /**< 1..KIT_STAGE_COUNT, or 0 for all (the int sum's ladder, then one section per
                             other problem: see kit_usage()) */
    int use_labs;       /**< 1: the kernels in labs/; 0: the reference solutions */
    size_t n;           /**< number of ints to reduce (each other problem reads as many bytes: n / its
                             words per element, kit_in_words()) */
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
    int counted_cub_of; /**< with KIT_COUNTED_CUB: CUB on the problem and input of this stage
                             ("--counted-run cub:K"); 0: the int sum's ("cub") */
    int help;           /**< 1: --help was given */
    int host;           /**< the CPU rows and the host-to-device rows: 1 (--host), 0 (--no-host), or -1 (the
                             default: with the full ladder, not with --stage K) */
    int sweep;          /**< 1: --sweep: stages 7 and 8, CUB, the copy and an empty launch at every n */
    size_t sweep_from;  /**< --from: the sweep's smallest n, a power of two (default KIT_SWEEP_MIN_N) */
    size_t sweep_to;    /**< --to: the sweep's largest n, a power of two (default KIT_SWEEP_MAX_N) */
    int sweep_to_given; /**< 1: --to was given (the CPU emulator's sweep otherwise ends at KIT_EMULATED_N quietly) */
    int accuracy;       /**< 1: --accuracy: float sums' relative errors against n (from --from to --to, every
                             second power of two; --to defaults to KIT_ACCURACY_MAX_N there) */
    int threads_given;  /**< 1: --threads was given (--picture then draws that block size only) */
    const char *picture; /**< --picture FILE.html: draw stage K's launch from a trace (common/picture.c) */
    const char *trace;   /**< --trace FILE.json: write the trace of stage K's launch (docs/trace_format.md) */
    int compare;         /**< 1: --compare: the reference's trace beside the lab's in --picture and --trace */
} kit_options;

/** The largest n --picture and --trace take: a trace is of a few blocks. */
#define KIT_TRACE_MAX_N ((size_t)1 << 14)

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

/** The largest n --accuracy runs by default: 2^26 floats. */
#define KIT_ACCURACY_MAX_N ((size_t)1 << 26)
/** The n of the course's example in --accuracy: 1 + 2 + ... + 10000 (the positional float pattern). */
#define KIT_ACCURACY_EXAMPLE_N ((size_t)10000)

/** kit_options::counted_run for a CUB row. */
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

/**
 * The section of the ladder \p stage is shown in, named by its baseline stage: the baseline of
 * the first stage (in common/stages.def) that reduces the same data with the same operator,
 * 3x3 matrices as structures and as planes being the same data (1 for the int sums, 9 for the
 * float sum, 13 for stages 13, 14 and 15). 0 for a stage that does not exist.
 */
int kit_ladder_section(int stage);

/** The problem (type and operator) of \p stage in common/stages.def (the int sum if none). */
kit_problem kit_stage_problem(int stage);

/** The --help text (it lists the ladder's sections from common/stages.def). */
const char *kit_usage(void);

#ifdef __cplusplus
}
#endif

#endif /* KIT_OPTIONS_H */

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
    KIT_TOO_FAST,      /**< a timed run took less than reading its input allows
                            (kit_workspace::min_rep_ms): it cannot have read the input */
    KIT_NOT_RELEASED   /**< the stage is not in this edition of the kit (a student edition
                            holds the stages handed out so far) */
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

/* ---------------------------------------------------------------- what is reduced */

/** What a stage reduces (the type column of common/stages.def). Every type is made of 4-byte
 *  words, which is all the harness needs to poison, guard and compare. */
typedef enum kit_type {
    KIT_INT = 0,     /**< int32 */
    KIT_FLOAT = 1,   /**< IEEE-754 binary32 */
    KIT_MAT3 = 2,    /**< a 3x3 int matrix, its 9 ints one after the other (kit_mat3; an array of structures) */
    KIT_MAT3_SOA = 3 /**< the same matrices stored as 9 planes: component c of matrix i at in[c * n + i] */
} kit_type;

/** With what a stage reduces (the op column of common/stages.def). */
typedef enum kit_op {
    KIT_SUM = 0,   /**< + (floats: within the error bound of kit_float_bound(), and reproducible) */
    KIT_MIN = 1,   /**< the smallest value; for matrices, of each of the 9 components */
    KIT_MAX = 2,   /**< the largest value */
    KIT_ARGMIN = 3 /**< the smallest value and the first (smallest) index that holds it: a kit_argmin */
} kit_op;

/** The most 4-byte words one element or one result has (a kit_mat3). */
#define KIT_MAX_WORDS 9

/** One element or one result, as words: an int, a float's bits, a kit_argmin or a kit_mat3. */
typedef struct kit_value {
    int32_t w[KIT_MAX_WORDS]; /**< the words; only the problem's kit_out_words() of them count */
} kit_value;

/** A type and an operator: one row of the table in common/problems.c. */
typedef struct kit_problem {
    kit_type type; /**< what is reduced */
    kit_op op;     /**< with what */
} kit_problem;

/** The int sum of stages 1 to 8. */
#define KIT_INT_SUM ((kit_problem){KIT_INT, KIT_SUM})

/** "int", "float", "3x3 int matrix", "3x3 int matrix (9 planes)". */
const char *kit_type_name(kit_type type);
/** "sum", "min", "max", "argmin". */
const char *kit_op_name(kit_op op);
/** "int sum", "float sum", "element-wise min of 3x3 int matrices (9 planes)", ... */
const char *kit_problem_name(kit_problem problem);
/** Whether the kit can reduce this pair (KIT_OK), else KIT_BAD_ARGUMENT saying which pairs it can. */
kit_status kit_problem_check(kit_problem problem, kit_error *err);
/** Whether two problems are the same pair. */
int kit_problem_equal(kit_problem a, kit_problem b);
/** 4-byte words per input element (1, or 9 for matrices). */
size_t kit_in_words(kit_problem problem);
/** 4-byte words per result and per partial result (2 for argmin, 9 for matrices, else 1). */
size_t kit_out_words(kit_problem problem);
/** Whether a pass's partial results are stored as planes (KIT_MAT3_SOA): component c of result
 *  b at out[c * count + b], for the count of results the pass returns. */
int kit_out_planar(kit_problem problem);

/* ---------------------------------------------------------------- stages */

/** How a stage's launcher finishes the reduction (the last column of common/stages.def). */
typedef enum kit_passes {
    KIT_PASSES_MANY = 0, /**< one partial sum per block; the harness calls it again until one is left */
    KIT_PASSES_ONE = 1   /**< the whole sum in out[0], in one call of the launcher (which returns 1) */
} kit_passes;

/** Number of stages in common/stages.def (one `+ 1` per row). */
#define KIT_STAGE(number, dir, name, title, min_threads, max_threads, passes, type, op, baseline) +1
enum { KIT_STAGE_COUNT = 0
#include "stages.def"
};
#undef KIT_STAGE

/** One row of common/stages.def, bound to one implementation (labs or solutions). */
typedef struct kit_stage {
    int number;               /**< 1..KIT_STAGE_COUNT */
    const char *dir;          /**< folder under labs/ (and solutions/ in the instructor's edition), e.g. "03_sequential_addressing" */
    const char *name;         /**< kernel and file name, e.g. "reduce_sequential_addressing" */
    const char *title;        /**< a few words on the idea */
    unsigned min_threads;     /**< smallest supported block size (power of two) */
    unsigned max_threads;     /**< largest supported block size (power of two) */
    kit_passes passes;        /**< whether the launcher is called once or until one value is left */
    kit_problem problem;      /**< what it reduces, with what (the type and op columns) */
    int baseline;             /**< the stage whose reference its speed is measured against */
    const kit_pass_fn *pass;  /**< the stage's launcher (type-erased: see KIT_REGISTER_STAGE) */
    const kit_signature *signature; /**< the element types the launcher was written for (NULL in a
                                         table entry for a stage not in this edition) */
    const char *impl;         /**< "labs" or "solutions" */
    const char *source;       /**< path of the stage's .cu file, for messages */
} kit_stage;

/** The reference solutions, in stage order. */
extern const kit_stage kit_solutions_stages[KIT_STAGE_COUNT];
/** The labs (the student's kernels), in stage order. */
extern const kit_stage kit_labs_stages[KIT_STAGE_COUNT];

/** The stage with this number in \p table, or NULL. */
const kit_stage *kit_find_stage(const kit_stage *table, int number);

/** Whether \p stage is in this edition: a student edition's tables hold a NULL launcher
 *  for the stages not handed out yet (generated by CMake, see KIT_RELEASED_STAGES). */
int kit_stage_released(const kit_stage *stage);

/** KIT_OK if the stage is in this edition (else KIT_NOT_RELEASED) and \p threads is a power
 *  of two the stage supports (else KIT_BAD_ARGUMENT). */
kit_status kit_check_threads(const kit_stage *stage, unsigned threads, kit_error *err);

/* ---------------------------------------------------------------- inputs and reference */

/**
 * The input patterns: the rows of the one table in common/input.c. Each catches a different kind
 * of mistake. The first four keep every value at most 15 in magnitude, so an answer's size tells
 * what was lost; the full-range ones (kit_pattern_is_full_range()) span the whole type and plant
 * one extreme at an element the seed chooses (kit_pattern_extremes()), so a kernel that skips an
 * element, compares ints as floats or orders signed values as unsigned ones gives a wrong answer.
 * kit_fill_problem() says what each holds for each problem.
 */
typedef enum kit_pattern {
    KIT_PATTERN_RANDOM,       /**< small signed ints in [-8, 8], seeded */
    KIT_PATTERN_POSITIONAL,   /**< 1..15, a function of the index: a dropped or doubled element shows */
    KIT_PATTERN_ONES,         /**< all ones: the sum is n, so a count of lost elements is visible */
    KIT_PATTERN_LAST_ONLY,    /**< zeros and one 7 in the very last slot: catches a lost tail */
    KIT_PATTERN_FULL_RANGE,   /**< ints anywhere from INT_MIN to INT_MAX, both signs; the only extreme at
                                   element seed mod n */
    KIT_PATTERN_ALL_NEGATIVE, /**< full range, every value negative */
    KIT_PATTERN_ALL_POSITIVE, /**< full range, every value positive */
    KIT_PATTERN_TIES,         /**< full range, the extreme at element seed mod n and again at up to
                                   KIT_PATTERN_MAX_TIES - 1 later elements far apart: the first must win */
    KIT_PATTERN_LONE_SIGN     /**< full range, the extreme alone of its sign (min: one negative among
                                   positives; max: one positive among negatives): every other block's
                                   extreme has the other sign */
} kit_pattern;

/** Number of input patterns. */
#define KIT_PATTERN_COUNT 9

/** Name of a pattern ("random", "positional", "ones", "last-only", "full-range", "all-negative",
 *  "all-positive", "ties", "lone-sign"). */
const char *kit_pattern_name(kit_pattern pattern);
/** Parses a pattern name; KIT_BAD_ARGUMENT if unknown. */
kit_status kit_pattern_parse(const char *text, kit_pattern *pattern, kit_error *err);
/** Whether \p pattern spans the whole type and plants its extreme at element seed mod n. */
int kit_pattern_is_full_range(kit_pattern pattern);

/** Fills \p values[0..n) with \p pattern (the int sum's input: kit_fill_problem(KIT_INT_SUM, ...));
 *  the same seed always gives the same input. */
void kit_fill_input(int *values, size_t n, kit_pattern pattern, uint64_t seed);

/** The exact sum of the int sum's input kit_fill_input() makes, computed without storing it (exact:
 *  2^30 values of magnitude at most 2^31 stay far within int64). */
int64_t kit_pattern_sum(size_t n, kit_pattern pattern, uint64_t seed);

/** Elements that hold the extreme in the ties pattern, at most. */
#define KIT_PATTERN_MAX_TIES 8

/** What kit_pattern_extreme_index() answers for an input with no planted extreme. */
#define KIT_NO_EXTREME ((size_t)-1)

/**
 * The elements (matrices, for matrices) whose component \p component holds the extreme that
 * \p pattern planted in the input of (\p problem, \p n, \p seed), in increasing order, into \p at;
 * returns how many (0: none planted). The extreme is the minimum (min, argmin, matrices, the int
 * sum's values), the maximum (max), or for the float sum its one value of largest magnitude. It is
 * unique, except in the ties pattern, whose first element is the one an argmin must answer.
 *   - Full-range patterns: the first element is seed mod n, so seed = index + k n
 *     (kit_pattern_seed_at()) puts it at any index, with other values for each k. Matrices:
 *     component c's at (seed mod n + c (n / 9)) mod n (n >= 9; c apart for a smaller n), nine
 *     matrices apart. Ties: then every gap = (n - 1 - first) / (KIT_PATTERN_MAX_TIES - 1)
 *     elements after it, KIT_PATTERN_MAX_TIES in all (fewer when fewer elements follow: a
 *     first at n - 1 has no tie).
 *   - last-only: n - 1. The other small patterns plant none.
 */
size_t kit_pattern_extremes(kit_problem problem, size_t n, kit_pattern pattern, uint64_t seed, size_t component,
                            size_t at[KIT_PATTERN_MAX_TIES]);

/** The first element of kit_pattern_extremes() for component 0, or KIT_NO_EXTREME when the
 *  pattern plants none: where the answer's extreme is (an argmin's index). */
size_t kit_pattern_extreme_index(kit_problem problem, size_t n, kit_pattern pattern, uint64_t seed);

/** A seed whose full-range input of n elements has its (component 0's) extreme at \p index:
 *  index + variant n. Each \p variant gives other values around it. */
uint64_t kit_pattern_seed_at(size_t n, size_t index, uint64_t variant);

/** Word \p component of element \p element of the input kit_fill_problem() makes, without making
 *  the rest (0 for an element or component out of range). */
int32_t kit_pattern_word(kit_problem problem, size_t n, kit_pattern pattern, uint64_t seed, size_t element,
                         size_t component);

/** The exact sum of \p values, in 64 bits. */
int64_t kit_reference_sum(const int *values, size_t n);

/** The most pieces kit_input_pieces() gives. */
#define KIT_MAX_PIECES 16

/** How many pieces an input of \p words words is made and checked in, one core each: 1 below 2^24
 *  words (and without OpenMP), else the cores, at most 16 (input.c says why). */
int kit_input_pieces(size_t words);

/** Runs body(context, piece, begin, end) for \p pieces contiguous pieces of [0, \p count), each
 *  on a core of its own; one piece runs here, without a thread. */
void kit_for_each_piece(int pieces, size_t count, void (*body)(void *context, int piece, size_t begin, size_t end),
                        void *context);

/**
 * What a 32-bit int reduction must return for an exact sum: the sum modulo 2^32, as the
 * GPU's two's-complement adds give it. For the small patterns and n <= 2^27 no wrap happens; the
 * full-range ones wrap.
 */
int kit_expected_int(int64_t exact_sum);

/* ---------------------------------------------------------------- inputs and references of every problem (problems.c) */

/** The largest n for \p problem: KIT_MAX_N words of input (2^30 ints, 2^30 / 9 matrices). */
size_t kit_max_n(kit_problem problem);

/** The C types a launcher for \p problem takes ("int", "float", "kit_argmin", "kit_mat3"):
 *  what kit_signature must say. */
void kit_problem_ctypes(kit_problem problem, const char **in_type, const char **out_type);

/** The word the guard after the input holds for \p problem: 2^20 (sum, max; float 2^20f) or
 *  -2^20 (min, argmin, matrices), a value that wins or shows when a stage reads past n. */
int32_t kit_guard_word(kit_problem problem);

/**
 * Fills \p words (n elements, kit_in_words() each) with \p pattern for \p problem; the same seed
 * always gives the same input (common/input.c). The small patterns:
 *   - int sum: kit_fill_input(): random [-8, 8], positional 1..15, ones, last-only 0s and a 7;
 *   - min, argmin and matrices: random = ints in [-8, 8] (ties everywhere); positional = 1..15
 *     from a hash of the index (all positive: a minimum that starts from 0 shows); ones = all
 *     1 (every element ties: an argmin must say index 0); last-only = 7s and a single 1 in the
 *     very last element (matrices: in each component of the last matrix);
 *   - max: the same values negated;
 *   - float sum: random = [0, 1) with 24 random bits; positional = 1, 2, ..., 10000, 1, 2, ...
 *     (the course's example at n = 10000); ones = 2^24 then ones (a running float sum loses every
 *     one); last-only = zeros and 7.0 in the very last element.
 * The full-range patterns (ints; each component of a matrix on its own):
 *   - the extreme (kit_pattern_extremes()) is 2 mod 4 and above 2^25 in magnitude, so it is no
 *     float (a comparison as floats rounds it): min, argmin, matrices and the int sum: within 4100
 *     above INT_MIN (full-range, all-negative, ties, lone-sign) or above 2^25 (all-positive); max:
 *     the mirror image ~v (within 4100 below INT_MAX, or below -2^25 - 2 for all-negative), so a
 *     new extreme two beyond it still fits (kit_vary_problem());
 *   - the other values are strictly beyond it: an eighth within 4096 of it (1 or 2 mod 4 in the
 *     minimum's form, so that no such value is the extreme rounded to a float; lone-sign: within
 *     4096 of 0, on the other side), an eighth within 4096 of the range's other end (INT_MAX, or
 *     -2 for all-negative; max, mirrored: INT_MIN, or 1 for all-positive), the rest uniform: both
 *     signs for full-range and ties, one sign for the others (lone-sign: the extreme's opposite);
 * and for the float sum: values of 24 random bits over the binades 2^-8 .. 2^9, one in four
 * negative (full-range, ties), all negative (all-negative) or all positive (all-positive,
 * lone-sign); the extreme is a value of magnitude about 1/16 of the others' sum of magnitudes (at
 * least 2^10), of their sign (where it had the other sign, the sum would cancel to about 0 at some
 * n, and the bound, relative to the magnitudes, say nothing), so that losing it is far outside
 * the error bound. No value is infinite or NaN, and sums stay far from the float range's end:
 * kit_float_bound() holds for any order of adds whose depth it allows.
 * KIT_MAT3 and KIT_MAT3_SOA hold the same matrices, one laid out as structures, one as planes.
 */
void kit_fill_problem(kit_problem problem, int32_t *words, size_t n, kit_pattern pattern, uint64_t seed);

/** Digits of kit_exact_sum. */
#define KIT_EXACT_DIGITS 11

/** An exact sum of floats: a long accumulator, fixed point from 2^-149 up, in 32-bit digits. */
typedef struct kit_exact_sum {
    int64_t digit[KIT_EXACT_DIGITS]; /**< digit d weighs 2^(32 d - 149); may hold carries not yet moved up */
} kit_exact_sum;

/** The exact sum, rounded to the nearest float (ties to even): what a perfect float sum returns. */
float kit_exact_to_float(const kit_exact_sum *sum);
/** The exact sum as a double (relative error below 2^-52): for error tables. */
double kit_exact_to_double(const kit_exact_sum *sum);

/**
 * Roundings per value a float stage may add to: ceil(log2 n) + KIT_FLOAT_RUN. A tree over n
 * values rounds each value's partial sums ceil(log2 n) times; the lab lets each thread first add
 * up to KIT_FLOAT_RUN values in a row (a grid-stride loop). A running sum over all n values, or
 * one float atomicAdd after another, is far outside it.
 */
#define KIT_FLOAT_RUN 512

/**
 * The error bound of a float sum computed in the order stage 9 asks for: gamma_h * sum |x_i|,
 * gamma_h = h u / (1 - h u), u = 2^-24, h = ceil(log2 n) + KIT_FLOAT_RUN (Higham, Accuracy and
 * Stability of Numerical Algorithms, section 4.2: the bound for any order whose additions nest
 * at most h deep).
 */
double kit_float_bound(size_t n, double abs_sum);

/** What an input's right answer is, and what judging an answer needs. */
typedef struct kit_reference {
    kit_problem problem;     /**< what was reduced */
    size_t n;                /**< elements */
    int64_t int_sum;         /**< int sum: the exact sum */
    kit_exact_sum float_sum; /**< float sum: the exact sum */
    double abs_sum;          /**< float sum: sum of |x_i|, which scales the error bound */
    double abs_max;          /**< float sum: the largest |x_i| (at least; timed runs' new values go beyond it) */
    kit_value answer;        /**< the exact answer (float sum: rounded to the nearest float) */
} kit_reference;

/** The reference of \p n elements in \p words. */
void kit_reference_compute(kit_problem problem, const int32_t *words, size_t n, kit_reference *ref);

/**
 * Whether \p got is a right answer for \p ref (1), else 0 and one sentence in \p why ("expected
 * ..., got ...: " and the likely cause, from \p pattern and, when given, the \p input). Exact
 * for everything but the float sum, which must be within kit_float_bound() of the exact sum.
 */
int kit_judge(const kit_reference *ref, kit_pattern pattern, const int32_t *input, const kit_value *got, char *why,
              size_t size);

/** Writes \p value as the problem shows it: "12", "0.5", "-8 at index 3", "[1 2 3; 4 5 6; 7 8 9]". */
void kit_format_value(kit_problem problem, const kit_value *value, char *out, size_t size);

/**
 * Changes a few words of \p words (the input as filled, whose reference is \p filled) for timed run
 * number \p run, and updates \p ref (a copy of \p filled) to match; returns how many words it
 * changed, their positions in \p at and old values in \p before (at most KIT_MAX_WORDS). Every run's
 * answer differs from the filled input's and the previous run's. 0 for the int sum (harness.c
 * varies it).
 */
int kit_vary_problem(kit_reference *ref, const kit_reference *filled, int32_t *words, uint64_t seed, uint64_t run,
                     size_t at[], int32_t before[]);

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

/** Opens device 0 (its context) and describes it; KIT_NO_GPU with a clear message if there is none. */
kit_status kit_gpu_open(kit_gpu *gpu, kit_error *err);

/** Describes device 0 without opening it (no context, no free_bytes); KIT_NO_GPU as kit_gpu_open(). */
kit_status kit_gpu_find(kit_gpu *gpu, kit_error *err);

/** Device memory a workspace for \p n ints (the int sum) needs, in bytes. */
size_t kit_workspace_bytes(size_t n);
/** Device memory a workspace for \p n elements of \p problem needs, in bytes. */
size_t kit_workspace_bytes_problem(kit_problem problem, size_t n);

/* ---------------------------------------------------------------- runs */

/**
 * Device buffers for one input size: the input (followed by a guard of known values, so a
 * read past n shows in the sum) and two partial-sum buffers used in turn by the passes
 * (each between two poisoned guards, so a write outside them shows).
 */
typedef struct kit_workspace {
    kit_problem problem;  /**< what its stages reduce (the int sum unless kit_workspace_init_problem() said otherwise) */
    size_t n;             /**< number of input elements (kit_in_words() words each) */
    size_t capacity;      /**< partial results each partial buffer holds (kit_out_words() words each) */
    int *host_input;      /**< the input's words as they are on the GPU now (always equal to device_input) */
    int64_t expected;     /**< int sum: exact sum of host_input */
    kit_reference ref;    /**< the answer for host_input as it is now (every problem) */
    kit_reference filled; /**< the answer for the input as kit_workspace_fill() made it */
    kit_pattern pattern;  /**< the input pattern last filled in */
    uint64_t seed;        /**< the seed it was filled with */
    double timeout_s;     /**< how long one run may take before it counts as hung */
    double min_rep_ms;    /**< the floor: a timed run of a stage (or CUB) faster than this fails
                               with KIT_TOO_FAST; 0 (the default) = no floor. See kit_read_floor_ms() */
    uint64_t varied_runs; /**< timed runs whose input was varied so far: the variation generator's counter */
    int64_t last_run_sum; /**< exact sum of the input the latest timed run saw (the next one's differs) */
    int *device_input;    /**< n elements' words followed by KIT_INPUT_GUARD words of kit_guard_word() */
    int *device_partial[2]; /**< the two partial-result buffers (capacity x kit_out_words() words), used in turn */
    void *cub_temp;       /**< scratch space for the CUB baseline (allocated on first use) */
    size_t cub_temp_bytes; /**< size of cub_temp */
    int *readback;        /**< host copy of what a checked run read back (allocated on first use, then kept) */
    size_t readback_words; /**< size of readback */
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

/** Allocates a workspace for \p n ints to sum (1 <= n <= KIT_MAX_N). */
kit_status kit_workspace_init(kit_workspace *ws, size_t n, kit_error *err);
/** Allocates a workspace for \p n elements of \p problem (1 <= n <= kit_max_n()); a stage runs
 *  only on a workspace of its own problem (else KIT_BAD_ARGUMENT). */
kit_status kit_workspace_init_problem(kit_workspace *ws, kit_problem problem, size_t n, kit_error *err);
/** Generates the input (kit_fill_problem()), copies it to the GPU and computes its reference. */
kit_status kit_workspace_fill(kit_workspace *ws, kit_pattern pattern, uint64_t seed, kit_error *err);
/** Frees everything the workspace holds (safe on a zeroed or half-built workspace). */
void kit_workspace_free(kit_workspace *ws);

/**
 * Runs \p stage once with every check the kit has: the launcher's element types those of its
 * problem, partial buffers poisoned before each pass (both of them before the first, as in a
 * timed run), every partial result written, nothing written outside them, the input unchanged,
 * and the final value right (kit_judge(): exact, or for floats within the error bound). \p got
 * receives the stage's answer when it has one (an int sum's in got->w[0]).
 */
kit_status kit_run_checked(const kit_stage *stage, kit_workspace *ws, unsigned threads,
                           kit_value *got, kit_error *err);

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
 * Times CUB's reduction of the workspace's problem (cub::DeviceReduce::Sum, Min, Max, ArgMin;
 * Reduce with an element-wise min for matrices; a segmented Min per plane for matrices as
 * planes) on its input, under the same conditions as kit_time_stage() (input varied and partial buffers poisoned before each run, each run's
 * answer checked, the kit_workspace::min_rep_ms floor), so the ladder compares like with like.
 */
kit_status kit_time_cub(kit_workspace *ws, int warmup, int reps, kit_timing *timing, kit_error *err);

/**
 * Runs CUB's reduction of the workspace's problem once on its input as it is (not varied),
 * and reads the result back into \p got (kit_out_words() words), without judging it: for
 * `reduce_ladder --accuracy`, which measures how far CUB's float sum is from the exact one.
 */
kit_status kit_run_cub(kit_workspace *ws, kit_value *got, kit_error *err);

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
 * 4033 GB/s read+write and CUB's reduction reads 3508 GB/s at 2^26 ints (docs/results, run of
 * 2026-11-23); at 2^28 CUB read 4452 GB/s (2026-11-21), at most 1.09 times the copy's rate: 1.5
 * leaves a margin of about 1.4 for noise and other GPUs (at 2^26 on the H200 the floor is
 * 0.133 / 3 = 0.044 ms; CUB takes 0.077 ms). A kernel that
 * skips its input (a remembered answer) takes a few microseconds. Meant for inputs far larger
 * than the L2 cache (the grader's 2^26); the message of KIT_TOO_FAST assumes the floor came
 * from a copy measured in the same run.
 */
double kit_read_floor_ms(size_t n, const kit_timing *copy);

/** How many times the copy's read+write rate a reduction may read at (kit_read_floor_ms()). */
#define KIT_READ_OVER_COPY 1.5

/**
 * For `reduce_ladder --counters` (counters.h): runs \p stage once checked, then once more
 * between cudaProfilerStart() and cudaProfilerStop(), so that a profiler started with
 * "--profile-from-start off" sees exactly one run (all its passes). Not on the emulator.
 */
kit_status kit_profile_stage(const kit_stage *stage, kit_workspace *ws, unsigned threads, kit_error *err);
/** The same for cub::DeviceReduce::Sum (one warm-up run, then one profiled). */
kit_status kit_profile_cub(kit_workspace *ws, kit_error *err);

/* ---------------------------------------------------------------- the whole job: CPU, copies, launches */

/** Where the host side of a host-to-device copy lives. */
typedef enum kit_host_memory {
    KIT_HOST_PAGEABLE, /**< ordinary malloc'ed memory: the driver stages it through a pinned buffer of its own */
    KIT_HOST_PINNED    /**< page-locked memory from cudaMallocHost: the GPU reads it directly (DMA) */
} kit_host_memory;

/**
 * Times the copy of the workspace's input (n ints) from the host to the GPU, as kit_time_copy()
 * times the device-to-device one (CUDA events on the legacy default stream, partial buffers
 * poisoned before each run, no floor): from host_input itself (KIT_HOST_PAGEABLE), or from a
 * cudaMallocHost buffer holding the same values (KIT_HOST_PINNED; allocated and freed here).
 * The copy lands in device_input, which therefore keeps its values.
 */
kit_status kit_time_h2d(kit_workspace *ws, kit_host_memory memory, int warmup, int reps, kit_timing *timing,
                        kit_error *err);

/**
 * Times the whole job of a GPU sum whose input starts on the host: the copy of the input from
 * pinned memory to the GPU, then all of \p stage's passes, as one timed region per run (not a
 * sum of two medians). Everything kit_time_stage() does around a run is done here too (the
 * input varied, the partial buffers poisoned, every answer checked); besides, device_input is
 * poisoned before each run, so an answer is right only if the copy delivered the input. The
 * varied input lives in the pinned buffer for the time of the call (kit_workspace::host_input
 * points there meanwhile, and back to its own buffer at the end, unchanged).
 */
kit_status kit_time_stage_after_copy(const kit_stage *stage, kit_workspace *ws, unsigned threads, int warmup,
                                     int reps, kit_timing *timing, kit_error *err);

/**
 * Times the launch of an empty kernel (no body, one block of one thread; common/baselines.cu),
 * with the same mechanics as the other timed rows: the floor under any one-launch kernel's
 * time, which small inputs reach. The workspace gives the timeout (its partial buffers are
 * poisoned before each run, as for every timed row). Not on the CPU emulator (KIT_BAD_ARGUMENT).
 */
kit_status kit_time_launch(kit_workspace *ws, int warmup, int reps, kit_timing *timing, kit_error *err);

/** Threads the CPU's OpenMP sum uses (omp_get_max_threads()); 0 when this build has no OpenMP. */
int kit_cpu_threads(void);

/** Writes the CPU's model name ("model name" in /proc/cpuinfo) into \p out; 0 (and "") where
 *  it cannot be read. */
int kit_cpu_model(char *out, size_t size);

/**
 * The exact sum of \p values on the CPU, in int64: on one thread (\p parallel = 0, as
 * kit_reference_sum()) or on kit_cpu_threads() threads with OpenMP (\p parallel = 1, `omp
 * parallel for reduction(+:sum)`). Every run's sum is checked against \p expected
 * (KIT_WRONG_RESULT); \p warmup untimed runs, then \p reps runs timed with CLOCK_MONOTONIC into
 * \p timing. \p reps = 0: one checked run, \p timing all zero (the CPU emulator times nothing).
 * KIT_BAD_ARGUMENT for \p parallel = 1 in a build without OpenMP.
 */
kit_status kit_time_cpu_sum(const int *values, size_t n, int parallel, int64_t expected, int warmup, int reps,
                            kit_timing *timing, kit_error *err);

/**
 * Waits for all the GPU's work, but at most \p timeout_s seconds: KIT_TIMEOUT if it is still
 * busy, KIT_CUDA_ERROR if the work failed. It records an event on the legacy default stream
 * (which follows all earlier work of every blocking stream), polls it until the timeout, then
 * calls cudaDeviceSynchronize() for whatever else is left (work on non-blocking streams).
 */
kit_status kit_sync(double timeout_s, kit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* KIT_H */

/**
 * \file stage.h
 * \brief What every stage file includes: the launcher signature and the line that registers it.
 *
 * A stage file defines one kernel (or a few) and one launcher. The launcher does one pass of
 * the reduction: it reads \c n elements from \c in, writes one partial result per block to
 * \c out and returns how many it wrote. Its element types are the ones its row of
 * common/stages.def names: `size_t launch(const int *in, int *out, size_t n, unsigned threads)`
 * for an int sum, min or max; `const float *`, `float *` for a float sum; `const int *`,
 * `kit_argmin *` for an argmin; `const kit_mat3 *`, `kit_mat3 *` for matrices; `const int *`,
 * `int *` for matrices as planes (n ints per component in, \c count per component out, for the
 * \c count results the pass returns). The harness checks the types when it first runs it. The harness calls it again on those partial sums
 * until one value is left, so a launcher never has to finish the job in one go.
 *
 * A one-pass stage (KIT_PASSES_ONE in common/stages.def, stage 8) does finish it: its launcher
 * leaves the whole sum in out[0] and returns 1, and the harness never calls it twice. Its
 * blocks have to meet somewhere other than a second launch over partial sums: in an atomic, or
 * in the last block to finish.
 *
 * What the harness guarantees to a launcher:
 *   - 1 <= n <= KIT_MAX_N, so an `unsigned int` index never overflows;
 *   - `threads` is a power of two between the stage's min_threads and max_threads
 *     (common/stages.def);
 *   - `in` and `out` are 16-byte aligned, and `out` has room for at least ceil(n / 32)
 *     partial results.
 *
 * What it does not give: a cleared `out`. Before every pass, checked or timed, `out` holds
 * poison (0xA5A5A5A5), never zeros, so whatever a stage adds into must be cleared by the stage
 * itself, and that clearing is part of the time the harness measures: the timer runs from
 * before the launcher is called until everything it launched on the default stream is done.
 * A launcher may launch more than one kernel, always on the default stream (stream 0).
  */
#ifndef KIT_STAGE_H
#define KIT_STAGE_H

#include <stddef.h>

/** Largest n the kit accepts: 2^30 elements, so 32-bit unsigned indices are safe. */
#define KIT_MAX_N ((size_t)1 << 30)

/** What an argmin returns: the smallest value, and the smallest index among equal values. */
typedef struct kit_argmin {
    int value; /**< the smallest value */
    int index; /**< the first index that holds it */
} kit_argmin;

/** One 3x3 int matrix, row by row: one element of a matrices stage (an array of structures). */
typedef struct kit_mat3 {
    int m[9]; /**< m[3 * row + column] */
} kit_mat3;

/**
 * One pass of a reduction, with its element types erased: partial results of \p in into
 * \p out; returns how many it wrote. Stage files never write one: KIT_REGISTER_STAGE makes it
 * from their typed launcher.
 */
typedef size_t (*kit_pass_fn)(const void *in, void *out, size_t n, unsigned threads);

/** The element types a stage's launcher was written for, as KIT_REGISTER_STAGE saw them. */
typedef struct kit_signature {
    const char *in_type;  /**< "int", "float", "kit_mat3", ... ("another type" for any other) */
    const char *out_type; /**< "int", "float", "kit_argmin", "kit_mat3", ... */
} kit_signature;

/** Pastes three tokens together (KIT_CAT expands its arguments first). */
#define KIT_CAT_(a, b, c) a##b##c
/** Pastes three tokens together after expanding them: KIT_CAT(kit_, solutions, _x). */
#define KIT_CAT(a, b, c) KIT_CAT_(a, b, c)

/**
 * The exported name of a stage's launcher, e.g. kit_solutions_reduce_naive. KIT_IMPL is set
 * by the build (labs or solutions), so both versions of a stage can live in one program:
 * the grader times the student's kernel against the reference in the same process. The
 * launcher's signature is exported next to it, under that name followed by _signature.
 */
#define KIT_SYMBOL(name) KIT_CAT(kit_, KIT_IMPL, _##name)
/** The exported name of a stage's kit_signature, e.g. kit_solutions_reduce_naive_signature. */
#define KIT_SIGNATURE_SYMBOL(name) KIT_CAT(kit_, KIT_IMPL, _##name##_signature)

#ifdef __cplusplus
/** The name of an element type, for kit_signature (a type the kit has no row for: "another type"). */
template <typename T> struct kit_element_name { static constexpr const char *text = "another type"; };
template <> struct kit_element_name<int> { static constexpr const char *text = "int"; };
template <> struct kit_element_name<float> { static constexpr const char *text = "float"; };
template <> struct kit_element_name<kit_argmin> { static constexpr const char *text = "kit_argmin"; };
template <> struct kit_element_name<kit_mat3> { static constexpr const char *text = "kit_mat3"; };

/** Turns a typed launcher into a kit_pass_fn, and names its types. */
template <auto launcher> struct kit_erased_launcher;
template <typename In, typename Out, size_t (*launcher)(const In *, Out *, size_t, unsigned)>
struct kit_erased_launcher<launcher> {
    static size_t pass(const void *in, void *out, size_t n, unsigned threads)
    {
        return launcher(static_cast<const In *>(in), static_cast<Out *>(out), n, threads);
    }
    static constexpr kit_signature signature = {kit_element_name<In>::text, kit_element_name<Out>::text};
};

/** Registers a stage file's launcher (any of the signatures above) under the names the stage
 *  table looks for. */
#define KIT_REGISTER_STAGE(name, launcher)                                                     \
    extern "C" const kit_pass_fn KIT_SYMBOL(name) = kit_erased_launcher<launcher>::pass;        \
    extern "C" const kit_signature KIT_SIGNATURE_SYMBOL(name) = kit_erased_launcher<launcher>::signature;
#endif

#endif /* KIT_STAGE_H */

/**
 * \file stage.h
 * \brief What every stage file includes: the launcher signature and the line that registers it.
 *
 * A stage file defines one kernel (or a few) and one launcher. The launcher does one pass of
 * the reduction: it reads \c n ints from \c in, writes one partial sum per block to \c out and
 * returns how many partial sums it wrote. The harness calls it again on those partial sums
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
 *     partial sums.
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

/** Largest n the kit accepts: 2^30 ints (4 GiB), so 32-bit unsigned indices are safe. */
#define KIT_MAX_N ((size_t)1 << 30)

/** One pass of a reduction: partial sums of \p in into \p out; returns how many it wrote. */
typedef size_t (*kit_pass_fn)(const int *in, int *out, size_t n, unsigned threads);

/** Pastes three tokens together (KIT_CAT expands its arguments first). */
#define KIT_CAT_(a, b, c) a##b##c
/** Pastes three tokens together after expanding them: KIT_CAT(kit_, solutions, _x). */
#define KIT_CAT(a, b, c) KIT_CAT_(a, b, c)

/**
 * The exported name of a stage's launcher, e.g. kit_solutions_reduce_naive. KIT_IMPL is set
 * by the build (labs or solutions), so both versions of a stage can live in one program:
 * the grader times the student's kernel against the reference in the same process.
 */
#define KIT_SYMBOL(name) KIT_CAT(kit_, KIT_IMPL, _##name)

#ifdef __cplusplus
/** Registers a stage file's launcher under the name the stage table looks for. */
#define KIT_REGISTER_STAGE(name, launcher) \
    extern "C" const kit_pass_fn KIT_SYMBOL(name) = launcher;
#endif

#endif /* KIT_STAGE_H */

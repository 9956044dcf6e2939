/**
 * \file runner_row.c
 * \brief The row of one graded file, for its runners (runner_row.h): the only part of a runner compiled per file.
 *
 * Built with: KIT_GRADE_STAGE (the stage number), KIT_GRADED_SYMBOL (the graded launcher, e.g.
 * kit_labs_reduce_naive, and its signature <that>_signature), KIT_GRADED_SOURCE (its path, for
 * messages), KIT_GRADED_IMPL ("labs", "solutions" or "corpus"), and the reference names from
 * common/stages.def: KIT_REFERENCE_NAME (stage K's), KIT_BASELINE_STAGE and KIT_BASELINE_NAME
 * (its baseline stage's).
 */
#include "runner_row.h"

#if !defined(KIT_GRADE_STAGE) || !defined(KIT_GRADED_SYMBOL) || !defined(KIT_GRADED_SOURCE) || \
    !defined(KIT_REFERENCE_NAME) || !defined(KIT_BASELINE_STAGE) || !defined(KIT_BASELINE_NAME)
#error "build the runner's row with KIT_GRADE_STAGE, KIT_GRADED_SYMBOL, KIT_GRADED_SOURCE, KIT_REFERENCE_NAME, \
KIT_BASELINE_STAGE, KIT_BASELINE_NAME"
#endif
#ifndef KIT_GRADED_IMPL
#define KIT_GRADED_IMPL "labs"
#endif

/* The graded launcher, and the reference launchers of stage K and of its baseline stage: only
 * those are linked (KIT_REFERENCE_NAME and KIT_BASELINE_NAME come from common/stages.def), each
 * with the signature KIT_REGISTER_STAGE exports beside it, which the harness checks. */
#define KIT_RUNNER_CAT_(a, b) a##b
#define KIT_RUNNER_CAT(a, b) KIT_RUNNER_CAT_(a, b)
#define KIT_RUNNER_REFERENCE(name) KIT_RUNNER_CAT(kit_solutions_, name)
#define KIT_RUNNER_SIGNATURE(symbol) KIT_RUNNER_CAT(symbol, _signature)
extern const kit_pass_fn KIT_GRADED_SYMBOL;
extern const kit_signature KIT_RUNNER_SIGNATURE(KIT_GRADED_SYMBOL);
extern const kit_pass_fn KIT_RUNNER_REFERENCE(KIT_REFERENCE_NAME);
extern const kit_signature KIT_RUNNER_SIGNATURE(KIT_RUNNER_REFERENCE(KIT_REFERENCE_NAME));
extern const kit_pass_fn KIT_RUNNER_REFERENCE(KIT_BASELINE_NAME);
extern const kit_signature KIT_RUNNER_SIGNATURE(KIT_RUNNER_REFERENCE(KIT_BASELINE_NAME));

const kit_runner_row kit_runner_graded_row = {
    .stage = KIT_GRADE_STAGE,
    /* a launcher of other types than its row's is refused by the harness, from its signature */
    .graded = {&KIT_GRADED_SYMBOL, &KIT_RUNNER_SIGNATURE(KIT_GRADED_SYMBOL)},
    .graded_source = KIT_GRADED_SOURCE,
    .graded_impl = KIT_GRADED_IMPL,
    .reference = {&KIT_RUNNER_REFERENCE(KIT_REFERENCE_NAME),
                  &KIT_RUNNER_SIGNATURE(KIT_RUNNER_REFERENCE(KIT_REFERENCE_NAME))},
    .baseline_stage = KIT_BASELINE_STAGE,
    .baseline = {&KIT_RUNNER_REFERENCE(KIT_BASELINE_NAME),
                 &KIT_RUNNER_SIGNATURE(KIT_RUNNER_REFERENCE(KIT_BASELINE_NAME))},
};

/*
 * Cheat, slot 4: the launcher calls the reference solution's launcher.
 *
 * What it pretends: a stage 4 ("first add during the load").
 * What it does: declares the exported symbol of the kit's own solution of stage 4,
 * kit_solutions_reduce_first_add_on_load (it is linked into every grading program, because
 * the grader times the student against it), and forwards every pass to it. It has no
 * kernel. Right sums, the reference's speed (so it passes the 0.8x rule by construction),
 * and no sanitizer findings.
 *
 * How the grader must treat it: 0 points for stage 4 (GPU and emulator alike): the stage's
 * own kernel must do the work; a stage file must not reach the reference solutions.
 */
#include "stage.h"

/** The reference solution's launcher (common/stage.h: kit_<impl>_<name>). */
extern "C" const kit_pass_fn kit_solutions_reduce_first_add_on_load;

/** Forwards the pass to the reference. */
static size_t launch_calls_reference_stage(const int *in, int *out, size_t n, unsigned threads)
{
    return kit_solutions_reduce_first_add_on_load(in, out, n, threads);
}

KIT_REGISTER_STAGE(calls_reference_stage, launch_calls_reference_stage)

/*
 * Cheat, slot 3: #includes the reference solution of stage 3 and registers its launcher.
 *
 * What it pretends: a stage 3 ("sequential addressing").
 * What it does: the file has no kernel of its own. It includes
 * solutions/03_sequential_addressing/reduce_sequential_addressing.cu by a relative path
 * (from tests/cheats/ here; from labs/03_.../ a student would write
 * "../../solutions/03_sequential_addressing/..."), so the reference's kernel and launcher
 * become part of this file, and registers that launcher under its own name. The included
 * file's own KIT_REGISTER_STAGE line is swallowed by redefining the macro around the
 * #include (push_macro/pop_macro), so that no second symbol appears. Right sums, the
 * reference's speed, no sanitizer findings.
 *
 * How the grader must treat it: 0 points for stage 3 (GPU and emulator alike): the stage's
 * own kernel must do the work; a stage file may include nothing from solutions/ (or any
 * other .cu file). A lab graded from a copy without solutions/ would not compile; the
 * grader must not count on that.
 */
#include "stage.h"

#pragma push_macro("KIT_REGISTER_STAGE")
#undef KIT_REGISTER_STAGE
#define KIT_REGISTER_STAGE(name, launcher) /* the reference's registration: dropped */
#include "../../solutions/03_sequential_addressing/reduce_sequential_addressing.cu"
#pragma pop_macro("KIT_REGISTER_STAGE")

KIT_REGISTER_STAGE(includes_reference, launch_reduce_sequential_addressing)

/**
 * \file runner_row.h
 * \brief What one stage runner grades: the facts of its graded file's row, apart from the runner's code.
 *
 * runner.c is the same for every graded file, so it is compiled once per flavour (the GPU runner, and
 * the CPU emulator's runners with KIT_RUNNER_EMULATED: kit_runner_gpu and kit_runner_emulated_<flavour>,
 * tests/grader/CMakeLists.txt and emulated.cmake). What differs from one graded file to the next is
 * only this row: runner_row.c, compiled once per graded file from the definitions kit_add_graded_file
 * gives it, defines kit_runner_graded_row, and each of that file's runners (GPU and emulated) links it.
 * It had been runner.c itself, compiled with those definitions for every runner: an instructor's
 * build without a GPU compiled runner.c and races.c 261 times, 15.5 s at -j2 on 2 cores; now it
 * compiles them 5 times and 81 rows, under 2 s together (2026-11-27).
 *
 * Only stage.h is included, so the row is compiled the same whatever harness the runner links.
 */
#ifndef KIT_RUNNER_ROW_H
#define KIT_RUNNER_ROW_H

#include "stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A launcher and the signature KIT_REGISTER_STAGE exports beside it (the harness checks it). */
typedef struct kit_runner_launcher {
    const kit_pass_fn *pass;
    const kit_signature *signature;
} kit_runner_launcher;

/** One graded file in one stage's slot, and the reference stages it is timed against. */
typedef struct kit_runner_row {
    int stage;                     /**< K, the slot it is graded in (KIT_GRADE_STAGE) */
    kit_runner_launcher graded;    /**< the graded launcher, e.g. kit_labs_reduce_naive (KIT_GRADED_SYMBOL) */
    const char *graded_source;     /**< its path, for messages (KIT_GRADED_SOURCE) */
    const char *graded_impl;       /**< "labs", "solutions" or "corpus" (KIT_GRADED_IMPL) */
    kit_runner_launcher reference; /**< reference stage K's (KIT_REFERENCE_NAME, common/stages.def) */
    int baseline_stage;            /**< B, the stage its speed is measured against (KIT_BASELINE_STAGE) */
    kit_runner_launcher baseline;  /**< reference stage B's (KIT_BASELINE_NAME) */
} kit_runner_row;

/** The row of the file this runner grades (runner_row.c). */
extern const kit_runner_row kit_runner_graded_row;

#ifdef __cplusplus
}
#endif

#endif /* KIT_RUNNER_ROW_H */

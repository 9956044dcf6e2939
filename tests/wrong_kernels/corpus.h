/**
 * \file corpus.h
 * \brief The table of known-wrong kernels (tests/wrong_kernels/corpus.def).
 */
#ifndef KIT_CORPUS_H
#define KIT_CORPUS_H

#include "kit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One known-wrong kernel and how the grader must reject it. */
typedef struct kit_wrong_kernel {
    const char *name;      /**< file tests/wrong_kernels/<name>.cu */
    int slot;              /**< the stage it pretends to be */
    const char *part;      /**< the grading test that must reject it */
    const char *expected;  /**< words the rejection message must contain */
    const char *what;      /**< the mistake */
    const kit_pass_fn *pass;
    const char *source;
} kit_wrong_kernel;

extern const kit_wrong_kernel kit_wrong_kernels[];
extern const int kit_wrong_kernel_count;

/** The kernel called \p name, or NULL. */
const kit_wrong_kernel *kit_find_wrong_kernel(const char *name);

/** The solutions' row of the kernel's slot, with the kernel's launcher in it (impl "corpus"). */
void kit_wrong_kernel_as_stage(const kit_wrong_kernel *kernel, kit_stage *stage);

#ifdef __cplusplus
}
#endif

#endif

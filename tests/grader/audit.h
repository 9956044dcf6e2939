/**
 * \file audit.h
 * \brief The grader's static audit of a stage file: only the stage's own kernel may do the work.
 *
 * A stage file could pass every correctness and speed test without a reduction kernel of its
 * own: by calling cub::DeviceReduce::Sum, by copying the input to the host and adding it up
 * there, by calling the kit's reference launcher, or by ending the grader's process with exit
 * status 0 before a test can fail. The audit reads the stage's source and the object nvcc made
 * from it (host code plus the embedded device code) and refuses such a file before any test
 * runs. It checks, in this order, and the first finding decides:
 *   1. the source's includes: stage.h, cuda_runtime.h, cooperative groups, libcu++'s
 *      cuda/std/... and cuda/atomic, and the C headers for types and printing, nothing else;
 *   2. the source's names (outside comments and string literals): no cub::, thrust::, no kit_
 *      names but what stage.h declares, and no question of which machine or compiler runs it
 *      (KIT_EMULATOR, __CUDACC__, __GNUC__, ...): a stage file must behave the same on a GPU
 *      and on the kit's CPU emulator;
 *   3. the object's undefined host symbols (nm): only kernel launches, read-only device
 *      queries, compiler glue and debug printing;
 *   4. the kernels the object registers (and, where cuobjdump is installed, those its cubins
 *      hold): each must be defined by the file itself, at file scope or in an anonymous
 *      namespace;
 *   5. the object's host machine code (objdump -d): no raw system call.
 *
 * The audit only reads files and runs nm and objdump (and cuobjdump where it is installed);
 * it never prints. Its message names the call and the line of the source where it appears.
 */
#ifndef KIT_AUDIT_H
#define KIT_AUDIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where the audit finds its tools. NULL or "" means: look it up on PATH. */
typedef struct kit_audit_tools {
    const char *nm;        /**< GNU nm (binutils) */
    const char *objdump;   /**< GNU objdump (binutils) */
    const char *cuobjdump; /**< CUDA's cuobjdump; optional unless named here */
} kit_audit_tools;

/** What the audit concluded. */
typedef enum {
    KIT_AUDIT_CLEAN = 0,      /**< nothing the stage file may not do */
    KIT_AUDIT_FORBIDDEN = 1,  /**< the message says what and where */
    KIT_AUDIT_CANNOT_RUN = 2, /**< a tool or a file is missing or unreadable; the message says which */
} kit_audit_verdict;

/**
 * Audits one stage file.
 *
 * \param stage   the stage number, for the message
 * \param object  the .o nvcc made from the stage file (host code and the embedded fatbin)
 * \param source  the stage's .cu file
 * \param shown   the path to show in the message (e.g. "labs/07_multi_element/reduce_multi_element.cu");
 *                NULL or "" shows \p source
 * \param tools   where nm, objdump and cuobjdump are; NULL: all on PATH
 * \param message filled with one or two sentences a student can act on (empty when clean);
 *                may be NULL
 * \param size    the size of \p message
 * \return KIT_AUDIT_CLEAN, KIT_AUDIT_FORBIDDEN or KIT_AUDIT_CANNOT_RUN
 */
kit_audit_verdict kit_audit_stage(int stage, const char *object, const char *source, const char *shown,
                                  const kit_audit_tools *tools, char *message, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* KIT_AUDIT_H */

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
 *      queries, compiler glue and debug printing (printf, puts, putchar: no FILE);
 *   4. the kernels the object registers (and, where cuobjdump is installed, those its cubins
 *      hold): each must be defined by the file itself, at file scope or in an anonymous
 *      namespace;
 *   5. the object's host machine code (objdump -d): no raw system call;
 *   6. what runs outside the launcher: no constructor, destructor or initializer of the file's
 *      own before or after main (only nvcc's registration constructor in .init_array), and no
 *      atexit but nvcc's;
 *   7. the object's defined global symbols: its launcher and signature (KIT_REGISTER_STAGE), its
 *      kernels' stubs, its anonymous namespace and the weak instances of the CUDA headers'
 *      templates, nothing else (the runner is linked from this object first: any other global
 *      definition could replace the kit's, the C library's or the C++ library's own);
 *   8. the source: no inline assembly outside __device__ and __global__ functions, no asm label.
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

/**
 * Audits only what an object defines and runs outside its launcher (checks 6 and 7 above), of
 * any object of a stage file: nvcc's (as kit_audit_stage does), or the one g++ made of the file
 * rewritten for the CPU emulator, where the __device__ functions are host functions and may be
 * global, but nothing may be defined with C linkage (but the launcher and its signature) or in
 * the namespaces std::, __gnu_cxx::, __cxxabiv1::, emu:: (but the emulator's own
 * emu::kernel_call<...> instances), and no startup code may run but ThreadSanitizer's module
 * constructor (-fsanitize=thread) and nvcc's registration.
 *
 * \param stage           the stage number, for the message
 * \param object          the object (nvcc's, or g++'s of the emulator)
 * \param source          the stage's .cu file, for the lines in the message; NULL: no lines
 * \param shown           the path to show in the message; NULL or "" shows \p source (or \p object)
 * \param launcher_symbol the launcher's C symbol (kit_<impl>_<name>; its signature is that and
 *                        _signature); NULL: the one pair kit_*, kit_*_signature the object defines
 * \param tools           where nm and objdump are; NULL: on PATH
 * \param message         filled as kit_audit_stage fills it; may be NULL
 * \param size            the size of \p message
 * \return KIT_AUDIT_CLEAN, KIT_AUDIT_FORBIDDEN or KIT_AUDIT_CANNOT_RUN
 */
kit_audit_verdict kit_audit_object_shape(int stage, const char *object, const char *source, const char *shown,
                                         const char *launcher_symbol, const kit_audit_tools *tools, char *message,
                                         size_t size);

#ifdef __cplusplus
}
#endif

#endif /* KIT_AUDIT_H */

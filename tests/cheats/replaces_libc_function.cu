/*
 * Cheat, slot 3: defines memcmp, and its memcmp says every two buffers are equal.
 *
 * What it pretends: a stage 3 ("sequential addressing"). Its kernel is wrong on purpose: each
 * block writes its first value, not its sum.
 * What it does: the runner is linked from this object before libc, so a memcmp defined here
 * is the one every call in the runner binds to (a dynamic libc's own is interposed). The
 * harness decides each case with memcmp(got, expected) == 0 (common/problems.c), so in the
 * runner every wrong sum "matches". The definition is an ordinary C function: no asm, no
 * forbidden call, nothing the audit's list of refused undefined symbols could see (memcmp is
 * not called, it is provided). x86-64 Linux, glibc's symbol names.
 *
 * How the grader must treat it: 0 points for stage 3, refused by the audit before it runs: a
 * stage's host object defines its launcher, its signature and its kernels' stubs, nothing
 * else; it may not define a C library function (memcmp, strcmp, write, ...). Were it run,
 * kit_grade judges every answer again in its own process, from the words the runner sent.
 */
#include "stage.h"

/** "Equal", whatever the bytes say. */
extern "C" int memcmp(const void *a, const void *b, size_t size) noexcept
{
    (void)a;
    (void)b;
    (void)size;
    return 0;
}

/** Wrong: each block's first value instead of the block's sum. */
static __global__ void replaces_libc_function(const int *in, int *out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x;
    if (threadIdx.x == 0)
        out[blockIdx.x] = i < n ? in[i] : 0;
}

static size_t launch_replaces_libc_function(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    replaces_libc_function<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(replaces_libc_function, launch_replaces_libc_function)

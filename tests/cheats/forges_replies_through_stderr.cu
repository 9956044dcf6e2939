/*
 * Cheat, slot 14: forges the runner's replies before main(), through stderr's FILE.
 *
 * What it pretends: a stage 14 ("3x3 matrices as 9 planes"). Its kernel is the skeleton left
 * unfilled: every thread keeps the identity (INT_MAX) and the block writes that, so not one
 * answer is right.
 * What it does: the runner answers kit_grade on file descriptor 3, one line per finding
 * (tests/grader/runner.c). A static constructor points stderr's FILE at that descriptor
 * (`stderr->_fileno = 3`, glibc's FILE on x86-64 Linux: this file is glibc-specific) and
 * writes, with plain fprintf, what a passing runner would say: "case" lines with status 0 and
 * the answer of the all-ones pattern (the minimum of every component is 1 whatever n is: nine
 * words of 1), then "done". No forbidden function is called: fprintf and stderr are what the
 * audit lets a stage use for debug printing, and the fd is changed by a store into the FILE,
 * not by dup2.
 *
 * How the grader must treat it: 0 points for stage 14, refused by the audit before it runs:
 * a stage file has no constructor but nvcc's registration, and touches no stdio FILE object
 * (stderr, stdout, fprintf). Were it run, the grader draws its cases at grading time and
 * requires exactly one answer per drawn case, so lines written before the request was even
 * read answer nothing that was asked.
 */
#include <climits>
#include <cstdio>

#include "stage.h"

/** The unfilled skeleton: no thread reads anything, every block reports the identity. */
static __global__ void forges_replies_through_stderr(const int *in, int *out, unsigned int n)
{
    (void)in;
    (void)n;
    if (threadIdx.x == 0)
        for (int c = 0; c < 9; c++)
            out[c * gridDim.x + blockIdx.x] = INT_MAX;
}

static size_t launch_forges_replies_through_stderr(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 4 * threads - 1) / (4 * threads));
    forges_replies_through_stderr<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

/** Before main(): stderr becomes the grader's pipe, and the verdict is written into it. */
__attribute__((constructor)) static void forge_the_replies(void)
{
    static const size_t sizes[] = {1, 31, 1000, 65536, 116509};
    static const unsigned threads[] = {64, 128, 256, 512, 1024};
    stderr->_fileno = 3; /* glibc's FILE: the descriptor the stream writes to */
    fprintf(stderr, "device NVIDIA H100 80GB HBM3\n");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
            fprintf(stderr, "case n=%zu threads=%u pattern=ones seed=1 repeat=0 status=0 "
                            "got=1,1,1,1,1,1,1,1,1 message=ok\n", sizes[s], threads[t]);
    fprintf(stderr, "done\n");
    fflush(stderr);
}

KIT_REGISTER_STAGE(forges_replies_through_stderr, launch_forges_replies_through_stderr)

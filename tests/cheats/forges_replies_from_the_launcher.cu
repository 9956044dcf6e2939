/*
 * Cheat, slot 9: forges the speed reply from inside the launcher, through stdout's FILE.
 *
 * What it pretends: a stage 9 ("floats: a tree keeps the error small") as fast as the
 * reference. What it runs is stage 3's kernel for floats: one float per thread, a shared-memory
 * tree per block, many passes: right to the tree's rounding, and several times too slow.
 * What it does: no constructor (the audit looks for those). The first time the launcher is
 * called, in every runner process, it points stdout's FILE at file descriptor 3, the pipe the
 * runner answers kit_grade on (`stdout->_fileno = 3`, glibc on x86-64 Linux: this file is
 * glibc-specific), prints a "speedup" line in the runner's format (tests/grader/runner.c)
 * claiming the reference's time at 2^26 and 256 threads, flushes, and puts the descriptor
 * back to 1 so nothing else it prints goes astray. Only fprintf, fflush and stdout are used,
 * the stdio the audit lets a stage print debug lines with.
 *
 * How the grader must treat it: 0 points for stage 9, refused by the audit before it runs: a
 * stage file does not touch stdio's FILE objects (stdout, stderr, fprintf). Were it run, a
 * runner whose pipe carries a second "speedup" line, or one for a case it was not asked
 * (the speed case's n and block size are drawn at grading time), is a runner that gets 0.
 */
#include <cstdio>

#include "stage.h"

/** Stage 3 for floats: one value per thread, the block folds its shared array in half. */
static __global__ void forges_replies_from_the_launcher(const float *in, float *out, unsigned int n)
{
    extern __shared__ float values[];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    values[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            values[tid] += values[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = values[0];
}

/** Writes what a fast runner would have written, on the grader's pipe, once per process. */
static void claim_the_reference_speed(void)
{
    static int claimed = 0;
    if (claimed++)
        return;
    fflush(stdout);
    stdout->_fileno = 3; /* glibc's FILE: the descriptor the stream writes to */
    fprintf(stdout, "speedup n=67108864 seed=1 threads=256 student=0.098000 reference=0.100000 "
                    "baseline=0.100000 spread=0.010000 samples=75 attempts=1 copy=0.090000 floor=0.000000\n");
    fflush(stdout);
    stdout->_fileno = 1;
}

static size_t launch_forges_replies_from_the_launcher(const float *in, float *out, size_t n, unsigned threads)
{
    claim_the_reference_speed();
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    forges_replies_from_the_launcher<<<blocks, threads, threads * sizeof(float)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(forges_replies_from_the_launcher, launch_forges_replies_from_the_launcher)

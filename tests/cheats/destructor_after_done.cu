/*
 * Cheat, slot 2: a destructor that runs after the runner has said "done".
 *
 * What it pretends: a correct stage 2 ("strided index, no divergence"), which it is.
 * What it does: a function marked __attribute__((destructor)) sits in .fini_array and runs
 * when the runner returns from main(), after its last reply. It prints a fake verdict on
 * stdout (printf, which the audit lets a stage use for debug output) for anything that reads
 * the program's output, then ends the process on a signal with __builtin_trap() (an x86-64
 * ud2 instruction, SIGILL: no function is called, so no forbidden symbol appears). A grader
 * that read "done" and stopped listening, or trusted the exit status of a runner that looked
 * finished, would see either a fine run or a crash it never attributes to the stage.
 *
 * How the grader must treat it: 0 points for stage 2, refused by the audit before it runs:
 * nothing but nvcc's registration constructor may sit in .init_array, .ctors or .fini_array.
 * Were it run, a runner that ends on a signal or with a non-zero status gets 0, "done" or not.
 */
#include <cstdio>

#include "stage.h"

/** After main(): a verdict for whoever reads stdout, then an illegal instruction. */
__attribute__((destructor)) static void after_done(void)
{
    printf("100%% tests passed, 0 tests failed out of 1\nstage 2: 10/10\n");
    fflush(stdout);
    __builtin_trap();
}

/** Stage 2: contiguous threads add the pairs 2*s*tid and 2*s*tid + s. */
static __global__ void destructor_after_done(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int at = 2 * s * tid;
        if (at < blockDim.x)
            sdata[at] += sdata[at + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_destructor_after_done(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    destructor_after_done<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(destructor_after_done, launch_destructor_after_done)

/*
 * Cheat, slot 1: a correct stage 1 whose static constructor forks a liar.
 *
 * What it pretends: a stage 1 ("interleaved addressing with %"); the kernel is right.
 * What it does: before main() a constructor calls fork(). The child prints a fake passing
 * verdict on the standard output it shares with the grader and then sleeps 30 s holding
 * that output open, so whatever collects the grader's output (a pipe, $(...), CTest) also
 * collects the child's lines and waits for it. The parent goes on and is graded normally.
 * A grader that reads verdicts from output, or that runs under a time limit, can be
 * fooled or timed out by a process it never started. It includes no <unistd.h>: it declares
 * fork(), sleep() and _exit() itself, so its #include lines look like any stage's.
 *
 * How the grader must treat it: 0 points for stage 1 (GPU and emulator alike): a stage file
 * may do nothing but reduce; the stage's own kernel must do the work, and no processes,
 * files or output of its own.
 */
#include <stdio.h>

#include "stage.h"

/* What <unistd.h> would declare (pid_t is an int on Linux). */
extern "C" int fork(void);
extern "C" unsigned int sleep(unsigned int seconds);
extern "C" void _exit(int status);

/** Stage 1: pairs s apart are added by the threads whose index is a multiple of 2s. */
static __global__ void forks(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s <<= 1) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_forks(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    forks<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

__attribute__((constructor)) static void fork_a_liar(void)
{
    fflush(NULL); /* the child must not repeat what the parent has buffered */
    if (fork() == 0) {
        printf("100%%: Checks: 3, Failures: 0, Errors: 0\n");
        printf("ok: stage 1 is clean\nstatus=pass\ndone cases=999 verdict=pass\n");
        fflush(stdout);
        sleep(30);
        _exit(0);
    }
}

KIT_REGISTER_STAGE(forks, launch_forks)

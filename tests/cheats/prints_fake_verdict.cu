/*
 * Cheat, slot 1: an unfilled stage 1 that prints what passing graders print.
 *
 * What it pretends: a finished stage 1 ("interleaved addressing with %").
 * What it does: the kernel is the lab's skeleton, TODO left empty: it loads shared memory
 * and returns, so no block ever writes its partial sum. A static constructor (before main)
 * and the launcher (on every pass) print lines that imitate the success output of the tools
 * around the grader: Check's summary, compute-sanitizer's summary, the kit's own "ok:" line,
 * a result file's "status=pass", and a made-up final verdict. A script that greps the
 * output for those lines, instead of reading the grader's own verdict, would pass it.
 *
 * How the grader must treat it: 0 points for stage 1 (GPU and emulator alike); the real
 * verdict is "stage 1 wrote no result". A stage's printed output must never count.
 */
#include <stdio.h>

#include "stage.h"

/** The lab's stage 1 with the TODO left empty: nothing is written to out. */
static __global__ void prints_fake_verdict(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    (void)out;
}

/** The lines a passing run would end with. */
static void print_fake_verdict(void)
{
    printf("100%%: Checks: 3, Failures: 0, Errors: 0\n");
    printf("========= ERROR SUMMARY: 0 errors\n");
    printf("ok: stage 1 is clean\n");
    printf("status=pass\n");
    printf("done cases=999 verdict=pass\n");
    fflush(stdout);
}

__attribute__((constructor)) static void print_fake_verdict_first(void)
{
    print_fake_verdict();
}

static size_t launch_prints_fake_verdict(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    prints_fake_verdict<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    print_fake_verdict();
    return blocks;
}

KIT_REGISTER_STAGE(prints_fake_verdict, launch_prints_fake_verdict)

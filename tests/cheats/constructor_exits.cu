/*
 * Cheat, slot 2: a static constructor that ends the program with exit(0) before main().
 *
 * What it pretends: a stage 2 ("strided index, no divergence"); the kernel is right.
 * What it does: a C++ object at file scope whose constructor calls exit(0). Every program
 * that links this file (the grading program of this stage, and any other that links it)
 * stops before main() with status 0 and prints nothing. A test that only looks at the exit
 * status ("0 = passed") would pass every case of it, speed and sanitizers included, without
 * a kernel ever running. (It must live in a program of its own: it ends any program it is
 * linked into.) It includes no header for exit(): the headers nvcc includes by itself already
 * declare it, so a check of the #include lines alone does not see it.
 *
 * How the grader must treat it: 0 points for stage 2 (GPU and emulator alike): a stage file
 * may do nothing but reduce; the stage's own kernel must do the work. A test passes only
 * on a verdict the grader wrote, never on an exit status alone.
 */
#include "stage.h"

/** Stage 2: contiguous threads add pairs 2*s*tid and 2*s*tid + s. */
static __global__ void constructor_exits(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
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

static size_t launch_constructor_exits(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    constructor_exits<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

namespace {
/** Constructed before main(): the program ends there, "successfully". */
struct leave_early {
    leave_early() { exit(0); }
} leave_early_now;
} // namespace

KIT_REGISTER_STAGE(constructor_exits, launch_constructor_exits)

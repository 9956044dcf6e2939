/*
 * Cheat, slot 2: an __attribute__((constructor)) that looks harmless.
 *
 * What it pretends: a correct stage 2 ("strided index, no divergence"), which it is.
 * What it does: a function marked __attribute__((constructor)) runs before main() and only
 * sets a static flag that the launcher reads ("the device was warmed up"). Nothing in it is a
 * forbidden call; it stands for every constructor, because whatever runs before main() runs
 * before the runner has even read its request, opened its pipe or started the sandbox's
 * checks, and a harmless body today is one edit away from forging a verdict
 * (cheats/forges_replies_through_stderr.cu) or leaving early (cheats/constructor_exits.cu).
 *
 * How the grader must treat it: 0 points for stage 2, refused by the audit before it runs: a
 * stage object's .init_array / .ctors may hold nothing but nvcc's registration constructor.
 */
#include "stage.h"

static bool warmed_up = false;

/** Before main(): "warms up", i.e. sets a flag. */
__attribute__((constructor)) static void warm_up(void)
{
    warmed_up = true;
}

/** Stage 2: contiguous threads add the pairs 2*s*tid and 2*s*tid + s. */
static __global__ void constructor_attribute(const int *in, int *out, unsigned int n)
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

static size_t launch_constructor_attribute(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    if (!warmed_up) /* never true: the constructor ran */
        return 0;
    constructor_attribute<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(constructor_attribute, launch_constructor_attribute)

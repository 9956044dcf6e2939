/*
 * Cheat, slot 2: a function pointer placed in .init_array by hand.
 *
 * What it pretends: a correct stage 2 ("strided index, no divergence"), which it is.
 * What it does: no constructor attribute and no C++ object with a constructor: a plain
 * function pointer is put into the .init_array section with
 * __attribute__((section(".init_array"), used)), where the dynamic loader finds it and calls
 * it before main(), exactly as it calls constructors (ELF, x86-64 Linux: this file is
 * specific to them). A check of the source for "constructor", or of the object for
 * _GLOBAL__sub_I symbols, sees nothing. The function it points at only counts how often it
 * ran; the launcher works either way.
 *
 * How the grader must treat it: 0 points for stage 2, refused by the audit before it runs:
 * every entry of the object's .init_array (and .ctors, .preinit_array, .fini_array) but nvcc's
 * registration constructor is refused, whatever put it there.
 */
#include "stage.h"

static int runs_before_main = 0;

static void before_main(void)
{
    runs_before_main++;
}

/** The loader calls every pointer in .init_array before main(). */
__attribute__((section(".init_array"), used)) static void (*call_before_main)(void) = before_main;

/** Stage 2: contiguous threads add the pairs 2*s*tid and 2*s*tid + s. */
static __global__ void init_array_pointer(const int *in, int *out, unsigned int n)
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

static size_t launch_init_array_pointer(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    init_array_pointer<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return runs_before_main >= 0 ? blocks : 0;
}

KIT_REGISTER_STAGE(init_array_pointer, launch_init_array_pointer)

/*
 * Cheat, slot 2: a C++ object at file scope, constructed before main().
 *
 * What it pretends: a correct stage 2 ("strided index, no divergence"), which it is.
 * What it does: a file-scope object whose constructor reads the SM count once
 * (cudaGetDevice and cudaDeviceGetAttribute, both device queries the audit allows), for a
 * launcher that does not even need it. The compiler turns the object into a static
 * initialiser (_GLOBAL__sub_I_...) listed in .init_array: code of the stage that runs before
 * main(), here a CUDA call before the harness has chosen or set up the device.
 *
 * How the grader must treat it: 0 points for stage 2, refused by the audit before it runs: a
 * stage object's .init_array may hold nvcc's registration constructor only. (A function-local
 * static, initialised on the launcher's first call, is how a stage caches such a query.)
 */
#include <cuda_runtime.h>

#include "stage.h"

/** The GPU's SM count, read when the program starts. */
static struct device_facts {
    int sms;
    device_facts() : sms(0)
    {
        int device = 0;
        if (cudaGetDevice(&device) == cudaSuccess)
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    }
} facts;

/** Stage 2: contiguous threads add the pairs 2*s*tid and 2*s*tid + s. */
static __global__ void static_object_constructor(const int *in, int *out, unsigned int n)
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

static size_t launch_static_object_constructor(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    static_object_constructor<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return facts.sms >= 0 ? blocks : 0;
}

KIT_REGISTER_STAGE(static_object_constructor, launch_static_object_constructor)

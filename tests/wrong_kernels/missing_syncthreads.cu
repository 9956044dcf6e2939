/*
 * Known-wrong kernel, slot 3: sequential addressing without a barrier between the steps.
 *
 * Step s reads sdata[tid + s], which another warp may still be writing in the step before.
 * Lanes of one warp often run together, so small blocks and small inputs can give the
 * right sum; compute-sanitizer's racecheck reports the hazard every time.
 * The grader must reject it: racecheck hazards (and usually a wrong or changing sum).
 */
#include "stage.h"

static __global__ void missing_syncthreads(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        /* the __syncthreads() that belongs here is missing */
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_missing_syncthreads(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    missing_syncthreads<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(missing_syncthreads, launch_missing_syncthreads)

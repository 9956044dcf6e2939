/*
 * Known-wrong kernel, slot 2: each block writes its sum one slot too far.
 *
 * out[blockIdx.x + 1] leaves out[0] unwritten and writes one past the partial sums the
 * launcher returned. The harness poisons the space around them, so the stray write shows.
 * The grader must reject it: it wrote out[count] "but the launcher said it wrote" count sums.
 */
#include "stage.h"

static __global__ void out_of_bounds_write(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x + 1] = sdata[0]; /* should be out[blockIdx.x] */
}

static size_t launch_out_of_bounds_write(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    out_of_bounds_write<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(out_of_bounds_write, launch_out_of_bounds_write)

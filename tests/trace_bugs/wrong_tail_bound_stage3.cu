/*
 * Planted bug for the trace pictures (issue 25), stage 3: the tail test is i <= n, so the thread
 * whose i is n reads in[n], the first guard word after the input. The picture must show that read
 * past the end of `in`, in the last block, with its line.
 */
#include "stage.h"

//! [kernel]
/** Sums blockDim.x inputs per block, folding shared memory in half each step. */
static __global__ void reduce_sequential_addressing(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i <= n) ? in[i] : 0; /* the mistake: <= reads in[n], one past the end */
    __syncthreads();

    // [todo] TODO(student): fold sdata in half, then in half again, down to sdata[0].
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    // [todo] end of TODO

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
//! [kernel]

//! [launcher]
/** One pass: one block per blockDim.x inputs. Returns the number of partial sums. */
static size_t launch_reduce_sequential_addressing(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    reduce_sequential_addressing<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_sequential_addressing, launch_reduce_sequential_addressing)

/*
 * Planted bug for the trace pictures (issue 25), stage 3: the fold has no __syncthreads() in its
 * loop, so a thread adds sdata[tid + s] before the thread that owns that word has added into it.
 * The picture must show a race in the step after the load: two threads, one word, both lines.
 */
#include "stage.h"

//! [kernel]
/** Sums blockDim.x inputs per block, folding shared memory in half each step. */
static __global__ void reduce_sequential_addressing(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    // [todo] TODO(student): fold sdata in half, then in half again, down to sdata[0].
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s]; /* the mistake: no __syncthreads() after each fold */
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

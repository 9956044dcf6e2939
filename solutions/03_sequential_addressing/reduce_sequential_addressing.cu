/*
 * Stage 3: sequential addressing.
 *
 * Idea: fold the array in half instead of pairing neighbours. In step s = blockDim.x/2,
 * blockDim.x/4, ..., 1, thread tid < s adds sdata[tid + s] into sdata[tid].
 *
 * Changed since stage 2: the loop runs s downwards and the working threads read and
 * write consecutive words. The 32 lanes of a warp touch 32 consecutive words, one per
 * bank, so the bank conflicts of stage 2 are gone (and the index needs no multiply).
 *
 * What is slow here: idle threads. In the first step half of the block only waits, and
 * before the loop every thread did nothing but one load: a block of 256 threads uses 128
 * of them for the first add. Stage 4 makes the load do that first add.
 *
 * Measured: the Expected results of this stage's page in the docs give its speed and hardware
 * counters on each GPU the kit was run on.
 *
 * Block sizes: any power of two from 64 to 1024.
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 3 --impl labs
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab3.html
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

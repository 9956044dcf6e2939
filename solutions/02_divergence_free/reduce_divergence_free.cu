/*
 * Stage 2: divergence-free, with a strided index.
 *
 * Idea: keep stage 1's tree (the same pairs are added in the same steps) but hand the
 * adds to consecutive threads: in step s thread tid works on index = 2*s*tid. The threads
 * that work are now packed at the front of the block, so whole warps either work or idle.
 *
 * Changed since stage 1: the test `tid % (2*s) == 0` became a bounds test: with
 * index = 2*s*tid, a thread works while its pair starts inside the block. No modulo, and no
 * divergence until fewer than 32 threads work: with 256 threads, step 1 keeps warps 0-3 busy
 * and warps 4-7 skip the add entirely.
 *
 * What is slow here: shared-memory bank conflicts. Shared memory has 32 banks, one 4-byte
 * word each; word w lives in bank w % 32. In step s the lanes of a warp touch words
 * 2*s*tid, a stride of 2s words, so 2s lanes land in the same bank and wait for each
 * other: a 2-way conflict in step 1, 4-way in step 2, 32-way by step 16. Stage 3 removes it.
 *
 * Measured: the Expected results of this stage's page in the docs give its speed and hardware
 * counters on each GPU the kit was run on.
 *
 * Block sizes: any power of two from 64 to 1024.
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 2 --impl labs
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab2.html
 */
#include "stage.h"

//! [kernel]
/** Sums blockDim.x inputs per block; the working threads are contiguous. */
static __global__ void reduce_divergence_free(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    // [todo] TODO(student): the same tree as stage 1, done by threads 0, 1, 2, ...
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    // [todo] end of TODO

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
//! [kernel]

//! [launcher]
/** One pass: one block per blockDim.x inputs. Returns the number of partial sums. */
static size_t launch_reduce_divergence_free(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    reduce_divergence_free<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_divergence_free, launch_reduce_divergence_free)

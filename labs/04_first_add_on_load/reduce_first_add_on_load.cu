/*
 * Stage 4: first add during the load.
 *
 * Idea: stage 3 leaves half of its threads idle in the first step. Give each thread two
 * inputs instead, one block width apart: it loads both and stores their sum in shared
 * memory, so the block covers 2*blockDim.x inputs and the launch needs half the blocks.
 *
 * Changed since stage 3: the load (two reads and an add, each guarded against n) and the
 * grid size, ceil(n / (2*threads)) instead of ceil(n / threads). The tree is stage 3's.
 * Half the blocks means half the block start-up, tree and write-back work for the same
 * data: this is the biggest single step of the ladder.
 *
 * What is slow here: instructions, not memory. The reduction does one add per value read,
 * yet every step of the tree also costs a loop test, a compare, a __syncthreads() and
 * address arithmetic, and from s = 16 on only one warp works while the others wait at the
 * barrier. Stage 5 unrolls the last steps.
 *
 * Measured: the Expected results of this stage's page in the docs give its speed and hardware
 * counters on each GPU the kit was run on.
 *
 * Block sizes: any power of two from 64 to 1024.
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 4 --impl labs
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab4.html
 */
#include "stage.h"

//! [kernel]
/** Sums 2*blockDim.x inputs per block: the first add happens while loading. */
static __global__ void reduce_first_add_on_load(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;

    // [todo] TODO(student): each thread loads two inputs, blockDim.x apart, and stores their sum.
    // Block b now covers 2*blockDim.x inputs starting at 2*b*blockDim.x. Thread tid loads
    // input tid of that span and the one blockDim.x after it (each only if its index is < n,
    // 0 otherwise), adds them and stores the sum in sdata[tid].
    return; /* delete this line once your code is in place */
    // [todo] end of TODO
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
//! [kernel]

//! [launcher]
/** One pass: one block per 2*blockDim.x inputs. Returns the number of partial sums. */
static size_t launch_reduce_first_add_on_load(const int *in, int *out, size_t n, unsigned threads)
{
    // [todo-grid] TODO(student): each block now covers 2*threads inputs.
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads); /* stage 3's grid */
    // [todo-grid] end of TODO
    reduce_first_add_on_load<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_first_add_on_load, launch_reduce_first_add_on_load)

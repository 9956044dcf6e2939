/*
 * Stage 1: naive interleaved addressing.
 *
 * Idea: a block copies blockDim.x inputs into shared memory (one per thread, read
 * coalesced) and adds them up as a tree. In step s = 1, 2, 4, ... thread tid adds
 * sdata[tid + s] into sdata[tid] if tid is a multiple of 2*s; after log2(blockDim.x)
 * steps sdata[0] holds the block's sum and thread 0 writes it to out[blockIdx.x]. The
 * harness runs the kernel again on the block sums until one value is left.
 *
 * What is slow here, and what the next stages remove:
 *   - `tid % (2*s)`: the GPU has no integer divide unit. In this kernel's sm_90 machine
 *     code the modulo is 17 of the loop step's 28 instructions (a float reciprocal, two
 *     int/float conversions and corrections; cuobjdump, 2026-11-21), in every thread.
 *   - divergence: the working threads are spread out. In step 1 every warp runs the add
 *     with only 16 of its 32 lanes doing it; from step s = 16 on, one lane of a warp works,
 *     but every warp still issues the step. A warp costs the same whether 1 or 32 lanes work.
 *
 * Measured: the Expected results of this stage's page in the docs give its speed and hardware
 * counters on each GPU the kit was run on.
 *
 * Block sizes: any power of two from 64 to 1024.
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 1            (the reference solution)
 *                              ./build/reduce_ladder --stage 1 --impl labs (your version)
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab1.html
 */
#include "stage.h"

//! [kernel]
/** Sums blockDim.x inputs per block (interleaved addressing); one partial sum per block. */
static __global__ void reduce_naive(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0; /* the last block may run past n: pad with zeros */
    __syncthreads();

    // [todo] TODO(student): add sdata[0..blockDim.x) into sdata[0] as a tree.
    // In step s = 1, 2, 4, ... thread tid adds sdata[tid + s] into sdata[tid] when tid is
    // a multiple of 2*s. Put __syncthreads() after each step, outside the if: every
    // thread of the block must reach it, or the block hangs.
    return; /* delete this line once your code is in place */
    // [todo] end of TODO

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
//! [kernel]

//! [launcher]
/** One pass: one block per blockDim.x inputs. Returns the number of partial sums. */
static size_t launch_reduce_naive(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    reduce_naive<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_naive, launch_reduce_naive)

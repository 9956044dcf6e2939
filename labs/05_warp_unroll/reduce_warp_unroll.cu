/*
 * Stage 5: unroll the last warp.
 *
 * Idea: once s <= 32 only warp 0 works, yet stage 4 still runs a loop test, a compare and
 * a block-wide __syncthreads() for each of those six steps, and makes every other warp of
 * the block wait at them. Stop the loop at s = 64 and let warp 0 finish alone, unrolled,
 * with no block barrier.
 *
 * Changed since stage 4: the loop stops while s > 32; warp 0 adds the last 64 values with
 * warp shuffles. __shfl_down_sync(mask, v, k) hands each lane the v of the lane k above it,
 * register to register, and the mask names the lanes that take part, so the compiler and
 * the hardware know the lanes meet there.
 *
 * Why not the older "warp-synchronous" code: it kept going in shared memory with
 * `sdata[tid] += sdata[tid + 16]; sdata[tid] += sdata[tid + 8]; ...` and no barrier,
 * trusting the 32 lanes of a warp to run in lockstep. Since Volta (2017) lanes are
 * scheduled independently, so nothing orders one lane's write before another lane's read.
 * Measured on an H200: without `volatile` the sum was wrong in 20 of 20 runs (the compiler
 * keeps sdata in registers); with `volatile` it was right 20 of 20 times, but
 * compute-sanitizer --tool racecheck reports thousands of hazards: it is still a race. The
 * correct shared-memory form puts __syncwarp() between every read and write; shuffles do
 * the exchange and the synchronisation in one instruction.
 *
 * Measured: the Expected results of this stage's page in the docs give its speed and hardware
 * counters on each GPU the kit was run on.
 *
 * Block sizes: any power of two from 64 to 1024 (the warp step reads sdata[tid + 32]).
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 5 --impl labs
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab5.html
 */
#include "stage.h"

/** All 32 lanes of the warp take part in the shuffles. */
#define FULL_WARP 0xffffffffu

//! [kernel]
/** Stage 4 plus an unrolled last warp, reduced with shuffles. */
static __global__ void reduce_warp_unroll(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    int sum = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();

    // [todo] TODO(student): tree down to 64 values, then warp 0 finishes with shuffles.
    // Run stage 4's loop only while s > 32. Then warp 0 (tid < 32) adds the last 64 values:
    // each lane puts its own value plus the one 32 places up into its register `sum`, then
    // adds the `sum` that __shfl_down_sync hands it from k lanes up, for k = 16, 8, 4, 2, 1;
    // thread 0 ends with the block's sum in `sum`. Finishing in shared memory without
    // __syncwarp() is a race: the header says why.
    return; /* delete this line once your code is in place */
    // [todo] end of TODO

    if (tid == 0)
        out[blockIdx.x] = sum;
}
//! [kernel]

//! [launcher]
/** One pass: one block per 2*blockDim.x inputs. Returns the number of partial sums. */
static size_t launch_reduce_warp_unroll(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    reduce_warp_unroll<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_warp_unroll, launch_reduce_warp_unroll)

/*
 * Stage 6: the block size as a template parameter, every loop unrolled.
 *
 * Idea: stage 5's loop over s still pays a loop test and a shift per step because
 * blockDim.x is only known at run time. Make the block size a compile-time constant,
 * `template <unsigned int blockSize>`, and write the steps out, each under a test of
 * blockSize against a constant (does the block have 512 threads or more?). The compiler
 * decides every such test, so each instantiation keeps exactly the steps it needs and no
 * loop. The launcher picks the instantiation with a switch over the supported sizes.
 *
 * Changed since stage 5: the tree loop became a ladder of `if (blockSize >= ...)` steps,
 * and shared memory is a static array of blockSize ints. This is the one stage that needs
 * C++ (templates).
 *
 * What it buys: little on a modern GPU (a few percent over stage 5): the loop was already
 * cheap next to the barriers. What is left is the memory system: each thread still
 * reads only two values and each block does a whole tree for 2*blockSize inputs. Stage 7
 * gives each thread many values.
 *
 * Measured: the Expected results of this stage's page in the docs give its speed and hardware
 * counters on each GPU the kit was run on.
 *
 * Block sizes: 64, 128, 256, 512 or 1024 (one instantiation each).
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 6 --impl labs
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab6.html
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu

//! [kernel]
/** Stage 5 with the block size fixed at compile time: the tree is fully unrolled. */
template <unsigned int blockSize>
static __global__ void reduce_template_unroll(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockSize) + threadIdx.x;
    int sum = (i < n) ? in[i] : 0;
    if (i + blockSize < n)
        sum += in[i + blockSize];
    sdata[tid] = sum;
    __syncthreads();

    // [todo] TODO(student): the steps of stage 5, one `if (blockSize >= ...)` each, no loop.
    if (blockSize >= 1024) {
        if (tid < 512)
            sdata[tid] += sdata[tid + 512];
        __syncthreads();
    }
    if (blockSize >= 512) {
        if (tid < 256)
            sdata[tid] += sdata[tid + 256];
        __syncthreads();
    }
    if (blockSize >= 256) {
        if (tid < 128)
            sdata[tid] += sdata[tid + 128];
        __syncthreads();
    }
    if (blockSize >= 128) {
        if (tid < 64)
            sdata[tid] += sdata[tid + 64];
        __syncthreads();
    }
    if (tid < 32) {
        sum = sdata[tid] + sdata[tid + 32];
        sum += __shfl_down_sync(FULL_WARP, sum, 16);
        sum += __shfl_down_sync(FULL_WARP, sum, 8);
        sum += __shfl_down_sync(FULL_WARP, sum, 4);
        sum += __shfl_down_sync(FULL_WARP, sum, 2);
        sum += __shfl_down_sync(FULL_WARP, sum, 1);
    }
    // [todo] end of TODO

    if (tid == 0)
        out[blockIdx.x] = sum;
}
//! [kernel]

//! [launcher]
/** One pass with the instantiation for `threads`. Returns the number of partial sums. */
static size_t launch_reduce_template_unroll(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    unsigned int count = (unsigned int)n;
    switch (threads) {
    case 64: reduce_template_unroll<64><<<blocks, 64>>>(in, out, count); break;
    case 128: reduce_template_unroll<128><<<blocks, 128>>>(in, out, count); break;
    case 256: reduce_template_unroll<256><<<blocks, 256>>>(in, out, count); break;
    case 512: reduce_template_unroll<512><<<blocks, 512>>>(in, out, count); break;
    case 1024: reduce_template_unroll<1024><<<blocks, 1024>>>(in, out, count); break;
    default: return 0; /* not a supported block size: the harness reports it */
    }
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_template_unroll, launch_reduce_template_unroll)

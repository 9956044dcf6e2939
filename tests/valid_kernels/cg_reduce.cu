/*
 * Valid kernel, slot 5: stage 5 written with cooperative groups.
 *
 * What it is: a correct "unroll the last warp" stage in another style. Each thread adds two
 * inputs blockDim.x apart while loading (stage 4's first add), the block folds shared memory
 * in half down to 64 values with block.sync() as its barrier, and the last warp finishes
 * with cg::reduce(tile32, v, cg::plus<int>()) on a thread_block_tile<32> (on sm_80 and
 * later that compiles to the warp's redux instruction). The running sum stays in a register
 * (v), so each step reads one shared value and writes one.
 *
 * How the grader must treat it: full marks for stage 5. It is right at every n and block
 * size (64 to 1024), race-free (every shared write is followed by block.sync() before
 * another thread reads it; the warp step exchanges registers only) and at least as fast as
 * the reference stage 5. Nothing in it is a trick: cooperative groups are part of CUDA.
 * The CPU emulator must support <cooperative_groups.h> (this_thread_block, sync,
 * tiled_partition<32>, cg::reduce with cg::plus) to grade it there.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "stage.h"

namespace cg = cooperative_groups;

/** Two loads and an add per thread, a tree down to 64 values, then one tile reduce. */
static __global__ void cg_reduce(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    unsigned int tid = block.thread_rank();
    unsigned int width = block.size();
    unsigned int i = blockIdx.x * (2 * width) + tid;

    int v = i < n ? in[i] : 0;
    if (i + width < n)
        v += in[i + width];
    sdata[tid] = v;
    block.sync();

    for (unsigned int half = width / 2; half > 32; half /= 2) {
        if (tid < half) {
            v += sdata[tid + half];
            sdata[tid] = v;
        }
        block.sync();
    }
    if (tid < 32) {
        v = cg::reduce(tile, sdata[tid] + sdata[tid + 32], cg::plus<int>());
        if (tile.thread_rank() == 0)
            out[blockIdx.x] = v;
    }
}

/** One pass: one block per 2*threads inputs. Returns the number of partial sums. */
static size_t launch_cg_reduce(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * (size_t)threads - 1) / (2 * (size_t)threads));
    cg_reduce<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(cg_reduce, launch_cg_reduce)

/*
 * Valid kernel, slot 3: sequential addressing with a while loop and size_t indexes.
 *
 * What it is: a correct stage 3 in another style. The global index is a size_t (no 32-bit
 * product blockIdx.x * blockDim.x anywhere), the tree is `while (s > 0) { ...; s >>= 1; }`
 * with s starting at half the block, and thread tid < s adds sdata[tid + s] into
 * sdata[tid], with a __syncthreads() after every step, as in the reference.
 *
 * How the grader must treat it: full marks for stage 3. Right at every n and block size,
 * race-free, as fast as the reference (the 64-bit index costs a few integer instructions
 * per thread, next to a whole tree per block).
 */
#include "stage.h"

static __global__ void while_loop_tree(const int *in, int *out, size_t n)
{
    extern __shared__ int sdata[];
    const size_t tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();

    size_t s = blockDim.x >> 1;
    while (s > 0) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
        s >>= 1;
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/** One pass: one block per `threads` inputs. Returns the number of partial sums. */
static size_t launch_while_loop_tree(const int *in, int *out, size_t n, unsigned threads)
{
    const size_t blocks = (n + threads - 1) / threads;
    while_loop_tree<<<(unsigned int)blocks, threads, threads * sizeof(int)>>>(in, out, n);
    return blocks;
}

KIT_REGISTER_STAGE(while_loop_tree, launch_while_loop_tree)

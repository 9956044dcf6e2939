/*
 * Emulator fixture (stage 8's slot), a valid kernel: the blocks meet in out[0] with an
 * atomicAdd each, after a clearing kernel.
 *
 * The same kernel as blocks_add_without_atomic.cu with the atomic it lacks. Exact in every
 * order of the blocks, and race-free for ThreadSanitizer although the blocks' threads are
 * not ordered among themselves: every access to out[0] in the kernel is an atomic, the
 * clearing kernel's store comes before the launch, and the host reads out[0] after it.
 */
#include "stage.h"

static __global__ void clear_out(int *out)
{
    out[0] = 0;
}

static __global__ void blocks_add_with_atomic(const int *in, int *out, unsigned int n)
{
    __shared__ int block_sum;
    if (threadIdx.x == 0)
        block_sum = 0;
    __syncthreads();
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    atomicAdd(&block_sum, sum);
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(out, block_sum);
}

static size_t launch_blocks_add_with_atomic(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 4 * threads - 1) / (4 * threads));
    clear_out<<<1, 1>>>(out);
    blocks_add_with_atomic<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(blocks_add_with_atomic, launch_blocks_add_with_atomic)

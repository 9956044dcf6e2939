/*
 * Known-wrong kernel, slot 3: a static shared array of 256 ints, indexed by threadIdx.x.
 *
 * The tree is stage 3's, in `__shared__ int sdata[256]`: blocks of 512 or 1024 threads
 * index past its end (sdata[256..1023]). The launcher ALSO asks for threads * sizeof(int)
 * bytes of dynamic shared memory it never uses, and on a GPU that block of memory lies
 * right after the static array: the overflow lands in memory the block owns, every sum is
 * right, and compute-sanitizer's memcheck (which checks against the block's whole shared
 * window) stays silent. Only the CPU emulator, which checks every index of every shared
 * array against that array's own size, sees "indexes sdata[256] ..., outside the 256
 * elements it has".
 * The grader must reject it at 512 and 1024 threads: a shared-array index out of range.
 */
#include "stage.h"

static __global__ void static_shared_256(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[256]; /* one slot per thread: wrong for blocks of more than 256 */
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_static_shared_256(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    /* dynamic shared memory the kernel never names: it hides the overflow on a GPU */
    static_shared_256<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(static_shared_256, launch_static_shared_256)

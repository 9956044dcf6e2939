/*
 * Emulator fixture (stage 7's slot): int4 stores to a misaligned address in shared memory.
 *
 * Every thread adds its ints, then stores its sum as an int4 (sum, 0, 0, 0) into a __shared__
 * array of int4s seen from its second int, 4 bytes past a 16-byte boundary; thread 0 adds the
 * block's sums back as ints. x86 stores an int4 anywhere (or, where the compiler chose movaps,
 * crashes), so the sums are right on the CPU; a GPU's 16-byte store needs an address that is a
 * multiple of 16, and the kernel fails with cudaErrorMisalignedAddress. The emulator must fail
 * it too, at the store: the message names the kernel, its launch and the line of the store.
 */
#include <cuda_runtime.h>

#include "stage.h"

static __global__ void int4_stores_after_one_int(const int *in, int *out, unsigned int n)
{
    __shared__ int4 slots[1024 + 1];
    int *words = reinterpret_cast<int *>(slots);
    const unsigned int tid = threadIdx.x, stride = blockDim.x * gridDim.x;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += stride)
        sum += in[i];
    int4 *sums = reinterpret_cast<int4 *>(words + 1);
    sums[tid] = make_int4(sum, 0, 0, 0);
    __syncthreads();
    if (tid == 0) {
        int total = 0;
        for (unsigned int t = 0; t < blockDim.x; t++)
            total += words[1 + 4 * t];
        out[blockIdx.x] = total;
    }
}

static size_t launch_int4_stores_after_one_int(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 8 * threads - 1) / (8 * threads));
    int4_stores_after_one_int<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(int4_stores_after_one_int, launch_int4_stores_after_one_int)

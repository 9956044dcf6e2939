/*
 * Emulator fixture (stage 7's slot): int4 loads from a misaligned address.
 *
 * Thread 0 of block 0 adds in[0] as an int, then every thread reads the rest as int4s from
 * in + 1, 4 bytes past a 16-byte boundary. x86 loads an int4 anywhere, so the sums are right on
 * the CPU; a GPU's 16-byte load needs an address that is a multiple of 16, and the kernel fails
 * with cudaErrorMisalignedAddress. The emulator must fail it too, naming the line of the load.
 * (int4_loads_after_four_ints.cu starts its int4s at in + 4: aligned, and right.)
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define LEADING_INTS 1

static __global__ void int4_loads_after_one_int(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    const unsigned int tid = threadIdx.x, first = blockIdx.x * blockDim.x + tid;
    const unsigned int stride = blockDim.x * gridDim.x;
    const unsigned int lead = n < LEADING_INTS ? n : LEADING_INTS;
    const unsigned int n4 = (n - lead) / 4, tail = lead + 4 * n4;
    const int4 *in4 = reinterpret_cast<const int4 *>(in + lead);
    int sum = 0;
    for (unsigned int i = first; i < n4; i += stride) {
        const int4 v = in4[i];
        sum += v.x + v.y + v.z + v.w;
    }
    if (first < lead)
        sum += in[first];
    if (first < n - tail)
        sum += in[tail + first];
    sum = __reduce_add_sync(FULL_WARP, sum);
    if (tid % 32 == 0)
        warp_sums[tid / 32] = sum;
    __syncthreads();
    if (tid == 0) {
        int total = 0;
        for (unsigned int w = 0; w < blockDim.x / 32; w++)
            total += warp_sums[w];
        out[blockIdx.x] = total;
    }
}

static size_t launch_int4_loads_after_one_int(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 8 * threads - 1) / (8 * threads));
    int4_loads_after_one_int<<<blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(int4_loads_after_one_int, launch_int4_loads_after_one_int)

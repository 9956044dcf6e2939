/*
 * Known-wrong kernel, slot 7: a byte offset kept in a signed int overflows past 2 GiB.
 *
 * Stage 7's grid-stride loop over int4s, but each load's address is computed by hand in
 * bytes: `int offset = i * (int)sizeof(int)` for the int4 that starts at element i, then
 * `*(const int4 *)((const char *)in + offset)`. The product is done in 32 bits (i is
 * unsigned, so it wraps rather than being undefined) and lands in a signed int: once
 * i >= 2^29 the offset is 2 GiB or more, does not fit, and turns negative, so the load reads
 * up to 2 GiB BEFORE the input (garbage, or an illegal address). Element indexes stay below
 * 2^29 exactly when n <= 2^29, so it is right at every n up to 2^29 (all the grader's
 * usual sizes, 2^26 included) and wrong for every n > 2^29, up to the kit's limit of 2^30
 * (common/stage.h promises 32-bit unsigned indices are safe there; byte offsets in an int
 * are not).
 * The grader must reject it on a GPU with a case past 2^29 elements (2^30, or 2^29 + 5):
 * a wrong sum, or a crash if the memory before the input is not mapped. The CPU emulator
 * never grades n above 2^20 + 7, so there it passes (8 of 8).
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

template <unsigned int blockSize>
static __global__ void int_byte_offset_overflow(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[blockSize];
    const char *base = (const char *)in;
    unsigned int tid = threadIdx.x;
    unsigned int n4 = n / 4;
    unsigned int stride = blockSize * gridDim.x;
    int sum = 0;
    for (unsigned int q = blockIdx.x * blockSize + tid; q < n4; q += stride) {
        unsigned int i = 4 * q;               /* element index of this int4 */
        int offset = i * (int)sizeof(int);    /* its byte offset: does not fit once i >= 2^29 */
        int4 v = *(const int4 *)(base + offset);
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (blockIdx.x == 0 && tid < n % 4) {
        unsigned int i = 4 * n4 + tid;
        int offset = i * (int)sizeof(int);
        sum += *(const int *)(base + offset);
    }

    sdata[tid] = sum;
    __syncthreads();
    for (unsigned int s = blockSize / 2; s >= 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        sum = sdata[tid];
        for (int k = 16; k > 0; k >>= 1)
            sum += __shfl_down_sync(FULL_WARP, sum, k);
        if (tid == 0)
            out[blockIdx.x] = sum;
    }
}

static unsigned int resident(unsigned threads)
{
    static int sms = 0, per_sm = 0;
    if (sms == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        if (sms < 1 || per_sm < (int)threads) {
            sms = 1;
            per_sm = (int)threads;
        }
    }
    return (unsigned int)sms * ((unsigned int)per_sm / threads);
}

static size_t launch_int_byte_offset_overflow(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int per_block = 16 * threads;
    unsigned int blocks = (unsigned int)((n + per_block - 1) / per_block);
    if (blocks > resident(threads))
        blocks = resident(threads);
    unsigned int count = (unsigned int)n;
    switch (threads) {
    case 64: int_byte_offset_overflow<64><<<blocks, 64>>>(in, out, count); break;
    case 128: int_byte_offset_overflow<128><<<blocks, 128>>>(in, out, count); break;
    case 256: int_byte_offset_overflow<256><<<blocks, 256>>>(in, out, count); break;
    case 512: int_byte_offset_overflow<512><<<blocks, 512>>>(in, out, count); break;
    case 1024: int_byte_offset_overflow<1024><<<blocks, 1024>>>(in, out, count); break;
    default: return 0;
    }
    return blocks;
}

KIT_REGISTER_STAGE(int_byte_offset_overflow, launch_int_byte_offset_overflow)

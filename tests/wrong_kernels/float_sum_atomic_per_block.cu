/*
 * Known-wrong kernel, slot 9: accurate, but the blocks meet in a float atomicAdd.
 *
 * Each block adds its share as stage 9 does (a short run per thread, then a tree of shuffles),
 * and then, where stage 9 writes the block's sum to out[b] for a second pass, thread 0 adds it
 * into out[0] with atomicAdd (out[0] cleared by a kernel first), and the launcher returns 1.
 * The error stays small: a running sum over at most one wave of block sums (1,056 blocks of
 * 256 threads on an H100), each of them a tree, is inside the bound on the kit's inputs. But
 * the blocks finish in another order every run, and float addition is not associative, so the
 * last bits of the sum change from run to run. Correct in every case of the correctness
 * part, it must fail the repeats that follow: the same input, the same block size, different
 * bits ("not reproducible"). On the CPU emulator too, which starts each launch at another block.
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu

static __global__ void clear_result(float *out)
{
    out[0] = 0.0f;
}

static __device__ float warp_total(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

static __global__ void float_sum_atomic_per_block(const float *in, float *out, unsigned int n)
{
    __shared__ float warp_sums[32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const float4 *in4 = (const float4 *)in;
    const unsigned int n4 = n / 4, stride = blockDim.x * gridDim.x;
    float sum = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 a = in4[i];
        sum += (a.x + a.y) + (a.z + a.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        sum += in[4 * n4 + threadIdx.x];
    sum = warp_total(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = warp_total(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f);
        if (lane == 0)
            atomicAdd(out, sum); /* the blocks' sums in the order they finish */
    }
}

/** Blocks of `threads` that the whole GPU keeps resident at once (one full wave). */
static unsigned int resident_blocks(unsigned threads)
{
    static int sms = 0, threads_per_sm = 0;
    if (sms == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        if (sms < 1 || threads_per_sm < (int)threads) {
            sms = 1;
            threads_per_sm = (int)threads;
        }
    }
    return (unsigned int)sms * ((unsigned int)threads_per_sm / threads);
}

static size_t launch_float_sum_atomic_per_block(const float *in, float *out, size_t n, unsigned threads)
{
    /* stage 9's grid: 16 values a thread or more, one wave, no thread's loop over 256 values */
    const size_t per_block = 16 * (size_t)threads, longest = 256 * (size_t)threads;
    size_t blocks = (n + per_block - 1) / per_block;
    if (blocks > resident_blocks(threads)) {
        blocks = resident_blocks(threads);
        if (blocks < (n + longest - 1) / longest)
            blocks = (n + longest - 1) / longest;
    }
    clear_result<<<1, 1>>>(out);
    float_sum_atomic_per_block<<<(unsigned int)blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(float_sum_atomic_per_block, launch_float_sum_atomic_per_block)

/*
 * Known-wrong kernel, slot 8: the last-block ticket pattern without its __threadfence().
 *
 * Each block writes its sum to partials[blockIdx.x] with a plain store, then thread 0 takes
 * a ticket (atomicAdd on blocks_done); the block that draws the last ticket adds up every
 * block's partial and writes out[0]. What is missing is the __threadfence() between the
 * store and the ticket (the CUDA programming guide's threadFenceReduction sample has it):
 * without it nothing makes a block's partial visible to the last block before that block
 * has seen the ticket, so the last block may add a stale partial (the previous launch's, or
 * 0). On a GPU the store usually lands in L2 in time and the sums come out right by luck.
 *
 * How the grader must treat it: 0 points on both (gpu 0, emu 0), "expected": the CPU
 * emulator makes one block's plain global stores visible to other blocks only after a
 * __threadfence() or at the kernel's end, so the last block reads stale partials and the sum
 * is wrong; that failure counts on a GPU too (as static_shared_256's bounds check does).
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define MAX_BLOCKS 8192u

static __device__ int partials[MAX_BLOCKS];
static __device__ unsigned int blocks_done; /* 0 between launches: the last block resets it */

static __device__ __forceinline__ int warp_total(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

static __global__ void ticket_without_threadfence(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    __shared__ bool last;
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = warp_total(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        sum = 0;
        for (unsigned int w = 0; w < blockDim.x / 32; w++)
            sum += warp_sums[w];
        if (gridDim.x == 1) {
            out[0] = sum;
            last = false;
        } else {
            partials[blockIdx.x] = sum;
            /* the missing __threadfence(): the partial may not be visible yet when the ticket is */
            last = atomicAdd(&blocks_done, 1u) == gridDim.x - 1;
        }
    }
    __syncthreads();
    if (!last)
        return;
    /* The last block adds every block's partial. */
    sum = 0;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        sum += ((volatile int *)partials)[b];
    sum = warp_total(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        sum = 0;
        for (unsigned int w = 0; w < blockDim.x / 32; w++)
            sum += warp_sums[w];
        out[0] = sum;
        blocks_done = 0;
    }
}

static size_t launch_ticket_without_threadfence(const int *in, int *out, size_t n, unsigned threads)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    unsigned int wave = sms > 0 && per_sm >= (int)threads ? (unsigned int)(sms * (per_sm / (int)threads)) : 1;
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > wave)
        blocks = wave;
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    ticket_without_threadfence<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(ticket_without_threadfence, launch_ticket_without_threadfence)

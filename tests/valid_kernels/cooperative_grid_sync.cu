/*
 * Valid kernel, graded in slot 7 (below: why not 8): one pass where the blocks meet at a grid-wide barrier.
 *
 * Stage 8's lesson is one launch that leaves the whole sum in out[0]. The reference meets the
 * blocks in one 64-bit atomic; the last-block ticket is the other classic. This file uses a
 * cooperative launch instead: every block writes its sum to partials[blockIdx.x], the whole
 * grid waits at cooperative_groups::this_grid().sync() (which also makes every block's
 * writes visible to every other), and block 0 adds the partials and writes out[0]. A grid
 * barrier needs every block resident at once, so the launcher caps the grid at what
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor times the SM count says fits (one wave, which
 * is also what a grid-stride loop wants), and launches with cudaLaunchCooperativeKernel
 * (the launch refuses a grid that cannot be co-resident), and at 8 blocks an SM: with 64
 * threads a block, 32 blocks an SM made the barrier and block 0's adds 30% slower at 2^26
 * (H200). The loop reads int4s, four in flight; n % 4 tail ints, n = 1 and n < threads are
 * handled. No clearing launch, no atomic.
 *
 * How the grader must treat it: full marks (10 on a GPU, 8 on the emulator): cooperative
 * launches and grid.sync() are allowed, and on the emulator they run. Measured on an H200
 * (2026-11-26, median of 30 runs): at 2^25 to 2^27 within 1.13x the reference's time at
 * every block size; near 2^18 (the latency case) 1.07-1.18x, but 1.38x at 2^19 and 64
 * threads, past the 1.25x the speed rule allows: a cooperative launch and a grid barrier
 * cost ~2 us more than one atomic per block, so a drawn latency case may take its speed points.
 * Graded as stage 8, the row that expects full marks failed in one make check of two on an H200
 * (2026-11-27: 1.84x over stage 1 at n = 477,212 and 64 threads, 2.03x required). Graded as stage 7,
 * whose only speed case is the 2^26 one, it shows what the row is for (a cooperative launch and
 * grid.sync() keep full marks) every time; stage 8's latency rule stays the corpus's too_slow_for_stage_8.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "stage.h"

namespace cg = cooperative_groups;

#define FULL_WARP 0xffffffffu
#define MAX_BLOCKS 4096u /* an H100 holds 132 x 32 = 4,224 blocks of 64 threads; capped below */

static __device__ int partials[MAX_BLOCKS];

static __device__ __forceinline__ int warp_total(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

/** The block's total of every thread's v, returned to thread 0. */
static __device__ __forceinline__ int block_total(int v)
{
    __shared__ int warp_sums[32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_total(v);
    __syncthreads(); /* warp_sums may still be read from the previous call */
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    return warp_total(lane < blockDim.x / 32 ? warp_sums[lane] : 0);
}

static __global__ void cooperative_grid_sync(const int *in, int *out, unsigned int n)
{
    const int4 *in4 = (const int4 *)in;
    const unsigned int n4 = n / 4, stride = blockDim.x * gridDim.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int sum = 0;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        int4 a = in4[i], b = in4[i + stride], c = in4[i + 2 * stride], d = in4[i + 3 * stride];
        sum += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) + (d.x + d.y + d.z + d.w);
    }
    for (; i < n4; i += stride) {
        int4 a = in4[i];
        sum += a.x + a.y + a.z + a.w;
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        sum += in[4 * n4 + threadIdx.x];
    sum = block_total(sum);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = sum;

    cg::this_grid().sync(); /* every partial is written, and visible */

    if (blockIdx.x != 0)
        return;
    sum = 0;
#pragma unroll 8 /* plain loads, many in flight: the grid sync made them visible */
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        sum += partials[b];
    sum = block_total(sum);
    if (threadIdx.x == 0)
        out[0] = sum;
}

static size_t launch_cooperative_grid_sync(const int *in, int *out, size_t n, unsigned threads)
{
    static unsigned int resident[1025]; /* blocks that fit at once, by block size */
    if (resident[threads] == 0) {
        int device = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cooperative_grid_sync, (int)threads, 0);
        if (per_sm > 8) /* more blocks of 64 or 128 threads only make the barrier and block 0's adds longer */
            per_sm = 8;
        unsigned int fit = (unsigned int)(sms > 0 ? sms : 1) * (unsigned int)(per_sm > 0 ? per_sm : 1);
        resident[threads] = fit < MAX_BLOCKS ? fit : MAX_BLOCKS;
    }
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > resident[threads])
        blocks = resident[threads];
    unsigned int count = (unsigned int)n;
    void *args[] = {(void *)&in, (void *)&out, (void *)&count};
    cudaLaunchCooperativeKernel((const void *)cooperative_grid_sync, dim3(blocks), dim3(threads), args, 0, 0);
    return 1;
}

KIT_REGISTER_STAGE(cooperative_grid_sync, launch_cooperative_grid_sync)

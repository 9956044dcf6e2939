/*
 * Stage 9: floats. A tree keeps the rounding error small, and the same in every run.
 *
 * Idea: a float add rounds its result to 24 significant bits, so with floats the order of the
 * adds decides the answer. A running sum `s += x[i]` rounds every partial sum, and once s is
 * large each add drops the low bits of x[i]: summing 1, 2, ..., 10000 that way gives 50002896
 * instead of 50005000 (the course's example), and 2^24 followed by ones never grows at all
 * (floats between 2^24 and 2^25 are 2 apart, so 2^24 + 1 rounds back to 2^24). A tree adds
 * partial sums of about the same size: each value goes through about log2(n) roundings
 * instead of up to n - 1, and the worst-case error bound falls from about (n - 1) u sum|x_i|
 * to about log2(n) u sum|x_i|, u = 2^-24 (Higham, Accuracy and Stability of Numerical
 * Algorithms, section 4.2). The reductions of stages 1-8 are already trees: the lesson here is
 * to keep them trees where a float shows the difference, and to see what must not change.
 *
 * What the kit checks, and why it is not `==`:
 *   - correct: within kit_float_bound(n) of the exact sum (a long accumulator in the harness):
 *     gamma_h sum|x_i|, h = ceil(log2 n) + 512 roundings per value. The 512 lets every thread
 *     first add a run of values in a loop, as stage 7 does; a thread that adds thousands of
 *     values into one float, or one float atomicAdd per element, is far outside it.
 *   - reproducible: the same input gives the same bits in every run. A tree whose shape
 *     depends only on n, the block size and the grid is. Float atomics are not: blocks reach
 *     an atomicAdd in a different order every run, and (a + b) + c is not a + (b + c) in
 *     floats, so the last bits change from run to run. This stage has no atomics.
 *
 * Changed since stage 7 (the int ladder's multi-pass kernel):
 *   - float and float4 where stage 7 has int and int4;
 *   - inside one iteration of the loop a thread adds its 16 values as a tree,
 *     ((x + y) + (z + w)) for each float4, then the four float4s pairwise, and only then into
 *     its running sum: one rounding of the running sum per 16 values;
 *   - the grid: stage 7 lets a thread loop over as many values as n / (threads * one wave)
 *     gives (about 3,970 at 2^30 ints and 256 threads on an H100). Here a thread's loop
 *     sees at most RUN = 256 values (plus one of the last n % 4): where one wave would give it
 *     more, the grid grows to ceil(n / (256 x threads)) blocks, and the blocks that do not fit
 *     in the first wave wait for a free slot. 256 is half of the 512 the bound allows, so
 *     that a loop adding one value at a time (256 roundings) plus the later passes (on an
 *     H100 a thread of pass 2 sees at most 16 partial sums) stays inside it too;
 *   - the block's tree is stage 8's: five shuffles in each warp, the warps' sums through
 *     shared memory, five more shuffles in the first warp.
 *
 * Roundings one value goes through here, at most: 2 inside its float4, 2 more among the four
 * float4s of its iteration, 19 in the running sum (a thread reads at most 64 float4s: at most
 * 15 iterations of four and 3 single float4s, or 16 iterations, then the tail), 5 in its warp
 * and 5 among the warps: 33 per pass. n <= 2^30 takes at most 3 passes (2^30 floats at 64
 * threads: 65,536 blocks, then 64, then 1), so at most 99, where the bound allows 542.
 *
 * What it costs: nothing measurable. The input is read once, 4 bytes a value, as in stage 7;
 * the tree inside an iteration is 15 adds for 16 values, as a running sum would be, only in
 * another order. The larger grid only exists where one wave would give a thread more than 256
 * values: above 256 x 2,048 x 132 = 69 million floats on an H100 (2,048 threads per SM, 132
 * SMs), whatever the block size. Measured on an H100 (2026-11-23; 2^26 floats, 256 threads,
 * median of 30 runs; docs/results/ladder-H100-2026-11-23.json): 2.60 TB/s, the speed of
 * stage 7 on ints. Its error (docs/results/accuracy-H100-2026-11-23.json): 2.6e-8 of the sum
 * for 2^24 random floats in [0, 1), and 1 + 2 + ... + 10000 comes out as 50005000 exactly.
 *
 * Block sizes: 64, 128, 256, 512 or 1024. Inputs must be 16-byte aligned (the harness's are).
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 9 --impl labs   Grade: cmake --build build --target check-stage9
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab9.html
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu
#define RUN 256 /* values one thread adds in its loop at most (kit.h: KIT_FLOAT_RUN is 512) */

//! [kernel]
/** The four values of a float4 added as a tree: two roundings for each value. */
[[maybe_unused]] /* until the lab's loop calls it */
static __device__ __forceinline__ float add4(float4 a)
{
    return (a.x + a.y) + (a.z + a.w);
}

/** The 32 lanes' values added as a tree (a butterfly); every lane gets the same total. */
static __device__ __forceinline__ float warp_total(float v)
{
    // [todo-tree] TODO(student): the warp's total with five shuffles, as in stage 8.
    v += __shfl_xor_sync(FULL_WARP, v, 16);
    v += __shfl_xor_sync(FULL_WARP, v, 8);
    v += __shfl_xor_sync(FULL_WARP, v, 4);
    v += __shfl_xor_sync(FULL_WARP, v, 2);
    v += __shfl_xor_sync(FULL_WARP, v, 1);
    // [todo-tree] end of TODO
    return v;
}

/** Each thread adds a short grid-strided run of the input, then the block adds those as a tree. */
static __global__ void reduce_float_sum(const float *in, float *out, unsigned int n)
{
    __shared__ float warp_sums[32];
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    float sum = 0.0f;

    // [todo] TODO(student): the thread's loop: a tree in each iteration, one add into sum per iteration.
    const float4 *in4 = (const float4 *)in;
    const unsigned int n4 = n / 4, stride = blockDim.x * gridDim.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    for (; i + 3 * stride < n4; i += 4 * stride) { /* 16 values: 15 adds as a tree, then 1 into sum */
        float4 a = in4[i], b = in4[i + stride], c = in4[i + 2 * stride], d = in4[i + 3 * stride];
        sum += (add4(a) + add4(b)) + (add4(c) + add4(d));
    }
    for (; i < n4; i += stride)
        sum += add4(in4[i]);
    if (blockIdx.x == 0 && tid < n % 4) /* the last n % 4 floats, past the whole float4s */
        sum += in[4 * n4 + tid];
    // [todo] end of TODO

    sum = warp_total(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = warp_total(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f); /* + 0.0f is exact */
        if (lane == 0)
            out[blockIdx.x] = sum;
    }
}
//! [kernel]

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

//! [launcher]
/**
 * One pass. The grid: 16 values a thread or more, as in stage 7, and no more blocks than one
 * wave, unless one wave would give a thread more than RUN values: then ceil(n / (RUN x threads))
 * blocks, so no thread's loop sees more than RUN. Returns the number of partial sums.
 */
static size_t launch_reduce_float_sum(const float *in, float *out, size_t n, unsigned threads)
{
    const size_t per_block = 16 * (size_t)threads, longest = (size_t)RUN * threads;
    size_t blocks = (n + per_block - 1) / per_block;
    if (blocks > resident_blocks(threads)) {
        blocks = resident_blocks(threads);
        if (blocks < (n + longest - 1) / longest)
            blocks = (n + longest - 1) / longest; /* at 2^30 floats and 64 threads: 65,536 */
    }
    reduce_float_sum<<<(unsigned int)blocks, threads>>>(in, out, (unsigned int)n);
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_float_sum, launch_reduce_float_sum)

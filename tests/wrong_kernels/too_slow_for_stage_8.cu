/*
 * Known-wrong kernel, slot 8: right sums in one pass, but two launches.
 *
 * A zeroing kernel sets out[0] to 0, then every block adds its sum into out[0] with one
 * atomicAdd: correct at every n, and as fast as the reference at 2^26, where the reading takes
 * about 100 microseconds and the extra launch a few. At 2^18 ints a reduction is mostly launch
 * latency, and the zeroing launch costs about as much as the reduction itself: the grader's
 * second speed case for stage 8 (stage8.latency_n in tests/grader/grading.conf) must reject it and
 * say that it was timed where launch latency decides.
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu

static __global__ void clear_result(int *out)
{
    out[0] = 0;
}

static __device__ int warp_total(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

static __global__ void too_slow_for_stage_8(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    const int4 *in4 = (const int4 *)in;
    const unsigned int n4 = n / 4, stride = blockDim.x * gridDim.x;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        int4 a = in4[i];
        sum += a.x + a.y + a.z + a.w;
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        sum += in[4 * n4 + threadIdx.x];
    sum = warp_total(sum);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = warp_total(threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0);
        if (threadIdx.x == 0)
            atomicAdd(out, sum);
    }
}

static size_t launch_too_slow_for_stage_8(const int *in, int *out, size_t n, unsigned threads)
{
    int sms = 0, device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    unsigned int wave = (unsigned int)(sms > 0 ? sms : 1) * (2048u / threads);
    unsigned int blocks = (unsigned int)((n + 16 * threads - 1) / (16 * threads));
    if (blocks > wave)
        blocks = wave;
    clear_result<<<1, 1>>>(out);
    too_slow_for_stage_8<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(too_slow_for_stage_8, launch_too_slow_for_stage_8)

/*
 * Not a bug: a right stage 8 whose blocks meet through __device__ variables declared in the
 * shapes a student may write (issue 25: the trace names __device__ variables). The build step
 * (emu/tools/cuda_to_cpp.cpp) must leave every one compiling and name, in the trace, each that
 * it can: an attribute before the declaration and a comment inside it, a named and an
 * anonymous namespace, an array, an attribute after the name, a macro that holds the qualifier, an extern
 * declaration before its definition, __align__ between the qualifiers and the type, and a static
 * __constant__ (both valid for nvcc; the emulator had refused them). Two names in one declaration
 * and a __constant__ are not recorded (docs/trace_format.md). The test checks the names, their lines, the right sum, and
 * that a right kernel's trace holds no error.
 */
#include "stage.h"

#define FULL_WARP 0xffffffffu
#define MAX_BLOCKS 1024
#define DEVICE_VAR static __device__

[[maybe_unused]] /* a comment inside the declaration */ static __device__ unsigned long long meetings;
namespace meet {
__device__ unsigned int arrived = 0;
}
namespace {
__device__ int block_sums[MAX_BLOCKS];
}
static __device__ int4 last_sum __attribute__((aligned(16)));
DEVICE_VAR unsigned int tickets;
extern __device__ int declared_later;
__device__ int declared_later = 0;
static __device__ int first, second;
__constant__ int scale = 1;
static __constant__ int zero = 0;
static __device__ __align__(16) int4 aligned_total;

static __global__ void reduce_one_pass(const int *in, int *out, unsigned int n)
{
    __shared__ int warp_sums[32];
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(FULL_WARP, sum, offset);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (tid != 0)
        return;
    sum = 0;
    for (unsigned int w = 0; w < blockDim.x / 32; w++)
        sum += warp_sums[w];
    block_sums[blockIdx.x] = sum * scale + zero;
    __threadfence(); /* the sum is seen by every block before the ticket */
    atomicAdd(&meetings, 1ull);
    atomicAdd(&tickets, 1u);
    if (atomicAdd(&meet::arrived, 1u) == gridDim.x - 1) {
        int total = 0;
        for (unsigned int b = 0; b < gridDim.x; b++)
            total += ((volatile int *)block_sums)[b];
        last_sum = make_int4(total, 0, 0, 0);
        aligned_total = last_sum;
        declared_later = last_sum.x;
        out[0] = declared_later;
        meet::arrived = 0;
        tickets = 0;
        meetings = 0;
        first = second = 0;
    }
}

/** A block to every `threads` ints, at most 4 blocks. Returns 1. */
static size_t launch_reduce_one_pass(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    if (blocks > 4)
        blocks = 4;
    reduce_one_pass<<<blocks, threads>>>(in, out, (unsigned int)n);
    return 1;
}

KIT_REGISTER_STAGE(reduce_one_pass, launch_reduce_one_pass)

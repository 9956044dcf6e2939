/*
 * Stage 7: many elements per thread.
 *
 * Idea: a reduction reads each value once and does one add with it, so its speed limit is
 * memory bandwidth. Stages 1-6 spend a whole tree (barriers, idle threads, a write-back)
 * on every 2*blockSize values. Here each thread first adds up many values on its own, in a
 * register, walking the input with a grid-stride loop, and the block's tree runs once at
 * the end. The grid is capped at what the GPU holds at once (one wave of resident blocks),
 * so every block streams through n / (threads * blocks) values.
 *
 * Changed since stage 6: the load became a loop, and the launcher caps the grid. The loop
 * reads int4s (16 bytes, a quarter of the load instructions of int reads) and keeps four of
 * them in flight per thread: with 2048 threads per SM that is 128 KB of reads outstanding
 * per SM, which is what HBM needs to stay busy. The tree is stage 6's.
 *
 * The older version of this loop in course material had two bugs the kit avoids: it
 * advanced `i` but indexed with the thread id, and it read in[i + blockSize] past the end
 * when n was not a multiple of 2*blockSize. Here every read is inside [0, n).
 *
 * Measured: about as fast as cub::DeviceReduce::Sum. The Expected results of this stage's page
 * in the docs give its speed and hardware counters on each GPU the kit was run on.
 *
 * Block sizes: 64, 128, 256, 512 or 1024. Inputs must be 16-byte aligned (the harness's are).
 * Run, from the kit's folder:  ./build/reduce_ladder --stage 7 --impl labs
 * Draw what every thread of your kernel did (no GPU needed): add --picture lab7.html
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

//! [kernel]
/** Each thread sums a grid-strided share of the input, then the block reduces as in stage 6. */
template <unsigned int blockSize>
static __global__ void reduce_multi_element(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[blockSize];
    unsigned int tid = threadIdx.x;
    int sum = 0;

    // [todo] TODO(student): a grid-stride loop that sums many values per thread, tail included.
    // A grid-stride loop: thread tid of block b starts at i = b * blockSize + tid and steps
    // by the number of threads in the whole grid, adding into sum. Read the input as int4s
    // (cast the pointer) for the first n / 4 int4s with several loads in flight, then add the
    // last n % 4 ints in one block only. Every read must stay inside [0, n).
    return; /* delete this line once your code is in place */
    // [todo] end of TODO

    sdata[tid] = sum;
    __syncthreads();
    if (blockSize >= 1024) {
        if (tid < 512)
            sdata[tid] += sdata[tid + 512];
        __syncthreads();
    }
    if (blockSize >= 512) {
        if (tid < 256)
            sdata[tid] += sdata[tid + 256];
        __syncthreads();
    }
    if (blockSize >= 256) {
        if (tid < 128)
            sdata[tid] += sdata[tid + 128];
        __syncthreads();
    }
    if (blockSize >= 128) {
        if (tid < 64)
            sdata[tid] += sdata[tid + 64];
        __syncthreads();
    }
    if (tid < 32) {
        sum = sdata[tid] + sdata[tid + 32];
        sum += __shfl_down_sync(FULL_WARP, sum, 16);
        sum += __shfl_down_sync(FULL_WARP, sum, 8);
        sum += __shfl_down_sync(FULL_WARP, sum, 4);
        sum += __shfl_down_sync(FULL_WARP, sum, 2);
        sum += __shfl_down_sync(FULL_WARP, sum, 1);
    }
    if (tid == 0)
        out[blockIdx.x] = sum;
}
//! [kernel]

/** Blocks of `threads` that the whole GPU keeps resident at once (one full wave). */
[[maybe_unused]] /* until the lab's launcher calls it */
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
/** One pass over at most one wave of blocks. Returns the number of partial sums. */
static size_t launch_reduce_multi_element(const int *in, int *out, size_t n, unsigned threads)
{
    // [todo-grid] TODO(student): enough blocks to fill the GPU once, and no more.
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads)); /* stage 6's grid */
    // [todo-grid] end of TODO
    unsigned int count = (unsigned int)n;
    switch (threads) {
    case 64: reduce_multi_element<64><<<blocks, 64>>>(in, out, count); break;
    case 128: reduce_multi_element<128><<<blocks, 128>>>(in, out, count); break;
    case 256: reduce_multi_element<256><<<blocks, 256>>>(in, out, count); break;
    case 512: reduce_multi_element<512><<<blocks, 512>>>(in, out, count); break;
    case 1024: reduce_multi_element<1024><<<blocks, 1024>>>(in, out, count); break;
    default: return 0; /* not a supported block size: the harness reports it */
    }
    return blocks;
}
//! [launcher]

KIT_REGISTER_STAGE(reduce_multi_element, launch_reduce_multi_element)

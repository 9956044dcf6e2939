/*
 * Cheat, slot 3: one kernel for the CPU emulator, another for the GPU.
 *
 * What it pretends: a stage 3 ("sequential addressing").
 * What it does: the emulated build defines KIT_EMULATOR (emu/include/cuda_runtime_api.h).
 * Under `#ifdef KIT_EMULATOR` the file has a correct stage 3, with a __syncthreads() after
 * every step of the tree, so the emulator's correctness runs, thread orders and
 * ThreadSanitizer all pass. The GPU build gets the same kernel without the barrier inside
 * the loop: a race (racecheck hazards; wrong sums once warps drift apart). A student could
 * use it to pass on a machine without a GPU with code that is wrong on the GPU.
 *
 * How the grader must treat it: 0 points for stage 3 (GPU and emulator alike). A stage file
 * that tests KIT_EMULATOR is not graded: the emulator must see the code the GPU runs.
 */
#include "stage.h"

#ifdef KIT_EMULATOR
/** What the emulator sees: stage 3 as it should be. */
static __global__ void detects_emulator(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
#else
/** What the GPU runs: the same, without the barrier between the steps of the tree. */
static __global__ void detects_emulator(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
#endif

static size_t launch_detects_emulator(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    detects_emulator<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(detects_emulator, launch_detects_emulator)

/**
 * \file baselines.cu
 * \brief What a user would pick instead of writing a reduction: cub::DeviceReduce::Sum; and
 * the floor under any kernel's time: the launch of an empty kernel.
 *
 * The ladder prints CUB as the yardstick for stage 7 ("% of CUB"); `reduce_ladder --sweep`
 * prints the empty kernel's launch beside the stages at every n. Both are C++, so they get C
 * entry points here and the rest of the harness stays C.
 */
#include <cub/device/device_reduce.cuh>

/**
 * Sums \p n ints of \p in into out[0] with CUB. With \p temp == NULL it only stores the
 * scratch size it needs in \p temp_bytes, as CUB's two-call protocol has it.
 */
extern "C" cudaError_t kit_cub_sum(void *temp, size_t *temp_bytes, const int *in, int *out, size_t n)
{
    return cub::DeviceReduce::Sum(temp, *temp_bytes, in, out, (int64_t)n);
}

/** A kernel that does nothing: its launch costs what every launch costs, and no more. */
__global__ void kit_empty_kernel() {}

/** Launches kit_empty_kernel with one block of one thread on the default stream; the launch's error. */
extern "C" cudaError_t kit_empty_launch(void)
{
    kit_empty_kernel<<<1, 1>>>();
    return cudaGetLastError();
}

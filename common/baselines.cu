/**
 * \file baselines.cu
 * \brief What a user would pick instead of writing a reduction: cub::DeviceReduce::Sum.
 *
 * The ladder prints it as the yardstick for stage 7 ("% of CUB"). CUB is C++, so it gets
 * a C entry point here and the rest of the harness stays C.
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

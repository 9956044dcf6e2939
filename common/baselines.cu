/**
 * \file baselines.cu
 * \brief What a user would pick instead of writing a reduction: CUB's reductions; and
 * the floor under any kernel's time: the launch of an empty kernel.
 *
 * The ladder prints CUB as the yardstick for stage 7 ("% of CUB"); `reduce_ladder --sweep`
 * prints the empty kernel's launch beside the stages at every n. Both are C++, so they get C
 * entry points here and the rest of the harness stays C.
 */
#include <climits>

#include <cub/device/device_reduce.cuh>

#include "kit.h"

/** The element-wise minimum of two 3x3 matrices: CUB's reduction operator for KIT_MAT3. */
struct kit_mat3_min {
    __host__ __device__ kit_mat3 operator()(const kit_mat3 &a, const kit_mat3 &b) const
    {
        kit_mat3 m;
        for (int c = 0; c < 9; c++)
            m.m[c] = a.m[c] < b.m[c] ? a.m[c] : b.m[c];
        return m;
    }
};

#if CUB_VERSION < 200800
/**
 * CUB before 2.8 (CUDA 12.8 and older) has ArgMin only into a cub::KeyValuePair, {index, value}
 * (2.8 added the form with two outputs, and CUB 3, CUDA 13's, has only that one): a kit_argmin is
 * {value, index}, so this one thread swaps the two in place after the reduction. CUB's argmin row
 * then counts one more launch on those toolkits.
 */
__global__ void kit_argmin_from_pair(kit_argmin *out)
{
    const cub::KeyValuePair<int, int> pair = *(const cub::KeyValuePair<int, int> *)out;
    out->value = pair.value;
    out->index = pair.key;
}
#endif

/**
 * CUB's reduction of \p n elements of the problem (\p type, \p op: kit_type and kit_op values)
 * at \p in into out[0] (argmin: a kit_argmin; matrices as planes: 9 ints). With \p temp ==
 * NULL it only stores the scratch size it needs in \p temp_bytes, as CUB's two-call protocol
 * has it. What a user would write: Sum, Min, Max, ArgMin; Reduce with an element-wise min for
 * matrices; one Min per plane for matrices stored as planes (9 reductions, as a user would call
 * them, so its time includes 9 launches).
 */
extern "C" cudaError_t kit_cub_reduce(int type, int op, void *temp, size_t *temp_bytes, const void *in, void *out,
                                      size_t n)
{
    const int64_t items = (int64_t)n;
    if (type == KIT_INT && op == KIT_SUM)
        return cub::DeviceReduce::Sum(temp, *temp_bytes, (const int *)in, (int *)out, items);
    if (type == KIT_FLOAT && op == KIT_SUM)
        return cub::DeviceReduce::Sum(temp, *temp_bytes, (const float *)in, (float *)out, items);
    if (type == KIT_INT && op == KIT_MIN)
        return cub::DeviceReduce::Min(temp, *temp_bytes, (const int *)in, (int *)out, items);
    if (type == KIT_INT && op == KIT_MAX)
        return cub::DeviceReduce::Max(temp, *temp_bytes, (const int *)in, (int *)out, items);
    if (type == KIT_INT && op == KIT_ARGMIN) {
        kit_argmin *result = (kit_argmin *)out;
#if CUB_VERSION >= 200800
        return cub::DeviceReduce::ArgMin(temp, *temp_bytes, (const int *)in, &result->value, &result->index, items);
#else
        static_assert(sizeof(cub::KeyValuePair<int, int>) == sizeof(kit_argmin), "a pair is a kit_argmin's 8 bytes");
        cudaError_t code = cub::DeviceReduce::ArgMin(temp, *temp_bytes, (const int *)in,
                                                     (cub::KeyValuePair<int, int> *)out, (int)items);
        if (code != cudaSuccess || !temp) /* !temp: the size query, nothing reduced */
            return code;
        kit_argmin_from_pair<<<1, 1>>>(result);
        return cudaGetLastError();
#endif
    }
    if (type == KIT_MAT3 && op == KIT_MIN) {
        kit_mat3 identity;
        for (int c = 0; c < 9; c++)
            identity.m[c] = INT_MAX;
        return cub::DeviceReduce::Reduce(temp, *temp_bytes, (const kit_mat3 *)in, (kit_mat3 *)out, items,
                                         kit_mat3_min(), identity);
    }
    if (type == KIT_MAT3_SOA && op == KIT_MIN) {
        cudaError_t code = cub::DeviceReduce::Min(temp, *temp_bytes, (const int *)in, (int *)out, items);
        for (int c = 1; code == cudaSuccess && temp && c < 9; c++) /* the same scratch size for every plane */
            code = cub::DeviceReduce::Min(temp, *temp_bytes, (const int *)in + (size_t)c * n, (int *)out + c, items);
        return code;
    }
    return cudaErrorInvalidValue;
}

/** A kernel that does nothing: its launch costs what every launch costs, and no more. */
__global__ void kit_empty_kernel() {}

/** Launches kit_empty_kernel with one block of one thread on the default stream; the launch's error. */
extern "C" cudaError_t kit_empty_launch(void)
{
    kit_empty_kernel<<<1, 1>>>();
    return cudaGetLastError();
}

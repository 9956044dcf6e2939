/* Audit fixture, forbidden: thrust::reduce(thrust::device, ...) sums the input; the launcher copies the result to out. */
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include "stage.h"

static __global__ void store_sum(int *out, int sum)
{
    out[0] = sum;
}

static size_t launch_thrust_reduce(const int *in, int *out, size_t n, unsigned threads)
{
    (void)threads;
    int sum = thrust::reduce(thrust::device, in, in + n, 0);
    store_sum<<<1, 1>>>(out, sum);
    return 1;
}

KIT_REGISTER_STAGE(thrust_reduce, launch_thrust_reduce)

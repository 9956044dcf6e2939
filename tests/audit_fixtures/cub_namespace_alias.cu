/* Audit fixture, forbidden: hides CUB behind a namespace alias (namespace c = cub) and a macro. */
#include <cuda_runtime.h>
// the alias below keeps the word out of the calls
#include <cub/device/device_reduce.cuh>

#include "stage.h"

namespace c = cub;
#define SUM c::DeviceReduce::Sum

static size_t launch_cub_namespace_alias(const int *in, int *out, size_t n, unsigned threads)
{
    size_t bytes = (size_t)threads * sizeof(int);
    SUM(out + 1, bytes, in, out, (int)n); /* the temp storage in the harness's own output buffer */
    return 1;
}

KIT_REGISTER_STAGE(cub_namespace_alias, launch_cub_namespace_alias)

/* Audit fixture, clean: the element types stage.h declares for stages 12 to 15 (kit_argmin,
 * kit_mat3), an argmin kernel that writes them and a launcher of that type registered. */
#include <cuda_runtime.h>
#include <climits>

#include "stage.h"

static_assert(sizeof(kit_mat3) == 9 * sizeof(int), "a kit_mat3 is 9 ints");
static_assert(sizeof(kit_argmin) == 2 * sizeof(int), "a kit_argmin is a value and an index");

__global__ void block_argmin(const int *in, kit_argmin *out, unsigned int n)
{
    extern __shared__ kit_argmin best[];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    best[tid] = i < n ? kit_argmin{in[i], (int)i} : kit_argmin{INT_MAX, INT_MAX};
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            kit_argmin other = best[tid + s];
            if (other.value < best[tid].value || (other.value == best[tid].value && other.index < best[tid].index))
                best[tid] = other;
        }
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = best[0];
}

static size_t launch_argmin(const int *in, kit_argmin *out, size_t n, unsigned threads)
{
    if (n > KIT_MAX_N)
        return 0;
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    block_argmin<<<blocks, threads, threads * sizeof(kit_argmin)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(clean_argmin_and_matrices, launch_argmin)

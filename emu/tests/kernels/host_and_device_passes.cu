/*
 * Emulator fixture (stage 4's slot), a valid alternative kernel whose host code and device
 * code test __CUDA_ARCH__, each seeing what nvcc's own pass sees.
 *
 * nvcc preprocesses a .cu file twice: the host pass (launchers, host functions) without
 * __CUDA_ARCH__, the device pass (kernels, __device__ functions) with __CUDA_ARCH__ = 900 for
 * sm_90. A __host__ __device__ function is compiled in both, each caller getting its own
 * pass's copy. Every place below that looks at the pass adds a term that is 0 only where the
 * emulator sees what nvcc sees, so any other view gives a wrong sum (or no result):
 *   - a file-scope macro defined under #ifdef __CUDA_ARCH__, read by the kernel and the launcher;
 *   - a __host__ __device__ function and a constexpr constant, each with a view of its own;
 *   - the launcher's choice of kernel (the trick of tests/cheats/host_code_tests_cuda_arch.cu);
 *   - `#if __CUDA_ARCH__ >= 800` inside the kernel, a template kernel in an anonymous
 *     namespace, a kernel in a named namespace and a static __device__ variable that the
 *     launcher sets with cudaMemcpyToSymbol.
 * The same file compiled by nvcc for sm_90 gives the same sums on a GPU.
 */
#include <cuda_runtime.h>

#include "stage.h"

#define FULL_WARP 0xffffffffu

#ifdef __CUDA_ARCH__
#define PASS_BIAS 0   /* the device pass */
#define HOST_PASS_SEEN 0
#else
#define PASS_BIAS 1000 /* the host pass: must never reach a kernel */
#define HOST_PASS_SEEN 1
#endif

#if !defined(__CUDACC__) || !defined(__NVCC__) || !defined(__CUDA_ARCH_LIST__)
#error "both passes see nvcc's own macros"
#endif

/** 0 in device code, 1 in host code, as each of nvcc's passes compiles it. */
static __host__ __device__ int on_host()
{
#ifdef __CUDA_ARCH__
    return 0;
#else
    return 1;
#endif
}

#ifdef __CUDA_ARCH__
constexpr int kPassWeight = 0;
#else
constexpr int kPassWeight = 7;
#endif

static __device__ int added_by_host; /* the launcher stores 0 here, from the host pass's view */

namespace {
/** Stage 4's first add during load, then a shuffle per warp and one atomic per warp. */
template <int Unused>
__global__ void pass_sum(const int *in, int *out, unsigned int n)
{
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;
    int sum = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
#if __CUDA_ARCH__ >= 800
    sum = __reduce_add_sync(FULL_WARP, sum);
#else
    sum = -1; /* not the path an sm_90 GPU takes */
#endif
    sum += PASS_BIAS + on_host() + kPassWeight + Unused + added_by_host;
    if ((tid & 31) == 0)
        atomicAdd(&out[blockIdx.x], sum);
}
} // namespace

namespace wrong {
/** What a launcher that took the device pass's view would run: every block's result off by one. */
__global__ void off_by_one(const int *in, int *out, unsigned int n)
{
    unsigned int i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    int sum = (i < n ? in[i] : 0) + (i + blockDim.x < n ? in[i + blockDim.x] : 0);
    sum = __reduce_add_sync(FULL_WARP, sum);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(&out[blockIdx.x], sum + (threadIdx.x == 0));
}
} // namespace wrong

static unsigned int blocks_for(size_t n, unsigned threads)
{
    return (unsigned int)((n + 2 * threads - 1) / (2 * threads));
}

static size_t launch_host_and_device_passes(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = blocks_for(n, threads);
    int zero = HOST_PASS_SEEN + on_host() + kPassWeight - 9; /* 1 + 1 + 7 - 9 in the host pass */
    if (zero != 0 || PASS_BIAS != 1000)
        return 0; /* no result: the launcher did not see the host pass */
    cudaMemcpyToSymbol(added_by_host, &zero, sizeof zero);
    cudaMemset(out, 0, blocks * sizeof(int));
#ifdef __CUDA_ARCH__
    wrong::off_by_one<<<blocks, threads>>>(in, out, (unsigned int)n);
#else
    pass_sum<0><<<blocks, threads>>>(in, out, (unsigned int)n);
#endif
    return blocks;
}

KIT_REGISTER_STAGE(host_and_device_passes, launch_host_and_device_passes)

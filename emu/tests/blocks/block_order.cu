/*
 * Kernels for the emulator's block-order test (main.c): which order the blocks of a grid run
 * in, a kernel that wrongly expects the block with the last index to run last, a race-free
 * kernel whose blocks do unequal work (its counts must not depend on the order), and a float
 * sum made with one atomicAdd per block against one made by a tree of launches.
 * Compiled as a stage file is (emu_add_stage_files); main.c sets the orders.
 */
#include <cuda_runtime.h>

#define MAX_BLOCKS 65536

/* ---------------------------------------------------------------- the order of the blocks */

static __device__ unsigned int next_ticket;

static __global__ void reset_ticket(void)
{
    next_ticket = 0;
}

/** Thread 0 of each block takes a ticket as the block starts: order[ticket] = the block. */
static __global__ void record_order(unsigned long long *order)
{
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        unsigned int ticket = atomicAdd(&next_ticket, 1u);
        order[ticket] =
            blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    }
}

/** Runs a grid of gx x gy x gz blocks of `threads`; order[k] = the linear index of the k-th block to run. */
extern "C" int emu_blocks_record_order(unsigned gx, unsigned gy, unsigned gz, unsigned threads,
                                       unsigned long long *order)
{
    size_t blocks = (size_t)gx * gy * gz;
    unsigned long long *device = nullptr;
    if (cudaMalloc(&device, blocks * sizeof *device) != cudaSuccess)
        return -1;
    reset_ticket<<<1, 1>>>();
    record_order<<<dim3(gx, gy, gz), threads>>>(device);
    cudaError_t status = cudaGetLastError();
    if (status == cudaSuccess)
        status = cudaMemcpy(order, device, blocks * sizeof *device, cudaMemcpyDeviceToHost);
    cudaFree(device);
    return status == cudaSuccess ? 0 : -1;
}

/* ---------------------------------------------------------------- the last index taken for the last block */

static __device__ int block_sums[MAX_BLOCKS];

static __global__ void clear_block_sums(unsigned int blocks)
{
    for (unsigned int b = blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += blockDim.x * gridDim.x)
        block_sums[b] = 0;
}

/** Each block adds its blockDim.x values; block gridDim.x - 1 adds the blocks' sums without
 *  waiting. Thread 0 of each block also takes a ticket as the block starts: order[ticket] = the
 *  block (the order of this launch: the next one may run the blocks in another). */
static __global__ void last_index_adds_up(const int *in, int *out, unsigned long long *order)
{
    __shared__ int sum;
    if (threadIdx.x == 0) {
        sum = 0;
        order[atomicAdd(&next_ticket, 1u)] = blockIdx.x;
    }
    __syncthreads();
    atomicAdd(&sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = sum;
    if (blockIdx.x != gridDim.x - 1 || threadIdx.x != 0) /* the mistake: nothing says the others are done */
        return;
    int total = 0;
    for (unsigned int b = 0; b < gridDim.x; b++)
        total += block_sums[b];
    out[0] = total;
}

/** in: blocks x threads values; *got: what block blocks - 1 wrote; order[k]: the k-th block to run. */
extern "C" int emu_blocks_last_index_sum(unsigned blocks, unsigned threads, const int *in, int *got,
                                         unsigned long long *order)
{
    if (blocks > MAX_BLOCKS)
        return -1;
    int *device_in = nullptr, *device_out = nullptr;
    unsigned long long *device_order = nullptr;
    size_t n = (size_t)blocks * threads;
    if (cudaMalloc(&device_in, n * sizeof(int)) != cudaSuccess || cudaMalloc(&device_out, sizeof(int)) != cudaSuccess ||
        cudaMalloc(&device_order, blocks * sizeof *device_order) != cudaSuccess)
        return -1;
    cudaError_t status = cudaMemcpy(device_in, in, n * sizeof(int), cudaMemcpyHostToDevice);
    clear_block_sums<<<(blocks + 255) / 256, 256>>>(blocks);
    reset_ticket<<<1, 1>>>();
    last_index_adds_up<<<blocks, threads>>>(device_in, device_out, device_order);
    if (status == cudaSuccess)
        status = cudaGetLastError();
    if (status == cudaSuccess)
        status = cudaMemcpy(got, device_out, sizeof(int), cudaMemcpyDeviceToHost);
    if (status == cudaSuccess)
        status = cudaMemcpy(order, device_order, blocks * sizeof *device_order, cudaMemcpyDeviceToHost);
    cudaFree(device_in);
    cudaFree(device_out);
    cudaFree(device_order);
    return status == cudaSuccess ? 0 : -1;
}

/* ---------------------------------------------------------------- float sums: atomics against a tree */

/** The block's sum of its blockDim.x (a power of two, at most 1024) values, in a fixed tree:
 *  the same bits whichever order the blocks run in. */
static __device__ float block_float_sum(float v)
{
    __shared__ float s[1024];
    s[threadIdx.x] = v;
    __syncthreads();
    for (unsigned int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half)
            s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    return s[0];
}

/** One float atomicAdd per block into out[0]: the sum depends on the order the blocks add in. */
static __global__ void float_atomic_per_block(const float *in, float *out, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float sum = block_float_sum(i < n ? in[i] : 0.0f);
    if (threadIdx.x == 0)
        atomicAdd(out, sum);
}

/** One partial per block into out[blockIdx.x]: a tree, whatever order the blocks run in. */
static __global__ void float_tree_pass(const float *in, float *out, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float sum = block_float_sum(i < n ? in[i] : 0.0f);
    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
}

/** The sum of n floats by \p kind: 0 one atomicAdd per block (one launch after a clear), 1 a
 *  multi-pass tree (launches until one value is left). threads: a power of two up to 1024. */
extern "C" int emu_blocks_float_sum(int kind, const float *in, unsigned n, unsigned threads, float *got)
{
    float *device_in = nullptr, *partial[2] = {nullptr, nullptr};
    unsigned blocks = (n + threads - 1) / threads;
    if (cudaMalloc(&device_in, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&partial[0], blocks * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&partial[1], blocks * sizeof(float)) != cudaSuccess)
        return -1;
    cudaError_t status = cudaMemcpy(device_in, in, n * sizeof(float), cudaMemcpyHostToDevice);
    const float *from = device_in;
    float *result = partial[0];
    if (kind == 0) {
        cudaMemset(result, 0, sizeof(float));
        float_atomic_per_block<<<blocks, threads>>>(device_in, result, n);
    } else {
        unsigned count = n;
        for (int p = 0; count > 1; p ^= 1) {
            unsigned grid = (count + threads - 1) / threads;
            float_tree_pass<<<grid, threads>>>(from, partial[p], count);
            from = result = partial[p];
            count = grid;
        }
    }
    if (status == cudaSuccess)
        status = cudaGetLastError();
    if (status == cudaSuccess)
        status = cudaMemcpy(got, result, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(device_in);
    cudaFree(partial[0]);
    cudaFree(partial[1]);
    return status == cudaSuccess ? 0 : -1;
}

/* ---------------------------------------------------------------- unequal blocks, race-free */

/** Block b makes b % 4 rounds of shared-memory traffic and barriers and loads b % 3 extra
 *  values: the counts differ from block to block, their sum must not depend on the order. */
static __global__ void unequal_blocks(const int *in, int *out)
{
    __shared__ int s[256];
    const unsigned int tid = threadIdx.x, b = blockIdx.x;
    int v = in[b * blockDim.x + tid];
    for (unsigned int extra = 0; extra < b % 3; extra++)
        v += in[(b * blockDim.x + tid + extra + 1) % (gridDim.x * blockDim.x)];
    s[tid] = v;
    __syncthreads();
    for (unsigned int round = 0; round < b % 4; round++) {
        int w = s[(tid * (round + 1)) % blockDim.x];
        __syncthreads();
        s[tid] += w;
        __syncthreads();
    }
    if (tid == 0)
        out[b] = s[0];
}

/** Launches unequal_blocks once over blocks x threads (threads at most 256) values. */
extern "C" int emu_blocks_unequal(unsigned blocks, unsigned threads, const int *in, int *out)
{
    int *device_in = nullptr, *device_out = nullptr;
    size_t n = (size_t)blocks * threads;
    if (threads > 256 || cudaMalloc(&device_in, n * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&device_out, blocks * sizeof(int)) != cudaSuccess)
        return -1;
    cudaError_t status = cudaMemcpy(device_in, in, n * sizeof(int), cudaMemcpyHostToDevice);
    unequal_blocks<<<blocks, threads>>>(device_in, device_out);
    if (status == cudaSuccess)
        status = cudaGetLastError();
    if (status == cudaSuccess)
        status = cudaMemcpy(out, device_out, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(device_in);
    cudaFree(device_out);
    return status == cudaSuccess ? 0 : -1;
}

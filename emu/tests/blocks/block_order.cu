/*
 * Kernels for the emulator's block-order test (main.c): which order the blocks of a grid run
 * in, a kernel that wrongly expects the block with the last index to run last, and a
 * race-free kernel whose blocks do unequal work (its counts must not depend on the order).
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

/** Each block adds its blockDim.x values; block gridDim.x - 1 adds the blocks' sums without waiting. */
static __global__ void last_index_adds_up(const int *in, int *out)
{
    __shared__ int sum;
    if (threadIdx.x == 0)
        sum = 0;
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

/** in: blocks x threads values; *got: what block blocks - 1 wrote. */
extern "C" int emu_blocks_last_index_sum(unsigned blocks, unsigned threads, const int *in, int *got)
{
    if (blocks > MAX_BLOCKS)
        return -1;
    int *device_in = nullptr, *device_out = nullptr;
    size_t n = (size_t)blocks * threads;
    if (cudaMalloc(&device_in, n * sizeof(int)) != cudaSuccess || cudaMalloc(&device_out, sizeof(int)) != cudaSuccess)
        return -1;
    cudaError_t status = cudaMemcpy(device_in, in, n * sizeof(int), cudaMemcpyHostToDevice);
    clear_block_sums<<<(blocks + 255) / 256, 256>>>(blocks);
    last_index_adds_up<<<blocks, threads>>>(device_in, device_out);
    if (status == cudaSuccess)
        status = cudaGetLastError();
    if (status == cudaSuccess)
        status = cudaMemcpy(got, device_out, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(device_in);
    cudaFree(device_out);
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

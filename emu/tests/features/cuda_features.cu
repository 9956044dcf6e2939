/*
 * The CUDA a stage file may reasonably use, one small kernel per feature, each result checked
 * against the GPU's semantics computed here on the host (emu/tests/CMakeLists.txt runs it on
 * the CPU emulator; the same file, compiled by nvcc for sm_80 or later, runs on a GPU with the
 * same checks, which is how the expectations were confirmed).
 *
 * Prints one line per feature ("ok <feature>" or "FAILED <feature>: what differs") and
 * "all N features as on a GPU" when every one matches; exits 1 otherwise.
 *
 * EMU_FEATURE_TEST (set by the emulator's build of this file only, never on a stage file):
 * also checks the emulator's note about shuffles that read a lane outside their mask
 * (emu_control.h), which a GPU does not have.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#ifdef EMU_FEATURE_TEST
#include "emu_control.h"
#endif

namespace cg = cooperative_groups;

#define FULL 0xffffffffu

/* ---------------------------------------------------------------- host side helpers */

static int features = 0, failed = 0;

/** Reports one feature: \p problem is empty when the results match the GPU's. */
static void report(const char *feature, const std::string &problem)
{
    features++;
    if (problem.empty()) {
        std::printf("ok %s\n", feature);
    } else {
        failed++;
        std::printf("FAILED %s: %s\n", feature, problem.c_str());
    }
}

/** The first index where \p got differs from \p want, described; "" if none. */
template <class T>
static std::string compare(const char *what, const std::vector<T> &got, const std::vector<T> &want)
{
    for (size_t i = 0; i < want.size(); i++)
        if (!(got[i] == want[i])) {
            char text[200];
            std::snprintf(text, sizeof text, "%s[%zu] is %.17g, the GPU gives %.17g", what, i, (double)got[i],
                          (double)want[i]);
            return text;
        }
    return "";
}

/** A device buffer of \p n values (or a copy of \p host), read back with get(). */
template <class T>
struct device_buffer {
    T *p = nullptr;
    size_t n;
    explicit device_buffer(size_t count, int byte = 0) : n(count)
    {
        cudaMalloc(&p, n * sizeof(T));
        cudaMemset(p, byte, n * sizeof(T));
    }
    explicit device_buffer(const std::vector<T> &host) : n(host.size())
    {
        cudaMalloc(&p, n * sizeof(T));
        cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    }
    ~device_buffer() { cudaFree(p); }
    std::vector<T> get() const
    {
        std::vector<T> host(n);
        cudaDeviceSynchronize();
        cudaMemcpy(host.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
        return host;
    }
};

static std::string launch_error()
{
    cudaError_t status = cudaDeviceSynchronize();
    if (status == cudaSuccess)
        status = cudaGetLastError();
    return status == cudaSuccess ? "" : std::string("the launch failed: ") + cudaGetErrorString(status);
}

/* ---------------------------------------------------------------- cooperative groups: the block */

/** A 16 x 4 block: thread_rank() counts x fastest; size(), sync(), cg::sync, group_index. */
static __global__ void cg_block(int *rank, int *size, int *mirrored, int *group)
{
    __shared__ int ranks[64];
    cg::thread_block block = cg::this_thread_block();
    const unsigned int r = block.thread_rank();
    const unsigned int slot = blockIdx.x * 64 + threadIdx.y * 16 + threadIdx.x;
    rank[slot] = (int)r;
    size[slot] = (int)block.size();
    ranks[r] = (int)r * 3;
    block.sync();
    mirrored[slot] = ranks[63 - r];
    cg::sync(block);
    ranks[r] = 0;
    group[slot] = (int)block.group_index().x * 100 + (int)block.thread_index().y;
}

static void test_cg_block()
{
    device_buffer<int> rank(128), size(128), mirrored(128), group(128);
    cg_block<<<2, dim3(16, 4)>>>(rank.p, size.p, mirrored.p, group.p);
    std::string problem = launch_error();
    std::vector<int> want_rank(128), want_size(128, 64), want_mirrored(128), want_group(128);
    for (int i = 0; i < 128; i++) {
        want_rank[i] = i % 64;
        want_mirrored[i] = (63 - i % 64) * 3;
        want_group[i] = i / 64 * 100 + i % 64 / 16;
    }
    if (problem.empty())
        problem = compare("thread_rank", rank.get(), want_rank);
    if (problem.empty())
        problem = compare("size", size.get(), want_size);
    if (problem.empty())
        problem = compare("after block.sync(), ranks[63 - r]", mirrored.get(), want_mirrored);
    if (problem.empty())
        problem = compare("group_index().x * 100 + thread_index().y", group.get(), want_group);
    report("cooperative_groups::this_thread_block: thread_rank, size, sync, cg::sync, group_index", problem);
}

/* ---------------------------------------------------------------- cooperative groups: tiles */

static __device__ int tile_value(unsigned int global)
{
    return (int)((global * 37u) % 101u) - 50;
}

/** tiled_partition<32> and <8> (of the tile): cg::reduce with plus, greater, less. */
static __global__ void cg_static_tiles(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const unsigned int global = blockIdx.x * blockDim.x + block.thread_rank();
    const int v = tile_value(global);
    int *mine = out + 8 * global;
    mine[0] = cg::reduce(warp, v, cg::plus<int>());
    mine[1] = cg::reduce(warp, v, cg::greater<int>());
    mine[2] = cg::reduce(warp, v, cg::less<int>());
    mine[3] = (int)(warp.meta_group_rank() * 1000 + warp.meta_group_size());
    mine[4] = (int)(warp.thread_rank() * 1000 + warp.size());
    warp.sync();
    auto eight = cg::tiled_partition<8>(warp);
    mine[5] = cg::reduce(eight, v, cg::plus<int>());
    mine[6] = (int)(eight.meta_group_rank() * 1000 + eight.meta_group_size());
    mine[7] = (int)(eight.thread_rank() * 1000 + eight.num_threads());
}

static void test_cg_static_tiles()
{
    const int blocks = 2, threads = 96, total = blocks * threads;
    device_buffer<int> out(8 * total);
    cg_static_tiles<<<blocks, threads>>>(out.p);
    std::string problem = launch_error();
    std::vector<int> want(8 * total);
    for (int g = 0; g < total; g++) {
        int r = g % threads, first = g - r % 32, sum = 0, hi = INT_MIN, lo = INT_MAX, sum8 = 0;
        for (int k = first; k < first + 32; k++) {
            int v = (int)(((unsigned)k * 37u) % 101u) - 50;
            sum += v;
            hi = v > hi ? v : hi;
            lo = v < lo ? v : lo;
            if (k / 8 == g / 8)
                sum8 += v;
        }
        int *w = &want[8 * g];
        w[0] = sum;
        w[1] = hi;
        w[2] = lo;
        w[3] = r / 32 * 1000 + threads / 32;
        w[4] = r % 32 * 1000 + 32;
        w[5] = sum8;
        w[6] = r % 32 / 8 * 1000 + 4;
        w[7] = r % 8 * 1000 + 8;
    }
    if (problem.empty())
        problem = compare("out (8 values a thread: sum, max, min, meta, rank, 8-sum, meta8, rank8)", out.get(), want);
    report("tiled_partition<32> and <8>: cg::reduce with cg::plus, cg::greater, cg::less, meta_group_rank, "
           "thread_rank, size, sync", problem);
}

/** tiled_partition(block, 8) sized at run time: thread_rank, size, sync. */
static __global__ void cg_dynamic_tiles(int *out, unsigned int tile_size)
{
    __shared__ int values[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, tile_size);
    const unsigned int r = block.thread_rank();
    values[r] = (int)r * 5 + 1;
    tile.sync(); /* the tile's own values are written: the rest of the block need not be */
    const unsigned int partner = (r & ~(tile_size - 1)) + (tile.thread_rank() + 1) % tile.size();
    out[3 * r] = (int)tile.thread_rank();
    out[3 * r + 1] = (int)tile.size();
    out[3 * r + 2] = values[partner];
}

static void test_cg_dynamic_tiles()
{
    device_buffer<int> out(3 * 128);
    cg_dynamic_tiles<<<1, 128>>>(out.p, 8);
    std::string problem = launch_error();
    std::vector<int> want(3 * 128);
    for (int r = 0; r < 128; r++) {
        want[3 * r] = r % 8;
        want[3 * r + 1] = 8;
        want[3 * r + 2] = ((r & ~7) + (r % 8 + 1) % 8) * 5 + 1;
    }
    if (problem.empty())
        problem = compare("out (rank, size, partner's value)", out.get(), want);
    report("tiled_partition(block, 8) at run time: thread_rank, size, sync", problem);
}

/* ---------------------------------------------------------------- warp reductions */

/** __reduce_add/min/max_sync, int and unsigned, over the full warp and over each half. */
static __global__ void warp_reduce(int *out)
{
    const unsigned int lane = threadIdx.x % 32;
    const int v = (int)((lane * 13u) % 32u) - 11;                         /* -11 .. 20 */
    const unsigned int u = lane % 3 == 0 ? 0x80000000u + lane : lane * 7u; /* unsigned order */
    int *mine = out + 8 * threadIdx.x;
    mine[0] = __reduce_add_sync(FULL, v);
    mine[1] = __reduce_min_sync(FULL, v);
    mine[2] = __reduce_max_sync(FULL, v);
    mine[3] = (int)__reduce_min_sync(FULL, u);
    mine[4] = (int)__reduce_max_sync(FULL, u);
    mine[5] = (int)__reduce_add_sync(FULL, u);
    const unsigned int half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    mine[6] = __reduce_add_sync(half, v);
    mine[7] = __reduce_min_sync(half, v);
}

static void test_warp_reduce()
{
    device_buffer<int> out(8 * 64);
    warp_reduce<<<1, 64>>>(out.p);
    std::string problem = launch_error();
    int sum = 0, lo = INT_MAX, hi = INT_MIN, half_sum[2] = {0, 0}, half_lo[2] = {INT_MAX, INT_MAX};
    unsigned ulo = UINT_MAX, uhi = 0, usum = 0;
    for (unsigned lane = 0; lane < 32; lane++) {
        int v = (int)((lane * 13u) % 32u) - 11;
        unsigned u = lane % 3 == 0 ? 0x80000000u + lane : lane * 7u;
        sum += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        ulo = u < ulo ? u : ulo;
        uhi = u > uhi ? u : uhi;
        usum += u;
        half_sum[lane / 16] += v;
        half_lo[lane / 16] = v < half_lo[lane / 16] ? v : half_lo[lane / 16];
    }
    std::vector<int> want(8 * 64);
    for (int t = 0; t < 64; t++) {
        int *w = &want[8 * t], h = t % 32 / 16;
        w[0] = sum;
        w[1] = lo;
        w[2] = hi;
        w[3] = (int)ulo;
        w[4] = (int)uhi;
        w[5] = (int)usum;
        w[6] = half_sum[h];
        w[7] = half_lo[h];
    }
    if (problem.empty())
        problem = compare("out (add, min, max, unsigned min, max, add, half-warp add, min)", out.get(), want);
    report("__reduce_add_sync, __reduce_min_sync, __reduce_max_sync (int, unsigned, half-warp masks)", problem);
}

/* ---------------------------------------------------------------- shuffles */

enum { SHUFFLES = 11 };

/** Every shuffle, full width and in segments: what a lane gets where the source is outside. */
static __global__ void shuffles(int *out)
{
    const unsigned int lane = threadIdx.x % 32;
    const int v = (int)(threadIdx.x * 10 + 3);
    int *mine = out + SHUFFLES * threadIdx.x;
    mine[0] = __shfl_xor_sync(FULL, v, 5);
    mine[1] = __shfl_up_sync(FULL, v, 3);   /* lanes 0-2 keep their own */
    mine[2] = __shfl_down_sync(FULL, v, 3); /* lanes 29-31 keep their own */
    mine[3] = __shfl_sync(FULL, v, 7);
    mine[4] = __shfl_sync(FULL, v, (int)(lane * 5) % 32);
    mine[5] = __shfl_sync(FULL, v, 2, 8);       /* lane 2 of each 8 */
    mine[6] = __shfl_up_sync(FULL, v, 2, 8);    /* the first 2 of each 8 keep their own */
    mine[7] = __shfl_down_sync(FULL, v, 3, 16); /* the last 3 of each 16 keep their own */
    mine[8] = __shfl_xor_sync(FULL, v, 16, 16); /* lanes 0-15 keep their own, 16-31 read 0-15 */
    const double d = __shfl_down_sync(FULL, 0.5 * v, 1);
    mine[9] = (int)(4 * d);
    const float f = __shfl_xor_sync(FULL, 0.25f * (float)v, 1);
    mine[10] = (int)(8 * f);
}

static void test_shuffles()
{
    device_buffer<int> out(SHUFFLES * 64);
    shuffles<<<1, 64>>>(out.p);
    std::string problem = launch_error();
    std::vector<int> want(SHUFFLES * 64);
    for (int t = 0; t < 64; t++) {
        int lane = t % 32, base = t - lane;
        auto value = [&](int l) { return (base + l) * 10 + 3; };
        int *w = &want[SHUFFLES * t];
        w[0] = value(lane ^ 5);
        w[1] = lane < 3 ? value(lane) : value(lane - 3);
        w[2] = lane + 3 > 31 ? value(lane) : value(lane + 3);
        w[3] = value(7);
        w[4] = value(lane * 5 % 32);
        w[5] = value((lane & ~7) + 2);
        w[6] = lane % 8 < 2 ? value(lane) : value(lane - 2);
        w[7] = lane % 16 + 3 >= 16 ? value(lane) : value(lane + 3);
        w[8] = lane < 16 ? value(lane) : value(lane - 16);
        w[9] = 2 * (lane == 31 ? value(lane) : value(lane + 1));
        w[10] = 2 * value(lane ^ 1);
    }
    if (problem.empty())
        problem = compare("out (xor 5, up 3, down 3, idx 7, idx lane*5, idx 2 width 8, up 2 width 8, down 3 width 16, "
                          "xor 16 width 16, down 1 double, xor 1 float)", out.get(), want);
    report("__shfl_xor_sync, __shfl_up_sync, __shfl_down_sync, __shfl_sync (widths, lanes at the edges, "
           "float, double)", problem);
}

/* ---------------------------------------------------------------- votes, __syncwarp, __activemask */

static __global__ void votes(unsigned int *out)
{
    const unsigned int lane = threadIdx.x % 32;
    unsigned int *mine = out + 6 * threadIdx.x;
    mine[0] = __ballot_sync(FULL, lane % 3 == 0);
    mine[1] = (unsigned)__any_sync(FULL, lane == 17);
    mine[2] = (unsigned)__all_sync(FULL, lane < 31);
    if (lane < 16) /* each half-warp with its own mask */
        mine[3] = __ballot_sync(0x0000ffffu, lane % 2);
    else
        mine[3] = __ballot_sync(0xffff0000u, 1);
    mine[4] = __ballot_sync(FULL, threadIdx.x >= 40);
    mine[5] = (unsigned)__all_sync(lane < 16 ? 0x0000ffffu : 0xffff0000u, lane >= 16);
}

static void test_votes()
{
    device_buffer<unsigned int> out(6 * 64);
    votes<<<1, 64>>>(out.p);
    std::string problem = launch_error();
    std::vector<unsigned int> want(6 * 64);
    unsigned every_third = 0;
    for (int l = 0; l < 32; l += 3)
        every_third |= 1u << l;
    for (int t = 0; t < 64; t++) {
        int lane = t % 32;
        unsigned *w = &want[6 * t];
        w[0] = every_third;
        w[1] = 1;
        w[2] = 0;
        w[3] = lane < 16 ? 0x0000aaaau : 0xffff0000u;
        w[4] = t < 32 ? 0u : 0xffffff00u;
        w[5] = lane >= 16;
    }
    if (problem.empty())
        problem = compare("out (ballot, any, all, half-warp ballot, ballot of tid >= 40, half-warp all)", out.get(), want);
    report("__ballot_sync, __any_sync, __all_sync (full and half-warp masks)", problem);
}

/** __syncwarp(mask) per half-warp, then over the full warp. */
static __global__ void syncwarp_masks(int *out)
{
    __shared__ int values[64];
    const unsigned int tid = threadIdx.x, lane = tid % 32;
    values[tid] = (int)tid * 2 + 1;
    __syncwarp(lane < 16 ? 0x0000ffffu : 0xffff0000u);
    out[2 * tid] = values[tid ^ 1]; /* written by a lane of the same half */
    __syncwarp();
    values[tid] = (int)tid * 4; /* after every lane of the warp read */
    __syncwarp(FULL);
    out[2 * tid + 1] = values[tid ^ 16];
}

/** __activemask() where every thread of a warp runs: 48 threads, so warp 1 has 16 lanes. */
static __global__ void active_masks(unsigned int *active)
{
    active[threadIdx.x] = __activemask();
}

static void test_syncwarp()
{
    device_buffer<int> out(2 * 64);
    device_buffer<unsigned int> active(48);
    syncwarp_masks<<<1, 64>>>(out.p);
    std::string problem = launch_error();
    active_masks<<<1, 48>>>(active.p);
    if (problem.empty())
        problem = launch_error();
    std::vector<int> want(2 * 64);
    std::vector<unsigned int> want_active(48);
    for (int t = 0; t < 64; t++) {
        want[2 * t] = (t ^ 1) * 2 + 1;
        want[2 * t + 1] = (t ^ 16) * 4;
    }
    for (int t = 0; t < 48; t++)
        want_active[t] = t < 32 ? FULL : 0x0000ffffu;
    if (problem.empty())
        problem = compare("out (neighbour after a half-warp __syncwarp, the other half after a full one)", out.get(),
                          want);
    if (problem.empty())
        problem = compare("__activemask() of 48 threads", active.get(), want_active);
    report("__syncwarp with half-warp and full masks, __activemask", problem);
}

/* ---------------------------------------------------------------- atomics and fences */

static __global__ void atomics(int *ints, unsigned int *uints, float *floats, int *tickets, int *exchanged)
{
    __shared__ int block_sum;
    __shared__ float block_float;
    const unsigned int global = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) {
        block_sum = 0;
        block_float = 0.0f;
    }
    __syncthreads();
    const int v = (int)(global % 7) - 3;
    atomicAdd(&ints[0], v);
    atomicAdd(&block_sum, v);                                   /* shared memory */
    atomicMin(&ints[1], (int)((global * 7919u) % 1000u) - 500); /* -500 .. 499 */
    atomicMax(&ints[2], (int)((global * 7919u) % 1000u) - 500);
    atomicMin(&uints[0], global % 5 == 0 ? 0x80000000u + global : 0x10000u + global);
    atomicMax(&uints[1], global % 5 == 0 ? 0x80000000u + global : 0x10000u + global);
    tickets[global] = atomicAdd(&ints[3], 1);
    int old = ints[4], seen;
    do { /* an add by compare-and-swap */
        seen = old;
        old = atomicCAS(&ints[4], seen, seen + 2);
    } while (old != seen);
    exchanged[global] = atomicExch(&ints[5], (int)global + 1);
    atomicAdd(&floats[0], 0.25f);
    atomicAdd(&block_float, 0.5f);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&ints[6], block_sum);
        atomicAdd(&floats[1], block_float);
    }
    atomicExch(&floats[2], 1.5f);
}

static void test_atomics()
{
    const int blocks = 8, threads = 256, total = blocks * threads;
    device_buffer<int> ints(std::vector<int>{0, INT_MAX, INT_MIN, 0, 0, 0, 0});
    device_buffer<unsigned int> uints(std::vector<unsigned int>{UINT_MAX, 0});
    device_buffer<float> floats(3);
    device_buffer<int> tickets(total), exchanged(total);
    atomics<<<blocks, threads>>>(ints.p, uints.p, floats.p, tickets.p, exchanged.p);
    std::string problem = launch_error();
    int sum = 0, lo = INT_MAX, hi = INT_MIN;
    unsigned ulo = UINT_MAX, uhi = 0;
    for (unsigned g = 0; g < (unsigned)total; g++) {
        sum += (int)(g % 7) - 3;
        int m = (int)((g * 7919u) % 1000u) - 500;
        lo = m < lo ? m : lo;
        hi = m > hi ? m : hi;
        unsigned u = g % 5 == 0 ? 0x80000000u + g : 0x10000u + g;
        ulo = u < ulo ? u : ulo;
        uhi = u > uhi ? u : uhi;
    }
    std::vector<int> got = ints.get();
    std::vector<int> want{sum, lo, hi, total, 2 * total, got[5], sum};
    if (problem.empty())
        problem = compare("ints (add, min, max, tickets, CAS adds, exchange, shared sums)", got, want);
    if (problem.empty())
        problem = compare("unsigned (min, max)", uints.get(), std::vector<unsigned int>{ulo, uhi});
    if (problem.empty())
        problem = compare("floats (add 0.25, shared add 0.5, exchange)", floats.get(),
                          std::vector<float>{0.25f * total, 0.5f * total, 1.5f});
    if (problem.empty()) { /* atomicAdd's old values: every ticket 0 .. total-1 once */
        std::vector<int> seen(total, 0), t = tickets.get();
        for (int k : t)
            if (k >= 0 && k < total)
                seen[k]++;
        for (int k = 0; k < total && problem.empty(); k++)
            if (seen[k] != 1)
                problem = "atomicAdd's old values are not each of 0.." + std::to_string(total - 1) + " once (" +
                          std::to_string(k) + " came " + std::to_string(seen[k]) + " times)";
    }
    if (problem.empty()) { /* atomicExch: the old values and the last one are 0 and every global + 1 once */
        std::vector<int> seen(total + 1, 0), e = exchanged.get();
        e.push_back(got[5]);
        for (int k : e)
            if (k >= 0 && k <= total)
                seen[k]++;
        for (int k = 0; k <= total && problem.empty(); k++)
            if (seen[k] != 1)
                problem = "atomicExch's old values and the last value are not 0 .. total once each";
    }
    report("atomicAdd (int, float, shared), atomicMin, atomicMax (int, unsigned), atomicCAS, atomicExch", problem);
}

/** The last block to finish sums every block's partial: __threadfence() before the ticket. */
static __global__ void last_block_sums(const int *in, int *partial, unsigned int *count, int *total)
{
    __shared__ int block_sum;
    __shared__ bool last;
    if (threadIdx.x == 0)
        block_sum = 0;
    __syncthreads();
    atomicAdd(&block_sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
    __threadfence_block();
    __syncthreads();
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        __threadfence(); /* the partial is visible to every block before the ticket is taken */
        last = atomicAdd(count, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        int sum = 0;
        for (unsigned int b = 0; b < gridDim.x; b++)
            sum += ((volatile int *)partial)[b];
        *total = sum;
    }
}

static void test_threadfence()
{
    const int blocks = 16, threads = 128;
    std::vector<int> in(blocks * threads);
    int sum = 0;
    for (size_t i = 0; i < in.size(); i++)
        sum += in[i] = (int)(i * 31 % 17) - 8;
    device_buffer<int> input(in), partial(blocks), total(1);
    device_buffer<unsigned int> count(1);
    last_block_sums<<<blocks, threads>>>(input.p, partial.p, count.p, total.p);
    std::string problem = launch_error();
    if (problem.empty())
        problem = compare("the last block's total", total.get(), std::vector<int>{sum});
    report("__threadfence, __threadfence_block: the last block sums the partials", problem);
}

/* ---------------------------------------------------------------- vector types, __ldg */

static __global__ void vector_loads(const int *in, const float *fin, int *out)
{
    const unsigned int t = threadIdx.x;
    const int2 pair = reinterpret_cast<const int2 *>(in)[t];
    const int4 quad = reinterpret_cast<const int4 *>(in)[t];
    const float4 fquad = reinterpret_cast<const float4 *>(fin)[t];
    const int4 ldg_quad = __ldg(reinterpret_cast<const int4 *>(in) + t);
    const int2 made = make_int2(pair.y, pair.x);
    const int4 made4 = make_int4(quad.w, quad.z, quad.y, quad.x);
    const float4 fmade = make_float4(fquad.x, fquad.y, fquad.z, 2.0f * fquad.w);
    int *mine = out + 6 * t;
    mine[0] = pair.x + pair.y;
    mine[1] = quad.x + quad.y + quad.z + quad.w;
    mine[2] = (int)(fquad.x + fquad.y + fquad.z + fquad.w);
    mine[3] = ldg_quad.x - ldg_quad.w + __ldg(in + t);
    mine[4] = made.x * 2 + made.y + made4.x * 3 + made4.w;
    mine[5] = (int)(fmade.w + fmade.x) + (int)(sizeof(int4) * 100 + alignof(int4) * 10 + alignof(int2));
}

static void test_vector_loads()
{
    const int threads = 64;
    std::vector<int> in(4 * threads);
    std::vector<float> fin(4 * threads);
    for (size_t i = 0; i < in.size(); i++) {
        in[i] = (int)(i * 7 % 23) - 9;
        fin[i] = (float)in[i] * 0.5f;
    }
    device_buffer<int> input(in), out(6 * threads);
    device_buffer<float> finput(fin);
    vector_loads<<<1, threads>>>(input.p, finput.p, out.p);
    std::string problem = launch_error();
    std::vector<int> want(6 * threads);
    for (int t = 0; t < threads; t++) {
        const int *q = &in[4 * t];
        const float *f = &fin[4 * t];
        int *w = &want[6 * t];
        w[0] = in[2 * t] + in[2 * t + 1];
        w[1] = q[0] + q[1] + q[2] + q[3];
        w[2] = (int)(f[0] + f[1] + f[2] + f[3]);
        w[3] = q[0] - q[3] + in[t];
        w[4] = in[2 * t + 1] * 2 + in[2 * t] + q[3] * 3 + q[0];
        w[5] = (int)(2.0f * f[3] + f[0]) + 16 * 100 + 16 * 10 + 8;
    }
    if (problem.empty())
        problem = compare("out (int2, int4, float4 sums, __ldg, make_int2/int4, make_float4 and alignment)", out.get(),
                          want);
    report("int2, int4, float4 loads, make_int2, make_int4, make_float4, __ldg", problem);
}

/* ---------------------------------------------------------------- shared memory, templates, if constexpr */

template <unsigned int Block>
struct block_traits {
    static constexpr unsigned int warps = Block / 32;
    static constexpr bool several_warps = warps > 1;
};

static __host__ __device__ constexpr int scaled(int v) { return 3 * v + 1; }

/** A template block size; static and dynamic shared memory; constexpr; if constexpr. */
template <unsigned int Block>
static __global__ void shared_and_templates(const int *in, int *out)
{
    __shared__ int tree[Block];
    __shared__ int warp_sums[block_traits<Block>::warps];
    extern __shared__ int scratch[]; /* 2 * Block ints from the launch */
    constexpr int kScale = scaled(1);
    const unsigned int tid = threadIdx.x;
    int v = in[blockIdx.x * Block + tid] * kScale;
    scratch[tid] = v;
    scratch[Block + tid] = -v;
    __syncthreads();
    v = scratch[Block - 1 - tid] - scratch[2 * Block - 1 - tid] / 2; /* 1.5 times another's value */
    tree[tid] = v;
    __syncthreads();
    if constexpr (block_traits<Block>::several_warps) {
        for (unsigned int s = 16; s > 0; s /= 2)
            v += __shfl_down_sync(FULL, v, s);
        if (tid % 32 == 0)
            warp_sums[tid / 32] = v;
        __syncthreads();
        if (tid == 0) {
            int sum = 0;
            for (unsigned int w = 0; w < block_traits<Block>::warps; w++)
                sum += warp_sums[w];
            out[blockIdx.x] = sum + (int)sizeof(tree) * 1000;
        }
    } else {
        for (unsigned int s = Block / 2; s > 0; s /= 2) {
            if (tid < s)
                tree[tid] += tree[tid + s];
            __syncthreads();
        }
        if (tid == 0)
            out[blockIdx.x] = tree[0] + (int)sizeof(tree) * 1000;
    }
}

template <unsigned int Block>
static std::string run_shared_and_templates()
{
    const int blocks = 3;
    std::vector<int> in(blocks * Block);
    for (size_t i = 0; i < in.size(); i++)
        in[i] = (int)(i % 11) * 2 - 7; /* even scaled values: the halves are exact */
    device_buffer<int> input(in), out(blocks);
    shared_and_templates<Block><<<blocks, Block, 2 * Block * sizeof(int)>>>(input.p, out.p);
    std::string problem = launch_error();
    std::vector<int> want(blocks);
    for (int b = 0; b < blocks; b++) {
        int sum = 0;
        for (unsigned t = 0; t < Block; t++) {
            int other = in[b * Block + (Block - 1 - t)] * 4;
            sum += other - (-other) / 2;
        }
        want[b] = sum + (int)(Block * sizeof(int)) * 1000;
    }
    if (problem.empty())
        problem = compare(Block > 32 ? "block sums, warp path" : "block sums, tree path", out.get(), want);
    return problem;
}

static void test_shared_and_templates()
{
    std::string problem = run_shared_and_templates<256>();
    if (problem.empty())
        problem = run_shared_and_templates<32>();
    report("static and extern __shared__ arrays, a template block size, constexpr, if constexpr", problem);
}

/* ---------------------------------------------------------------- shuffles outside the mask */

/** Lanes 0-15 reduce with the mask 0x0000ffff; lanes 8-15 read lanes 16-23 (not in the mask),
 *  an undefined value lane 0's sum never uses: exact on a GPU. */
static __global__ void half_warp_ignores_outside(const int *in, int *out)
{
    const unsigned int lane = threadIdx.x;
    if (lane < 16) {
        int v = in[lane];
        v += __shfl_down_sync(0x0000ffffu, v, 8); /* the line the note must name */
        v += __shfl_down_sync(0x0000ffffu, v, 4);
        v += __shfl_down_sync(0x0000ffffu, v, 2);
        v += __shfl_down_sync(0x0000ffffu, v, 1);
        if (lane == 0)
            *out = v;
    }
}
static const int kIgnoresLine = __LINE__ - 8;

/** The same, but every lane's result counts: lanes 8-15 add an undefined value. */
static __global__ void half_warp_uses_outside(const int *in, int *out)
{
    const unsigned int lane = threadIdx.x;
    if (lane < 16) {
        int v = in[lane];
        v += __shfl_down_sync(0x0000ffffu, v, 8);
        atomicAdd(out, v);
    }
}
static const int kUsesLine = __LINE__ - 4;

/** A full warp reduces: no lane outside any mask. */
static __global__ void full_warp_reduction(const int *in, int *out)
{
    int v = in[threadIdx.x];
    for (int s = 16; s > 0; s /= 2)
        v += __shfl_xor_sync(FULL, v, s);
    if (threadIdx.x == 0)
        *out = v;
}

static void test_shuffle_outside_mask()
{
    std::vector<int> in(32);
    int half = 0, full = 0, used = 0;
    for (int i = 0; i < 32; i++) {
        in[i] = i * 3 - 20;
        full += in[i];
        half += i < 16 ? in[i] : 0;
        used += i < 16 ? in[i] : 0;
        used += i < 8 ? in[i + 8] : 0;
    }
    device_buffer<int> input(in), out(1), used_out(1), full_out(1);
    std::string problem;
#ifdef EMU_FEATURE_TEST
    char note[600];
    emu_undefined_shuffle_forget();
#endif
    full_warp_reduction<<<1, 32>>>(input.p, full_out.p);
    problem = launch_error();
    if (problem.empty())
        problem = compare("a full-warp sum", full_out.get(), std::vector<int>{full});
#ifdef EMU_FEATURE_TEST
    if (problem.empty() && emu_undefined_shuffle_note(note, sizeof note) != 0)
        problem = std::string("a full-warp reduction left a note: ") + note;
#endif
    half_warp_ignores_outside<<<1, 32>>>(input.p, out.p);
    if (problem.empty())
        problem = launch_error();
    if (problem.empty())
        problem = compare("lane 0's half-warp sum (the undefined values are never used)", out.get(),
                          std::vector<int>{half});
#ifdef EMU_FEATURE_TEST
    char line[40];
    std::snprintf(line, sizeof line, "cuda_features.cu:%d read lane 16 ", kIgnoresLine);
    if (problem.empty() && (emu_undefined_shuffle_note(note, sizeof note) == 0 || !std::strstr(note, line) ||
                            !std::strstr(note, "outside its mask 0x0000ffff")))
        problem = std::string("after a read outside the mask the note should name line ") + line + ", it is: " + note;
    emu_undefined_shuffle_forget();
#endif
    half_warp_uses_outside<<<1, 32>>>(input.p, used_out.p); /* a GPU gives an undefined sum, and no fault */
    if (problem.empty())
        problem = launch_error();
#ifdef EMU_FEATURE_TEST
    /* On a GPU that sum is undefined; the emulator's value makes it visibly wrong, and the note
     * names the line, so that the harness can say why. */
    if (problem.empty() && used_out.get()[0] == used)
        problem = "a sum that adds undefined values came out right: the undefined value should show";
    std::snprintf(line, sizeof line, "cuda_features.cu:%d read lane ", kUsesLine);
    if (problem.empty() && (emu_undefined_shuffle_note(note, sizeof note) == 0 || !std::strstr(note, line)))
        problem = std::string("the note should name ") + line + ", it is: " + note;
    if (problem.empty())
        std::printf("   (the emulator's note: %s)\n", note);
    emu_undefined_shuffle_forget();
    if (problem.empty() && emu_undefined_shuffle_note(note, sizeof note) != 0)
        problem = "emu_undefined_shuffle_forget() left a note";
#else
    (void)used;
    (void)kUsesLine;
    (void)kIgnoresLine;
#endif
    report("a shuffle that reads outside its mask: an undefined value, no fault", problem);
}

/* ---------------------------------------------------------------- floats in warps and blocks (stage 9) */

/** A float tree in a warp: a butterfly of __shfl_xor_sync, a fold of __shfl_down_sync, a
 *  half-warp butterfly (width 16) and a double fold; values whose sums round, so the order of
 *  the adds shows in the bits. */
static __global__ void float_trees(const float *in, float *out, double *dout)
{
    const unsigned int lane = threadIdx.x % 32;
    float v = in[threadIdx.x];
    for (int mask = 16; mask > 0; mask /= 2)
        v += __shfl_xor_sync(FULL, v, mask);
    out[3 * threadIdx.x] = v;
    float w = in[threadIdx.x];
    for (unsigned int delta = 16; delta > 0; delta /= 2)
        w += __shfl_down_sync(FULL, w, delta);
    out[3 * threadIdx.x + 1] = w;
    float h = in[threadIdx.x];
    for (int mask = 8; mask > 0; mask /= 2)
        h += __shfl_xor_sync(FULL, h, mask, 16);
    out[3 * threadIdx.x + 2] = h;
    double d = (double)in[threadIdx.x] / 3.0;
    for (unsigned int delta = 16; delta > 0; delta /= 2)
        d += __shfl_down_sync(FULL, d, delta);
    dout[threadIdx.x] = lane == 0 ? d : 0.0;
}

static void test_float_trees()
{
    const int threads = 64;
    std::vector<float> in(threads);
    for (int t = 0; t < threads; t++)
        in[t] = 1.0f / (float)(t + 1) + 1000.0f * (float)(t % 5); /* rounds when added */
    device_buffer<float> input(in), out(3 * threads);
    device_buffer<double> dout(threads);
    float_trees<<<1, threads>>>(input.p, out.p, dout.p);
    std::string problem = launch_error();
    std::vector<float> want(3 * threads);
    std::vector<double> dwant(threads, 0.0);
    for (int base = 0; base < threads; base += 32) {
        float v[32], w[32], h[32], next[32];
        double d[32], dnext[32];
        for (int l = 0; l < 32; l++) {
            v[l] = w[l] = h[l] = in[base + l];
            d[l] = (double)in[base + l] / 3.0;
        }
        for (int mask = 16; mask > 0; mask /= 2) {
            for (int l = 0; l < 32; l++)
                next[l] = v[l] + v[l ^ mask];
            std::memcpy(v, next, sizeof v);
        }
        for (int delta = 16; delta > 0; delta /= 2) { /* lanes past the end read their own value */
            for (int l = 0; l < 32; l++) {
                next[l] = w[l] + w[l + delta < 32 ? l + delta : l];
                dnext[l] = d[l] + d[l + delta < 32 ? l + delta : l];
            }
            std::memcpy(w, next, sizeof w);
            std::memcpy(d, dnext, sizeof d);
        }
        for (int mask = 8; mask > 0; mask /= 2) {
            for (int l = 0; l < 32; l++)
                next[l] = h[l] + h[l ^ mask];
            std::memcpy(h, next, sizeof h);
        }
        for (int l = 0; l < 32; l++) {
            want[3 * (base + l)] = v[l];
            want[3 * (base + l) + 1] = w[l];
            want[3 * (base + l) + 2] = h[l];
        }
        dwant[base] = d[0];
    }
    if (problem.empty())
        problem = compare("float trees (xor butterfly, down fold, width-16 butterfly)", out.get(), want);
    if (problem.empty())
        problem = compare("a double down fold", dout.get(), dwant);
    report("float and double shuffles: __shfl_xor_sync butterflies (width 32 and 16), __shfl_down_sync folds, "
           "bit for bit", problem);
}

/* ---------------------------------------------------------------- identities, min and max (stages 10-13) */

/** Minimums and maximums from their identities (INT_MAX, INT_MIN, FLT_MAX of <climits> and
 *  <cfloat>), CUDA's min()/max() overloads (int, unsigned, long long, float, double, an int
 *  with an unsigned), fminf/fmaxf, a NaN, and the float bits (__float_as_int, ...). */
static __global__ void identities(const int *in, const float *fin, int *out, float *fout, unsigned int n)
{
    if (threadIdx.x != 0)
        return;
    int lo = INT_MAX, hi = INT_MIN;
    unsigned int ulo = UINT_MAX;
    long long llo = LLONG_MAX;
    float flo = FLT_MAX, fhi = -FLT_MAX, fmin_lo = FLT_MAX;
    double dlo = DBL_MAX;
    for (unsigned int i = 0; i < n; i++) {
        lo = min(lo, in[i]);
        hi = max(hi, in[i]);
        ulo = min(ulo, (unsigned int)in[i]);
        llo = min(llo, (long long)in[i] * 3000000000ll);
        flo = min(flo, fin[i]);
        fhi = max(fhi, fin[i]);
        fmin_lo = fminf(fmin_lo, fin[i]);
        dlo = min(dlo, (double)fin[i]);
    }
    out[0] = lo;
    out[1] = hi;
    out[2] = (int)ulo;
    out[3] = (int)(llo / 3000000000ll);
    out[4] = (int)min(-1, 1u); /* int and unsigned: compared as unsigned, as CUDA's overload does */
    out[5] = max(7, 3);
    const float nan = __int_as_float(0x7fc00000);
    fout[0] = flo;
    fout[1] = fhi;
    fout[2] = fmin_lo;
    fout[3] = (float)dlo;
    fout[4] = fminf(nan, 2.5f); /* a NaN loses to a number */
    fout[5] = max(nan, -2.5f);
    fout[6] = fmaxf(-0.0f, -1.0f);
    /* float bits: an order-preserving unsigned key, and back */
    const float f = fin[0];
    const unsigned int bits = __float_as_uint(f);
    const unsigned int key = bits & 0x80000000u ? ~bits : bits | 0x80000000u;
    out[6] = (int)key;
    out[7] = __float_as_int(f);
    fout[7] = __int_as_float(__float_as_int(f) ^ (int)0x80000000); /* -f */
    fout[8] = __uint_as_float(bits);
}

static void test_identities()
{
    std::vector<int> in{5, -3, 17, 9, -3, 12, 40, 2};
    std::vector<float> fin{-1.5f, 3.25f, -7.75f, 0.5f, 100.0f, -7.75f, 2.0f, 1e-3f};
    device_buffer<int> input(in), out(8);
    device_buffer<float> finput(fin), fout(9);
    identities<<<1, 32>>>(input.p, finput.p, out.p, fout.p, (unsigned int)in.size());
    std::string problem = launch_error();
    unsigned int bits;
    std::memcpy(&bits, &fin[0], sizeof bits);
    std::vector<int> want{-3, 40, 2, -3, 1, 7, (int)(bits & 0x80000000u ? ~bits : bits | 0x80000000u), (int)bits};
    std::vector<float> fwant{-7.75f, 100.0f, -7.75f, -7.75f, 2.5f, -2.5f, -0.0f, 1.5f, -1.5f};
    if (problem.empty())
        problem = compare("ints (min, max from INT_MAX, INT_MIN; unsigned, long long; int with unsigned; key, bits)",
                          out.get(), want);
    if (problem.empty())
        problem = compare("floats (min, max from FLT_MAX, fminf, double min, NaN, -0, bits)", fout.get(), fwant);
    report("INT_MAX, INT_MIN, FLT_MAX, DBL_MAX; min() and max() of int, unsigned, long long, float, double; fminf, "
           "fmaxf, NaN; __float_as_int, __int_as_float, __float_as_uint, __uint_as_float", problem);
}

/* ---------------------------------------------------------------- 64-bit atomics and tickets (stage 12) */

static __device__ unsigned long long best_key = ~0ull;
static __device__ unsigned int ticket = 0;

/** One pass of an argmin: each thread's (value, index) packed into one 64-bit key, the value's
 *  sign bit flipped so that unsigned order is int order, then the index: atomicMin on the key
 *  keeps the smallest value and, among equal values, the smallest index. The block that draws
 *  the last ticket (atomicInc) writes the answer and puts the key and the ticket back. Also
 *  atomicMin/Max on long long and unsigned long long, atomicAdd on unsigned and atomicDec. */
static __global__ void packed_argmin(const int *in, unsigned int n, int *answer, long long *lls,
                                     unsigned long long *ulls, unsigned int *counts)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const unsigned long long key = (unsigned long long)((unsigned int)in[i] ^ 0x80000000u) << 32 | i;
        atomicMin(&best_key, key);
        atomicMin(&lls[0], (long long)in[i] * 4000000000ll);
        atomicMax(&lls[1], (long long)in[i] * 4000000000ll);
        atomicMax(&ulls[0], key);
        atomicAdd(&counts[0], 1u);
        atomicDec(&counts[1], 5u); /* counts 5, 4, ..., 0, then wraps to 5 */
    }
    __shared__ bool last;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicInc(&ticket, gridDim.x - 1) == gridDim.x - 1; /* wraps to 0 by itself */
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        const unsigned long long key = atomicExch(&best_key, ~0ull);
        answer[0] = (int)((unsigned int)(key >> 32) ^ 0x80000000u);
        answer[1] = (int)(key & 0xffffffffu);
        answer[2] = (int)ticket; /* 0 again */
    }
}

static void test_packed_argmin()
{
    const unsigned int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
    std::vector<int> in(n);
    for (unsigned int i = 0; i < n; i++)
        in[i] = (int)((i * 7919u) % 41u) - 20; /* -20 .. 20, ties everywhere */
    std::string problem;
    for (int run = 0; run < 2 && problem.empty(); run++) { /* the second run finds the key put back */
        if (run == 1)
            in[n - 1] = -21; /* a smaller value, last */
        device_buffer<int> input(in), answer(3);
        device_buffer<long long> lls(std::vector<long long>{LLONG_MAX, LLONG_MIN});
        device_buffer<unsigned long long> ulls(1);
        device_buffer<unsigned int> counts(std::vector<unsigned int>{0u, 5u});
        packed_argmin<<<blocks, threads>>>(input.p, n, answer.p, lls.p, ulls.p, counts.p);
        problem = launch_error();
        int lo = INT_MAX, at = -1, hi = INT_MIN, hi_at = -1;
        for (unsigned int i = 0; i < n; i++) {
            if (in[i] < lo) {
                lo = in[i];
                at = (int)i;
            }
            if (in[i] >= hi) { /* the largest key: the largest value, then the largest index */
                hi = in[i];
                hi_at = (int)i;
            }
        }
        if (problem.empty())
            problem = compare("the argmin (value, first index, ticket after)", answer.get(), std::vector<int>{lo, at, 0});
        if (problem.empty())
            problem = compare("long long atomicMin, atomicMax", lls.get(),
                              std::vector<long long>{lo * 4000000000ll, hi * 4000000000ll});
        if (problem.empty())
            problem = compare("unsigned long long atomicMax", ulls.get(),
                              std::vector<unsigned long long>{(unsigned long long)((unsigned int)hi ^ 0x80000000u) << 32 |
                                                              (unsigned int)hi_at});
        if (problem.empty())
            problem = compare("atomicAdd on unsigned, atomicDec", counts.get(),
                              std::vector<unsigned int>{n, (5u - n % 6u) % 6u});
    }
    report("atomicMin and atomicMax on unsigned long long and long long (a packed argmin key), atomicInc and atomicAdd "
           "tickets, atomicDec, atomicExch on 64 bits, a static __device__ word put back by the last block", problem);
}

/* ---------------------------------------------------------------- structures in shared memory (stages 13-15) */

struct mat3 {
    int m[9];
};

static __device__ mat3 mat3_min(const mat3 &a, const mat3 &b)
{
    mat3 r;
    for (int c = 0; c < 9; c++)
        r.m[c] = min(a.m[c], b.m[c]);
    return r;
}

/** The element-wise minimum of a block's matrices: loaded as structures (9 ints a thread) or
 *  coalesced (each warp reads 9 x 32 consecutive ints into shared memory, then each lane takes
 *  its matrix from there), then a tree over a shared array of structures. */
static __global__ void matrices_min(const mat3 *in, mat3 *out, int coalesced)
{
    __shared__ mat3 tree[128];
    __shared__ int staged[4][9 * 32];
    const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    mat3 mine;
    if (coalesced) {
        const int *words = reinterpret_cast<const int *>(in + blockIdx.x * blockDim.x + warp * 32);
        for (int k = 0; k < 9; k++)
            staged[warp][k * 32 + lane] = words[k * 32 + lane];
        __syncwarp();
        for (int c = 0; c < 9; c++)
            mine.m[c] = staged[warp][lane * 9 + c];
    } else {
        mine = in[blockIdx.x * blockDim.x + tid];
    }
    tree[tid] = mine;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s)
            tree[tid] = mat3_min(tree[tid], tree[tid + s]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = tree[0];
}

static void test_matrices()
{
    const int blocks = 3, threads = 128;
    std::vector<int> words(9 * blocks * threads);
    for (size_t i = 0; i < words.size(); i++)
        words[i] = (int)((i * 2654435761u) % 1000u) - 500;
    device_buffer<int> input(words), out(9 * blocks), out_coalesced(9 * blocks);
    matrices_min<<<blocks, threads>>>(reinterpret_cast<const mat3 *>(input.p), reinterpret_cast<mat3 *>(out.p), 0);
    std::string problem = launch_error();
    matrices_min<<<blocks, threads>>>(reinterpret_cast<const mat3 *>(input.p),
                                      reinterpret_cast<mat3 *>(out_coalesced.p), 1);
    if (problem.empty())
        problem = launch_error();
    std::vector<int> want(9 * blocks, INT_MAX);
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++)
            for (int c = 0; c < 9; c++)
                want[9 * b + c] = std::min(want[9 * b + c], words[9 * (b * threads + t) + c]);
    if (problem.empty())
        problem = compare("element-wise minimums, 9 ints a thread", out.get(), want);
    if (problem.empty())
        problem = compare("element-wise minimums, coalesced loads through shared memory", out_coalesced.get(), want);
    report("a struct of 9 ints: loads, a __shared__ array of structures, struct assignment; coalesced loads "
           "exchanged through a 2-D __shared__ array", problem);
}

/* ---------------------------------------------------------------- float arithmetic intrinsics, a tile's struct shuffle */

struct value_index {
    int value;
    int index;
};
struct four_floats {
    float f[4];
};

static __global__ void float_intrinsics(const float *in, float *out, int *iout)
{
    const unsigned int t = threadIdx.x;
    const float a = in[t], b = in[t + 32];
    out[5 * t] = __fadd_rn(a, b);
    out[5 * t + 1] = __fmul_rn(a, b);
    out[5 * t + 2] = __fsub_rn(__fadd_rn(a, b), a); /* the part of b that survived the add */
    out[5 * t + 3] = __fmaf_rn(a, b, -__fmul_rn(a, b)); /* the error of the product, exactly */
    iout[3 * t] = __float2int_rn(a * 4.0f);
    iout[3 * t + 1] = __float2int_rz(a * 4.0f);
    /* a tile's shfl moves a structure (cooperative groups allow up to 32 bytes) */
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    value_index mine = {(int)(a * 8.0f), (int)t};
    value_index next = tile.shfl_down(mine, 1);
    four_floats quad = {{a, b, a + b, a - b}};
    four_floats from = tile.shfl(quad, 31 - (int)tile.thread_rank());
    iout[3 * t + 2] = next.value * 1000 + next.index;
    out[5 * t + 4] = from.f[2];
}

static void test_float_intrinsics()
{
    std::vector<float> in(64);
    for (int i = 0; i < 64; i++)
        in[i] = (i % 2 ? 1.0f : -1.0f) * (float)(i * i + 1) / 7.0f + (i >= 32 ? 3e7f : 0.0f);
    device_buffer<float> input(in), out(5 * 32);
    device_buffer<int> iout(3 * 32);
    float_intrinsics<<<1, 32>>>(input.p, out.p, iout.p);
    std::string problem = launch_error();
    std::vector<float> want(5 * 32);
    std::vector<int> iwant(3 * 32);
    for (int t = 0; t < 32; t++) {
        float a = in[t], b = in[t + 32];
        volatile float sum = a + b, product = a * b; /* no contraction on the host either */
        want[5 * t] = sum;
        want[5 * t + 1] = product;
        want[5 * t + 2] = sum - a;
        want[5 * t + 3] = std::fma(a, b, -product);
        iwant[3 * t] = (int)std::nearbyint(a * 4.0f);
        iwant[3 * t + 1] = (int)(a * 4.0f);
        int u = t < 31 ? t + 1 : t;
        float ua = in[31 - t], ub = in[31 - t + 32];
        iwant[3 * t + 2] = (int)(in[u] * 8.0f) * 1000 + u;
        want[5 * t + 4] = ua + ub;
    }
    if (problem.empty())
        problem = compare("__fadd_rn, __fmul_rn, __fsub_rn, __fmaf_rn, a tile's shfl of 16 bytes", out.get(), want);
    if (problem.empty())
        problem = compare("__float2int_rn, __float2int_rz, a tile's shfl_down of an 8-byte struct",
                          iout.get(), iwant);
    report("__fadd_rn, __fsub_rn, __fmul_rn, __fmaf_rn, __float2int_rn/_rz; a tile's shfl of a struct (8 and 16 bytes)",
           problem);
}

/* ---------------------------------------------------------------- a launcher erased by a template <auto> */

static __global__ void add_one(const int *in, int *out)
{
    out[threadIdx.x] = in[threadIdx.x] + 1;
}

static size_t launch_add_one(const int *in, int *out, size_t n, unsigned threads)
{
    add_one<<<1, (unsigned int)n>>>(in, out);
    return threads;
}

/* common/stage.h's pattern: a typed launcher as a template argument, erased to void pointers */
template <auto launcher> struct erased;
template <typename In, typename Out, size_t (*launcher)(const In *, Out *, size_t, unsigned)>
struct erased<launcher> {
    static size_t pass(const void *in, void *out, size_t n, unsigned threads)
    {
        return launcher(static_cast<const In *>(in), static_cast<Out *>(out), n, threads);
    }
    static constexpr size_t in_size = sizeof(In);
};
static size_t (*const erased_add_one)(const void *, void *, size_t, unsigned) = erased<launch_add_one>::pass;

static void test_template_auto()
{
    std::vector<int> in{1, 2, 3, 4, 5, 6, 7, 8};
    device_buffer<int> input(in), out(8);
    size_t returned = erased_add_one(input.p, out.p, in.size(), 32);
    std::string problem = launch_error();
    if (problem.empty())
        problem = compare("erased launcher's output", out.get(), std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9});
    if (problem.empty() && (returned != 32 || erased<launch_add_one>::in_size != sizeof(int)))
        problem = "the erased launcher returned " + std::to_string(returned) + ", not 32";
    report("a launcher through template <auto F> (common/stage.h's KIT_REGISTER_STAGE)", problem);
}

/* ---------------------------------------------------------------- loads and stores with a cache hint */

static __global__ void cache_hints(const int *in, const float4 *fin, int *out, float4 *fout)
{
    const unsigned int t = threadIdx.x;
    const int v = __ldcg(in + t) + 2 * __ldca(in + t) + 4 * __ldcs(in + t) + 8 * __ldlu(in + t) + 16 * __ldcv(in + t);
    __stcg(out + 4 * t, v);
    __stcs(out + 4 * t + 1, __ldg(in + t));
    __stwt(out + 4 * t + 2, -v);
    __stwb(out + 4 * t + 3, 7);
    const float4 f = __ldcg(fin + t);
    __stcg(fout + t, make_float4(f.w, f.z, f.y, f.x));
}

static void test_cache_hints()
{
    const int threads = 32;
    std::vector<int> in(threads);
    std::vector<float> fin(4 * threads);
    for (int t = 0; t < threads; t++)
        in[t] = t * 3 - 40;
    for (size_t i = 0; i < fin.size(); i++)
        fin[i] = 0.5f * (float)i;
    device_buffer<int> input(in), out(4 * threads);
    device_buffer<float> finput(fin), fout(4 * threads);
    cache_hints<<<1, threads>>>(input.p, reinterpret_cast<const float4 *>(finput.p), out.p,
                                reinterpret_cast<float4 *>(fout.p));
    std::string problem = launch_error();
    std::vector<int> want(4 * threads);
    std::vector<float> fwant(4 * threads);
    for (int t = 0; t < threads; t++) {
        want[4 * t] = 31 * in[t];
        want[4 * t + 1] = in[t];
        want[4 * t + 2] = -31 * in[t];
        want[4 * t + 3] = 7;
        for (int k = 0; k < 4; k++)
            fwant[4 * t + k] = fin[4 * t + 3 - k];
    }
    if (problem.empty())
        problem = compare("int loads and stores with cache hints", out.get(), want);
    if (problem.empty())
        problem = compare("float4 __ldcg and __stcg", fout.get(), fwant);
    report("__ldcg, __ldca, __ldcs, __ldlu, __ldcv, __stcg, __stcs, __stwt, __stwb (int, float4)", problem);
}

/* ---------------------------------------------------------------- main */

extern "C" int kit_cuda_features(void)
{
    test_cg_block();
    test_cg_static_tiles();
    test_cg_dynamic_tiles();
    test_warp_reduce();
    test_shuffles();
    test_votes();
    test_syncwarp();
    test_atomics();
    test_threadfence();
    test_vector_loads();
    test_shared_and_templates();
    test_shuffle_outside_mask();
    test_float_trees();
    test_identities();
    test_packed_argmin();
    test_matrices();
    test_float_intrinsics();
    test_template_auto();
    test_cache_hints();
    if (failed) {
        std::printf("%d of %d features differ from a GPU\n", failed, features);
        return 1;
    }
    std::printf("all %d features as on a GPU\n", features);
    return 0;
}

#ifndef EMU_FEATURE_TEST
int main()
{
    return kit_cuda_features();
}
#endif

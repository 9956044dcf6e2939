/*
 * Kernels whose counts a GPU's profiler would agree with, one launch per case, for the
 * emulator's counters (emu/tests/counters/main.c holds the counts each case must give and
 * explains them). Compiled as a stage file is (emu_add_stage_files, plain build): the
 * emulator's instrumentation sees these accesses exactly as it sees a student's.
 *
 * emu_count_case(name) runs the case `name` once; 0 when it launched and finished, 1 when
 * the launch failed, -1 for a name it does not know.
 */
#include <cuda_runtime.h>

#include <cstring>

/* ---------------------------------------------------------------- shared memory */

/** Each thread stores s[stride * tid], then (after a barrier) loads it back: one store and
 *  one load request per warp. stride 1: no conflict; 2: 2-way; 32: 32-way; 0: one word. */
__global__ void shared_stride(int *out, unsigned stride)
{
    extern __shared__ int s[];
    unsigned tid = threadIdx.x;
    s[stride * tid] = (int)tid;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[stride * tid];
}

/** Even lanes store (16 of 32: divergent); after the barrier warp 0 alone loads (whole warps
 *  idle are no request), two lanes to a word (a broadcast: no conflict). */
__global__ void shared_divergent(int *out)
{
    extern __shared__ int s[];
    unsigned tid = threadIdx.x;
    if (tid % 2 == 0)
        s[tid] = (int)tid;
    __syncthreads();
    if (tid < 32)
        out[blockIdx.x * blockDim.x + tid] = s[tid & ~1u];
}

/** 48 threads: warp 1 has 16 lanes, all of them store, so it is not divergent. */
__global__ void shared_partial_warp(int *out)
{
    extern __shared__ int s[];
    unsigned tid = threadIdx.x;
    s[tid] = (int)tid;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[blockDim.x - 1 - tid];
}

/** 8-byte accesses: a lane touches two words, so a full warp asks each bank for two words. */
__global__ void shared_int2(int *out)
{
    extern __shared__ int2 s2[];
    unsigned tid = threadIdx.x;
    int2 v = make_int2((int)tid, 1);
    s2[tid] = v;
    __syncthreads();
    int2 w = s2[tid];
    out[blockIdx.x * blockDim.x + tid] = w.x + w.y;
}

/** Lanes of one warp meeting at __syncwarp in halves: each half's accesses are its requests. */
__global__ void shared_half_warps(int *out)
{
    extern __shared__ int s[];
    unsigned tid = threadIdx.x;
    unsigned half = tid < 16 ? 0x0000ffffu : 0xffff0000u;
    s[tid] = (int)tid;
    __syncwarp(half);
    out[tid] = s[tid ^ 1];
}

/** Thread 0 alone loads and stores shared memory 2^22 + 8 times each, with no meeting point:
 *  past 2^22 logged accesses the rest are requests of their own; every one has one lane. */
__global__ void shared_long_loop(int *out)
{
    extern __shared__ int s[];
    volatile int *v = s;
    if (threadIdx.x == 0)
        for (unsigned i = 0; i < (1u << 22) + 8; i++)
            v[i & 31] = v[i & 31] + 1;
    out[threadIdx.x] = 0;
}

/* ---------------------------------------------------------------- global memory */

/** One load of each width per thread (char, short, int, int2, int4) and one int store. */
__global__ void load_widths(const int *in, int *out)
{
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned char c = reinterpret_cast<const unsigned char *>(in)[tid];
    short h = reinterpret_cast<const short *>(in)[tid];
    int i = in[tid];
    int2 d = reinterpret_cast<const int2 *>(in)[tid];
    int4 q = reinterpret_cast<const int4 *>(in)[tid];
    out[tid] = c + h + i + d.x + d.y + q.x + q.y + q.z + q.w;
}

/** 36 bytes, 4-byte aligned: a 3x3 int matrix as stage.h's kit_mat3. */
struct mat3 {
    int m[9];
};

/** Load requests: thread t reads int t (a warp's 32 lanes: 128 consecutive bytes, 4 sectors),
 *  int4 t (512 bytes, 16 sectors), and (after a barrier) whole matrix t, 36 bytes: 9 loads of
 *  4 bytes a lane, the lanes 36 bytes apart, each in a sector of its own (32 a request). */
__global__ void load_requests(const int *in, int *out)
{
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    int i = in[tid];
    int4 q = reinterpret_cast<const int4 *>(in)[tid];
    __syncthreads();
    mat3 a = reinterpret_cast<const mat3 *>(in)[tid];
    int sum = i + q.x + q.y + q.z + q.w;
    for (int c = 0; c < 9; c++)
        sum += a.m[c];
    out[tid] = sum;
}

/** Lanes on two branches: the even lanes read in[tid], the odd lanes in[tid + 1] and then
 *  in[64 + tid] (the k-th load of each lane: a request of 32 lanes on the 17 even ints 0..32,
 *  5 sectors, 3 needed; then one of the 16 odd lanes, ints 8 bytes apart: 4 sectors for 64
 *  bytes spread over 128, 2 needed); in[tid] again after a __syncwarp: a request of its own
 *  (4 sectors). */
__global__ void load_requests_divergent(const int *in, int *out)
{
    unsigned tid = threadIdx.x;
    int v = 0;
    if (tid % 2 == 0) {
        v = in[tid];
    } else {
        v = in[tid + 1];
        v += in[64 + tid];
    }
    __syncwarp();
    v += in[tid];
    out[tid] = v;
}

/** Thread 0 alone loads from global memory 2^20 + 8 times with no meeting point: past 2^20
 *  logged loads the rest are requests of their own; every one has one lane and one sector. */
__global__ void load_long_loop(const int *in, int *out)
{
    const volatile int *v = in;
    int sum = 0;
    if (threadIdx.x == 0)
        for (unsigned i = 0; i < (1u << 20) + 8; i++)
            sum += v[i & 31];
    out[threadIdx.x] = sum;
}

/** Global atomics count once each; a shared atomic is no shared request, thread 0's plain
 *  store and load of the shared total are (one lane of 32 each). */
__global__ void atomics(int *total)
{
    __shared__ int block_total;
    if (threadIdx.x == 0)
        block_total = 0;
    __syncthreads();
    atomicAdd(&block_total, 1);
    atomicAdd(&total[0], 1);
    __syncthreads();
    if (threadIdx.x == 0)
        atomicMax(&total[1], block_total);
}

/* ---------------------------------------------------------------- meetings */

/** Three block barriers and three warp meetings (one __syncwarp, two shuffles); an
 *  __activemask meets nobody. */
__global__ void meetings(int *out)
{
    unsigned tid = threadIdx.x;
    int v = (int)tid;
    __syncthreads();
    v += __syncthreads_count(v & 1);
    __syncwarp();
    v += __shfl_down_sync(0xffffffffu, v, 1);
    v += __shfl_xor_sync(0xffffffffu, v, 2);
    v += (int)__popc(__activemask());
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = v;
}

/* ---------------------------------------------------------------- resident blocks */

__global__ void no_shared(int *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1; }

/** 400 bytes of static shared memory, and the launch's dynamic bytes. */
__global__ void static_and_dynamic(int *out)
{
    __shared__ int table[100];
    extern __shared__ int rest[];
    table[threadIdx.x % 100] = 1;
    rest[0] = 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = table[0] + rest[0];
}

/* ---------------------------------------------------------------- the cases */

static bool finished()
{
    return cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
}

extern "C" int emu_count_case(const char *name)
{
    const unsigned most = 4096;
    int *in = nullptr, *out = nullptr;
    cudaMalloc(&in, most * 16);
    cudaMalloc(&out, most * 16);
    cudaMemset(in, 1, most * 16);
    int result = 1;
    if (!std::strcmp(name, "stride1")) {
        shared_stride<<<2, 64, 64 * sizeof(int)>>>(out, 1);
    } else if (!std::strcmp(name, "stride2")) {
        shared_stride<<<2, 64, 2 * 64 * sizeof(int)>>>(out, 2);
    } else if (!std::strcmp(name, "stride32")) {
        shared_stride<<<2, 64, 32 * 64 * sizeof(int)>>>(out, 32);
    } else if (!std::strcmp(name, "broadcast")) {
        shared_stride<<<2, 64, sizeof(int)>>>(out, 0);
    } else if (!std::strcmp(name, "divergent")) {
        shared_divergent<<<2, 64, 64 * sizeof(int)>>>(out);
    } else if (!std::strcmp(name, "partial_warp")) {
        shared_partial_warp<<<2, 48, 48 * sizeof(int)>>>(out);
    } else if (!std::strcmp(name, "int2_shared")) {
        shared_int2<<<1, 64, 64 * sizeof(int2)>>>(out);
    } else if (!std::strcmp(name, "half_warps")) {
        shared_half_warps<<<1, 32, 32 * sizeof(int)>>>(out);
    } else if (!std::strcmp(name, "long_loop")) {
        shared_long_loop<<<1, 32, 32 * sizeof(int)>>>(out);
    } else if (!std::strcmp(name, "load_widths")) {
        load_widths<<<4, 256>>>(in, out);
    } else if (!std::strcmp(name, "load_requests")) {
        load_requests<<<4, 64>>>(in, out);
    } else if (!std::strcmp(name, "load_requests_divergent")) {
        load_requests_divergent<<<1, 32>>>(in, out);
    } else if (!std::strcmp(name, "load_long_loop")) {
        load_long_loop<<<1, 32>>>(in, out);
    } else if (!std::strcmp(name, "atomics")) {
        cudaMemset(out, 0, 2 * sizeof(int));
        atomics<<<3, 128>>>(out);
        int got[2] = {0, 0};
        if (finished() && cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess &&
            got[0] == 3 * 128 && got[1] == 128)
            result = 0;
        cudaFree(in);
        cudaFree(out);
        return result;
    } else if (!std::strcmp(name, "meetings")) {
        meetings<<<3, 256>>>(out);
    } else if (!std::strcmp(name, "resident_256")) {
        no_shared<<<5, 256>>>(out);
    } else if (!std::strcmp(name, "resident_1024")) {
        no_shared<<<2, 1024>>>(out);
    } else if (!std::strcmp(name, "resident_64k_dynamic")) {
        cudaFuncSetAttribute(shared_stride, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
        shared_stride<<<1, 256, 64 * 1024>>>(out, 1);
    } else if (!std::strcmp(name, "resident_static_and_dynamic")) {
        static_and_dynamic<<<1, 128, 100>>>(out);
    } else {
        result = -1;
    }
    if (result == 1 && finished())
        result = 0;
    cudaFree(in);
    cudaFree(out);
    return result;
}

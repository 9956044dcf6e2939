/**
 * \file emu_kernel.h
 * \brief The CUDA kernel language on the CPU: what a stage file sees in the emulated build.
 *
 * The build force-includes this header (-include) into each stage file after
 * emu_cuda_to_cpp has rewritten its `<<<...>>>` launches and `__shared__` declarations.
 * Every logical GPU thread runs as a fiber; the calls that make threads meet
 * (__syncthreads(), __syncwarp(), the shuffles and votes) switch fibers in the scheduler
 * (emu/src/scheduler.cpp). Everything else is ordinary C++ running on the host.
 *
 * The synchronising calls are object-like macros (`__syncthreads` expands to
 * `::emu::here(__FILE__, __LINE__).syncthreads`), so each one knows its source line and a
 * diagnostic can name it.
 */
#ifndef EMU_KERNEL_H
#define EMU_KERNEL_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_runtime_api.h"

/* ---------------------------------------------------------------- qualifiers */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __constant__ static
/* Shapes of __shared__ the build step did not rewrite (see tools/cuda_to_cpp.cpp). */
#define __shared__ static

/* ---------------------------------------------------------------- built-in types */

#define EMU_VECTOR_TYPES(T, name)                                                              \
    struct alignas(sizeof(T)) name##1 { T x; };                                                \
    struct alignas(2 * sizeof(T) > 16 ? 16 : 2 * sizeof(T)) name##2 { T x, y; };               \
    struct alignas(sizeof(T)) name##3 { T x, y, z; };                                          \
    struct alignas(4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T)) name##4 { T x, y, z, w; };         \
    inline name##1 make_##name##1(T x) { return {x}; }                                         \
    inline name##2 make_##name##2(T x, T y) { return {x, y}; }                                 \
    inline name##3 make_##name##3(T x, T y, T z) { return {x, y, z}; }                         \
    inline name##4 make_##name##4(T x, T y, T z, T w) { return {x, y, z, w}; }
EMU_VECTOR_TYPES(signed char, char)
EMU_VECTOR_TYPES(unsigned char, uchar)
EMU_VECTOR_TYPES(short, short)
EMU_VECTOR_TYPES(unsigned short, ushort)
EMU_VECTOR_TYPES(int, int)
EMU_VECTOR_TYPES(unsigned int, uint)
EMU_VECTOR_TYPES(long, long)
EMU_VECTOR_TYPES(unsigned long, ulong)
EMU_VECTOR_TYPES(long long, longlong)
EMU_VECTOR_TYPES(unsigned long long, ulonglong)
EMU_VECTOR_TYPES(float, float)
EMU_VECTOR_TYPES(double, double)
#undef EMU_VECTOR_TYPES

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return {x, y, z}; }
};


/* The running thread's coordinates; the scheduler sets them at every fiber switch. */
extern uint3 threadIdx;
extern uint3 blockIdx;
extern dim3 blockDim;
extern dim3 gridDim;
constexpr int warpSize = 32;

/* ---------------------------------------------------------------- the scheduler's entry points */

namespace emu {

/** What a thread waits for at a warp-level meeting point. */
enum warp_kind {
    WARP_SYNC,
    WARP_SHFL_IDX,
    WARP_SHFL_UP,
    WARP_SHFL_DOWN,
    WARP_SHFL_XOR,
    WARP_BALLOT,
    WARP_ANY,
    WARP_ALL,
    WARP_REDUCE_ADD,
    WARP_REDUCE_MIN,
    WARP_REDUCE_MAX,
    WARP_ACTIVEMASK
};

/** What a thread waits for at a block-level barrier. */
enum block_kind { BLOCK_SYNC, BLOCK_COUNT, BLOCK_AND, BLOCK_OR };

/** Waits until every thread of the block is here; returns the barrier's reduced predicate. */
int sync_block(const char *file, int line, block_kind kind, int predicate);
/** Waits until every lane of \p mask is at a warp operation; returns this lane's result. */
unsigned long long warp_op(const char *file, int line, warp_kind kind, unsigned mask,
                           unsigned long long value, int param, int width);
/** This block's copy of a static __shared__ variable (one per declaration site). */
void *static_shared(const void *site, size_t bytes, size_t align, const char *name, const char *file);
/** This block's dynamic shared memory and its size in bytes (the launch's third argument). */
void *dynamic_shared(size_t *bytes);
/** Reports an index outside a shared array and ends the kernel (does not return). */
[[noreturn]] void shared_index_error(const char *name, const char *file, int line, long long index,
                                     size_t count);

/** The source position of a synchronising call; its members are the CUDA intrinsics. */
struct here {
    const char *file;
    int line;

    void syncthreads() const { sync_block(file, line, BLOCK_SYNC, 1); }
    int syncthreads_count(int predicate) const { return sync_block(file, line, BLOCK_COUNT, predicate); }
    int syncthreads_and(int predicate) const { return sync_block(file, line, BLOCK_AND, predicate); }
    int syncthreads_or(int predicate) const { return sync_block(file, line, BLOCK_OR, predicate); }
    void syncwarp(unsigned mask = 0xffffffffu) const { warp_op(file, line, WARP_SYNC, mask, 0, 0, 32); }

    template <class T>
    T exchange(warp_kind kind, unsigned mask, T value, int param, int width) const
    {
        static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                      "warp shuffles move values of at most 8 bytes");
        unsigned long long bits = 0;
        std::memcpy(&bits, &value, sizeof value);
        bits = warp_op(file, line, kind, mask, bits, param, width);
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }
    template <class T> T shfl_sync(unsigned mask, T v, int src, int width = 32) const
    {
        return exchange(WARP_SHFL_IDX, mask, v, src, width);
    }
    template <class T> T shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) const
    {
        return exchange(WARP_SHFL_UP, mask, v, (int)delta, width);
    }
    template <class T> T shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) const
    {
        return exchange(WARP_SHFL_DOWN, mask, v, (int)delta, width);
    }
    template <class T> T shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) const
    {
        return exchange(WARP_SHFL_XOR, mask, v, lane_mask, width);
    }
    unsigned ballot_sync(unsigned mask, int predicate) const
    {
        return (unsigned)warp_op(file, line, WARP_BALLOT, mask, predicate != 0, 0, 32);
    }
    int any_sync(unsigned mask, int predicate) const
    {
        return (int)warp_op(file, line, WARP_ANY, mask, predicate != 0, 0, 32);
    }
    int all_sync(unsigned mask, int predicate) const
    {
        return (int)warp_op(file, line, WARP_ALL, mask, predicate != 0, 0, 32);
    }
    unsigned activemask() const { return (unsigned)warp_op(file, line, WARP_ACTIVEMASK, 0, 0, 0, 32); }
    template <class T> T reduce(warp_kind kind, unsigned mask, T value) const
    {
        static_assert(sizeof(T) == 4 && std::is_integral<T>::value, "__reduce_*_sync takes int or unsigned");
        return (T)warp_op(file, line, kind, mask, (unsigned long long)(unsigned)value, std::is_signed<T>::value, 32);
    }
    template <class T> T reduce_add_sync(unsigned mask, T v) const { return reduce(WARP_REDUCE_ADD, mask, v); }
    template <class T> T reduce_min_sync(unsigned mask, T v) const { return reduce(WARP_REDUCE_MIN, mask, v); }
    template <class T> T reduce_max_sync(unsigned mask, T v) const { return reduce(WARP_REDUCE_MAX, mask, v); }
};

/* ---------------------------------------------------------------- shared memory */

/** A block's shared array as a kernel sees it: an index outside the array is reported. */
template <class E>
struct shared_view {
    E *data;
    size_t count;
    const char *name;
    const char *file;

    /** `name(__LINE__)[i]`: the build step adds the line to every index of a shared array. */
    struct at_line {
        const shared_view *view;
        int line;
        template <class I> E &operator[](I i) const { return view->index(i, line); }
    };
    at_line operator()(int line) const { return {this, line}; }
    template <class I> E &operator[](I i) const { return index(i, 0); }
    template <class I> E &index(I i, int line) const
    {
        static_assert(std::is_integral<I>::value || std::is_enum<I>::value, "array index must be an integer");
        if (__builtin_expect((unsigned long long)(long long)i >= count, 0))
            shared_index_error(name, file, line, (long long)i, count);
        return data[i];
    }
    operator E *() const { return data; }
    template <class U> explicit operator U *() const { return reinterpret_cast<U *>(data); }
    E &operator*() const { return *data; }
};

/** How a `__shared__ T name DIMS;` declaration turns into a per-block object. */
template <class T>
struct shared_decl { /* a scalar: a reference to this block's copy */
    typedef T &type;
    static T &make(const void *site, const char *name, const char *file)
    {
        return *static_cast<T *>(static_shared(site, sizeof(T), alignof(T), name, file));
    }
};
template <class E, size_t N>
struct shared_decl<E[N]> { /* an array: a checked view of this block's copy */
    typedef shared_view<E> type;
    static shared_view<E> make(const void *site, const char *name, const char *file)
    {
        return {static_cast<E *>(static_shared(site, sizeof(E[N]), alignof(E[N]), name, file)), N, name, file};
    }
};

template <class E>
shared_view<E> extern_shared(const char *name, const char *file)
{
    size_t bytes = 0;
    E *data = static_cast<E *>(dynamic_shared(&bytes));
    return {data, bytes / sizeof(E), name, file};
}

} // namespace emu

#define EMU_SHARED(T, name, dims)                                    \
    static const char emu_shared_site_##name = 0;                     \
    typename ::emu::shared_decl<T dims>::type name =                  \
        ::emu::shared_decl<T dims>::make(&emu_shared_site_##name, #name, __FILE__)
#define EMU_EXTERN_SHARED(T, name) ::emu::shared_view<T> name = ::emu::extern_shared<T>(#name, __FILE__)

/* ---------------------------------------------------------------- intrinsics */

#define __syncthreads ::emu::here{__FILE__, __LINE__}.syncthreads
#define __syncthreads_count ::emu::here{__FILE__, __LINE__}.syncthreads_count
#define __syncthreads_and ::emu::here{__FILE__, __LINE__}.syncthreads_and
#define __syncthreads_or ::emu::here{__FILE__, __LINE__}.syncthreads_or
#define __syncwarp ::emu::here{__FILE__, __LINE__}.syncwarp
#define __shfl_sync ::emu::here{__FILE__, __LINE__}.shfl_sync
#define __shfl_up_sync ::emu::here{__FILE__, __LINE__}.shfl_up_sync
#define __shfl_down_sync ::emu::here{__FILE__, __LINE__}.shfl_down_sync
#define __shfl_xor_sync ::emu::here{__FILE__, __LINE__}.shfl_xor_sync
#define __ballot_sync ::emu::here{__FILE__, __LINE__}.ballot_sync
#define __any_sync ::emu::here{__FILE__, __LINE__}.any_sync
#define __all_sync ::emu::here{__FILE__, __LINE__}.all_sync
#define __activemask ::emu::here{__FILE__, __LINE__}.activemask
#define __reduce_add_sync ::emu::here{__FILE__, __LINE__}.reduce_add_sync
#define __reduce_min_sync ::emu::here{__FILE__, __LINE__}.reduce_min_sync
#define __reduce_max_sync ::emu::here{__FILE__, __LINE__}.reduce_max_sync

/* Memory fences: one OS thread runs every fiber, so program order is memory order. */
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <class T> inline T __ldg(const T *p) { return *p; }

/* Atomics: relaxed, as CUDA's; real atomics, so ThreadSanitizer sees them as such. */
#define EMU_ATOMIC_INT(T)                                                                         \
    inline T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }          \
    inline T atomicSub(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }          \
    inline T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }        \
    inline T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }          \
    inline T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }            \
    inline T atomicXor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }          \
    inline T atomicCAS(T *p, T expected, T desired)                                               \
    {                                                                                             \
        __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
        return expected;                                                                          \
    }                                                                                             \
    inline T atomicMin(T *p, T v)                                                                 \
    {                                                                                             \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                             \
        while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) \
            ;                                                                                     \
        return old;                                                                               \
    }                                                                                             \
    inline T atomicMax(T *p, T v)                                                                 \
    {                                                                                             \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                             \
        while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) \
            ;                                                                                     \
        return old;                                                                               \
    }
EMU_ATOMIC_INT(int)
EMU_ATOMIC_INT(unsigned int)
EMU_ATOMIC_INT(long long)
EMU_ATOMIC_INT(unsigned long long)
#undef EMU_ATOMIC_INT
#define EMU_ATOMIC_FLOAT(T, U)                                                                    \
    inline T atomicAdd(T *p, T v)                                                                 \
    {                                                                                             \
        U *bits = reinterpret_cast<U *>(p);                                                       \
        U old = __atomic_load_n(bits, __ATOMIC_RELAXED), want;                                    \
        do {                                                                                      \
            T sum;                                                                                \
            std::memcpy(&sum, &old, sizeof sum);                                                  \
            sum += v;                                                                             \
            std::memcpy(&want, &sum, sizeof want);                                                \
        } while (!__atomic_compare_exchange_n(bits, &old, want, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
        T result;                                                                                 \
        std::memcpy(&result, &old, sizeof result);                                                \
        return result;                                                                            \
    }                                                                                             \
    inline T atomicExch(T *p, T v)                                                                \
    {                                                                                             \
        U bits;                                                                                   \
        std::memcpy(&bits, &v, sizeof bits);                                                      \
        bits = __atomic_exchange_n(reinterpret_cast<U *>(p), bits, __ATOMIC_RELAXED);             \
        std::memcpy(&v, &bits, sizeof v);                                                         \
        return v;                                                                                 \
    }
EMU_ATOMIC_FLOAT(float, unsigned int)
EMU_ATOMIC_FLOAT(double, unsigned long long)
#undef EMU_ATOMIC_FLOAT
inline unsigned int atomicInc(unsigned int *p, unsigned int limit)
{
    unsigned int old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0 : old + 1, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
    return old;
}

/* Integer intrinsics and CUDA's global min/max. */
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline unsigned int __brev(unsigned int x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}
template <class A, class B> inline typename std::common_type<A, B>::type min(A a, B b) { return b < a ? b : a; }
template <class A, class B> inline typename std::common_type<A, B>::type max(A a, B b) { return a < b ? b : a; }

/* ---------------------------------------------------------------- launches */

namespace emu {

/** The `<<<grid, block, shmem, stream>>>` of a launch, plus where it is in the source. */
struct launch_config {
    const char *kernel;
    const char *file;
    int line;
    dim3 grid, block;
    size_t shmem;
    cudaStream_t stream;

    launch_config(const char *k, const char *f, int l, dim3 g, dim3 b, size_t s = 0, cudaStream_t st = 0)
        : kernel(k), file(f), line(l), grid(g), block(b), shmem(s), stream(st)
    {
    }
    template <class... A> struct pending;
    /** `(args)` after `<<<...>>>`: keeps the arguments until the kernel is known. */
    template <class... A> pending<typename std::decay<A>::type...> operator()(A &&...args) const
    {
        return {*this, std::tuple<typename std::decay<A>::type...>(std::forward<A>(args)...)};
    }
};

template <class... A>
struct launch_config::pending {
    launch_config config;
    std::tuple<A...> args;
};

/** Runs a grid: every block, every thread (emu/src/scheduler.cpp). */
void launch(const launch_config &config, void (*invoke)(void *), void *closure);

template <class... P>
struct kernel_call {
    void (*kernel)(P...);
    std::tuple<typename std::decay<P>::type...> args;
    static void invoke(void *self)
    {
        kernel_call *call = static_cast<kernel_call *>(self);
        std::apply(call->kernel, call->args); /* each thread gets its own copy of the arguments */
    }
};

/** `kernel * launch_config(...)(args)`: what a rewritten `kernel<<<...>>>(args)` becomes. */
template <class... P, class... A>
void operator*(void (*kernel)(P...), launch_config::pending<A...> &&launch)
{
    static_assert(sizeof...(P) == sizeof...(A), "kernel launch: the number of arguments does not match the kernel");
    kernel_call<P...> call{kernel, std::tuple<typename std::decay<P>::type...>(std::move(launch.args))};
    ::emu::launch(launch.config, &kernel_call<P...>::invoke, &call);
}

} // namespace emu

/** The occupancy query stage 7's students may use: as many blocks as fill the emulated SMs. */
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, F, int block_size, size_t)
{
    int per_sm = 0;
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0);
    *blocks = block_size > 0 ? per_sm / block_size : 0;
    return cudaSuccess;
}

#endif /* EMU_KERNEL_H */

/**
 * \file emu_kernel.h
 * \brief The CUDA kernel language on the CPU: what a stage file sees in the emulated build.
 *
 * The build force-includes it (through nvcc_macros.h and cuda_runtime.h) into each stage file
 * after emu_cuda_to_cpp has rewritten its `<<<...>>>` launches and `__shared__` declarations.
 * Every logical GPU thread runs as a fiber; the calls that make threads meet
 * (__syncthreads(), __syncwarp(), the shuffles and votes) switch fibers in the scheduler
 * (emu/src/scheduler.cpp). Everything else is ordinary C++ running on the host.
 *
 * The synchronising calls are functions, as in CUDA, whose last two parameters default to
 * __builtin_FILE() and __builtin_LINE(): the caller's file and line, so a diagnostic can name
 * them. No macro of this header's own stays defined: a stage file cannot test for one.
 * CUDA's own macros (__global__, __shared__, __launch_bounds__, ...) are defined as CUDA
 * defines them, to what g++ understands.
 */
#pragma once /* no include guard macro: a stage file sees no emulator macro */

/* What CUDA's cuda_runtime.h brings with it on the host (limits.h, stdlib.h, math.h, ctype.h):
 * a stage file that uses INT_MAX or abs() without including them compiles with nvcc, so here too. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_runtime_api.h"

/* ---------------------------------------------------------------- qualifiers */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
/* Empty, not __attribute__((noinline)): libstdc++ 13 writes __attribute__((__noinline__)) in its own
 * headers, which that definition breaks (seen with g++ 13.3); inlining changes nothing here. */
#define __noinline__
#define __launch_bounds__(...)
#define __cluster_dims__(...)
#define __block_size__(...)
#define __maxnreg__(...)
#define __local_maxnreg__(...)
#define __inline_hint__
#define __nv_pure__
/* GCC's attribute, not alignas: nvcc takes __align__ between the qualifiers and the type
 * (static __device__ __align__(16) int4 x;), where a standard attribute may not stand. */
#define __align__(n) __attribute__((aligned(n)))
/* Empty, as __device__: a file-scope variable, static where the file says so (static __constant__
 * int x; is valid CUDA, and a static here made it "static static"). */
#define __constant__
#define __managed__
#define __grid_constant__
#define __device_builtin__
#define __cudart_builtin__
#define __builtin_align__(n) __attribute__((aligned(n)))
/* Shapes of __shared__ the build step did not rewrite (see tools/cuda_to_cpp.cpp). */
#define __shared__ static

/* ---------------------------------------------------------------- built-in types */

/* CUDA's vector types, aligned as vector_types.h aligns them (int2 8 bytes, int4 16), so an
 * int2 or int4 load from memory cudaMalloc gave is as legal (and as aligned) as on a GPU. */
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
    WARP_ACTIVEMASK,
    WARP_REDUCE_AND,
    WARP_REDUCE_OR,
    WARP_REDUCE_XOR
};

/** What a thread waits for at a block-level barrier. */
enum block_kind { BLOCK_SYNC, BLOCK_COUNT, BLOCK_AND, BLOCK_OR };

/** Waits until every thread of the block is here; returns the barrier's reduced predicate. */
int sync_block(const char *file, int line, block_kind kind, int predicate);
/** Waits until every lane of \p mask is at a warp operation; returns this lane's result. */
unsigned long long warp_op(const char *file, int line, warp_kind kind, unsigned mask,
                           unsigned long long value, int param, int width);
/** Waits until every thread of the grid is here (a cooperative launch; any other faults). */
void sync_grid(const char *file, int line);
/** Whether the running kernel was launched cooperatively (grid_group::is_valid()). */
bool grid_is_cooperative();
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

    /** A shuffle of \p value: one warp meeting per 8 bytes (a tile's shfl of a struct of up to
     *  32 bytes, as cooperative groups allow, moves it in pieces, as a GPU does in 4-byte ones). */
    template <class T>
    T exchange(warp_kind kind, unsigned mask, T value, int param, int width) const
    {
        static_assert(sizeof(T) <= 32 && std::is_trivially_copyable<T>::value,
                      "warp shuffles move trivially copyable values of at most 32 bytes");
        unsigned char bytes[sizeof(T)];
        std::memcpy(bytes, &value, sizeof value);
        for (size_t at = 0; at < sizeof(T); at += 8) {
            unsigned long long bits = 0;
            size_t piece = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
            std::memcpy(&bits, bytes + at, piece);
            bits = warp_op(file, line, kind, mask, bits, param, width);
            std::memcpy(bytes + at, &bits, piece);
        }
        std::memcpy(&value, bytes, sizeof value);
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

/** A static shared array's view: the array's type too, for `sizeof(name)` (the build step
 *  rewrites it to `sizeof(decltype(name)::array_type)`). */
template <class E, size_t N>
struct shared_array : shared_view<E> {
    typedef E array_type[N];
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
    typedef shared_array<E, N> type;
    static shared_array<E, N> make(const void *site, const char *name, const char *file)
    {
        shared_array<E, N> view;
        view.data = static_cast<E *>(static_shared(site, sizeof(E[N]), alignof(E[N]), name, file));
        view.count = N;
        view.name = name;
        view.file = file;
        return view;
    }
};

extern bool tracing; /* a trace is being recorded (emu_control.h, emu_trace_start) */
void trace_shared_array(const char *name, size_t offset, size_t bytes);
/** A file-scope `__device__` variable of a stage file, declared at file:line. The build step
 *  (tools/cuda_to_cpp.cpp) writes one after each, a constant, and a pointer to it in the
 *  section emu_device_variables (no code runs before main: the grader's audit forbids it), so
 *  that the trace names the variable's accesses (src/trace.cpp). */
struct device_variable {
    const volatile void *address;
    size_t bytes;
    const char *name, *file;
    int line;
};

template <class E>
shared_view<E> extern_shared(const char *name, const char *file)
{
    size_t bytes = 0;
    E *data = static_cast<E *>(dynamic_shared(&bytes));
    if (__builtin_expect(tracing, 0)) /* the trace names the array its accesses fall in */
        trace_shared_array(name, 0, bytes);
    return {data, bytes / sizeof(E), name, file};
}

} // namespace emu

/* ---------------------------------------------------------------- intrinsics */

/* The intrinsics are functions, as in CUDA (not macros: `#ifdef __syncthreads` is false here
 * too); each takes its caller's file and line as hidden default arguments, for diagnostics. */
#define EMU_AT const char *emu_file = __builtin_FILE(), int emu_line = __builtin_LINE()
inline void __syncthreads(EMU_AT) { ::emu::here{emu_file, emu_line}.syncthreads(); }
inline int __syncthreads_count(int predicate, EMU_AT) { return ::emu::here{emu_file, emu_line}.syncthreads_count(predicate); }
inline int __syncthreads_and(int predicate, EMU_AT) { return ::emu::here{emu_file, emu_line}.syncthreads_and(predicate); }
inline int __syncthreads_or(int predicate, EMU_AT) { return ::emu::here{emu_file, emu_line}.syncthreads_or(predicate); }
inline void __syncwarp(unsigned mask = 0xffffffffu, EMU_AT) { ::emu::here{emu_file, emu_line}.syncwarp(mask); }
/* CUDA's __shfl_*_sync have overloads for the arithmetic types only (int, unsigned, long long,
 * float, double, ...; a bool or a short is promoted to int): nvcc rejects a struct, so the
 * emulator does too, by name, rather than move it. */
namespace emu {
template <class T> struct shuffle_type {
    static_assert(std::is_arithmetic<T>::value || std::is_enum<T>::value,
                  "__shfl_sync, __shfl_up_sync, __shfl_down_sync and __shfl_xor_sync take an int, unsigned, long long, "
                  "float or double (nvcc has no overload for a struct): shuffle its members one at a time");
    typedef typename std::conditional<(std::is_integral<T>::value || std::is_enum<T>::value) && sizeof(T) < 4, int,
                                      T>::type type;
};
} // namespace emu
template <class T> inline typename ::emu::shuffle_type<T>::type __shfl_sync(unsigned mask, T v, int src, int width = 32, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.shfl_sync(mask, (typename ::emu::shuffle_type<T>::type)v, src, width);
}
template <class T>
inline typename ::emu::shuffle_type<T>::type __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.shfl_up_sync(mask, (typename ::emu::shuffle_type<T>::type)v, delta, width);
}
template <class T>
inline typename ::emu::shuffle_type<T>::type __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.shfl_down_sync(mask, (typename ::emu::shuffle_type<T>::type)v, delta, width);
}
template <class T>
inline typename ::emu::shuffle_type<T>::type __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.shfl_xor_sync(mask, (typename ::emu::shuffle_type<T>::type)v, lane_mask,
                                                          width);
}
inline unsigned __ballot_sync(unsigned mask, int predicate, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.ballot_sync(mask, predicate);
}
inline int __any_sync(unsigned mask, int predicate, EMU_AT) { return ::emu::here{emu_file, emu_line}.any_sync(mask, predicate); }
inline int __all_sync(unsigned mask, int predicate, EMU_AT) { return ::emu::here{emu_file, emu_line}.all_sync(mask, predicate); }
inline unsigned __activemask(EMU_AT) { return ::emu::here{emu_file, emu_line}.activemask(); }
/* __reduce_*_sync: CUDA's overloads, int and unsigned (add, min, max), unsigned (and, or, xor). */
inline int __reduce_add_sync(unsigned mask, int v, EMU_AT) { return ::emu::here{emu_file, emu_line}.reduce_add_sync(mask, v); }
inline unsigned __reduce_add_sync(unsigned mask, unsigned v, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.reduce_add_sync(mask, v);
}
inline int __reduce_min_sync(unsigned mask, int v, EMU_AT) { return ::emu::here{emu_file, emu_line}.reduce_min_sync(mask, v); }
inline unsigned __reduce_min_sync(unsigned mask, unsigned v, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.reduce_min_sync(mask, v);
}
inline int __reduce_max_sync(unsigned mask, int v, EMU_AT) { return ::emu::here{emu_file, emu_line}.reduce_max_sync(mask, v); }
inline unsigned __reduce_max_sync(unsigned mask, unsigned v, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.reduce_max_sync(mask, v);
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned v, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.reduce(::emu::WARP_REDUCE_AND, mask, v);
}
inline unsigned __reduce_or_sync(unsigned mask, unsigned v, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.reduce(::emu::WARP_REDUCE_OR, mask, v);
}
inline unsigned __reduce_xor_sync(unsigned mask, unsigned v, EMU_AT)
{
    return ::emu::here{emu_file, emu_line}.reduce(::emu::WARP_REDUCE_XOR, mask, v);
}
#undef EMU_AT

/* Memory fences. __threadfence() (and _system) publishes the thread's global stores to the
 * other blocks (the plain build hides them until then: emu/src/counters.cpp, "when other
 * blocks see a store"); __threadfence_block() orders nothing a block does not already see.
 * ThreadSanitizer does not model fences (GCC says so, -Wtsan, in the race build of every file
 * that calls one): there, ordering between blocks comes from the atomics, which acquire and
 * release (below). */
namespace emu { void fence(); }
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan"
#endif
inline void __threadfence() { ::emu::fence(); }
inline void __threadfence_system() { ::emu::fence(); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif
template <class T> inline T __ldg(const T *p) { return *p; }
/* The loads and stores with a cache hint (cache at all levels, in L2 only, streaming, last use,
 * volatile; write back, write through): one memory here, so plain loads and stores. */
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldcs(const T *p) { return *p; }
template <class T> inline T __ldlu(const T *p) { return *p; }
template <class T> inline T __ldcv(const T *p) { return *p; }
template <class T> inline void __stwb(T *p, T v) { *p = v; }
template <class T> inline void __stcg(T *p, T v) { *p = v; }
template <class T> inline void __stcs(T *p, T v) { *p = v; }
template <class T> inline void __stwt(T *p, T v) { *p = v; }

/* Atomics: real atomics, so ThreadSanitizer sees them as such, and each one a read-modify-write
 * that acquires and releases (an atomicMin that changes nothing still writes the old value
 * back), as the atomics of one address are on a GPU: a block whose atomic comes after another
 * block's atomic on the same address sees what that block did before it. So the last block to
 * draw a ticket (or to add into a counter) may read and reset what the others wrote, and the
 * race build reports no race there. Each one tells the emulator's counters it happened
 * (emu_control.h: global_atomics), once, whatever loop implements it. */
#define EMU_ATOMIC_ORDER __ATOMIC_ACQ_REL
#define EMU_ATOMIC_FAILED __ATOMIC_ACQUIRE /* a compare-exchange that lost: it read */
namespace emu { void note_atomic(const void *address, unsigned bytes); }
#define EMU_ATOMIC_RMW(T, name, builtin)                                                          \
    inline T name(T *p, T v)                                                                      \
    {                                                                                             \
        ::emu::note_atomic(p, sizeof *p);                                                                    \
        return builtin(p, v, EMU_ATOMIC_ORDER);                                                   \
    }
#define EMU_ATOMIC_INT(T)                                                                         \
    EMU_ATOMIC_RMW(T, atomicAdd, __atomic_fetch_add)                                              \
    EMU_ATOMIC_RMW(T, atomicSub, __atomic_fetch_sub)                                              \
    EMU_ATOMIC_RMW(T, atomicExch, __atomic_exchange_n)                                            \
    EMU_ATOMIC_RMW(T, atomicAnd, __atomic_fetch_and)                                              \
    EMU_ATOMIC_RMW(T, atomicOr, __atomic_fetch_or)                                                \
    EMU_ATOMIC_RMW(T, atomicXor, __atomic_fetch_xor)                                              \
    inline T atomicCAS(T *p, T expected, T desired)                                               \
    {                                                                                             \
        ::emu::note_atomic(p, sizeof *p);                                                                    \
        __atomic_compare_exchange_n(p, &expected, desired, false, EMU_ATOMIC_ORDER, EMU_ATOMIC_FAILED); \
        return expected;                                                                          \
    }                                                                                             \
    inline T atomicMin(T *p, T v)                                                                 \
    {                                                                                             \
        ::emu::note_atomic(p, sizeof *p);                                                                    \
        T old = __atomic_load_n(p, __ATOMIC_ACQUIRE);                                             \
        while (!__atomic_compare_exchange_n(p, &old, v < old ? v : old, true, EMU_ATOMIC_ORDER, EMU_ATOMIC_FAILED)) \
            ;                                                                                     \
        return old;                                                                               \
    }                                                                                             \
    inline T atomicMax(T *p, T v)                                                                 \
    {                                                                                             \
        ::emu::note_atomic(p, sizeof *p);                                                                    \
        T old = __atomic_load_n(p, __ATOMIC_ACQUIRE);                                             \
        while (!__atomic_compare_exchange_n(p, &old, v > old ? v : old, true, EMU_ATOMIC_ORDER, EMU_ATOMIC_FAILED)) \
            ;                                                                                     \
        return old;                                                                               \
    }
EMU_ATOMIC_INT(int)
EMU_ATOMIC_INT(unsigned int)
EMU_ATOMIC_INT(long long)
EMU_ATOMIC_INT(unsigned long long)
#undef EMU_ATOMIC_INT
#undef EMU_ATOMIC_RMW
/* The _block and _system scopes: one address space here, so the same atomics. */
template <class T, class V> inline T atomicAdd_block(T *p, V v) { return atomicAdd(p, (T)v); }
template <class T, class V> inline T atomicAdd_system(T *p, V v) { return atomicAdd(p, (T)v); }
#define EMU_ATOMIC_FLOAT(T, U)                                                                    \
    inline T atomicAdd(T *p, T v)                                                                 \
    {                                                                                             \
        ::emu::note_atomic(p, sizeof *p);                                                                    \
        U *bits = reinterpret_cast<U *>(p);                                                       \
        U old = __atomic_load_n(bits, __ATOMIC_ACQUIRE), want;                                    \
        do {                                                                                      \
            T sum;                                                                                \
            std::memcpy(&sum, &old, sizeof sum);                                                  \
            sum += v;                                                                             \
            std::memcpy(&want, &sum, sizeof want);                                                \
        } while (!__atomic_compare_exchange_n(bits, &old, want, true, EMU_ATOMIC_ORDER, EMU_ATOMIC_FAILED)); \
        T result;                                                                                 \
        std::memcpy(&result, &old, sizeof result);                                                \
        return result;                                                                            \
    }                                                                                             \
    inline T atomicExch(T *p, T v)                                                                \
    {                                                                                             \
        ::emu::note_atomic(p, sizeof *p);                                                                    \
        U bits;                                                                                   \
        std::memcpy(&bits, &v, sizeof bits);                                                      \
        bits = __atomic_exchange_n(reinterpret_cast<U *>(p), bits, EMU_ATOMIC_ORDER);             \
        std::memcpy(&v, &bits, sizeof v);                                                         \
        return v;                                                                                 \
    }
EMU_ATOMIC_FLOAT(float, unsigned int)
EMU_ATOMIC_FLOAT(double, unsigned long long)
#undef EMU_ATOMIC_FLOAT
inline unsigned int atomicInc(unsigned int *p, unsigned int limit)
{
    ::emu::note_atomic(p, sizeof *p);
    unsigned int old = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0 : old + 1, true, EMU_ATOMIC_ORDER,
                                        EMU_ATOMIC_FAILED))
        ;
    return old;
}
inline unsigned int atomicDec(unsigned int *p, unsigned int limit)
{
    ::emu::note_atomic(p, sizeof *p);
    unsigned int old = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    while (!__atomic_compare_exchange_n(p, &old, old == 0 || old > limit ? limit : old - 1, true, EMU_ATOMIC_ORDER,
                                        EMU_ATOMIC_FAILED))
        ;
    return old;
}
#undef EMU_ATOMIC_ORDER
#undef EMU_ATOMIC_FAILED

/* Reinterpreting a float's bits (a float atomicMax by atomicCAS needs them). */
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, sizeof i); return i; }
inline unsigned int __float_as_uint(float f) { unsigned int i; std::memcpy(&i, &f, sizeof i); return i; }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, sizeof f); return f; }
inline float __uint_as_float(unsigned int i) { float f; std::memcpy(&f, &i, sizeof f); return f; }
inline long long __double_as_longlong(double d) { long long i; std::memcpy(&i, &d, sizeof i); return i; }
inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, sizeof d); return d; }

/* Float arithmetic with a named rounding: round to nearest (_rn) is what the host's SSE does,
 * and these are never contracted into a fused multiply-add (neither is plain code here: x86-64
 * g++ has no FMA instruction without -mfma, where nvcc contracts a * b + c by default). */
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float a) { return a >= 1.0f ? 1.0f : (a > 0.0f ? a : 0.0f); /* NaN -> 0 */ }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
/* Conversions (round to nearest even; _rz toward zero). Out of range: the GPU saturates. */
inline int __float2int_rz(float f)
{
    return f != f ? 0 : f >= 2147483648.0f ? INT_MAX : f <= -2147483648.0f ? INT_MIN : (int)f;
}
inline int __float2int_rn(float f) { return __float2int_rz(std::nearbyint(f)); }
inline unsigned int __float2uint_rz(float f) { return f != f || f <= 0.0f ? 0u : f >= 4294967296.0f ? UINT_MAX : (unsigned int)f; }
inline unsigned int __float2uint_rn(float f) { return __float2uint_rz(std::nearbyint(f)); }
inline float __int2float_rn(int i) { return (float)i; }
inline float __uint2float_rn(unsigned int i) { return (float)i; }
inline float __ll2float_rn(long long i) { return (float)i; }
inline double __int2double_rn(int i) { return (double)i; }
inline float __double2float_rn(double d) { return (float)d; }

/* Not on the emulator: named at compile time. */
namespace emu { template <class...> struct unsupported : std::false_type {}; }
template <class T> inline unsigned int __match_any_sync(unsigned int, T)
{
    static_assert(::emu::unsupported<T>::value, "the kit's CPU emulator does not support __match_any_sync");
    return 0;
}
template <class T> inline unsigned int __match_all_sync(unsigned int, T, int *)
{
    static_assert(::emu::unsupported<T>::value, "the kit's CPU emulator does not support __match_all_sync");
    return 0;
}

/* Integer intrinsics and CUDA's global min/max. */
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline unsigned int __brev(unsigned int x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}
/* CUDA's min() and max() overloads: both arguments in their common type (int and unsigned:
 * unsigned); floating point as fminf/fmin and fmaxf/fmax (a NaN loses to a number). */
template <class A, class B> inline typename std::common_type<A, B>::type min(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    if constexpr (std::is_floating_point<C>::value)
        return std::fmin((C)a, (C)b);
    else
        return (C)b < (C)a ? (C)b : (C)a;
}
template <class A, class B> inline typename std::common_type<A, B>::type max(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    if constexpr (std::is_floating_point<C>::value)
        return std::fmax((C)a, (C)b);
    else
        return (C)a < (C)b ? (C)b : (C)a;
}
inline unsigned int umin(unsigned int a, unsigned int b) { return b < a ? b : a; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return b < a ? b : a; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return b < a ? b : a; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
inline int __mul24(int a, int b) { return (int)((long long)((a << 8) >> 8) * ((b << 8) >> 8)); }
inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline long long clock64()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
inline void __nanosleep(unsigned int) {}

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
    bool cooperative = false; /* cudaLaunchCooperativeKernel: every block resident, grid syncs allowed */

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

/** Runs a grid: every block, every thread (emu/src/scheduler.cpp). \p kernel is the kernel's
 *  address, for its attributes (cudaFuncSetAttribute). */
void launch(const launch_config &config, const void *kernel, void (*invoke)(void *), void *closure);

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
    ::emu::launch(launch.config, reinterpret_cast<const void *>(kernel), &kernel_call<P...>::invoke, &call);
}

template <class... P, size_t... I>
std::tuple<typename std::decay<P>::type...> unpack_args(void **args, std::index_sequence<I...>)
{
    return std::tuple<typename std::decay<P>::type...>(*static_cast<typename std::decay<P>::type *>(args[I])...);
}

} // namespace emu

/* ---------------------------------------------------------------- CUDA's C++ runtime API
 * The template forms cuda_runtime.h gives C++ code: a kernel is passed as itself. They call the
 * C functions of cuda_runtime_api.h with its address, as CUDA's do. */

namespace emu {
/** cudaLaunchCooperativeKernel: every block resident at once (more than fit fails with
 *  cudaErrorCooperativeLaunchTooLarge), so that this_grid().sync() may wait for all of them. */
template <class... P>
inline cudaError_t launch_cooperative_kernel(void (*kernel)(P...), dim3 grid, dim3 block, void **args,
                                             size_t shmem = 0, cudaStream_t stream = 0,
                                             const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    kernel_call<P...> call{kernel, unpack_args<P...>(args, std::index_sequence_for<P...>{})};
    launch_config config("cudaLaunchCooperativeKernel", file, line, grid, block, shmem, stream);
    config.cooperative = true;
    launch(config, reinterpret_cast<const void *>(kernel), &kernel_call<P...>::invoke, &call);
    return cudaPeekAtLastError();
}
/** A kernel that reached here as a `const void *` some other way than a cast in the call. */
template <class T = void>
inline cudaError_t launch_cooperative_kernel(const void *, dim3, dim3, void **, size_t = 0, cudaStream_t = 0)
{
    static_assert(unsupported<T>::value, "the kit's CPU emulator does not support cudaLaunchCooperativeKernel "
                  "with a kernel it cannot see the type of: pass the kernel itself, or cast it in the call, "
                  "cudaLaunchCooperativeKernel((void *)kernel, grid, block, args)");
    return cudaErrorInvalidDeviceFunction;
}
} // namespace emu
/* The emulator calls a kernel through its type, which `(void *)kernel` throws away, and CUDA's
 * samples launch cooperatively just so. So cudaLaunchCooperativeKernel is a macro, the one
 * CUDA name this header leaves defined: a parenthesised cast in front of the kernel is dropped
 * (EMU_KERNEL_OF) before the call. */
#define EMU_KERNEL_EAT(...)
#define EMU_KERNEL_PROBE(...) ~, 1,
#define EMU_KERNEL_SECOND(a, b, ...) b
#define EMU_KERNEL_IS_CAST_(...) EMU_KERNEL_SECOND(__VA_ARGS__, 0, )
#define EMU_KERNEL_IS_CAST(x) EMU_KERNEL_IS_CAST_(EMU_KERNEL_PROBE x)
#define EMU_KERNEL_CAT_(a, b) a##b
#define EMU_KERNEL_CAT(a, b) EMU_KERNEL_CAT_(a, b)
#define EMU_KERNEL_OF_0(x) x
#define EMU_KERNEL_OF_1(x) EMU_KERNEL_EAT x
#define EMU_KERNEL_OF(x) EMU_KERNEL_CAT(EMU_KERNEL_OF_, EMU_KERNEL_IS_CAST(x))(x)
#define cudaLaunchCooperativeKernel(kernel, ...) ::emu::launch_cooperative_kernel(EMU_KERNEL_OF(kernel), __VA_ARGS__)

/** cudaLaunchKernel(kernel, grid, block, args, shmem, stream): the launch without <<< >>>. */
template <class... P>
inline cudaError_t cudaLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void **args, size_t shmem = 0,
                                    cudaStream_t stream = 0, const char *file = __builtin_FILE(),
                                    int line = __builtin_LINE())
{
    ::emu::kernel_call<P...> call{kernel, ::emu::unpack_args<P...>(args, std::index_sequence_for<P...>{})};
    ::emu::launch_config config("cudaLaunchKernel", file, line, grid, block, shmem, stream);
    ::emu::launch(config, reinterpret_cast<const void *>(kernel), &::emu::kernel_call<P...>::invoke, &call);
    return cudaPeekAtLastError();
}

template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, T *entry)
{
    return ::cudaFuncGetAttributes(attr, reinterpret_cast<const void *>(entry));
}
template <class T>
inline cudaError_t cudaFuncSetAttribute(T *entry, cudaFuncAttribute attr, int value)
{
    return ::cudaFuncSetAttribute(reinterpret_cast<const void *>(entry), attr, value);
}
template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T *entry, cudaFuncCache config)
{
    return ::cudaFuncSetCacheConfig(reinterpret_cast<const void *>(entry), config);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, T func, int block_size,
                                                                 size_t dynamic_shared)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, reinterpret_cast<const void *>(func),
                                                                     block_size, dynamic_shared, cudaOccupancyDefault);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, T func, int block_size,
                                                                          size_t dynamic_shared, unsigned int flags)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, reinterpret_cast<const void *>(func),
                                                                     block_size, dynamic_shared, flags);
}
template <class T>
inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *bytes, T func, int blocks, int block_size)
{
    return ::cudaOccupancyAvailableDynamicSMemPerBlock(bytes, reinterpret_cast<const void *>(func), blocks, block_size);
}

/** cudaOccupancyMaxPotentialBlockSize and its variants: CUDA's search, over the same answers. */
template <class UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int *min_grid, int *block_size, T func,
                                                                           UnaryFunction shared_of_block,
                                                                           int limit = 0, unsigned int flags = 0)
{
    if (!min_grid || !block_size || !func)
        return cudaErrorInvalidValue;
    int device = 0, max_per_block = 0, warp = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&max_per_block, cudaDevAttrMaxThreadsPerBlock, device);
    cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    cudaFuncAttributes attr;
    cudaError_t status = ::cudaFuncGetAttributes(&attr, reinterpret_cast<const void *>(func));
    if (status != cudaSuccess)
        return status;
    if (limit == 0 || limit > max_per_block)
        limit = max_per_block;
    if (attr.maxThreadsPerBlock < limit)
        limit = attr.maxThreadsPerBlock;
    int best_threads = 0, best_size = 0, best_blocks = 0;
    for (int aligned = (limit + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
        int size = limit < aligned ? limit : aligned;
        int blocks = 0;
        status = ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &blocks, reinterpret_cast<const void *>(func), size, (size_t)shared_of_block(size), flags);
        if (status != cudaSuccess)
            return status;
        if (size * blocks > best_threads) {
            best_threads = size * blocks;
            best_size = size;
            best_blocks = blocks;
        }
        if (best_threads == per_sm)
            break;
    }
    *min_grid = best_blocks * sms;
    *block_size = best_size;
    return cudaSuccess;
}
template <class UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *min_grid, int *block_size, T func,
                                                                  UnaryFunction shared_of_block, int limit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(min_grid, block_size, func, shared_of_block,
                                                                   limit, cudaOccupancyDefault);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size, T func,
                                                      size_t dynamic_shared = 0, int limit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        min_grid, block_size, func, [dynamic_shared](int) { return dynamic_shared; }, limit, cudaOccupancyDefault);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid, int *block_size, T func,
                                                               size_t dynamic_shared = 0, int limit = 0,
                                                               unsigned int flags = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        min_grid, block_size, func, [dynamic_shared](int) { return dynamic_shared; }, limit, flags);
}

/** __constant__ and __device__ variables are host variables here: symbols are their addresses. */
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t bytes, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    if (offset + bytes > sizeof(T))
        return cudaErrorInvalidValue;
    return cudaMemcpy(reinterpret_cast<char *>(const_cast<T *>(&symbol)) + offset, src, bytes, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t bytes, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    if (offset + bytes > sizeof(T))
        return cudaErrorInvalidValue;
    return cudaMemcpy(dst, reinterpret_cast<const char *>(&symbol) + offset, bytes, kind);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void **address, const T &symbol)
{
    *address = const_cast<T *>(&symbol);
    return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMallocManaged(T **ptr, size_t bytes, unsigned int flags = cudaMemAttachGlobal)
{
    return ::cudaMallocManaged(reinterpret_cast<void **>(ptr), bytes, flags);
}
template <class T>
inline cudaError_t cudaMalloc(T **ptr, size_t bytes)
{
    return ::cudaMalloc(reinterpret_cast<void **>(ptr), bytes);
}
template <class T>
inline cudaError_t cudaMallocHost(T **ptr, size_t bytes)
{
    return ::cudaMallocHost(reinterpret_cast<void **>(ptr), bytes);
}


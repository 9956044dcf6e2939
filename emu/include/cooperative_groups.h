/**
 * \file emu/include/cooperative_groups.h
 * \brief CUDA's cooperative groups on the CPU emulator: the block and its warp tiles.
 *
 * What a reduction kernel uses, with CUDA's names and meanings (namespace cooperative_groups,
 * usually `namespace cg = cooperative_groups;`):
 *
 *   thread_block block = this_thread_block();   block.sync(), .thread_rank(), .size(),
 *                                                .num_threads(), .group_index(), .thread_index(),
 *                                                .group_dim(), .dim_threads()
 *   thread_block_tile<N> tile = tiled_partition<N>(block or a larger tile);   N = 1, 2, ..., 32:
 *                                                tile.sync(), .thread_rank(), .size(),
 *                                                .num_threads(), .meta_group_rank(),
 *                                                .meta_group_size(), .shfl(), .shfl_down(),
 *                                                .shfl_up(), .shfl_xor(), .any(), .all(), .ballot()
 *   thread_group g = block;  tiled_partition(g, N)   the same, sized at run time
 *   sync(g), thread_rank(g), num_threads(g), group_size(g)
 *   <cooperative_groups/reduce.h>: reduce(tile, value, plus<T>() / less / greater / bit_*)
 *   <cooperative_groups/scan.h>:   inclusive_scan, exclusive_scan over a tile
 *
 * A block's sync() is __syncthreads(); a tile's sync() and its collectives are the warp
 * operations of emu_kernel.h with the tile's lanes as the mask (as CUDA builds it), so every
 * check of those applies and each message names the source line of the call (the calls take
 * their caller's file and line as hidden default arguments).
 *
 *   grid_group grid = this_grid();              (a cooperative launch) grid.sync(), .is_valid(),
 *                                                .thread_rank(), .num_threads(), .size(),
 *                                                .block_rank(), .num_blocks(), .block_index(),
 *                                                .dim_blocks(), .group_dim(), .thread_index(),
 *                                                .dim_threads(), barrier_arrive()/barrier_wait()
 *
 * Not here: cluster groups, coalesced groups
 * (coalesced_threads(): the emulator has no notion of lanes that happen to run together),
 * tiles of more than 32 threads, memcpy_async.
 */
#ifndef _COOPERATIVE_GROUPS_H_
#define _COOPERATIVE_GROUPS_H_

#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "cuda_runtime.h"

namespace cooperative_groups {

namespace details {
/** The running thread's rank in its block (x fastest, as CUDA numbers threads). */
inline unsigned int block_rank()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned int block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
/** The lanes of this thread's warp that form its tile of \p size threads. */
inline unsigned int tile_mask(unsigned int size)
{
    if (size >= 32)
        return 0xffffffffu;
    unsigned int lane = block_rank() & 31u;
    return ((1u << size) - 1u) << (lane & ~(size - 1u));
}
inline void tile_sync(unsigned int size, const char *file, int line)
{
    ::emu::here{file, line}.syncwarp(tile_mask(size));
}
inline void check_tile_size(unsigned int size)
{
    if (size == 0 || size > 32 || (size & (size - 1)) != 0) {
        std::fprintf(stderr, "cooperative_groups: tiled_partition(group, %u): the kit's CPU emulator does not "
                     "support tiles other than a power of two up to 32 threads\n", size);
        std::abort();
    }
}
} // namespace details

/** Any group, its kind known at run time: the whole block (tile 0) or a tile of 1-32 threads. */
class thread_group {
public:
    unsigned long long size() const { return num_threads(); }
    unsigned long long num_threads() const { return tile_ ? tile_ : details::block_threads(); }
    unsigned long long thread_rank() const
    {
        return tile_ ? details::block_rank() & (tile_ - 1u) : details::block_rank();
    }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        if (tile_)
            details::tile_sync(tile_, file, line);
        else
            ::emu::here{file, line}.syncthreads();
    }
    unsigned int get_type() const { return tile_ ? 3u : 4u; }

protected:
    explicit thread_group(unsigned int tile) : tile_(tile) {}
    unsigned int tile_; /* 0: the whole block */
    friend thread_group tiled_partition(const thread_group &parent, unsigned int size);
};

/** The thread block. */
class thread_block : public thread_group {
public:
    thread_block() : thread_group(0) {}
    static void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE())
    {
        ::emu::here{file, line}.syncthreads();
    }
    static unsigned int size() { return details::block_threads(); }
    static unsigned int num_threads() { return details::block_threads(); }
    static unsigned int thread_rank() { return details::block_rank(); }
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 group_dim() { return blockDim; }
    static dim3 dim_threads() { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

/** A tile of \p Size threads (a power of two up to 32) of one warp. */
template <unsigned int Size, class ParentT = void>
class thread_block_tile;

template <unsigned int Size>
class thread_block_tile<Size, void> : public thread_group {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "the kit's CPU emulator does not support thread_block_tile<N> for N other than a power of two "
                  "up to 32 (tiles of more than one warp): use tiled_partition<32>");
    static unsigned int mask() { return details::tile_mask(Size); }

public:
    thread_block_tile() : thread_group(Size), meta_rank_(details::block_rank() / Size),
                          meta_size_((details::block_threads() + Size - 1) / Size) {}
    thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
        : thread_group(Size), meta_rank_(meta_rank), meta_size_(meta_size) {}

    static constexpr unsigned int num_threads() { return Size; }
    static constexpr unsigned int size() { return Size; }
    static unsigned int thread_rank() { return details::block_rank() & (Size - 1u); }
    unsigned int meta_group_rank() const { return meta_rank_; }
    unsigned int meta_group_size() const { return meta_size_; }
    static void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE())
    {
        details::tile_sync(Size, file, line);
    }

    template <class T>
    T shfl(T var, int src_rank, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return ::emu::here{file, line}.shfl_sync(mask(), var, src_rank, (int)Size);
    }
    template <class T>
    T shfl_down(T var, unsigned int delta, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return ::emu::here{file, line}.shfl_down_sync(mask(), var, delta, (int)Size);
    }
    template <class T>
    T shfl_up(T var, unsigned int delta, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return ::emu::here{file, line}.shfl_up_sync(mask(), var, delta, (int)Size);
    }
    template <class T>
    T shfl_xor(T var, unsigned int lane_mask, const char *file = __builtin_FILE(),
               int line = __builtin_LINE()) const
    {
        return ::emu::here{file, line}.shfl_xor_sync(mask(), var, (int)lane_mask, (int)Size);
    }
    int any(int predicate, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return ::emu::here{file, line}.any_sync(mask(), predicate);
    }
    int all(int predicate, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return ::emu::here{file, line}.all_sync(mask(), predicate);
    }
    /** Bit r is the predicate of the tile's thread r. */
    unsigned int ballot(int predicate, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        unsigned int bits = ::emu::here{file, line}.ballot_sync(mask(), predicate);
        return Size == 32 ? bits : (bits >> ((details::block_rank() & 31u) & ~(Size - 1u))) & ((1u << Size) - 1u);
    }

private:
    unsigned int meta_rank_, meta_size_;
};

/** The tile as tiled_partition<Size>(parent) returns it; converts to thread_block_tile<Size>. */
template <unsigned int Size, class ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
public:
    thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
        : thread_block_tile<Size, void>(meta_rank, meta_size) {}
};

/** Tiles of \p Size threads of the block (or of a larger tile). */
template <unsigned int Size>
thread_block_tile<Size, thread_block> tiled_partition(const thread_block &)
{
    return thread_block_tile<Size, thread_block>(details::block_rank() / Size,
                                                 (details::block_threads() + Size - 1) / Size);
}
template <unsigned int Size, unsigned int ParentSize, class P>
thread_block_tile<Size, thread_block_tile<ParentSize, P>> tiled_partition(const thread_block_tile<ParentSize, P> &)
{
    static_assert(Size <= ParentSize, "tiled_partition: a tile cannot be larger than its parent");
    return thread_block_tile<Size, thread_block_tile<ParentSize, P>>(
        (unsigned int)(details::block_rank() & (ParentSize - 1u)) / Size, ParentSize / Size);
}

/** tiled_partition(parent, size): tiles sized at run time (a power of two up to 32). */
inline thread_group tiled_partition(const thread_group &parent, unsigned int size)
{
    details::check_tile_size(size);
    (void)parent;
    return thread_group(size);
}

/* ---- What the emulator does not have: a clear message at compile time, naming it. ---- */
namespace details {
template <class...> struct unsupported : std::false_type {};
} // namespace details

/** The whole grid of a cooperative launch (cudaLaunchCooperativeKernel): sync() waits for every
 *  thread of every block, and publishes every global store made before it to all of them. In a
 *  launch that is not cooperative, is_valid() is false and sync() is a fault, as on a GPU. */
class grid_group {
public:
    bool is_valid() const { return ::emu::grid_is_cooperative(); }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        ::emu::sync_grid(file, line);
    }
    static unsigned long long num_blocks()
    {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    }
    static unsigned long long block_rank()
    {
        return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    }
    static unsigned long long num_threads() { return num_blocks() * details::block_threads(); }
    static unsigned long long size() { return num_threads(); }
    static unsigned long long thread_rank() { return block_rank() * details::block_threads() + details::block_rank(); }
    static dim3 group_dim() { return gridDim; }
    static dim3 dim_blocks() { return gridDim; }
    static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 dim_threads()
    {
        return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
    }
    static dim3 thread_index()
    {
        return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                    blockIdx.z * blockDim.z + threadIdx.z);
    }
    /** The split barrier: here the arrival waits for everyone, so the wait has nothing left. */
    struct arrival_token {};
    arrival_token barrier_arrive(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        ::emu::sync_grid(file, line);
        return arrival_token();
    }
    void barrier_wait(arrival_token &&) const {}
};
inline grid_group this_grid() { return grid_group(); }
/** Coalesced groups: the emulator has no notion of lanes that happen to run together. */
class coalesced_group : public thread_group {
public:
    coalesced_group() : thread_group(32) {}
    unsigned int meta_group_rank() const { return 0; }
    unsigned int meta_group_size() const { return 1; }
    template <class V> V shfl(V v, int) const { return v; }
    template <class V> V shfl_down(V v, unsigned int) const { return v; }
    template <class V> V shfl_up(V v, unsigned int) const { return v; }
};
template <class T = void>
inline coalesced_group coalesced_threads()
{
    static_assert(details::unsupported<T>::value, "the kit's CPU emulator does not support "
                  "cooperative_groups::coalesced_threads() (coalesced groups): use tiled_partition<32>(block) "
                  "or __activemask() with the warp intrinsics");
    return coalesced_group();
}
template <class T = void>
inline coalesced_group labeled_partition(const T &, int)
{
    static_assert(details::unsupported<T>::value, "the kit's CPU emulator does not support "
                  "cooperative_groups::labeled_partition (coalesced groups)");
    return coalesced_group();
}
template <class T = void>
inline coalesced_group binary_partition(const T &, bool)
{
    static_assert(details::unsupported<T>::value, "the kit's CPU emulator does not support "
                  "cooperative_groups::binary_partition (coalesced groups)");
    return coalesced_group();
}
/** Thread block clusters (sm_90): one block at a time here. */
class cluster_group : public thread_group {
public:
    cluster_group() : thread_group(0) {}
};
template <class T = void>
inline cluster_group this_cluster()
{
    static_assert(details::unsupported<T>::value, "the kit's CPU emulator does not support "
                  "cooperative_groups::this_cluster() (thread block clusters)");
    return cluster_group();
}

/** The calling thread alone. */
inline thread_block_tile<1, void> this_thread() { return thread_block_tile<1, void>(); }

template <class Group>
inline void sync(const Group &g, const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    g.sync(file, line);
}
template <class Group>
inline unsigned long long thread_rank(const Group &g)
{
    return g.thread_rank();
}
template <class Group>
inline unsigned long long num_threads(const Group &g)
{
    return g.num_threads();
}
template <class Group>
inline unsigned long long group_size(const Group &g)
{
    return g.num_threads();
}

} // namespace cooperative_groups

#endif /* _COOPERATIVE_GROUPS_H_ */

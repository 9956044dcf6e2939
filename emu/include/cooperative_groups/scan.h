/**
 * \file emu/include/cooperative_groups/scan.h
 * \brief cooperative_groups::inclusive_scan and exclusive_scan over a tile, on the emulator.
 *
 * Shuffles up (shfl_up, log2(size) steps); every thread of the tile must make the call. The
 * operator defaults to plus<T> (reduce.h has the operators).
 */
#ifndef _COOPERATIVE_GROUPS_SCAN_H
#define _COOPERATIVE_GROUPS_SCAN_H

#include "reduce.h"

namespace cooperative_groups {

/** Thread r gets op over the values of threads 0..r of the tile. */
template <unsigned int Size, class P, class T, class Op>
typename std::decay<T>::type inclusive_scan(const thread_block_tile<Size, P> &tile, T &&value, Op &&op,
                                            const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    typedef typename std::decay<T>::type V;
    V v = value;
    unsigned int rank = tile.thread_rank();
    for (unsigned int delta = 1; delta < Size; delta *= 2) {
        V other = tile.shfl_up(v, delta, file, line);
        if (rank >= delta)
            v = op(other, v);
    }
    return v;
}
template <unsigned int Size, class P, class T>
typename std::decay<T>::type inclusive_scan(const thread_block_tile<Size, P> &tile, T &&value,
                                            const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    return inclusive_scan(tile, std::forward<T>(value), plus<typename std::decay<T>::type>(), file, line);
}

/** Thread r gets op over the values of threads 0..r-1 (thread 0: a value-initialised T). */
template <unsigned int Size, class P, class T, class Op>
typename std::decay<T>::type exclusive_scan(const thread_block_tile<Size, P> &tile, T &&value, Op &&op,
                                            const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    typedef typename std::decay<T>::type V;
    V inclusive = inclusive_scan(tile, std::forward<T>(value), op, file, line);
    V previous = tile.shfl_up(inclusive, 1, file, line);
    return tile.thread_rank() == 0 ? V() : previous;
}
template <unsigned int Size, class P, class T>
typename std::decay<T>::type exclusive_scan(const thread_block_tile<Size, P> &tile, T &&value,
                                            const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    return exclusive_scan(tile, std::forward<T>(value), plus<typename std::decay<T>::type>(), file, line);
}

} // namespace cooperative_groups

#endif /* _COOPERATIVE_GROUPS_SCAN_H */

/**
 * \file emu/include/cooperative_groups/reduce.h
 * \brief cooperative_groups::reduce over a tile, and the operators it takes, on the emulator.
 *
 *   int sum = cg::reduce(tile, value, cg::plus<int>());   // every thread of the tile gets it
 *
 * The tile's values meet by butterfly shuffles (shfl_xor, log2(size) steps), so every
 * thread of the tile must make the call, as on a GPU; the messages name the reduce's line.
 * Integers come out exact, as from the GPU's __reduce_add_sync; a float sum may round in a
 * different order than the GPU's.
 */
#ifndef _COOPERATIVE_GROUPS_REDUCE_H
#define _COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"

#include <type_traits>
#include <utility>

namespace cooperative_groups {

template <class T> struct plus {
    T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T> struct less { /* the smaller: a min-reduction */
    T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <class T> struct greater { /* the larger: a max-reduction */
    T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
    T operator()(const T &a, const T &b) const { return a & b; }
};
template <class T> struct bit_or {
    T operator()(const T &a, const T &b) const { return a | b; }
};
template <class T> struct bit_xor {
    T operator()(const T &a, const T &b) const { return a ^ b; }
};

/** Reduces \p value over the tile with \p op; every thread of the tile gets the result. */
template <unsigned int Size, class P, class T, class Op>
typename std::decay<T>::type reduce(const thread_block_tile<Size, P> &tile, T &&value, Op &&op,
                                    const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    typedef typename std::decay<T>::type V;
    V v = value;
    for (unsigned int lane_mask = Size / 2; lane_mask > 0; lane_mask /= 2)
        v = op(v, tile.shfl_xor(v, lane_mask, file, line));
    return v;
}

} // namespace cooperative_groups

#endif /* _COOPERATIVE_GROUPS_REDUCE_H */

/* What the emulator lacks must be named at compile time (emu/tests/CMakeLists.txt compiles this
 * and expects "the kit's CPU emulator does not support"), never a cryptic error in a header. */
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void grid_sum(int *out)
{
    cg::grid_group grid = cg::this_grid();
    grid.sync();
    out[0] = 1;
}

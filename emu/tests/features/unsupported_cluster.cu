/* What the emulator lacks must be named at compile time (emu/tests/CMakeLists.txt compiles this
 * and expects "the kit's CPU emulator does not support"), never a cryptic error in a header. */
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void cluster_sum(int *out)
{
    cg::cluster_group cluster = cg::this_cluster();
    (void)cluster;
    out[0] = 1;
}

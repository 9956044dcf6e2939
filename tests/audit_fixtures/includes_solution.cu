/* Audit fixture, forbidden: includes the kit's reference solution and registers its launcher as its own. */
#include "../../solutions/01_naive/reduce_naive.cu"

KIT_REGISTER_STAGE(includes_solution, launch_reduce_naive)

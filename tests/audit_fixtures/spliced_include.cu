/* Audit fixture, forbidden: hides an include of Thrust behind a line splice (#inc\ + newline + lude).
 * Thrust's smallest header: the audit reads the include, and <thrust/reduce.h> cost 15 s of nvcc. */
#include "stage.h"
#inc\
lude <thrust/version.h>

static __global__ void nothing(int *out)
{
    out[0] = 0;
}

static size_t launch_spliced_include(const int *in, int *out, size_t n, unsigned threads)
{
    (void)in, (void)n, (void)threads;
    nothing<<<1, 1>>>(out);
    return 1;
}

KIT_REGISTER_STAGE(spliced_include, launch_spliced_include)

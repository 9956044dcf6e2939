/* Audit fixture, forbidden: names the header it includes through a macro. Thrust's smallest header:
 * the audit reads the include, not what it declares, and <thrust/reduce.h> cost 16 s of nvcc. */
#include "stage.h"
#define LIBRARY <thrust/version.h>
#include LIBRARY

static __global__ void nothing(int *out)
{
    out[0] = 0;
}

static size_t launch_macro_include(const int *in, int *out, size_t n, unsigned threads)
{
    (void)in, (void)n, (void)threads;
    nothing<<<1, 1>>>(out);
    return 1;
}

KIT_REGISTER_STAGE(macro_include, launch_macro_include)

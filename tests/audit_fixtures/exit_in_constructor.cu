/* Audit fixture, forbidden: a static constructor ends the grader's process with status 0 before any test can fail. */
#include "stage.h"

static struct leave_early {
    leave_early() { exit(0); }
} the_exit;

static __global__ void nothing(int *out)
{
    out[0] = 0;
}

static size_t launch_exit_in_constructor(const int *in, int *out, size_t n, unsigned threads)
{
    (void)in, (void)n, (void)threads;
    nothing<<<1, 1>>>(out);
    return 1;
}

KIT_REGISTER_STAGE(exit_in_constructor, launch_exit_in_constructor)

/*
 * Cheat, slot 10: brings its own copy of the harness's timing statistics.
 *
 * What it pretends: a stage 10 ("minimum: start from the identity") as fast as the reference.
 * Its kernel is stage 3's tree with min(): right at every n, one value per thread, several
 * times slower than the reference stage 10.
 * What it does: the runner is linked from this object, the reference stages and the kit's
 * harness library, and the linker takes a symbol from the first place that defines it. This
 * file defines kit_timing_summarize and kit_timing_spread (common/stats.c, all that stats.o
 * holds, so the library's copy is never pulled in), under other C names bound to those
 * symbols by asm labels, so neither name appears as an identifier in the source. The fake
 * summary is honest for every timing but its own: the launcher notes that it ran, and the
 * next summary (the stage's own repetitions) reports a quarter of the fastest run as the
 * median; the spread is always 0, so no timing is ever retried as too noisy. The kit_timing
 * layout is copied from common/kit.h (no kit header is included).
 *
 * How the grader must treat it: 0 points for stage 10, refused by the audit before it runs:
 * a stage's host object defines its launcher, its signature and its kernels' stubs, nothing
 * else; a definition of any other global symbol (here the harness's own functions) is refused.
 */
#include <climits>

#include "stage.h"

/** common/kit.h's kit_timing, field for field. */
struct timing_summary {
    double median_ms, min_ms, max_ms, q1_ms, q3_ms;
    int reps;
};

extern "C" void summarize_kindly(double *ms, int count, timing_summary *timing) asm("kit_timing_summarize");
extern "C" double never_noisy(const timing_summary *t) asm("kit_timing_spread");

static bool ran_since_last_summary = false;

static void sort_ascending(double *ms, int count)
{
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && ms[j - 1] > ms[j]; j--) {
            double t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
}

extern "C" void summarize_kindly(double *ms, int count, timing_summary *timing)
{
    timing->reps = count;
    if (count < 1) {
        timing->median_ms = timing->min_ms = timing->max_ms = timing->q1_ms = timing->q3_ms = 0.0;
        return;
    }
    sort_ascending(ms, count);
    timing->min_ms = ms[0];
    timing->max_ms = ms[count - 1];
    timing->median_ms = ms[count / 2];
    timing->q1_ms = ms[count / 4];
    timing->q3_ms = ms[3 * count / 4];
    if (ran_since_last_summary) /* these are this stage's own times */
        timing->median_ms = timing->q1_ms = timing->q3_ms = timing->min_ms = ms[0] / 4;
    ran_since_last_summary = false;
}

extern "C" double never_noisy(const timing_summary *t)
{
    (void)t;
    return 0.0;
}

/** Stage 3 with min(): one value per thread, the block folds its shared array in half. */
static __global__ void replaces_kit_timing(const int *in, int *out, unsigned int n)
{
    extern __shared__ int values[];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    values[tid] = i < n ? in[i] : INT_MAX;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            values[tid] = min(values[tid], values[tid + s]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = values[0];
}

static size_t launch_replaces_kit_timing(const int *in, int *out, size_t n, unsigned threads)
{
    ran_since_last_summary = true;
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    replaces_kit_timing<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

KIT_REGISTER_STAGE(replaces_kit_timing, launch_replaces_kit_timing)

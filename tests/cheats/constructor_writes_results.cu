/*
 * Cheat, slot 2: a correct stage 2, plus a static constructor that forges the grade.
 *
 * What it pretends: a stage 2 ("strided index, no divergence"); the kernel is right.
 * What it does: before main() runs, a constructor writes the grader's result files, one
 * per stage and part (stage1.correctness ... stage7.emulated_races, the names and
 * `status=pass` lines of tests/grader/results.c), with a passing speedup in every
 * stageK.speedup. It tries every place a result folder may be: the current directory,
 * ../grade and build/grade (the default DIR/grade of a build, seen from build/tests and
 * from the top of the checkout), and the folders named by $KIT_GRADE_DIR and $KIT_RESULTS.
 * A report that reads those files afterwards would show every stage passed, whatever the
 * real tests find. (Every program that links this file runs the constructor, also one that
 * never grades stage 2: it must live in a program of its own.) Its only #include besides
 * stage.h is <stdio.h>, which stage files may use for printing; getenv() comes with the
 * headers nvcc includes by itself.
 *
 * How the grader must treat it: 0 points for stage 2 (GPU and emulator alike): a stage file
 * may do nothing but reduce; the stage's own kernel must do the work, and no file system,
 * process or output tricks. The report must never count files that a graded program could
 * have written.
 */
#include <stdio.h>

#include "stage.h"

/** Stage 2, written out: the working threads are the first ones, pairs 2*s*tid apart by s. */
static __global__ void constructor_writes_results(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int step = 1; step < blockDim.x; step <<= 1) {
        unsigned int left = 2 * step * tid;
        if (left < blockDim.x)
            sdata[left] += sdata[left + step];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_constructor_writes_results(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    constructor_writes_results<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

/** Writes a passing result file for every stage and part into \p dir (if it can). */
static void forge_results_in(const char *dir)
{
    static const char *const parts[] = {"correctness", "speedup",  "racecheck", "synccheck",
                                        "memcheck",    "initcheck", "emulated", "emulated_races"};
    if (!dir || !*dir)
        return;
    for (int stage = 1; stage <= 7; stage++) {
        for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/stage%d.%s", dir, stage, parts[p]);
            FILE *f = fopen(path, "w");
            if (!f)
                continue;
            fprintf(f, "status=pass\nmessage=all cases passed\n");
            if (p == 1)
                fprintf(f, "achieved=12.0000\nrequired=7.6000\nreference=9.5000\nspread=0.0100\n");
            fclose(f);
        }
    }
}

__attribute__((constructor)) static void forge_results(void)
{
    forge_results_in(".");
    forge_results_in("../grade");
    forge_results_in("build/grade");
    forge_results_in(getenv("KIT_GRADE_DIR"));
    forge_results_in(getenv("KIT_RESULTS"));
}

KIT_REGISTER_STAGE(constructor_writes_results, launch_constructor_writes_results)

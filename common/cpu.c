/**
 * \file cpu.c
 * \brief The ladder's CPU rows: the exact sum on one thread and with OpenMP, checked and timed
 * with a monotonic clock, and the CPU's name (no CUDA here).
 *
 * The ladder prints them beside the GPU rows so that the whole job shows, as course material
 * does: how fast the CPU sums the same input, and the GPU's speedup over it with and without
 * the copy of the input to the GPU. OpenMP comes from CMake's find_package(OpenMP)
 * (KIT_HAVE_OPENMP); a build without it has no parallel row and says so.
 */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef KIT_HAVE_OPENMP
#include <omp.h>
#endif

#include "kit.h"

int kit_cpu_threads(void)
{
#ifdef KIT_HAVE_OPENMP
    return omp_get_max_threads();
#else
    return 0;
#endif
}

int kit_cpu_model(char *out, size_t size)
{
    if (size == 0)
        return 0;
    out[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (!colon)
            continue;
        const char *value = colon + 1;
        while (*value == ' ' || *value == '\t')
            value++;
        size_t len = strcspn(value, "\r\n");
        while (len > 0 && (value[len - 1] == ' ' || value[len - 1] == '\t'))
            len--;
        snprintf(out, size, "%.*s", (int)len, value);
        break;
    }
    fclose(f);
    return out[0] != '\0';
}

/* The OpenMP sum: each thread adds a contiguous share in int64, then OpenMP adds the shares. */
static int64_t parallel_sum(const int *values, size_t n)
{
    int64_t sum = 0;
#ifdef KIT_HAVE_OPENMP
    const ptrdiff_t count = (ptrdiff_t)n;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (ptrdiff_t i = 0; i < count; i++)
        sum += values[i];
#else
    (void)values, (void)n;
#endif
    return sum;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

kit_status kit_time_cpu_sum(const int *values, size_t n, int parallel, int64_t expected, int warmup, int reps,
                            kit_timing *timing, kit_error *err)
{
    memset(timing, 0, sizeof *timing);
    if (parallel && kit_cpu_threads() == 0)
        return kit_fail(err, KIT_BAD_ARGUMENT, "this build has no OpenMP, so there is no multi-threaded CPU sum "
                        "(CMake's find_package(OpenMP) found none for the C compiler)");
    if (reps < 0)
        return kit_fail(err, KIT_BAD_ARGUMENT, "need zero or more repetitions");
    if (warmup < 0)
        warmup = 0;
    const int runs = reps == 0 ? 1 : warmup + reps; /* reps = 0: one checked run, nothing timed */
    double *ms = reps > 0 ? malloc((size_t)reps * sizeof *ms) : NULL;
    if (reps > 0 && !ms)
        return kit_fail(err, KIT_OUT_OF_MEMORY, "no host memory for timings");
    /* Read through a volatile pointer: no compiler may sum once and reuse it for every run. */
    const int *volatile input = values;
    for (int i = 0; i < runs; i++) {
        double start = seconds_now();
        int64_t sum = parallel ? parallel_sum(input, n) : kit_reference_sum(input, n);
        double elapsed_ms = (seconds_now() - start) * 1e3;
        if (sum != expected) {
            free(ms);
            return kit_fail(err, KIT_WRONG_RESULT, "the CPU sum (%s) of n = %zu ints, run %d: expected %lld, "
                            "got %lld", parallel ? "OpenMP" : "one thread", n, i + 1, (long long)expected,
                            (long long)sum);
        }
        if (reps > 0 && i >= warmup)
            ms[i - warmup] = elapsed_ms;
    }
    if (reps > 0)
        kit_timing_summarize(ms, reps, timing);
    free(ms);
    return KIT_OK;
}

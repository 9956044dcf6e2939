/**
 * \file harness.c
 * \brief Device buffers, checked runs, timed runs and the GPU description.
 *
 * A run reduces the input pass by pass: the stage's launcher writes one partial sum per
 * block, and the harness calls it again on those until a single value is left. A checked
 * run looks at every pass (poison, guards, counts); a timed run only looks at the end.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kit_cuda.h"

/* CUB lives in C++ (baselines.cu); these are its C entry points. */
cudaError_t kit_cub_sum(void *temp, size_t *temp_bytes, const int *in, int *out, size_t n);

kit_status kit_cuda_failure(kit_error *err, cudaError_t code, const char *call,
                            const char *file, int line)
{
    kit_status status = (code == cudaErrorMemoryAllocation) ? KIT_OUT_OF_MEMORY : KIT_CUDA_ERROR;
    return kit_fail(err, status, "%s:%d: %s failed: %s (%s)", file, line, call,
                    cudaGetErrorString(code), cudaGetErrorName(code));
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

kit_status kit_sync(double timeout_s, kit_error *err)
{
    const struct timespec nap = {0, 50 * 1000};
    double start = seconds_now();
    for (;;) {
        cudaError_t code = cudaStreamQuery(0);
        if (code == cudaSuccess)
            return KIT_OK;
        if (code != cudaErrorNotReady)
            return kit_fail(err, KIT_CUDA_ERROR, "the kernel failed: %s (%s)",
                            cudaGetErrorString(code), cudaGetErrorName(code));
        if (seconds_now() - start > timeout_s)
            return kit_fail(err, KIT_TIMEOUT, "the GPU was still busy after %.0f s", timeout_s);
        nanosleep(&nap, NULL);
    }
}

/* ---------------------------------------------------------------- the GPU */

kit_status kit_gpu_open(kit_gpu *gpu, kit_error *err)
{
    int count = 0;
    cudaError_t code = cudaGetDeviceCount(&count);
    if (code != cudaSuccess || count == 0)
        return kit_fail(err, KIT_NO_GPU, "no CUDA GPU found (%s): this program needs an NVIDIA GPU "
                        "and its driver", code != cudaSuccess ? cudaGetErrorString(code) : "0 devices");
    struct cudaDeviceProp prop;
    KIT_CUDA_TRY(cudaSetDevice(0), err);
    KIT_CUDA_TRY(cudaGetDeviceProperties(&prop, 0), err);
    memset(gpu, 0, sizeof *gpu);
    snprintf(gpu->name, sizeof gpu->name, "%s", prop.name);
    gpu->sm_count = prop.multiProcessorCount;
    gpu->l2_bytes = prop.l2CacheSize;
    gpu->cc_major = prop.major;
    gpu->cc_minor = prop.minor;
    int clock_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess)
        gpu->peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9; /* double data rate */
    cudaGetLastError(); /* an attribute this driver lacks is not an error for us */
    KIT_CUDA_TRY(cudaMemGetInfo(&gpu->free_bytes, &gpu->total_bytes), err);
    return KIT_OK;
}

/* ---------------------------------------------------------------- workspace */

static size_t partial_capacity(size_t n) { return (n + 31) / 32; }

size_t kit_workspace_bytes(size_t n)
{
    size_t ints = n + KIT_INPUT_GUARD + 2 * (partial_capacity(n) + 2 * KIT_PARTIAL_GUARD);
    return ints * sizeof(int);
}

kit_status kit_workspace_init(kit_workspace *ws, size_t n, kit_error *err)
{
    memset(ws, 0, sizeof *ws);
    if (n < 1 || n > KIT_MAX_N)
        return kit_fail(err, KIT_BAD_ARGUMENT, "n must be between 1 and %zu, not %zu", KIT_MAX_N, n);
    size_t free_bytes = 0, total_bytes = 0;
    KIT_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes), err);
    if (kit_workspace_bytes(n) > free_bytes)
        return kit_fail(err, KIT_OUT_OF_MEMORY, "n = %zu needs %.2f GiB of GPU memory, but only "
                        "%.2f GiB is free", n, kit_workspace_bytes(n) / 1073741824.0,
                        free_bytes / 1073741824.0);
    ws->n = n;
    ws->capacity = partial_capacity(n);
    ws->timeout_s = 10.0;
    ws->host_input = malloc(n * sizeof(int));
    if (!ws->host_input)
        return kit_fail(err, KIT_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory", n * sizeof(int));
    KIT_CUDA_TRY(cudaMalloc((void **)&ws->device_input, (n + KIT_INPUT_GUARD) * sizeof(int)), err);
    for (int k = 0; k < 2; k++) {
        int *block = NULL;
        KIT_CUDA_TRY(cudaMalloc((void **)&block, (ws->capacity + 2 * KIT_PARTIAL_GUARD) * sizeof(int)), err);
        ws->device_partial[k] = block + KIT_PARTIAL_GUARD;
    }
    int guard[KIT_INPUT_GUARD];
    for (int i = 0; i < KIT_INPUT_GUARD; i++)
        guard[i] = KIT_INPUT_GUARD_VALUE;
    KIT_CUDA_TRY(cudaMemcpy(ws->device_input + n, guard, sizeof guard, cudaMemcpyHostToDevice), err);
    return KIT_OK;
}

kit_status kit_workspace_fill(kit_workspace *ws, kit_pattern pattern, uint64_t seed, kit_error *err)
{
    ws->pattern = pattern;
    ws->seed = seed;
    kit_fill_input(ws->host_input, ws->n, pattern, seed);
    ws->expected = kit_reference_sum(ws->host_input, ws->n);
    KIT_CUDA_TRY(cudaMemcpy(ws->device_input, ws->host_input, ws->n * sizeof(int),
                            cudaMemcpyHostToDevice), err);
    return KIT_OK;
}

void kit_workspace_free(kit_workspace *ws)
{
    free(ws->host_input);
    cudaFree(ws->device_input);
    for (int k = 0; k < 2; k++)
        if (ws->device_partial[k])
            cudaFree(ws->device_partial[k] - KIT_PARTIAL_GUARD);
    cudaFree(ws->cub_temp);
    memset(ws, 0, sizeof *ws);
}

/* ---------------------------------------------------------------- runs */

/* "stage 3 (solutions), n = 1000, 256 threads, random input, seed 1" */
static void describe_run(char *out, size_t size, const kit_stage *stage, const kit_workspace *ws,
                         unsigned threads)
{
    snprintf(out, size, "stage %d (%s), n = %zu, %u threads, %s input, seed %llu", stage->number,
             stage->impl, ws->n, threads, kit_pattern_name(ws->pattern), (unsigned long long)ws->seed);
}

/* Launches one pass and checks what CUDA says about it; validates the returned count. */
static kit_status launch_pass(const kit_stage *stage, const kit_workspace *ws, const int *in,
                              int *out, size_t m, unsigned threads, int pass, size_t *count,
                              kit_error *err)
{
    char what[256];
    describe_run(what, sizeof what, stage, ws, threads);
    *count = (*stage->pass)(in, out, m, threads);
    cudaError_t code = cudaGetLastError();
    if (code != cudaSuccess)
        return kit_fail(err, KIT_CUDA_ERROR, "%s: pass %d on %zu values did not launch: %s",
                        what, pass, m, cudaGetErrorString(code));
    if (*count == 0 || *count > ws->capacity || (m > 1 && *count >= m) || (m == 1 && *count != 1))
        return kit_fail(err, KIT_BAD_LAUNCHER, "%s: pass %d on %zu values returned %zu partial sums; "
                        "a pass must leave fewer values than it got (and at most %zu)",
                        what, pass, m, *count, ws->capacity);
    return KIT_OK;
}

/* Waits for a pass; turns a hang or a crash into a message about the stage. */
static kit_status finish_pass(const kit_stage *stage, const kit_workspace *ws, unsigned threads,
                              int pass, kit_error *err)
{
    char what[256];
    describe_run(what, sizeof what, stage, ws, threads);
    kit_status status = kit_sync(ws->timeout_s, err);
    if (status == KIT_TIMEOUT)
        return kit_fail(err, KIT_TIMEOUT, "%s: pass %d did not finish within %.0f s: an endless "
                        "loop, or a __syncthreads() that not every thread of the block reaches?",
                        what, pass, ws->timeout_s);
    if (status != KIT_OK) {
        char cause[sizeof err->message]; /* err->message cannot be both source and destination */
        snprintf(cause, sizeof cause, "%s", err->message);
#ifdef KIT_EMULATOR /* the CPU emulator's message already names the block, thread and line */
        return kit_fail(err, status, "%s: pass %d crashed: %s", what, pass, cause);
#else
        return kit_fail(err, status, "%s: pass %d crashed: %s. The GPU context is now unusable; run "
                        "it under compute-sanitizer to see the line", what, pass, cause);
#endif
    }
    return KIT_OK;
}

/* Explains a wrong sum, using what the input pattern tells. */
static kit_status wrong_sum(const kit_stage *stage, const kit_workspace *ws, unsigned threads,
                            int got, kit_error *err)
{
    char what[256];
    describe_run(what, sizeof what, stage, ws, threads);
    int expected = kit_expected_int(ws->expected);
    long long diff = (long long)got - (long long)expected;
    const char *hint = "";
    char buffer[200];
    if (diff > 0 && diff % KIT_INPUT_GUARD_VALUE == 0 && diff / KIT_INPUT_GUARD_VALUE <= KIT_INPUT_GUARD) {
        snprintf(buffer, sizeof buffer, ": it read %lld values past the end of the input; check the "
                 "bound on n", diff / KIT_INPUT_GUARD_VALUE);
        hint = buffer;
    } else if (ws->pattern == KIT_PATTERN_LAST_ONLY && got == 0) {
        hint = ": only the last element was non-zero and it was lost; check the tail bound";
    } else if (ws->pattern == KIT_PATTERN_ONES && diff >= -(long long)ws->n && diff <= (long long)ws->n) {
        /* With all ones a difference of at most n is a count of elements; beyond that it is not. */
        snprintf(buffer, sizeof buffer, ": with all ones that is %lld elements %s", diff < 0 ? -diff : diff,
                 diff < 0 ? "lost" : "counted twice");
        hint = buffer;
    }
    return kit_fail(err, KIT_WRONG_RESULT, "%s: expected %d, got %d%s", what, expected, got, hint);
}

kit_status kit_run_checked(const kit_stage *stage, kit_workspace *ws, unsigned threads, int *got,
                           kit_error *err)
{
    kit_status status = kit_check_threads(stage, threads, err);
    if (status != KIT_OK)
        return status;
    char what[256];
    describe_run(what, sizeof what, stage, ws, threads);
    size_t span = ws->capacity + 2 * KIT_PARTIAL_GUARD;
    int *host = malloc((ws->n + KIT_INPUT_GUARD > span ? ws->n + KIT_INPUT_GUARD : span) * sizeof(int));
    if (!host)
        return kit_fail(err, KIT_OUT_OF_MEMORY, "no host memory for checking");

    const int *in = ws->device_input;
    size_t m = ws->n;
    int pass = 1, k = 0;
    while (status == KIT_OK) {
        int *out = ws->device_partial[k];
        size_t count = 0;
        if (cudaMemset(out - KIT_PARTIAL_GUARD, 0xA5, span * sizeof(int)) != cudaSuccess) {
            status = kit_fail(err, KIT_CUDA_ERROR, "%s: cannot poison the output buffer", what);
            break;
        }
        status = launch_pass(stage, ws, in, out, m, threads, pass, &count, err);
        if (status == KIT_OK)
            status = finish_pass(stage, ws, threads, pass, err);
        if (status != KIT_OK)
            break;
        if (cudaMemcpy(host, out - KIT_PARTIAL_GUARD, span * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
            status = kit_fail(err, KIT_CUDA_ERROR, "%s: cannot read the partial sums back", what);
            break;
        }
        const int *partial = host + KIT_PARTIAL_GUARD;
        for (long i = -KIT_PARTIAL_GUARD; i < (long)(ws->capacity + KIT_PARTIAL_GUARD); i++) {
            if ((i < 0 || i >= (long)count) && partial[i] != KIT_POISON) {
                status = kit_fail(err, KIT_OUT_OF_BOUNDS, "%s: pass %d wrote out[%ld], but the launcher "
                                  "said it wrote %zu partial sums (out[0..%zu)): is a block index or the "
                                  "grid size off?", what, pass, i, count, count);
                break;
            }
        }
        if (status != KIT_OK)
            break;
        size_t unwritten = 0, first = 0;
        for (size_t i = count; i-- > 0;)
            if (partial[i] == KIT_POISON) {
                unwritten++;
                first = i;
            }
        if (unwritten == count) {
            status = kit_fail(err, KIT_NO_RESULT, "stage %d wrote no result: fill in the TODO in %s "
                              "(none of the %zu blocks of pass %d wrote out[blockIdx.x]; %s)",
                              stage->number, stage->source, count, pass, what);
        } else if (unwritten > 0) {
            status = kit_fail(err, KIT_NO_RESULT, "%s: %zu of %zu blocks of pass %d wrote no partial sum "
                              "(first: out[%zu]); does thread 0 of every block write out[blockIdx.x]?",
                              what, unwritten, count, pass, first);
        }
        in = out;
        m = count;
        k ^= 1;
        pass++;
        if (m == 1) {
            *got = partial[0];
            break;
        }
    }
    if (status == KIT_OK &&
        cudaMemcpy(host, ws->device_input, (ws->n + KIT_INPUT_GUARD) * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess)
        status = kit_fail(err, KIT_CUDA_ERROR, "%s: cannot read the input back", what);
    for (size_t i = 0; status == KIT_OK && i < ws->n + KIT_INPUT_GUARD; i++) {
        int want = i < ws->n ? ws->host_input[i] : KIT_INPUT_GUARD_VALUE;
        if (host[i] != want)
            status = kit_fail(err, KIT_INPUT_CHANGED, "%s: the input changed at in[%zu] (was %d, now %d)%s",
                              what, i, want, host[i], i < ws->n ? ": a kernel must only read its input"
                              : ": it wrote past the end of the input");
    }
    free(host);
    if (status == KIT_OK && *got != kit_expected_int(ws->expected))
        status = wrong_sum(stage, ws, threads, *got, err);
    return status;
}

/* ---------------------------------------------------------------- timing */

typedef kit_status (*work_fn)(void *ctx, kit_error *err);

/* Warm-up, then reps timed runs between CUDA events; the median and quartiles go to *timing. */
static kit_status time_work(work_fn work, void *ctx, double timeout_s, int warmup, int reps,
                            kit_timing *timing, kit_error *err)
{
    if (reps < 1)
        return kit_fail(err, KIT_BAD_ARGUMENT, "need at least one repetition");
    double *ms = malloc((size_t)reps * sizeof *ms);
    cudaEvent_t start = NULL, stop = NULL;
    kit_status status = ms ? KIT_OK : kit_fail(err, KIT_OUT_OF_MEMORY, "no host memory for timings");
    if (status == KIT_OK && (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess))
        status = kit_fail(err, KIT_CUDA_ERROR, "cannot create CUDA events");
    for (int i = 0; status == KIT_OK && i < warmup; i++) {
        status = work(ctx, err);
        if (status == KIT_OK)
            status = kit_sync(timeout_s, err);
    }
    for (int i = 0; status == KIT_OK && i < reps; i++) {
        float elapsed = 0;
        cudaEventRecord(start, 0);
        status = work(ctx, err);
        cudaEventRecord(stop, 0);
        if (status == KIT_OK)
            status = kit_sync(timeout_s, err);
        if (status == KIT_OK && cudaEventElapsedTime(&elapsed, start, stop) != cudaSuccess)
            status = kit_fail(err, KIT_CUDA_ERROR, "cannot read the CUDA event timer");
        if (status == KIT_OK)
            ms[i] = elapsed;
    }
    if (status == KIT_OK)
        kit_timing_summarize(ms, reps, timing);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    free(ms);
    return status;
}

typedef struct stage_run {
    const kit_stage *stage;
    kit_workspace *ws;
    unsigned threads;
    const int *result; /* where the last pass left the single value */
} stage_run;

/* All passes of a stage, no checks between them: what the timer measures. */
static kit_status run_passes(void *ctx, kit_error *err)
{
    stage_run *run = ctx;
    const int *in = run->ws->device_input;
    size_t m = run->ws->n;
    for (int pass = 1, k = 0;; pass++, k ^= 1) {
        size_t count = 0;
        int *out = run->ws->device_partial[k];
        kit_status status = launch_pass(run->stage, run->ws, in, out, m, run->threads, pass, &count, err);
        if (status != KIT_OK)
            return status;
        in = out;
        m = count;
        if (m == 1)
            break;
    }
    run->result = in;
    return KIT_OK;
}

/* Reads back the single value a timed run left and compares it with the exact sum. */
static kit_status check_final(const int *device_value, const kit_workspace *ws, const char *what,
                              kit_error *err)
{
    int got = 0;
    KIT_CUDA_TRY(cudaMemcpy(&got, device_value, sizeof got, cudaMemcpyDeviceToHost), err);
    if (got != kit_expected_int(ws->expected))
        return kit_fail(err, KIT_WRONG_RESULT, "%s: after timing, expected %d, got %d (a race: the "
                        "result changes from run to run?)", what, kit_expected_int(ws->expected), got);
    return KIT_OK;
}

kit_status kit_time_stage(const kit_stage *stage, kit_workspace *ws, unsigned threads, int warmup,
                          int reps, kit_timing *timing, kit_error *err)
{
    kit_status status = kit_check_threads(stage, threads, err);
    if (status != KIT_OK)
        return status;
    stage_run run = {stage, ws, threads, NULL};
    status = time_work(run_passes, &run, ws->timeout_s, warmup, reps, timing, err);
    if (status == KIT_TIMEOUT || status == KIT_CUDA_ERROR) {
        char what[256];
        describe_run(what, sizeof what, stage, ws, threads);
        char cause[sizeof err->message];
        snprintf(cause, sizeof cause, "%s", err->message);
        return kit_fail(err, status, "%s: while timing: %s", what, cause);
    }
    if (status != KIT_OK)
        return status;
    char what[256];
    describe_run(what, sizeof what, stage, ws, threads);
    return check_final(run.result, ws, what, err);
}

static kit_status run_cub(void *ctx, kit_error *err)
{
    kit_workspace *ws = ctx;
    size_t bytes = ws->cub_temp_bytes;
    KIT_CUDA_TRY(kit_cub_sum(ws->cub_temp, &bytes, ws->device_input, ws->device_partial[0], ws->n), err);
    return KIT_OK;
}

kit_status kit_time_cub(kit_workspace *ws, int warmup, int reps, kit_timing *timing, kit_error *err)
{
    if (!ws->cub_temp) {
        KIT_CUDA_TRY(kit_cub_sum(NULL, &ws->cub_temp_bytes, ws->device_input, ws->device_partial[0], ws->n), err);
        KIT_CUDA_TRY(cudaMalloc(&ws->cub_temp, ws->cub_temp_bytes ? ws->cub_temp_bytes : 1), err);
    }
    kit_status status = time_work(run_cub, ws, ws->timeout_s, warmup, reps, timing, err);
    if (status != KIT_OK)
        return status;
    return check_final(ws->device_partial[0], ws, "cub::DeviceReduce::Sum", err);
}

typedef struct copy_run {
    int *dst;
    const int *src;
    size_t n;
} copy_run;

static kit_status run_copy(void *ctx, kit_error *err)
{
    copy_run *run = ctx;
    KIT_CUDA_TRY(cudaMemcpyAsync(run->dst, run->src, run->n * sizeof(int), cudaMemcpyDeviceToDevice, 0), err);
    return KIT_OK;
}

kit_status kit_time_copy(kit_workspace *ws, int warmup, int reps, kit_timing *timing, kit_error *err)
{
    copy_run run = {NULL, ws->device_input, ws->n};
    KIT_CUDA_TRY(cudaMalloc((void **)&run.dst, ws->n * sizeof(int)), err);
    kit_status status = time_work(run_copy, &run, ws->timeout_s, warmup, reps, timing, err);
    cudaFree(run.dst);
    return status;
}

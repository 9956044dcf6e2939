/**
 * \file harness.c
 * \brief Device buffers, checked runs, timed runs and the GPU description.
 *
 * A run reduces the input pass by pass: the stage's launcher writes one partial sum per
 * block, and the harness calls it again on those until a single value is left. A checked
 * run looks at every pass (poison, guards, counts); a timed run starts from the same state
 * (poisoned partial buffers) on an input that changes a little from run to run, and checks
 * every run's final value.
 */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "kit_cuda.h"
#include "no_gpu.h"

#ifdef KIT_EMULATOR
#define KIT_EMULATED_BUILD_TEXT "this emulator build does not count what its kernels do"
#else
#define KIT_EMULATED_BUILD_TEXT "only the CPU emulator counts a stage's first pass (reduce_ladder --emulate --counters)"
#endif

/* CUB lives in C++ (baselines.cu); these are its C entry points. */
cudaError_t kit_cub_reduce(int type, int op, void *temp, size_t *temp_bytes, const void *in, void *out, size_t n);
#ifndef KIT_EMULATOR
/* The empty kernel's launch (baselines.cu; the emulator has none: kit_time_launch says so). */
cudaError_t kit_empty_launch(void);
#endif

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

/* How much of the input a checked run reads back at a time to see that it is unchanged: 16 MiB
 * on a GPU; 256 KiB on the emulator, so that its inputs (2^20 + 7 words and more) cross chunks too. */
#ifdef KIT_EMULATOR
#define READBACK_CHUNK_WORDS ((size_t)1 << 16)
#else
#define READBACK_CHUNK_WORDS ((size_t)1 << 22)
#endif

/*
 * The legacy default stream: work on it starts after all earlier work of every blocking
 * stream, and their later work waits for it. CUDA names it cudaStreamLegacy; stream 0 means
 * the same unless the per-thread default stream is compiled in (and the emulator's shim has
 * one stream only).
 */
#ifdef cudaStreamLegacy
#define KIT_LEGACY_STREAM cudaStreamLegacy
#else
#define KIT_LEGACY_STREAM ((cudaStream_t)0)
#endif

static kit_status gpu_work_failed(kit_error *err, cudaError_t code)
{
#ifdef KIT_EMULATOR
    /* The emulator stopped a launch that ran past its limit (emu_set_timeout): a hang, and
     * its message says where a thread was. */
    if (code == cudaErrorLaunchTimeout)
        return kit_fail(err, KIT_TIMEOUT, "%s", cudaGetErrorString(code));
#endif
    return kit_fail(err, KIT_CUDA_ERROR, "the kernel failed: %s (%s)", cudaGetErrorString(code),
                    cudaGetErrorName(code));
}

kit_status kit_sync(double timeout_s, kit_error *err)
{
    const struct timespec nap = {0, 50 * 1000};
    cudaEvent_t done = NULL;
    cudaError_t code = cudaEventCreate(&done);
    if (code != cudaSuccess)
        return gpu_work_failed(err, code); /* a crashed kernel's error is sticky: it shows here too */
    code = cudaEventRecord(done, KIT_LEGACY_STREAM);
    if (code == cudaSuccess) {
        double start = seconds_now();
        while ((code = cudaEventQuery(done)) == cudaErrorNotReady) {
            /* After a hang the event is left alone: no CUDA call that is not needed. */
            if (seconds_now() - start > timeout_s)
                return kit_fail(err, KIT_TIMEOUT, "the GPU was still busy after %.0f s", timeout_s);
            nanosleep(&nap, NULL);
        }
    }
    cudaEventDestroy(done);
    /* Everything before the event is done; this waits for what the event does not cover
     * (work on non-blocking streams) and reports any error of the GPU's work. */
    if (code == cudaSuccess)
        code = cudaDeviceSynchronize();
    return code == cudaSuccess ? KIT_OK : gpu_work_failed(err, code);
}

/* ---------------------------------------------------------------- the GPU */

/* Device 0's name and properties, without a context: cudaGetDeviceProperties and the attributes
 * need none, where cudaSetDevice and cudaMemGetInfo make one. Making a context is what costs: on a
 * 16-core H200 machine (2026-11-27) one took 0.2 s and the driver makes one at a time, whatever
 * the process (16 probes at once: 3.4 s, 32: 7.8 s), and a GPU make check made about 650. */
kit_status kit_gpu_find(kit_gpu *gpu, kit_error *err)
{
    int count = 0;
    cudaError_t code = cudaGetDeviceCount(&count);
    if (code != cudaSuccess || count == 0) {
        char why[200];
        kit_no_gpu_reason(code, why, sizeof why);
        return kit_fail(err, KIT_NO_GPU, "%s", why);
    }
    struct cudaDeviceProp prop;
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
    gpu->total_bytes = prop.totalGlobalMem;
    return KIT_OK;
}

kit_status kit_gpu_open(kit_gpu *gpu, kit_error *err)
{
    kit_status status = kit_gpu_find(gpu, err);
    if (status != KIT_OK)
        return status;
    KIT_CUDA_TRY(cudaSetDevice(0), err);
    KIT_CUDA_TRY(cudaMemGetInfo(&gpu->free_bytes, &gpu->total_bytes), err);
    return KIT_OK;
}

/* ---------------------------------------------------------------- workspace */

static size_t partial_capacity(size_t n) { return (n + 31) / 32; }

/* Words of the input (n elements) and of one partial buffer with its guards. */
static size_t input_words(const kit_workspace *ws) { return ws->n * kit_in_words(ws->problem); }
static size_t partial_words(const kit_workspace *ws) { return ws->capacity * kit_out_words(ws->problem); }
static size_t partial_span(const kit_workspace *ws) { return partial_words(ws) + 2 * (size_t)KIT_PARTIAL_GUARD; }
static int is_int_sum(const kit_workspace *ws) { return kit_problem_equal(ws->problem, KIT_INT_SUM); }

size_t kit_workspace_bytes_problem(kit_problem problem, size_t n)
{
    size_t words = n * kit_in_words(problem) + KIT_INPUT_GUARD +
                   2 * (partial_capacity(n) * kit_out_words(problem) + 2 * KIT_PARTIAL_GUARD);
    return words * sizeof(int);
}

size_t kit_workspace_bytes(size_t n) { return kit_workspace_bytes_problem(KIT_INT_SUM, n); }

kit_status kit_workspace_init_problem(kit_workspace *ws, kit_problem problem, size_t n, kit_error *err)
{
    memset(ws, 0, sizeof *ws);
    kit_status status = kit_problem_check(problem, err);
    if (status != KIT_OK)
        return status;
    ws->problem = problem;
    if (n < 1 || n > kit_max_n(problem))
        return kit_fail(err, KIT_BAD_ARGUMENT, "n must be between 1 and %zu for the %s, not %zu", kit_max_n(problem),
                        kit_problem_name(problem), n);
    size_t free_bytes = 0, total_bytes = 0;
    KIT_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes), err);
    const size_t bytes = kit_workspace_bytes_problem(problem, n);
    if (bytes > free_bytes)
        return kit_fail(err, KIT_OUT_OF_MEMORY, "n = %zu needs %.2f GiB of GPU memory, but only "
                        "%.2f GiB is free", n, bytes / 1073741824.0, free_bytes / 1073741824.0);
    ws->n = n;
    ws->capacity = partial_capacity(n);
    ws->timeout_s = 10.0;
    ws->host_input = malloc(input_words(ws) * sizeof(int));
    if (!ws->host_input)
        return kit_fail(err, KIT_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory", input_words(ws) * sizeof(int));
    KIT_CUDA_TRY(cudaMalloc((void **)&ws->device_input, (input_words(ws) + KIT_INPUT_GUARD) * sizeof(int)), err);
    for (int k = 0; k < 2; k++) {
        int *block = NULL;
        KIT_CUDA_TRY(cudaMalloc((void **)&block, partial_span(ws) * sizeof(int)), err);
        ws->device_partial[k] = block + KIT_PARTIAL_GUARD;
    }
    int guard[KIT_INPUT_GUARD];
    for (int i = 0; i < KIT_INPUT_GUARD; i++)
        guard[i] = kit_guard_word(problem);
    KIT_CUDA_TRY(cudaMemcpy(ws->device_input + input_words(ws), guard, sizeof guard, cudaMemcpyHostToDevice), err);
    return KIT_OK;
}

kit_status kit_workspace_init(kit_workspace *ws, size_t n, kit_error *err)
{
    return kit_workspace_init_problem(ws, KIT_INT_SUM, n, err);
}

kit_status kit_workspace_fill(kit_workspace *ws, kit_pattern pattern, uint64_t seed, kit_error *err)
{
    ws->pattern = pattern;
    ws->seed = seed;
    kit_fill_problem(ws->problem, ws->host_input, ws->n, pattern, seed);
    kit_reference_compute(ws->problem, ws->host_input, ws->n, &ws->ref);
    ws->filled = ws->ref;
    ws->expected = ws->ref.int_sum;
    ws->varied_runs = 0; /* the same fill always gives the same varied inputs when timing */
    ws->last_run_sum = ws->expected;
    KIT_CUDA_TRY(cudaMemcpy(ws->device_input, ws->host_input, input_words(ws) * sizeof(int),
                            cudaMemcpyHostToDevice), err);
    return KIT_OK;
}

void kit_workspace_free(kit_workspace *ws)
{
    free(ws->host_input);
    free(ws->readback);
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

/* KIT_OK if the stage reduces the workspace's problem with a launcher of the right types. */
static kit_status check_problem(const kit_stage *stage, const kit_workspace *ws, kit_error *err)
{
    if (!kit_problem_equal(stage->problem, ws->problem))
        return kit_fail(err, KIT_BAD_ARGUMENT, "stage %d computes the %s, but the workspace was made for the %s",
                        stage->number, kit_problem_name(stage->problem), kit_problem_name(ws->problem));
    const kit_signature *sig = stage->signature;
    if (!sig || !sig->in_type || !sig->out_type)
        return KIT_OK; /* a table built without signatures (the grader's references) */
    const char *in_type, *out_type;
    kit_problem_ctypes(stage->problem, &in_type, &out_type);
    if (strcmp(sig->in_type, in_type) != 0 || strcmp(sig->out_type, out_type) != 0)
        return kit_fail(err, KIT_BAD_LAUNCHER, "stage %d computes the %s, so its launcher must be size_t "
                        "launch(const %s *in, %s *out, size_t n, unsigned threads), but %s's takes const %s * "
                        "and %s *", stage->number, kit_problem_name(stage->problem), in_type, out_type,
                        stage->source, sig->in_type, sig->out_type);
    return KIT_OK;
}

/* Launches one pass and checks what CUDA says about it; validates the returned count. */
static kit_status launch_pass(const kit_stage *stage, const kit_workspace *ws, const int *in,
                              int *out, size_t m, unsigned threads, int pass, size_t *count,
                              kit_error *err)
{
#ifdef KIT_EMULATOR
    emu_set_timeout(ws->timeout_s); /* the emulator runs a launch to its end: it needs the limit first */
#endif
    *count = (*stage->pass)(in, out, m, threads);
    cudaError_t code = cudaGetLastError();
    const int one_pass = stage->passes == KIT_PASSES_ONE;
    if (code == cudaSuccess && *count != 0 && *count <= ws->capacity && (m == 1 || one_pass ? *count == 1 : *count < m))
        return KIT_OK; /* nothing else here: this runs inside the timed region */
    char what[256];
    describe_run(what, sizeof what, stage, ws, threads);
    if (code != cudaSuccess)
        return kit_fail(err, KIT_CUDA_ERROR, "%s: pass %d on %zu values did not launch: %s",
                        what, pass, m, cudaGetErrorString(code));
    if (one_pass)
        return kit_fail(err, KIT_BAD_LAUNCHER, "%s: stage %d finishes in one pass: its launcher must leave the "
                        "whole sum in out[0] and return 1, but it returned %zu", what, stage->number, *count);
    return kit_fail(err, KIT_BAD_LAUNCHER, "%s: pass %d on %zu values returned %zu partial sums; "
                    "a pass must leave fewer values than it got (and at most %zu)",
                    what, pass, m, *count, ws->capacity);
}

/* Waits for a pass; turns a hang or a crash into a message about the stage. */
static kit_status finish_pass(const kit_stage *stage, const kit_workspace *ws, unsigned threads,
                              int pass, kit_error *err)
{
    char what[256];
    describe_run(what, sizeof what, stage, ws, threads);
    kit_status status = kit_sync(ws->timeout_s, err);
#ifdef KIT_EMULATOR /* the emulator stopped the launch; its message says where a thread was */
    if (status == KIT_TIMEOUT) {
        char cause[sizeof err->message];
        snprintf(cause, sizeof cause, "%s", err->message);
        return kit_fail(err, KIT_TIMEOUT, "%s: pass %d did not finish within %.0f s: an endless loop? %s", what, pass,
                        emu_timeout(), cause);
    }
#endif
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
    /* The difference as the GPU's 32-bit adds make it: full-range inputs wrap the sum, and a read
     * past the end adds its guards modulo 2^32 too. */
    long long diff = (long long)(int32_t)((uint32_t)got - (uint32_t)expected);
    const char *hint = "";
    char buffer[200];
    if ((int)((unsigned)got - (unsigned)expected) == KIT_POISON) {
        /* 32-bit wrap-around, as the GPU adds: the answer is the sum plus the poison out[0] held */
        hint = ": that is the sum plus the poison (0xA5A5A5A5) the harness leaves in out before every pass: "
               "out[0] was added into without being cleared first (its clearing must be the stage's own work)";
    } else if (diff > 0 && diff % KIT_INPUT_GUARD_VALUE == 0 && diff / KIT_INPUT_GUARD_VALUE <= KIT_INPUT_GUARD) {
        snprintf(buffer, sizeof buffer, ": it read %lld value%s past the end of the input; check the "
                 "bound on n", diff / KIT_INPUT_GUARD_VALUE, diff / KIT_INPUT_GUARD_VALUE == 1 ? "" : "s");
        hint = buffer;
    } else if (ws->pattern == KIT_PATTERN_LAST_ONLY && got == 0) {
        /* A race loses it as easily as a tail bound does: the grader's repeats tell them apart. */
        hint = ": only the last element was non-zero and it was lost; check the tail bound (or, if the sum "
               "changes from run to run, a missing __syncthreads())";
    } else if (ws->pattern == KIT_PATTERN_ONES && diff >= -(long long)ws->n && diff <= (long long)ws->n) {
        /* With all ones a difference of at most n is a count of elements; beyond that it is not. */
        long long count = diff < 0 ? -diff : diff;
        snprintf(buffer, sizeof buffer, ": with all ones that is %lld element%s %s", count, count == 1 ? "" : "s",
                 diff < 0 ? "lost" : "counted twice");
        hint = buffer;
    } else if (ws->pattern == KIT_PATTERN_ONES) {
        /* Further off than any count of elements: a value no input has. */
        hint = ": with all ones no count of elements gives that; was shared memory read before it was written "
               "(a slot no thread stored, or one past the block's data)?";
    }
#ifdef KIT_EMULATOR
    char note[600]; /* a shuffle that read a lane outside its mask: undefined on a GPU, and here it mattered */
    if (emu_undefined_shuffle_note(note, sizeof note) > 0)
        return kit_fail(err, KIT_WRONG_RESULT, "%s: expected %d, got %d%s; %s", what, expected, got, hint, note);
#endif
    return kit_fail(err, KIT_WRONG_RESULT, "%s: expected %d, got %d%s", what, expected, got, hint);
}

/* Poisons partial buffer k and its guards (every byte 0xA5: each int reads KIT_POISON), as
 * before every checked pass and every timed run, so the two look alike to a stage. */
static cudaError_t poison_partial(const kit_workspace *ws, int k)
{
    return cudaMemset(ws->device_partial[k] - KIT_PARTIAL_GUARD, 0xA5, partial_span(ws) * sizeof(int));
}

/* Word c of partial result b, of count results a pass wrote: one after the other, or as planes. */
static size_t result_word(const kit_workspace *ws, size_t b, size_t c, size_t count)
{
    return kit_out_planar(ws->problem) ? c * count + b : b * kit_out_words(ws->problem) + c;
}

/* Whether the final answer is right: the int sum's own explanations, or kit_judge() for the rest. */
static kit_status judge_answer(const kit_stage *stage, kit_workspace *ws, unsigned threads, const kit_value *got,
                               kit_error *err)
{
    if (is_int_sum(ws))
        return got->w[0] == kit_expected_int(ws->expected) ? KIT_OK : wrong_sum(stage, ws, threads, got->w[0], err);
    char why[700];
    if (kit_judge(&ws->ref, ws->pattern, ws->host_input, got, why, sizeof why))
        return KIT_OK;
    char what[256];
    describe_run(what, sizeof what, stage, ws, threads);
#ifdef KIT_EMULATOR
    char note[600]; /* a shuffle that read a lane outside its mask: undefined on a GPU, and here it mattered */
    if (emu_undefined_shuffle_note(note, sizeof note) > 0)
        return kit_fail(err, KIT_WRONG_RESULT, "%s: %s; %s", what, why, note);
#endif
    return kit_fail(err, KIT_WRONG_RESULT, "%s: %s", what, why);
}

kit_status kit_run_checked(const kit_stage *stage, kit_workspace *ws, unsigned threads, kit_value *got,
                           kit_error *err)
{
    kit_status status = kit_check_threads(stage, threads, err);
    if (status == KIT_OK)
        status = check_problem(stage, ws, err);
    if (status != KIT_OK)
        return status;
#ifdef KIT_EMULATOR
    emu_undefined_shuffle_forget(); /* notes are about this run only */
#endif
    memset(got, 0, sizeof *got);
    char what[256];
    describe_run(what, sizeof what, stage, ws, threads);
    const size_t span = partial_span(ws), in_span = input_words(ws) + KIT_INPUT_GUARD;
    const size_t words = kit_out_words(ws->problem);
    const char *results = is_int_sum(ws) ? "partial sums" : "partial results";
    /* Kept in the workspace for its next run: a buffer malloc'd for each run is fresh pages for
     * each run, each faulted in and zeroed by the kernel (while the labs' large cases ran in an
     * H200 make check, 2026-11-27, the kernel's share of the CPU time was 20 to 60%). The input
     * comes back a chunk at a time into the same buffer: one the size of the input was 4 GiB more
     * at 2^30 ints, and 2.2 to 3.0 s of kernel time just to touch (this kit's 2-core development
     * machine, 2026-11-27). */
    const size_t chunk = in_span < READBACK_CHUNK_WORDS ? in_span : READBACK_CHUNK_WORDS;
    const size_t readback_words = chunk > span ? chunk : span;
    if (ws->readback_words < readback_words) {
        free(ws->readback);
        ws->readback = malloc(readback_words * sizeof(int));
        ws->readback_words = ws->readback ? readback_words : 0;
    }
    int *host = ws->readback;
    if (!host)
        return kit_fail(err, KIT_OUT_OF_MEMORY, "no host memory for checking");

    /* The buffer pass 1 does not write is poisoned too: when pass 1 starts, a checked run and
     * a timed one (which poisons both before it starts) look the same to the stage. */
    if (poison_partial(ws, 1) != cudaSuccess)
        status = kit_fail(err, KIT_CUDA_ERROR, "%s: cannot poison the output buffers", what);
    const int *in = ws->device_input;
    size_t m = ws->n;
    int pass = 1, k = 0;
    while (status == KIT_OK) {
        int *out = ws->device_partial[k];
        size_t count = 0;
        if (poison_partial(ws, k) != cudaSuccess) {
            status = kit_fail(err, KIT_CUDA_ERROR, "%s: cannot poison the output buffer", what);
            break;
        }
        status = launch_pass(stage, ws, in, out, m, threads, pass, &count, err);
        if (status == KIT_OK)
            status = finish_pass(stage, ws, threads, pass, err);
        if (status != KIT_OK)
            break;
        if (cudaMemcpy(host, out - KIT_PARTIAL_GUARD, span * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
            status = kit_fail(err, KIT_CUDA_ERROR, "%s: cannot read the %s back", what, results);
            break;
        }
        const int *partial = host + KIT_PARTIAL_GUARD;
        const ptrdiff_t written = (ptrdiff_t)(count * words);
        for (ptrdiff_t i = -KIT_PARTIAL_GUARD; i < (ptrdiff_t)(partial_words(ws) + KIT_PARTIAL_GUARD); i++) {
            if ((i < 0 || i >= written) && partial[i] != KIT_POISON) {
                if (words == 1)
                    status = kit_fail(err, KIT_OUT_OF_BOUNDS, "%s: pass %d wrote out[%td], but the launcher said it "
                                      "wrote %zu %s (out[0..%zu)): is a block index or the grid size off?",
                                      what, pass, i, count, results, count);
                else
                    status = kit_fail(err, KIT_OUT_OF_BOUNDS, "%s: pass %d wrote word %td of out, but the launcher "
                                      "said it wrote %zu %s of %zu words each (words 0..%td)%s: is a block index or "
                                      "the grid size off?", what, pass, i, count, results, words, written,
                                      kit_out_planar(ws->problem) ? ", as planes of one word per result" : "");
                break;
            }
        }
        if (status != KIT_OK)
            break;
        size_t unwritten = 0, first = 0;
        for (size_t b = count; b-- > 0;) {
            int poisoned = 0;
            for (size_t c = 0; c < words; c++)
                poisoned |= partial[result_word(ws, b, c, count)] == KIT_POISON;
            if (poisoned) {
                unwritten++;
                first = b;
            }
        }
        if (unwritten == count && stage->passes == KIT_PASSES_ONE) {
            status = kit_fail(err, KIT_NO_RESULT, "stage %d wrote no result: fill in the TODO in %s (out[0] "
                              "must hold the whole result when the launcher's kernels end; %s). If it is filled in, "
                              "no block found itself the last: is every block's add an atomic (a plain += loses the "
                              "adds of blocks running at the same time), is a count or word left over from an earlier "
                              "launch (it must be back to its start when a launch ends), or is the count read before "
                              "the block's own add? (reduce_ladder --stage %d --impl labs --picture lab%d.html draws "
                              "the blocks' meeting)", stage->number, stage->source, what, stage->number, stage->number);
        } else if (unwritten == count) {
            char blocks[64];
            if (count == 1)
                snprintf(blocks, sizeof blocks, "the one block of pass %d did not write", pass);
            else
                snprintf(blocks, sizeof blocks, "none of the %zu blocks of pass %d wrote", count, pass);
            status = kit_fail(err, KIT_NO_RESULT, "stage %d wrote no result: fill in the TODO in %s (%s "
                              "%s; %s)", stage->number, stage->source, blocks,
                              kit_out_planar(ws->problem) ? "out[c * gridDim.x + blockIdx.x] for each component c"
                                                          : "out[blockIdx.x]", what);
        } else if (unwritten > 0) {
            status = kit_fail(err, KIT_NO_RESULT, "%s: %zu of %zu blocks of pass %d wrote no %s (first: "
                              "%s[%zu]%s); does thread 0 of every block write %s%s?",
                              what, unwritten, count, pass, is_int_sum(ws) ? "partial sum" : "whole partial result",
                              kit_out_planar(ws->problem) ? "result" : "out", first,
                              words > 1 ? ", some of its words still poison" : "",
                              kit_out_planar(ws->problem) ? "out[c * gridDim.x + blockIdx.x]" : "out[blockIdx.x]",
                              words > 1 ? ", every word of it" : ""); /* count > unwritten >= 1: "blocks" */
        }
        in = out;
        m = count;
        k ^= 1;
        pass++;
        if (m == 1) {
            memcpy(got->w, partial, words * sizeof(int));
            break;
        }
    }
    const size_t in_words = kit_in_words(ws->problem), words_in = input_words(ws);
    const int guard = kit_guard_word(ws->problem);
    for (size_t first = 0; status == KIT_OK && first < in_span; first += chunk) {
        const size_t count = in_span - first < chunk ? in_span - first : chunk;
        if (cudaMemcpy(host, ws->device_input + first, count * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
            status = kit_fail(err, KIT_CUDA_ERROR, "%s: cannot read the input back", what);
            break;
        }
        for (size_t j = 0; j < count; j++) {
            const size_t i = first + j;
            const int want = i < words_in ? ws->host_input[i] : guard;
            if (host[j] == want)
                continue;
            char where[64];
            if (in_words == 1)
                snprintf(where, sizeof where, "in[%zu]", i);
            else
                snprintf(where, sizeof where, "word %zu of the input", i);
            status = kit_fail(err, KIT_INPUT_CHANGED, "%s: the input changed at %s (was %d, now %d)%s", what, where,
                              want, host[j], i < words_in ? ": a kernel must only read its input"
                                                          : ": it wrote past the end of the input");
            break;
        }
    }
    if (status == KIT_OK)
        status = judge_answer(stage, ws, threads, got, err);
    return status;
}

/* ---------------------------------------------------------------- timing */

/* splitmix64, as in input.c: positions and values of the input's changes between timed runs. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* What a timed run changes in the input, to be written back: the elements in the order they
 * were changed, each with the value it had before (undone in reverse, so an element changed
 * twice gets its first value back). */
typedef struct input_changes {
    size_t at[KIT_VARIED_ELEMENTS];     /* words of the input (elements, for the int sum) */
    int before[KIT_VARIED_ELEMENTS];
    int count;
} input_changes;
_Static_assert(KIT_VARIED_ELEMENTS >= KIT_MAX_WORDS, "kit_vary_problem changes up to KIT_MAX_WORDS words");

/* The values a changed element may take: the pattern's own range, or for the patterns that
 * have one value (ones, zeros) a small range around it. At most 15 in magnitude, like the
 * patterns, so a sum stays within 15 n. Three values at least (see change_input). */
static void varied_range(kit_pattern pattern, int *lo, int *hi)
{
    switch (pattern) {
    case KIT_PATTERN_POSITIONAL: *lo = 1, *hi = 15; return;
    case KIT_PATTERN_ONES: *lo = 0, *hi = 2; return;
    case KIT_PATTERN_LAST_ONLY: *lo = 0, *hi = 7; return;
    default: break; /* the seeded patterns: small values around zero change any answer the same way */
    }
    *lo = -8, *hi = 8;
}

/* Writes one input word on the GPU (a 4-byte copy) and keeps host_input and, for the int sum,
 * expected equal to it (the other problems' references are set by their caller). */
static kit_status set_input(kit_workspace *ws, size_t at, int value, kit_error *err)
{
    cudaError_t code = cudaMemcpy(ws->device_input + at, &value, sizeof value, cudaMemcpyHostToDevice);
    if (code != cudaSuccess)
        return kit_cuda_failure(err, code, "cudaMemcpy of one input element", __FILE__, __LINE__);
    if (is_int_sum(ws)) {
        ws->expected += (int64_t)value - (int64_t)ws->host_input[at];
        ws->ref.int_sum = ws->expected;
        ws->ref.answer.w[0] = kit_expected_int(ws->expected);
    }
    ws->host_input[at] = value;
    return KIT_OK;
}

/* Writes the changed words' earlier values back. */
static kit_status undo_changes(kit_workspace *ws, input_changes *changes, kit_error *err)
{
    while (changes->count > 0) {
        int last = changes->count - 1;
        kit_status status = set_input(ws, changes->at[last], changes->before[last], err);
        if (status != KIT_OK)
            return status;
        changes->count = last;
    }
    if (!is_int_sum(ws))
        ws->ref = ws->filled; /* the input as filled again */
    return KIT_OK;
}

/* The other problems' changes (kit_vary_problem()): a new extreme, or for floats a value far
 * beyond the error bound, so that no earlier answer is right for this run's input. */
static kit_status change_problem_input(kit_workspace *ws, input_changes *changes, kit_error *err)
{
    size_t at[KIT_MAX_WORDS];
    int32_t before[KIT_MAX_WORDS];
    int count = kit_vary_problem(&ws->ref, &ws->filled, ws->host_input, ws->seed, ++ws->varied_runs, at, before);
    for (int c = 0; c < count; c++) {
        changes->at[changes->count] = at[c];
        changes->before[changes->count] = before[c];
        changes->count++;
        cudaError_t code = cudaMemcpy(ws->device_input + at[c], &ws->host_input[at[c]], sizeof(int),
                                      cudaMemcpyHostToDevice);
        if (code != cudaSuccess)
            return kit_cuda_failure(err, code, "cudaMemcpy of one input element", __FILE__, __LINE__);
    }
    return KIT_OK;
}

/*
 * Changes KIT_VARIED_ELEMENTS elements of the input as filled (changes->count is 0), at
 * positions and by steps from a generator seeded with the workspace's seed and run counter.
 * The last change is chosen so that the new sum differs both from the previous timed run's
 * and from the filled input's: a stage that returns any answer it gave before is caught.
 */
static kit_status change_input(kit_workspace *ws, input_changes *changes, kit_error *err)
{
    const int64_t filled_sum = ws->expected;
    uint64_t state = ws->seed ^ (0xD1B54A32D192ED03ull * ++ws->varied_runs);
    int lo, hi;
    varied_range(ws->pattern, &lo, &hi);
    const int range = hi - lo + 1;
    for (int c = 0; c < KIT_VARIED_ELEMENTS; c++) {
        size_t at = (size_t)(splitmix64(&state) % (uint64_t)ws->n);
        int before = ws->host_input[at];
        int offset = before >= lo && before <= hi ? before - lo : 0;
        int step = 1 + (int)(splitmix64(&state) % (uint64_t)(range - 1)); /* never 0: a new value */
        int value = lo + (offset + step) % range;
        if (c == KIT_VARIED_ELEMENTS - 1) {
            /* At most two values are ruled out, and the range has three or more. */
            int64_t rest = ws->expected - before;
            for (int tries = 0; tries < range && (rest + value == ws->last_run_sum || rest + value == filled_sum);
                 tries++)
                value = lo + (value - lo + 1) % range;
        }
        changes->at[changes->count] = at;
        changes->before[changes->count] = before;
        changes->count++;
        kit_status status = set_input(ws, at, value, err);
        if (status != KIT_OK)
            return status;
    }
    ws->last_run_sum = ws->expected;
    return KIT_OK;
}

/* One kind of timed work (a stage, CUB or the copy) and what is done around each run. */
typedef struct timed_job timed_job;
struct timed_job {
    kit_workspace *ws;
    char what[256];      /* names the work in messages: "stage 7 (labs), n = ..., 256 threads, ..." */
    int vary;            /* change the input before each run and check the answer after it */
    int floor;           /* whether kit_workspace::min_rep_ms applies */
    const char *hint;    /* after a wrong answer: what to suspect ("" for none) */
    kit_status (*work)(timed_job *job, kit_error *err); /* enqueues the timed GPU work */
    const int *result;   /* where the work left its single value (set by work) */
    const kit_stage *stage; /* run_stage's */
    unsigned threads;       /* run_stage's */
    int *copy_dst;          /* run_copy's */
    const int *copy_src;    /* run_h2d's and run_copy_then_stage's: the host side of the copy */
    int poison_input;       /* poison device_input's n ints before each run (the copy must refill them) */
};

/* Before a run, outside the timed region: a changed input, poisoned partial buffers (with
 * their guards, as kit_run_checked does), and an idle GPU when the timer starts. */
static kit_status prepare_run(timed_job *job, input_changes *changes, kit_error *err)
{
    kit_workspace *ws = job->ws;
    kit_status status = KIT_OK;
    if (job->vary) {
        status = undo_changes(ws, changes, err);
        if (status == KIT_OK)
            status = is_int_sum(ws) ? change_input(ws, changes, err) : change_problem_input(ws, changes, err);
    }
    for (int k = 0; status == KIT_OK && k < 2; k++) {
        cudaError_t code = poison_partial(ws, k);
        if (code != cudaSuccess)
            status = kit_cuda_failure(err, code, "cudaMemset (poisoning the partial sums)", __FILE__, __LINE__);
    }
    if (status == KIT_OK && job->poison_input) {
        cudaError_t code = cudaMemset(ws->device_input, 0xA5, input_words(ws) * sizeof(int));
        if (code != cudaSuccess)
            status = kit_cuda_failure(err, code, "cudaMemset (poisoning the input)", __FILE__, __LINE__);
    }
    if (status == KIT_OK)
        status = kit_sync(ws->timeout_s, err);
    return status;
}

/* After a run of another problem than the int sum: its answer against this run's reference. */
static kit_status check_problem_run(const timed_job *job, const char *run, const kit_reference *previous,
                                    kit_error *err)
{
    const kit_workspace *ws = job->ws;
    kit_value got;
    memset(&got, 0, sizeof got);
    KIT_CUDA_TRY(cudaMemcpy(got.w, job->result, kit_out_words(ws->problem) * sizeof(int), cudaMemcpyDeviceToHost),
                 err);
    char why[700], unused[700];
    if (kit_judge(&ws->ref, ws->pattern, NULL, &got, why, sizeof why))
        return KIT_OK;
    const char *seen = "";
    if (kit_judge(&ws->filled, ws->pattern, NULL, &got, unused, sizeof unused))
        seen = " (the answer for an earlier input: the one before timing changed it)";
    else if (kit_judge(previous, ws->pattern, NULL, &got, unused, sizeof unused))
        seen = " (the answer for an earlier input: the previous run's)";
    return kit_fail(err, KIT_WRONG_RESULT, "%s, %s while timing: %s%s: the input changes between timed runs%s%s",
                    job->what, run, why, seen, job->hint[0] ? "; " : "", job->hint);
}

/* After a run: its single value against the exact sum of the input it was given. */
static kit_status check_run(const timed_job *job, const char *run, int64_t previous_sum, int64_t filled_sum,
                            kit_error *err)
{
    int got = 0;
    KIT_CUDA_TRY(cudaMemcpy(&got, job->result, sizeof got, cudaMemcpyDeviceToHost), err);
    const int expected = kit_expected_int(job->ws->expected);
    if (got == expected)
        return KIT_OK;
    const char *seen = "";
    if (got == kit_expected_int(filled_sum))
        seen = " (the sum of an earlier input: the one before timing changed it)";
    else if (got == kit_expected_int(previous_sum))
        seen = " (the sum of an earlier input: the previous run's)";
    return kit_fail(err, KIT_WRONG_RESULT, "%s, %s while timing: expected %d, got %d%s: the input changes "
                    "between timed runs%s%s", job->what, run, expected, got, seen, job->hint[0] ? "; " : "",
                    job->hint);
}

/* Prefixes err's message with the work and the run, for failures whose message lacks them. */
static kit_status while_timing(const timed_job *job, const char *run, kit_status status, kit_error *err)
{
    char cause[sizeof err->message]; /* err->message cannot be both source and destination */
    snprintf(cause, sizeof cause, "%s", err->message);
    return kit_fail(err, status, "%s, %s while timing: %s", job->what, run, cause);
}

/*
 * warmup untimed runs, then reps timed ones between CUDA events on the legacy default stream;
 * each run's time goes to samples_ms (if not NULL) in run order, the summary to *timing.
 */
static kit_status time_job(timed_job *job, int warmup, int reps, double *samples_ms, kit_timing *timing,
                           kit_error *err)
{
    if (reps < 1)
        return kit_fail(err, KIT_BAD_ARGUMENT, "need at least one repetition");
    if (warmup < 0)
        warmup = 0;
    kit_workspace *ws = job->ws;
    const int64_t filled_sum = ws->expected;
    input_changes changes;
    changes.count = 0;
    double *ms = malloc((size_t)reps * sizeof *ms);
    cudaEvent_t start = NULL, stop = NULL;
    kit_status status = ms ? KIT_OK : kit_fail(err, KIT_OUT_OF_MEMORY, "no host memory for timings");
    if (status == KIT_OK && (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess))
        status = kit_fail(err, KIT_CUDA_ERROR, "cannot create CUDA events");
    for (int i = 0; status == KIT_OK && i < warmup + reps; i++) {
        const int timed = i >= warmup;
        char run[64];
        if (timed)
            snprintf(run, sizeof run, "repetition %d of %d", i - warmup + 1, reps);
        else
            snprintf(run, sizeof run, "warm-up run %d of %d", i + 1, warmup);
        const int64_t previous_sum = ws->last_run_sum;
        const kit_reference previous = ws->ref;
        status = prepare_run(job, &changes, err);
        if (status != KIT_OK) {
            status = while_timing(job, run, status, err);
            break;
        }
        /* ---- the timed region: the work and nothing else */
        cudaError_t code = cudaEventRecord(start, KIT_LEGACY_STREAM);
        if (code == cudaSuccess) {
            status = job->work(job, err);
            code = cudaEventRecord(stop, KIT_LEGACY_STREAM);
        }
        /* ---- */
        if (status != KIT_OK)
            break; /* the work's own message names the stage and the pass */
        if (code != cudaSuccess) {
            status = while_timing(job, run, kit_cuda_failure(err, code, "cudaEventRecord", __FILE__, __LINE__),
                                  err);
            break;
        }
        status = kit_sync(ws->timeout_s, err);
        float elapsed = 0;
        if (status == KIT_OK && (code = cudaEventElapsedTime(&elapsed, start, stop)) != cudaSuccess)
            status = kit_fail(err, KIT_CUDA_ERROR, "cannot read the CUDA event timer: %s", cudaGetErrorString(code));
        if (status != KIT_OK) {
            status = while_timing(job, run, status, err);
            break;
        }
        if (job->vary)
            status = is_int_sum(ws) ? check_run(job, run, previous_sum, filled_sum, err)
                                    : check_problem_run(job, run, &previous, err);
        if (status == KIT_OK && timed) {
            ms[i - warmup] = elapsed;
            const double mb = 4.0 * (double)input_words(ws) / 1e6; /* what a reduction reads */
            if (job->floor && ws->min_rep_ms > 0 && elapsed < ws->min_rep_ms)
                status = kit_fail(err, KIT_TOO_FAST, "%s: %s took %.4f ms, but reading %.*f MB at the copy "
                                  "bandwidth measured in this run allows no less than %.4f ms: the kernel "
                                  "cannot have read its input", job->what, run, elapsed, mb < 10 ? 2 : 0, mb,
                                  ws->min_rep_ms);
        }
    }
    /* The input as filled again, unless the GPU is unusable (then host_input still matches
     * it). A run whose launcher failed may have left kernels running: wait for them first. */
    if (changes.count > 0 && status != KIT_TIMEOUT && status != KIT_CUDA_ERROR) {
        kit_error undo_err;
        kit_status undone = kit_sync(ws->timeout_s, &undo_err);
        if (undone == KIT_OK)
            undone = undo_changes(ws, &changes, &undo_err);
        if (undone != KIT_OK && status == KIT_OK) {
            if (err)
                *err = undo_err;
            status = while_timing(job, "restoring the input", undone, err);
        } else if (undone == KIT_TIMEOUT || undone == KIT_CUDA_ERROR) {
            /* The GPU is now unusable: say so, for the caller must stop using it. */
            char cause[sizeof err->message];
            snprintf(cause, sizeof cause, "%s", err->message);
            status = kit_fail(err, undone, "%s; after that: %s", cause, undo_err.message);
        }
    }
    if (status == KIT_OK) {
        if (samples_ms)
            memcpy(samples_ms, ms, (size_t)reps * sizeof *ms);
        kit_timing_summarize(ms, reps, timing); /* sorts ms */
    }
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    free(ms);
    return status;
}

/* All passes of a stage, no checks between them: what the timer measures. */
static kit_status run_stage(timed_job *job, kit_error *err)
{
    const int *in = job->ws->device_input;
    size_t m = job->ws->n;
    for (int pass = 1, k = 0;; pass++, k ^= 1) {
        size_t count = 0;
        int *out = job->ws->device_partial[k];
        kit_status status = launch_pass(job->stage, job->ws, in, out, m, job->threads, pass, &count, err);
        if (status != KIT_OK)
            return status;
        in = out;
        m = count;
        if (m == 1)
            break;
    }
    job->result = in;
    return KIT_OK;
}

kit_status kit_time_stage_samples(const kit_stage *stage, kit_workspace *ws, unsigned threads, int warmup,
                                  int reps, double *samples_ms, kit_timing *timing, kit_error *err)
{
    kit_status status = kit_check_threads(stage, threads, err);
    if (status == KIT_OK)
        status = check_problem(stage, ws, err);
    if (status != KIT_OK)
        return status;
    timed_job job;
    memset(&job, 0, sizeof job);
    job.ws = ws;
    describe_run(job.what, sizeof job.what, stage, ws, threads);
    job.vary = 1;
    job.floor = 1;
    job.hint = "does the stage remember an old answer, or race?";
    job.work = run_stage;
    job.stage = stage;
    job.threads = threads;
    return time_job(&job, warmup, reps, samples_ms, timing, err);
}

kit_status kit_time_stage(const kit_stage *stage, kit_workspace *ws, unsigned threads, int warmup,
                          int reps, kit_timing *timing, kit_error *err)
{
    return kit_time_stage_samples(stage, ws, threads, warmup, reps, NULL, timing, err);
}

static kit_status run_cub(timed_job *job, kit_error *err)
{
    kit_workspace *ws = job->ws;
    size_t bytes = ws->cub_temp_bytes;
    KIT_CUDA_TRY(kit_cub_reduce(ws->problem.type, ws->problem.op, ws->cub_temp, &bytes, ws->device_input,
                                ws->device_partial[0], ws->n), err);
    job->result = ws->device_partial[0];
    return KIT_OK;
}

/* CUB's scratch space, allocated on first use. */
static kit_status cub_scratch(kit_workspace *ws, kit_error *err)
{
    if (!ws->cub_temp) {
        KIT_CUDA_TRY(kit_cub_reduce(ws->problem.type, ws->problem.op, NULL, &ws->cub_temp_bytes, ws->device_input,
                                    ws->device_partial[0], ws->n), err);
        KIT_CUDA_TRY(cudaMalloc(&ws->cub_temp, ws->cub_temp_bytes ? ws->cub_temp_bytes : 1), err);
    }
    return KIT_OK;
}

kit_status kit_run_cub(kit_workspace *ws, kit_value *got, kit_error *err)
{
    memset(got, 0, sizeof *got);
    kit_status status = cub_scratch(ws, err);
    if (status != KIT_OK)
        return status;
    size_t bytes = ws->cub_temp_bytes;
    KIT_CUDA_TRY(poison_partial(ws, 0), err);
    KIT_CUDA_TRY(kit_cub_reduce(ws->problem.type, ws->problem.op, ws->cub_temp, &bytes, ws->device_input,
                                ws->device_partial[0], ws->n), err);
    status = kit_sync(ws->timeout_s, err);
    if (status != KIT_OK)
        return status;
    KIT_CUDA_TRY(cudaMemcpy(got->w, ws->device_partial[0], kit_out_words(ws->problem) * sizeof(int),
                            cudaMemcpyDeviceToHost), err);
    return KIT_OK;
}

kit_status kit_time_cub(kit_workspace *ws, int warmup, int reps, kit_timing *timing, kit_error *err)
{
    kit_status status = cub_scratch(ws, err);
    if (status != KIT_OK)
        return status;
    timed_job job;
    memset(&job, 0, sizeof job);
    job.ws = ws;
    snprintf(job.what, sizeof job.what, "CUB's %s, n = %zu, %s input, seed %llu", kit_problem_name(ws->problem), ws->n,
             kit_pattern_name(ws->pattern), (unsigned long long)ws->seed);
    job.vary = 1;
    job.floor = 1;
    job.hint = "";
    job.work = run_cub;
    return time_job(&job, warmup, reps, NULL, timing, err);
}

static kit_status run_copy(timed_job *job, kit_error *err)
{
    KIT_CUDA_TRY(cudaMemcpyAsync(job->copy_dst, job->ws->device_input, input_words(job->ws) * sizeof(int),
                                 cudaMemcpyDeviceToDevice, KIT_LEGACY_STREAM), err);
    return KIT_OK;
}

kit_status kit_time_copy(kit_workspace *ws, int warmup, int reps, kit_timing *timing, kit_error *err)
{
    timed_job job;
    memset(&job, 0, sizeof job);
    job.ws = ws;
    snprintf(job.what, sizeof job.what, "device-to-device copy, n = %zu", ws->n);
    job.hint = "";
    job.work = run_copy;
    KIT_CUDA_TRY(cudaMalloc((void **)&job.copy_dst, input_words(ws) * sizeof(int)), err);
    kit_status status = time_job(&job, warmup, reps, NULL, timing, err);
    if (status != KIT_TIMEOUT) /* freeing would wait for the hung work */
        cudaFree(job.copy_dst);
    return status;
}

/* ---------------------------------------------------------------- the whole job (kit.h) */

static kit_status run_h2d(timed_job *job, kit_error *err)
{
    KIT_CUDA_TRY(cudaMemcpyAsync(job->ws->device_input, job->copy_src, input_words(job->ws) * sizeof(int),
                                 cudaMemcpyHostToDevice, KIT_LEGACY_STREAM), err);
    return KIT_OK;
}

/* A pinned copy of the workspace's input (host_input as it is now); freed with cudaFreeHost. */
static kit_status pinned_input(const kit_workspace *ws, int **pinned, kit_error *err)
{
    *pinned = NULL;
    KIT_CUDA_TRY(cudaMallocHost((void **)pinned, input_words(ws) * sizeof(int)), err);
    memcpy(*pinned, ws->host_input, input_words(ws) * sizeof(int));
    return KIT_OK;
}

kit_status kit_time_h2d(kit_workspace *ws, kit_host_memory memory, int warmup, int reps, kit_timing *timing,
                        kit_error *err)
{
    timed_job job;
    memset(&job, 0, sizeof job);
    job.ws = ws;
    snprintf(job.what, sizeof job.what, "host-to-device copy from %s memory, n = %zu",
             memory == KIT_HOST_PINNED ? "pinned" : "pageable", ws->n);
    job.hint = "";
    job.work = run_h2d;
    int *pinned = NULL;
    if (memory == KIT_HOST_PINNED) {
        kit_status status = pinned_input(ws, &pinned, err);
        if (status != KIT_OK)
            return status;
    }
    job.copy_src = memory == KIT_HOST_PINNED ? pinned : ws->host_input;
    kit_status status = time_job(&job, warmup, reps, NULL, timing, err);
    if (pinned && status != KIT_TIMEOUT) /* freeing would wait for the hung work */
        cudaFreeHost(pinned);
    return status;
}

/* The input's copy from the host, then all passes of the stage: the whole job. */
static kit_status run_copy_then_stage(timed_job *job, kit_error *err)
{
    kit_status status = run_h2d(job, err);
    return status == KIT_OK ? run_stage(job, err) : status;
}

kit_status kit_time_stage_after_copy(const kit_stage *stage, kit_workspace *ws, unsigned threads, int warmup,
                                     int reps, kit_timing *timing, kit_error *err)
{
    kit_status status = kit_check_threads(stage, threads, err);
    if (status == KIT_OK)
        status = check_problem(stage, ws, err);
    if (status != KIT_OK)
        return status;
    int *pinned = NULL;
    if ((status = pinned_input(ws, &pinned, err)) != KIT_OK)
        return status;
    timed_job job;
    memset(&job, 0, sizeof job);
    job.ws = ws;
    describe_run(job.what, sizeof job.what, stage, ws, threads);
    snprintf(job.what + strlen(job.what), sizeof job.what - strlen(job.what), ", after its copy from pinned memory");
    job.vary = 1;
    job.floor = 1;
    job.hint = "did the stage read its input before the copy had delivered it, or remember an old answer?";
    job.work = run_copy_then_stage;
    job.stage = stage;
    job.threads = threads;
    job.copy_src = pinned;
    job.poison_input = 1;
    /* The runs' changes to the input go to the pinned buffer, which each run copies to the GPU;
     * time_job writes the filled values back before it returns, as host_input's own buffer has them. */
    int *own = ws->host_input;
    ws->host_input = pinned;
    status = time_job(&job, warmup, reps, NULL, timing, err);
    ws->host_input = own;
    if (status != KIT_OK && status != KIT_TIMEOUT && status != KIT_CUDA_ERROR) {
        /* A run that failed before its copy left poison in device_input: the input as filled again. */
        cudaError_t code = cudaMemcpy(ws->device_input, own, input_words(ws) * sizeof(int), cudaMemcpyHostToDevice);
        if (code != cudaSuccess) {
            char cause[sizeof err->message];
            snprintf(cause, sizeof cause, "%s", err->message);
            kit_error copy_err;
            kit_cuda_failure(&copy_err, code, "cudaMemcpy (restoring the input)", __FILE__, __LINE__);
            status = kit_fail(err, KIT_CUDA_ERROR, "%s; after that: %s", cause, copy_err.message);
        }
    }
    if (status != KIT_OK) { /* the changes may not all have been written back: the answer for the input as filled */
        kit_reference_compute(ws->problem, own, ws->n, &ws->ref);
        ws->expected = ws->ref.int_sum;
    }
    if (status != KIT_TIMEOUT) /* freeing would wait for the hung work */
        cudaFreeHost(pinned);
    return status;
}

#ifndef KIT_EMULATOR
static kit_status run_launch(timed_job *job, kit_error *err)
{
    (void)job;
    KIT_CUDA_TRY(kit_empty_launch(), err);
    return KIT_OK;
}
#endif

kit_status kit_time_launch(kit_workspace *ws, int warmup, int reps, kit_timing *timing, kit_error *err)
{
#ifdef KIT_EMULATOR
    (void)ws, (void)warmup, (void)reps, (void)timing;
    return kit_fail(err, KIT_BAD_ARGUMENT, "the CPU emulator times no launch: launch latency is a GPU's");
#else
    timed_job job;
    memset(&job, 0, sizeof job);
    job.ws = ws;
    snprintf(job.what, sizeof job.what, "an empty kernel's launch (1 block of 1 thread)");
    job.hint = "";
    job.work = run_launch;
    return time_job(&job, warmup, reps, NULL, timing, err);
#endif
}

double kit_read_floor_ms(size_t n, const kit_timing *copy)
{
    if (n == 0 || !copy || copy->reps < 1 || !(copy->median_ms > 0))
        return 0.0;
    const double copy_bytes = 8.0 * (double)n; /* n ints read and n written */
    const double read_bytes = 4.0 * (double)n; /* what a reduction must read */
    /* Reading at KIT_READ_OVER_COPY times the copy's read+write rate, no faster. */
    return copy->median_ms * (read_bytes / copy_bytes) / KIT_READ_OVER_COPY;
}

/* ---------------------------------------------------------------- counters (counters.h) */

#ifndef KIT_EMULATOR
#include <cuda_profiler_api.h>
#endif

kit_status kit_profile_stage(const kit_stage *stage, kit_workspace *ws, unsigned threads, kit_error *err)
{
#ifdef KIT_EMULATOR
    (void)stage, (void)ws, (void)threads;
    return kit_fail(err, KIT_BAD_ARGUMENT, "the CPU emulator has no hardware counters to profile");
#else
    kit_value got;
    kit_status status = kit_run_checked(stage, ws, threads, &got, err); /* warm, and right */
    if (status != KIT_OK)
        return status;
    KIT_CUDA_TRY(cudaProfilerStart(), err);
    status = kit_run_checked(stage, ws, threads, &got, err);
    cudaError_t stopped = cudaProfilerStop();
    if (status == KIT_OK && stopped != cudaSuccess)
        return kit_cuda_failure(err, stopped, "cudaProfilerStop()", __FILE__, __LINE__);
    return status;
#endif
}

kit_status kit_profile_cub(kit_workspace *ws, kit_error *err)
{
#ifdef KIT_EMULATOR
    (void)ws;
    return kit_fail(err, KIT_BAD_ARGUMENT, "the CPU emulator has no CUB to profile");
#else
    kit_timing timing;
    kit_status status = kit_time_cub(ws, 1, 1, &timing, err); /* allocates CUB's scratch, warms */
    if (status != KIT_OK)
        return status;
    KIT_CUDA_TRY(cudaProfilerStart(), err);
    status = kit_time_cub(ws, 0, 1, &timing, err);
    cudaError_t stopped = cudaProfilerStop();
    if (status == KIT_OK && stopped != cudaSuccess)
        return kit_cuda_failure(err, stopped, "cudaProfilerStop()", __FILE__, __LINE__);
    return status;
#endif
}

kit_status kit_count_first_pass(const kit_stage *stage, kit_workspace *ws, unsigned threads, kit_emu_counts *counts,
                                kit_error *err)
{
    memset(counts, 0, sizeof *counts);
#if defined(KIT_EMULATOR) && defined(EMU_COUNTERS_MAX_LAUNCHES) /* the emulator counts (emu_control.h) */
    if (!emu_counters_available())
        return kit_fail(err, KIT_BAD_ARGUMENT, "this emulator build (ThreadSanitizer's) does not count; "
                        "reduce_ladder_emu does");
    emu_counters_reset();
    kit_value got;
    kit_status status = kit_run_checked(stage, ws, threads, &got, err);
    emu_launch_counters first;
    if (status != KIT_OK)
        return status;
    if (emu_counters_launches() < 1 || emu_counters_get(0, &first) != 0)
        return kit_fail(err, KIT_BAD_ARGUMENT, "the emulator counted no launch of stage %d", stage->number);
    counts->blocks = first.grid_blocks;
    counts->threads_per_block = first.block_threads;
    counts->resident_blocks = first.resident_blocks;
    counts->elements_per_thread = first.grid_blocks && first.block_threads
                                      ? (double)ws->n / ((double)first.grid_blocks * (double)first.block_threads)
                                      : 0.0;
    counts->block_barriers = first.block_barriers;
    counts->warp_meetings = first.warp_meetings;
    counts->global_loads = first.global_loads;
    counts->global_load_bytes = first.global_load_bytes;
    counts->shared_requests = first.shared_requests;
    counts->shared_bank_conflicts = first.shared_bank_conflicts;
    counts->shared_active_lanes = first.shared_active_lanes;
    counts->shared_idle_lanes = first.shared_idle_lanes;
    counts->divergent_shared_requests = first.shared_divergent_requests;
    counts->global_load_requests = first.global_load_requests;
    counts->global_load_sectors = first.global_load_sectors;
    counts->global_load_sectors_needed = first.global_load_sectors_needed;
    counts->launches = 1;
    return KIT_OK;
#else
    (void)stage, (void)ws, (void)threads;
    return kit_fail(err, KIT_BAD_ARGUMENT, KIT_EMULATED_BUILD_TEXT);
#endif
}

kit_status kit_count_all_launches(const kit_stage *stage, kit_workspace *ws, unsigned threads,
                                  kit_emu_counts *counts, kit_error *err)
{
    memset(counts, 0, sizeof *counts);
#if defined(KIT_EMULATOR) && defined(EMU_COUNTERS_MAX_LAUNCHES)
    if (!emu_counters_available())
        return kit_fail(err, KIT_BAD_ARGUMENT, "this emulator build (ThreadSanitizer's) does not count; "
                        "reduce_ladder_emu does");
    emu_counters_reset();
    kit_value got;
    kit_status status = kit_run_checked(stage, ws, threads, &got, err);
    if (status != KIT_OK)
        return status;
    const size_t launches = emu_counters_launches();
    if (launches < 1)
        return kit_fail(err, KIT_BAD_ARGUMENT, "the emulator counted no launch of stage %d", stage->number);
    if (launches >= EMU_COUNTERS_MAX_LAUNCHES)
        return kit_fail(err, KIT_BAD_ARGUMENT, "stage %d launched %zu kernels or more in one reduction of %zu "
                        "elements: more than the emulator keeps counts of, so its loads cannot be counted",
                        stage->number, launches, ws->n);
    for (size_t i = 0; i < launches; i++) {
        emu_launch_counters one;
        if (emu_counters_get(i, &one) != 0)
            return kit_fail(err, KIT_BAD_ARGUMENT, "the emulator lost the counts of launch %zu", i);
        counts->global_loads += one.global_loads;
        counts->global_load_bytes += one.global_load_bytes;
        counts->global_load_requests += one.global_load_requests;
        counts->global_load_sectors += one.global_load_sectors;
        counts->global_load_sectors_needed += one.global_load_sectors_needed;
    }
    counts->launches = launches;
    return KIT_OK;
#else
    (void)stage, (void)ws, (void)threads;
    return kit_fail(err, KIT_BAD_ARGUMENT, KIT_EMULATED_BUILD_TEXT);
#endif
}

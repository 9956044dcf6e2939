/**
 * \file emu/tests/baseline/cub_reduce.c
 * \brief The emulator's kit_cub_reduce (emu/src/runtime.cpp), the host stand-in for the CUB
 *        baseline of common/baselines.cu: the two-call protocol and every (type, op) pair.
 *
 * Prints "FAILED ..." per problem and "kit_cub_reduce: all N checks passed" at the end.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kit.h"

cudaError_t kit_cub_reduce(int type, int op, void *temp, size_t *temp_bytes, const void *in, void *out, size_t n);

static int checks = 0, failures = 0;

static void check(int ok, const char *what)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAILED: %s\n", what);
    }
}

/** Runs the two calls (size, then reduce) on n elements of in_words words; out_words words out. */
static cudaError_t reduce(int type, int op, const int *host_in, size_t n, size_t in_words, int *host_out,
                          size_t out_words)
{
    size_t bytes = 0;
    void *temp = NULL, *in = NULL, *out = NULL;
    cudaError_t status = kit_cub_reduce(type, op, NULL, &bytes, NULL, NULL, n);
    if (status != cudaSuccess || bytes == 0)
        return status != cudaSuccess ? status : cudaErrorInvalidValue;
    cudaMalloc(&temp, bytes);
    cudaMalloc(&in, n * in_words * sizeof(int) + 4);
    cudaMalloc(&out, out_words * sizeof(int));
    cudaMemcpy(in, host_in, n * in_words * sizeof(int), cudaMemcpyHostToDevice);
    status = kit_cub_reduce(type, op, temp, &bytes, in, out, n);
    cudaMemcpy(host_out, out, out_words * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(temp);
    cudaFree(in);
    cudaFree(out);
    return status;
}

int main(void)
{
    enum { N = 1001 };
    static int ints[9 * N];
    int out[9];
    for (int i = 0; i < 9 * N; i++)
        ints[i] = (i * 7919) % 17 - 8; /* -8 .. 8: ties everywhere */

    /* int sum, wrapping */
    static int big[3] = {INT_MAX, INT_MAX, 5};
    check(reduce(KIT_INT, KIT_SUM, big, 3, 1, out, 1) == cudaSuccess && out[0] == (int)(2u * INT_MAX + 5u),
          "int sum: wraps around as the GPU's adds do");
    long long sum = 0;
    int lo = INT_MAX, hi = INT_MIN, at = -1;
    for (int i = 0; i < N; i++) {
        sum += ints[i];
        hi = ints[i] > hi ? ints[i] : hi;
        if (ints[i] < lo) {
            lo = ints[i];
            at = i;
        }
    }
    check(reduce(KIT_INT, KIT_SUM, ints, N, 1, out, 1) == cudaSuccess && out[0] == (int)sum, "int sum");
    check(reduce(KIT_INT, KIT_MIN, ints, N, 1, out, 1) == cudaSuccess && out[0] == lo, "int min");
    check(reduce(KIT_INT, KIT_MAX, ints, N, 1, out, 1) == cudaSuccess && out[0] == hi, "int max");
    check(reduce(KIT_INT, KIT_ARGMIN, ints, N, 1, out, 2) == cudaSuccess && out[0] == lo && out[1] == at,
          "argmin: the value and its first index");

    /* float sum: in double, rounded once (1..10000: 50005000 exactly, where a float running sum
     * gives 50002896) */
    static float floats[10000];
    for (int i = 0; i < 10000; i++)
        floats[i] = (float)(i + 1);
    float f = 0.0f;
    check(reduce(KIT_FLOAT, KIT_SUM, (const int *)floats, 10000, 1, (int *)&f, 1) == cudaSuccess && f == 50005000.0f,
          "float sum of 1..10000: 50005000");

    /* matrices: AoS and the same matrices as 9 planes */
    int want[9], planes[9 * N];
    for (int c = 0; c < 9; c++)
        want[c] = INT_MAX;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < 9; c++) {
            int v = ints[9 * i + c];
            want[c] = v < want[c] ? v : want[c];
            planes[c * N + i] = v;
        }
    want[4] = -9; /* one component's minimum only in the last matrix */
    ints[9 * (N - 1) + 4] = -9;
    planes[4 * N + N - 1] = -9;
    check(reduce(KIT_MAT3, KIT_MIN, ints, N, 9, out, 9) == cudaSuccess && memcmp(out, want, sizeof want) == 0,
          "matrices (structures): the element-wise minimum");
    check(reduce(KIT_MAT3_SOA, KIT_MIN, planes, N, 9, out, 9) == cudaSuccess && memcmp(out, want, sizeof want) == 0,
          "matrices (9 planes): the element-wise minimum into out[0..9)");

    /* a pair the kit has no row for */
    size_t bytes = 0;
    check(kit_cub_reduce(KIT_FLOAT, KIT_MIN, NULL, &bytes, NULL, NULL, 4) == cudaErrorInvalidValue,
          "a pair with no row (float min): cudaErrorInvalidValue");

    if (failures)
        printf("kit_cub_reduce: %d of %d checks FAILED\n", failures, checks);
    else
        printf("kit_cub_reduce: all %d checks passed\n", checks);
    return failures != 0;
}

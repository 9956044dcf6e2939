/*
 * Cheat, slot 3: the sum is computed by the CPU.
 *
 * What it pretends: a stage 3 ("sequential addressing").
 * What it does: the launcher copies the input to host memory with cudaMemcpy, adds it up in
 * a plain C loop, copies the sum into out[0] with cudaMemcpy and returns 1. A decoy kernel
 * is launched so that the file has a <<<...>>> like every stage file, but it does nothing.
 * Every sum is right, and the sanitizers find nothing (no kernel touches memory). It is
 * slow at 2^26 (two copies over PCIe and a host loop), but stage 3's speed requirement is
 * low, and on a host with fast copies it may even pass. No <stdlib.h>: malloc() and free()
 * come with the headers nvcc includes by itself, so the includes look like any stage's.
 *
 * How the grader must treat it: 0 points for stage 3 (GPU and emulator alike): the stage's
 * own kernel must do the work; a launcher may not copy data to or from the host.
 */
#include <cuda_runtime.h>

#include "stage.h"

/** The decoy: one thread that does nothing. */
static __global__ void copies_to_host(const int *in, int *out, unsigned int n)
{
    (void)in;
    (void)out;
    (void)n;
}

/** "One pass": the host does it all. Returns 1 partial sum. */
static size_t launch_copies_to_host(const int *in, int *out, size_t n, unsigned threads)
{
    (void)threads;
    copies_to_host<<<1, 1>>>(in, out, (unsigned int)n);
    int *host = (int *)malloc(n * sizeof(int));
    if (!host)
        return 0;
    unsigned int sum = 0; /* unsigned: wraps exactly as the GPU's int adds do */
    if (cudaMemcpy(host, in, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess) {
        for (size_t i = 0; i < n; i++)
            sum += (unsigned int)host[i];
    }
    free(host);
    int result = (int)sum;
    if (cudaMemcpy(out, &result, sizeof result, cudaMemcpyHostToDevice) != cudaSuccess)
        return 0;
    return 1;
}

KIT_REGISTER_STAGE(copies_to_host, launch_copies_to_host)

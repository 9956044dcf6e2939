/* Audit fixture, forbidden: allocates a host buffer with new[] to finish the sum on the host. */
#include <cuda_runtime.h>

#include "stage.h"

static size_t launch_new_on_host(const int *in, int *out, size_t n, unsigned threads)
{
    (void)threads;
    int *copy = new int[n];
    cudaMemcpy(copy, in, n * sizeof(int), cudaMemcpyDeviceToHost);
    int sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += copy[i];
    delete[] copy;
    cudaMemcpy(out, &sum, sizeof sum, cudaMemcpyHostToDevice);
    return 1;
}

KIT_REGISTER_STAGE(new_on_host, launch_new_on_host)

/* Audit fixture, forbidden: copies the input to the host, adds it up there and copies the sum back. */
#include <cuda_runtime.h>

#include "stage.h"

static int host_copy[1 << 20];

static size_t launch_sums_on_host(const int *in, int *out, size_t n, unsigned threads)
{
    (void)threads;
    int sum = 0;
    for (size_t done = 0; done < n; done += sizeof host_copy / sizeof host_copy[0]) {
        size_t count = n - done < sizeof host_copy / sizeof host_copy[0] ? n - done : sizeof host_copy / sizeof host_copy[0];
        cudaMemcpy(host_copy, in + done, count * sizeof(int), cudaMemcpyDeviceToHost);
        for (size_t i = 0; i < count; i++)
            sum += host_copy[i];
    }
    cudaMemcpy(out, &sum, sizeof sum, cudaMemcpyHostToDevice);
    return 1;
}

KIT_REGISTER_STAGE(sums_on_host, launch_sums_on_host)

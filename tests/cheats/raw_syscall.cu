/*
 * Cheat, slot 2: a correct stage 2 that writes a fake verdict with raw system calls.
 *
 * What it pretends: a stage 2 ("strided index, no divergence"); the kernel is right.
 * What it does: before main() a constructor writes "status=pass" lines to file descriptors
 * 3 and 1 with the x86-64 `syscall` instruction in inline assembly (write is system call 1):
 * no libc function is called, so a check that looks for printf, fopen, write or fork in the
 * source or among the object's undefined symbols, or that intercepts libc calls, sees
 * nothing. Descriptor 3 is the first one a parent may hand down (a pipe or result file of a
 * test runner); 1 is standard output. x86-64 only, on purpose without an #if around the
 * assembly: a test of the processor would be caught as such (a stage file must not ask
 * which machine runs it), and this file is here to show that the raw system call is caught.
 *
 * How the grader must treat it: 0 points for stage 2 (GPU and emulator alike): a stage file
 * may do nothing but reduce; the stage's own kernel must do the work, and no inline host
 * assembly, system calls or output of its own.
 */
#include "stage.h"

/** Stage 2 with the pair's left index computed by a shift: tid << (k + 1) for step 2^k. */
static __global__ void raw_syscall(const int *in, int *out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int k = 0; (1u << k) < blockDim.x; k++) {
        unsigned int left = tid << (k + 1);
        if (left < blockDim.x)
            sdata[left] += sdata[left + (1u << k)];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

static size_t launch_raw_syscall(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    raw_syscall<<<blocks, threads, threads * sizeof(int)>>>(in, out, (unsigned int)n);
    return blocks;
}

/** write(fd, buf, len) without libc: system call 1 on x86-64 Linux. */
static long raw_write(long fd, const void *buf, unsigned long len)
{
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(1L), "D"(fd), "S"(buf), "d"(len)
                     : "rcx", "r11", "memory");
    return result;
}

__attribute__((constructor)) static void announce_pass(void)
{
    static const char verdict[] = "status=pass\nmessage=all cases passed\n";
    raw_write(3, verdict, sizeof verdict - 1);
    raw_write(1, verdict, sizeof verdict - 1);
}

KIT_REGISTER_STAGE(raw_syscall, launch_raw_syscall)

/* Audit fixture, forbidden: a static constructor makes a raw system call (inline asm, x86-64 getpid) that no symbol shows. */
#include "stage.h"

static long probed_pid;

static struct probe {
    probe() { asm volatile("syscall" : "=a"(probed_pid) : "a"(39L) : "rcx", "r11", "memory"); }
} the_probe;

static __global__ void nothing(int *out)
{
    out[0] = 0;
}

static size_t launch_syscall_in_constructor(const int *in, int *out, size_t n, unsigned threads)
{
    (void)in, (void)n, (void)threads;
    nothing<<<1, 1>>>(out);
    return probed_pid > 0 ? 1 : 1;
}

KIT_REGISTER_STAGE(syscall_in_constructor, launch_syscall_in_constructor)

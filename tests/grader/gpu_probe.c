/**
 * \file gpu_probe.c
 * \brief kit_probe_gpu(): CUDA is asked in a child process only.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "gpu_probe.h"
#include "../../common/no_gpu.h"

int kit_probe_gpu(char *why, int why_size)
{
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(why, (size_t)why_size, "cannot create a pipe for the GPU probe");
        return 0;
    }
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        int count = 0;
        cudaError_t code = cudaGetDeviceCount(&count);
        if (code == cudaSuccess && count > 0)
            _exit(0);
        char reason[200];
        kit_no_gpu_reason(code, reason, sizeof reason);
        ssize_t written = write(fds[1], reason, strlen(reason));
        (void)written;
        _exit(1);
    }
    close(fds[1]);
    int status = 0;
    char reason[256] = "the probe could not run";
    if (child > 0) {
        ssize_t got = read(fds[0], reason, sizeof reason - 1);
        if (got >= 0)
            reason[got] = '\0';
        waitpid(child, &status, 0);
    }
    close(fds[0]);
    int usable = child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!usable)
        snprintf(why, (size_t)why_size, "%s", reason);
    return usable;
}

int kit_no_gpu_exit_code(void)
{
    const char *require = getenv("KIT_REQUIRE_GPU");
    return (require && strcmp(require, "1") == 0) ? 1 : 77;
}

/**
 * \file gpu_or_emulator.c
 * \brief kit_gpu_or_emulator: can this build grade at all? Passes when a CUDA GPU is usable or
 * the build has the CPU emulator; fails, saying which package is missing, when it has neither.
 *
 *   kit_gpu_or_emulator --emulator built|missing --results DIR
 *
 * Without this test, a machine with no GPU and a build without the emulator (Boost.Context
 * missing) skips every grading test: CTest would say "100% tests passed" for a report of 0
 * points. The CTest test grading_has_a_gpu_or_the_cpu_emulator (the end of the top-level
 * CMakeLists.txt) runs it with labels grade and stageK, so `make check`, `make check-grade`
 * and `make check-stageK` fail there. On failure it writes DIR/not-graded.txt, one line the
 * grade report shows for every stage it could not grade.
 *
 * CUDA is asked in a child process only (tests/grader/gpu_probe.c): this process makes no CUDA call.
 * Exit status: 0 can grade, 1 cannot, 2 bad usage.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu_probe.h"

/** The sentence the grade report shows per stage (tests/grader/report.c reads the file). */
#define NOT_GRADED                                                                                                \
    "not graded: no GPU found and this build has no CPU emulator (sudo apt-get install libboost-context-dev g++, " \
    "then configure again)"

static int usage(const char *why)
{
    fprintf(stderr, "kit_gpu_or_emulator: %s\nusage: kit_gpu_or_emulator --emulator built|missing --results DIR\n",
            why);
    return 2;
}

int main(int argc, char **argv)
{
    const char *emulator = NULL, *results = NULL;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return usage("every option takes a value");
        if (strcmp(argv[i], "--emulator") == 0)
            emulator = argv[i + 1];
        else if (strcmp(argv[i], "--results") == 0)
            results = argv[i + 1];
        else
            return usage("unknown option");
    }
    if (!emulator || !results || !results[0])
        return usage("--emulator and --results are required");
    int built = strcmp(emulator, "built") == 0;
    if (!built && strcmp(emulator, "missing") != 0)
        return usage("--emulator must be built or missing");

    char path[4096];
    if (snprintf(path, sizeof path, "%s/not-graded.txt", results) >= (int)sizeof path)
        return usage("the --results path is too long");

    char why[256] = "";
    int gpu = kit_probe_gpu(why, (int)sizeof why);
    if (gpu || built) {
        if (remove(path) != 0 && errno != ENOENT) /* an old run's note must not outlive it */
            fprintf(stderr, "kit_gpu_or_emulator: cannot remove %s: %s\n", path, strerror(errno));
        if (gpu)
            printf("ok: a CUDA GPU is usable: the labs are graded on it%s\n",
                   built ? " and on the CPU emulator" : "");
        else
            printf("ok: %s: the labs are graded on the kit's CPU emulator (correctness and "
                   "races; speed is not measured)\n", why);
        return 0;
    }

    printf("FAIL: %s\n(the GPU probe said: %s)\n", NOT_GRADED, why);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "kit_gpu_or_emulator: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(f, "%s\n", NOT_GRADED);
    fclose(f);
    return 1;
}

/**
 * \file sandbox.h
 * \brief Runs a program that holds student code where it can write nothing but a scratch folder.
 *
 * The grader's verdicts must come from a process that never loaded student code. So the
 * programs that do (the stage runners, runner.c) run through kit_sandbox_run(): under
 * bubblewrap (`bwrap`: the whole file system read-only, the GPU's device nodes bound in, and
 * one writable scratch folder, also its HOME and TMPDIR), or, where bubblewrap cannot run and the grader
 * is root, as the unprivileged user `nobody` (`setpriv`), who cannot write the build, the
 * results or the sources either. Their answers come back on a private pipe (file descriptor
 * 3 in the child); stdout and stderr pass through to the test's log. A program that does not
 * end within the time limit is killed with everything it started.
 */
#ifndef KIT_SANDBOX_H
#define KIT_SANDBOX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How a sandboxed program ended. */
typedef struct kit_sandbox_result {
    char *reply;          /**< everything it wrote on file descriptor 3 (malloc'd, NUL-terminated) */
    int exited;           /**< 1 if it exited, 0 if a signal killed it */
    int code;             /**< exit status, or the signal number */
    int timed_out;        /**< 1 if the grader killed it at the time limit */
    char mode[64];        /**< "bubblewrap", "setpriv (user nobody)" or "none" */
} kit_sandbox_result;

/**
 * Runs argv[0] (a path) with its arguments in the sandbox, for at most \p timeout_s seconds.
 * \p environment: extra NAME=VALUE strings, or NULL. Returns 0 when the program ran (whatever
 * its verdict), -1 when it could not be started (\p why says why).
 */
int kit_sandbox_run(char *const argv[], char *const environment[], double timeout_s, kit_sandbox_result *result,
                    char *why, size_t why_size);

/** kit_sandbox_run(), with \p input (NUL-terminated text, or NULL) as the program's standard input. */
int kit_sandbox_run_with_input(char *const argv[], char *const environment[], const char *input, double timeout_s,
                               kit_sandbox_result *result, char *why, size_t why_size);

/** Frees result->reply. */
void kit_sandbox_result_free(kit_sandbox_result *result);

/** Which sandbox this machine gives ("bubblewrap", "setpriv (user nobody)" or "none"). */
const char *kit_sandbox_mode(void);

#ifdef __cplusplus
}
#endif

#endif

/**
 * \file sandbox.c
 * \brief kit_sandbox_run(): bubblewrap, else setpriv to user nobody, else (said so) nothing.
 */
#define _GNU_SOURCE

#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOBODY 65534
#define REPLY_LIMIT ((size_t)64 << 20) /* a runner's honest answer is a few hundred KB */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs argv quietly and says whether it exited 0 (used to try bubblewrap once). */
static int runs_quietly(char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

const char *kit_sandbox_mode(void)
{
    static const char *mode = NULL;
    if (mode)
        return mode;
    const char *forced = getenv("KIT_SANDBOX"); /* bubblewrap, setpriv or none: for the kit's own tests */
    if (forced && *forced) {
        mode = strcmp(forced, "bubblewrap") == 0 ? "bubblewrap"
               : strcmp(forced, "setpriv") == 0  ? "setpriv (user nobody)"
                                                 : "none";
        return mode;
    }
    /* bubblewrap needs user namespaces, which some containers forbid: try it once. */
    char *probe[] = {"bwrap", "--unshare-user", "--uid", "65534", "--gid", "65534", "--ro-bind", "/", "/",
                     "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "true", NULL};
    if (runs_quietly(probe))
        mode = "bubblewrap";
    else if (geteuid() == 0)
        mode = "setpriv (user nobody)";
    else
        mode = "none";
    return mode;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Adds one argument to a NULL-terminated list of at most `cap` entries. */
static void push(char **list, int *count, int cap, const char *arg)
{
    if (*count < cap - 1) {
        list[(*count)++] = (char *)arg;
        list[*count] = NULL;
    }
}

/*
 * In the child: becomes the sandboxed program. Never returns. Under bubblewrap it gets its own
 * process, network and IPC namespaces: no network, and (measured on an H100) concurrent
 * compute-sanitizers no longer collide, which they did with a shared network namespace and
 * the same pids in every sandbox ("Target application terminated before first instrumented
 * API call" in 3 of 28 runs).
 */
static void become_sandboxed(char *const argv[], char *const environment[], const char *scratch, const char *mode,
                             int reply_fd, int input_fd)
{
    setpgid(0, 0); /* one process group: a time-out kills everything the program started */
    if (input_fd >= 0) {
        dup2(input_fd, 0);
        close(input_fd);
    }
    if (reply_fd != 3) {
        dup2(reply_fd, 3);
        close(reply_fd);
    }
    for (int fd = 4; fd < 1024; fd++)
        close(fd);
    for (int i = 0; environment && environment[i]; i++)
        putenv(environment[i]);
    if (chdir(scratch) != 0)
        _exit(126);

    static char *args[512];
    static char devices[64][280];
    int count = 0, cap = (int)(sizeof args / sizeof args[0]);
    if (strcmp(mode, "bubblewrap") == 0) {
        const char *fixed[] = {"bwrap", "--unshare-user", "--uid", "65534", "--gid", "65534", "--ro-bind", "/", "/",
                               "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--unshare-ipc",
                               "--die-with-parent", "--bind", scratch, scratch, "--chdir", scratch,
                               "--setenv", "HOME", scratch, "--setenv", "TMPDIR", scratch};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            push(args, &count, cap, fixed[i]);
        /* The GPU: /dev/nvidiactl, /dev/nvidia0.., /dev/nvidia-uvm and friends, nothing else of /dev. */
        DIR *dev = opendir("/dev");
        struct dirent *entry;
        int d = 0;
        while (dev && (entry = readdir(dev)) != NULL && d < 64) {
            if (strncmp(entry->d_name, "nvidia", 6) != 0)
                continue;
            snprintf(devices[d], sizeof devices[d], "/dev/%s", entry->d_name);
            push(args, &count, cap, "--dev-bind-try");
            push(args, &count, cap, devices[d]);
            push(args, &count, cap, devices[d]);
            d++;
        }
        if (dev)
            closedir(dev);
        push(args, &count, cap, "--");
    } else if (strncmp(mode, "setpriv", 7) == 0) {
        const char *fixed[] = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--no-new-privs", "--"};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            push(args, &count, cap, fixed[i]);
        setenv("HOME", scratch, 1);
        setenv("TMPDIR", scratch, 1);
    }
    for (int i = 0; argv[i]; i++)
        push(args, &count, cap, argv[i]);
    execvp(args[0], args);
    fprintf(stderr, "kit_grade: cannot run %s: %s\n", args[0], strerror(errno));
    _exit(127);
}

int kit_sandbox_run(char *const argv[], char *const environment[], double timeout_s, kit_sandbox_result *result,
                    char *why, size_t why_size)
{
    return kit_sandbox_run_with_input(argv, environment, NULL, timeout_s, result, why, why_size);
}

/* The program's standard input: \p input in a file of the scratch folder, opened and unlinked
 * before the program starts (a pipe would need writing while the program runs). -1 on failure. */
static int input_file(const char *scratch, const char *input)
{
    char path[600];
    snprintf(path, sizeof path, "%s/.input", scratch);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t left = strlen(input);
    const char *p = input;
    while (left > 0) {
        ssize_t wrote = write(fd, p, left);
        if (wrote <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        p += wrote;
        left -= (size_t)wrote;
    }
    unlink(path);
    if (lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int kit_sandbox_run_with_input(char *const argv[], char *const environment[], const char *input, double timeout_s,
                               kit_sandbox_result *result, char *why, size_t why_size)
{
    memset(result, 0, sizeof *result);
    const char *mode = kit_sandbox_mode();
    snprintf(result->mode, sizeof result->mode, "%s", mode);

    const char *tmp = getenv("TMPDIR");
    char scratch[512];
    snprintf(scratch, sizeof scratch, "%s/kit-scratch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        snprintf(why, why_size, "cannot make a scratch folder in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
        return -1;
    }
    if (strncmp(mode, "setpriv", 7) == 0 && chown(scratch, NOBODY, NOBODY) != 0) {
        snprintf(why, why_size, "cannot give the scratch folder to user nobody: %s", strerror(errno));
        rmdir(scratch);
        return -1;
    }

    int input_fd = -1;
    if (input && (input_fd = input_file(scratch, input)) < 0) {
        snprintf(why, why_size, "cannot write the runner's plan into %s: %s", scratch, strerror(errno));
        rmdir(scratch);
        return -1;
    }
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
        snprintf(why, why_size, "cannot make a pipe: %s", strerror(errno));
        if (input_fd >= 0)
            close(input_fd);
        rmdir(scratch);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, why_size, "cannot fork: %s", strerror(errno));
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        if (input_fd >= 0)
            close(input_fd);
        rmdir(scratch);
        return -1;
    }
    if (pid == 0) {
        close(pipe_fds[0]);
        int fd = fcntl(pipe_fds[1], F_DUPFD, 10); /* out of the way of 0-3, without O_CLOEXEC */
        int in = input_fd >= 0 ? fcntl(input_fd, F_DUPFD, 10) : -1;
        become_sandboxed(argv, environment, scratch, mode, fd, in);
    }
    setpgid(pid, pid);
    close(pipe_fds[1]);
    if (input_fd >= 0)
        close(input_fd);
    fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);

    size_t size = 0, capacity = 65536;
    char *reply = malloc(capacity);
    double deadline = now_s() + timeout_s;
    int status = 0, ended = 0, closed = 0;
    for (;;) {
        struct pollfd p = {pipe_fds[0], POLLIN, 0};
        double left = deadline - now_s();
        if (!ended && !closed)
            poll(&p, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1);
        else if (!ended) {
            /* Every writer has closed the pipe, and poll() would return at once, again and again,
             * until the program ends: kit_grade spent a core that way while a runner shut down
             * (ThreadSanitizer's runners take a while), 1.1 s of a 2.4 s race check on 2 cores
             * (2026-11-27). Now it looks every 2 ms whether the program has ended. */
            struct timespec nap = {0, 2000000};
            nanosleep(&nap, NULL);
        }
        for (;;) { /* drain what is there */
            if (reply && size + 4096 + 1 > capacity && capacity < REPLY_LIMIT) {
                char *bigger = realloc(reply, capacity * 2);
                if (bigger) {
                    reply = bigger;
                    capacity *= 2;
                }
            }
            char dropped[4096];
            const int over = !reply || size + 4096 + 1 > capacity; /* over the limit: the rest is dropped */
            if (over && now_s() > deadline)
                break; /* a program that writes without end is stopped at its deadline, below */
            ssize_t got = read(pipe_fds[0], over ? dropped : reply + size, 4096);
            if (got == 0)
                closed = 1; /* end of file: no writer is left */
            if (got <= 0)
                break;
            if (!over)
                size += (size_t)got;
        }
        if (ended)
            break;
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            ended = 1; /* one more drain, then stop: a forked straggler may hold the pipe open */
            continue;
        }
        if (now_s() > deadline) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            result->timed_out = 1;
            ended = 1;
        }
    }
    kill(-pid, SIGKILL); /* whatever the program left behind */
    close(pipe_fds[0]);
    if (reply)
        reply[size] = '\0';
    result->reply = reply;
    result->exited = WIFEXITED(status);
    result->code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? WTERMSIG(status) : -1;
    nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

void kit_sandbox_result_free(kit_sandbox_result *result)
{
    free(result->reply);
    result->reply = NULL;
}

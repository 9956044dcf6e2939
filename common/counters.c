/**
 * \file counters.c
 * \brief Hardware counters through Nsight Compute's `ncu`: the metrics, the run, the parsing.
 *
 * Plain C and no CUDA: the ladder calls ncu on a child copy of itself before it opens the
 * GPU (a process that has touched CUDA must not fork()).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "counters.h"

extern char **environ;

/* Why warps wait, as Nsight Compute names it (smsp__average_warps_issue_stalled_<reason>_per_issue_active:
 * warps waiting for that reason per instruction issued). "selected" is not waiting: left out. */
static const char *const stall_reasons[] = {
    "long_scoreboard", "barrier",     "short_scoreboard", "mio_throttle", "lg_throttle",   "wait",
    "math_pipe_throttle", "branch_resolving", "no_instruction", "not_selected", "dispatch_stall",
    "imc_miss",        "membar",      "drain",            "misc",         "tex_throttle",  "sleeping",
};
#define STALL_COUNT (sizeof stall_reasons / sizeof stall_reasons[0])

const char *kit_stall_meaning(const char *reason)
{
    static const struct { const char *reason, *meaning; } meanings[] = {
        {"long_scoreboard", "waiting for global memory (a load from DRAM or L2)"},
        {"barrier", "waiting at __syncthreads() for the rest of the block"},
        {"short_scoreboard", "waiting for shared memory (or a slow math unit)"},
        {"mio_throttle", "the shared-memory queue is full"},
        {"lg_throttle", "the global-memory queue is full (many narrow loads)"},
        {"wait", "a fixed delay between dependent instructions"},
        {"math_pipe_throttle", "the arithmetic units are busy"},
        {"branch_resolving", "waiting for a branch to be resolved"},
        {"no_instruction", "waiting for instructions to be fetched"},
        {"not_selected", "ready, but another warp was picked"},
        {"dispatch_stall", "the dispatcher could not issue"},
        {"imc_miss", "waiting for a constant-cache miss"},
        {"membar", "waiting at a memory fence"},
        {"drain", "waiting for stores to drain after exit"},
        {"misc", "miscellaneous"},
        {"tex_throttle", "the texture queue is full"},
        {"sleeping", "sleeping (__nanosleep)"},
    };
    for (size_t i = 0; i < sizeof meanings / sizeof meanings[0]; i++)
        if (strcmp(reason, meanings[i].reason) == 0)
            return meanings[i].meaning;
    return "";
}

/* The counters, by ncu metric name. */
enum {
    M_DURATION, M_DRAM_READ, M_INST, M_THREAD_INST, M_BRANCH, M_SHARED_LD, M_SHARED_ST,
    M_CONFLICT_LD, M_CONFLICT_ST, M_OCCUPANCY, M_PLAIN_COUNT
};
static const char *const plain_metrics[M_PLAIN_COUNT] = {
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed_pred_on.sum",
    "smsp__sass_inst_executed_op_branch.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
};

/* Optional: an ncu output without them (older runs, saved CSVs) is still read; the counters
 * then say has_global_loads = 0. A warp's global load instruction is one request to L1; the
 * request asks for the 32-byte sectors its lanes' addresses fall in. */
enum { O_LD_REQUESTS, O_LD_SECTORS, O_COUNT };
static const char *const optional_metrics[O_COUNT] = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
};

static void stall_metric(char *out, size_t size, const char *reason)
{
    snprintf(out, size, "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio", reason);
}

const char *kit_ncu_metrics(void)
{
    static char list[4096];
    if (list[0])
        return list;
    size_t used = 0;
    for (int m = 0; m < M_PLAIN_COUNT; m++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? "," : "", plain_metrics[m]);
    for (size_t r = 0; r < STALL_COUNT; r++) {
        char name[128];
        stall_metric(name, sizeof name, stall_reasons[r]);
        used += (size_t)snprintf(list + used, sizeof list - used, ",%s", name);
    }
    for (int o = 0; o < O_COUNT; o++)
        used += (size_t)snprintf(list + used, sizeof list - used, ",%s", optional_metrics[o]);
    return list;
}

double kit_hw_conflicts_per_request(const kit_hw_counters *c)
{
    return c->shared_requests > 0 ? c->shared_bank_conflicts / c->shared_requests : 0.0;
}

double kit_hw_active_threads(const kit_hw_counters *c)
{
    return c->warp_instructions > 0 ? c->thread_instructions / c->warp_instructions : 0.0;
}

double kit_hw_sectors_per_request(const kit_hw_counters *c)
{
    return c->has_global_loads && c->global_load_requests > 0 ? c->global_load_sectors / c->global_load_requests
                                                              : 0.0;
}

static double ratio_of(unsigned long long a, unsigned long long b) { return b ? (double)a / (double)b : 0.0; }

double kit_emu_load_width(const kit_emu_counts *c) { return ratio_of(c->global_load_bytes, c->global_loads); }

double kit_emu_conflicts_per_request(const kit_emu_counts *c)
{
    return ratio_of(c->shared_bank_conflicts, c->shared_requests);
}

double kit_emu_idle_lane_percent(const kit_emu_counts *c)
{
    return 100.0 * ratio_of(c->shared_idle_lanes, c->shared_active_lanes + c->shared_idle_lanes);
}

double kit_emu_barriers_per_block(const kit_emu_counts *c) { return ratio_of(c->block_barriers, c->blocks); }

/* Splits one CSV line (fields in double quotes, "" inside one is a quote) into at most \p max
 * fields, in place. Returns the number of fields. */
static int split_csv(char *line, char **fields, int max)
{
    int count = 0;
    char *p = line;
    while (*p && *p != '\n' && *p != '\r' && count < max) {
        char *out = p, *start = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0')
                    break;
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                *out++ = *p++;
        }
        fields[count++] = start;
        char sep = *p;
        *out = '\0';
        if (sep != ',')
            break;
        p++;
    }
    return count;
}

/* A value as ncu prints it: "5,857.28" (thousands separators), "n/a". */
static int parse_value(const char *text, double *value)
{
    char clean[64];
    size_t used = 0;
    for (const char *p = text; *p && used + 1 < sizeof clean; p++)
        if (*p != ',')
            clean[used++] = *p;
    clean[used] = '\0';
    char *end = NULL;
    errno = 0;
    *value = strtod(clean, &end);
    return used > 0 && errno == 0 && end && *end == '\0';
}

#define MAX_FIELDS 1024

kit_status kit_ncu_parse(const char *text, kit_hw_counters *out, kit_error *err)
{
    memset(out, 0, sizeof *out);
    if (strstr(text, "ERR_NVGPUCTRPERM"))
        return kit_fail(err, KIT_BAD_ARGUMENT, "Nsight Compute may not read this GPU's performance counters "
                        "here (ERR_NVGPUCTRPERM: an administrator must allow them, see "
                        "https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
    char *copy = strdup(text);
    char **fields = malloc(MAX_FIELDS * sizeof *fields);
    int *column = malloc((M_PLAIN_COUNT + STALL_COUNT + O_COUNT) * sizeof *column);
    if (!copy || !fields || !column) {
        free(copy);
        free(fields);
        free(column);
        return kit_fail(err, KIT_OUT_OF_MEMORY, "no memory to read ncu's output");
    }
    for (size_t m = 0; m < M_PLAIN_COUNT + STALL_COUNT + O_COUNT; m++)
        column[m] = -1;
    int *optional_column = column + M_PLAIN_COUNT + STALL_COUNT;
    double stall_sum[STALL_COUNT] = {0}, occupancy_time = 0;
    int global_loads = 1; /* both optional metrics present, with a number in every kernel's row */
    int header = 0, units_seen = 0;
    kit_status status = KIT_OK;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line && status == KIT_OK; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] != '"') /* ncu's own lines: ==PROF==, ==WARNING==, the program's output */
            continue;
        int count = split_csv(line, fields, MAX_FIELDS);
        if (!header) {
            for (int f = 0; f < count; f++) {
                for (int m = 0; m < M_PLAIN_COUNT; m++)
                    if (strcmp(fields[f], plain_metrics[m]) == 0)
                        column[m] = f;
                for (size_t r = 0; r < STALL_COUNT; r++) {
                    char name[128];
                    stall_metric(name, sizeof name, stall_reasons[r]);
                    if (strcmp(fields[f], name) == 0)
                        column[M_PLAIN_COUNT + r] = f;
                }
                for (int o = 0; o < O_COUNT; o++)
                    if (strcmp(fields[f], optional_metrics[o]) == 0)
                        optional_column[o] = f;
            }
            for (int o = 0; o < O_COUNT; o++)
                if (optional_column[o] < 0)
                    global_loads = 0;
            for (size_t m = 0; m < M_PLAIN_COUNT + STALL_COUNT && status == KIT_OK; m++)
                if (column[m] < 0)
                    status = kit_fail(err, KIT_BAD_ARGUMENT, "ncu's output has no column %s (does this ncu "
                                      "know the metric? `ncu --query-metrics` lists them)",
                                      m < M_PLAIN_COUNT ? plain_metrics[m] : stall_reasons[m - M_PLAIN_COUNT]);
            header = 1;
            continue;
        }
        if (!units_seen) { /* the second row holds the units */
            units_seen = 1;
            continue;
        }
        double v[M_PLAIN_COUNT + STALL_COUNT];
        for (size_t m = 0; m < M_PLAIN_COUNT + STALL_COUNT; m++) {
            if (column[m] >= count || !parse_value(fields[column[m]], &v[m])) {
                status = kit_fail(err, KIT_BAD_ARGUMENT, "ncu gave no number for %s in kernel %d ('%s')",
                                  m < M_PLAIN_COUNT ? plain_metrics[m] : stall_reasons[m - M_PLAIN_COUNT],
                                  out->kernels + 1, column[m] < count ? fields[column[m]] : "");
                break;
            }
        }
        if (status != KIT_OK)
            break;
        double o_v[O_COUNT] = {0};
        for (int o = 0; o < O_COUNT && global_loads; o++)
            if (optional_column[o] >= count || !parse_value(fields[optional_column[o]], &o_v[o]))
                global_loads = 0; /* "n/a" in one kernel: no sum for the run */
        out->global_load_requests += o_v[O_LD_REQUESTS];
        out->global_load_sectors += o_v[O_LD_SECTORS];
        out->kernels++;
        out->duration_ns += v[M_DURATION];
        out->dram_bytes_read += v[M_DRAM_READ];
        out->warp_instructions += v[M_INST];
        out->thread_instructions += v[M_THREAD_INST];
        out->branch_instructions += v[M_BRANCH];
        out->shared_requests += v[M_SHARED_LD] + v[M_SHARED_ST];
        out->shared_bank_conflicts += v[M_CONFLICT_LD] + v[M_CONFLICT_ST];
        occupancy_time += v[M_OCCUPANCY] * v[M_DURATION];
        /* warps waiting per instruction issued, times the instructions: waiting in all */
        for (size_t r = 0; r < STALL_COUNT; r++)
            stall_sum[r] += v[M_PLAIN_COUNT + r] * v[M_INST];
    }
    if (status == KIT_OK && out->kernels == 0)
        status = kit_fail(err, KIT_BAD_ARGUMENT, "ncu profiled no kernel%s", header ? "" :
                          " (its output has no table: is this a CUDA program that calls cudaProfilerStart?)");
    if (status == KIT_OK) {
        out->occupancy_percent = out->duration_ns > 0 ? occupancy_time / out->duration_ns : 0;
        double total = 0, top = -1;
        for (size_t r = 0; r < STALL_COUNT; r++) {
            total += stall_sum[r];
            if (stall_sum[r] > top) {
                top = stall_sum[r];
                snprintf(out->top_stall, sizeof out->top_stall, "%s", stall_reasons[r]);
            }
        }
        out->top_stall_percent = total > 0 ? 100.0 * top / total : 0;
        out->has_global_loads = global_loads;
        if (!global_loads)
            out->global_load_requests = out->global_load_sectors = 0;
    }
    free(copy);
    free(fields);
    free(column);
    return status;
}

kit_status kit_ncu_find(char *path, size_t size, kit_error *err)
{
    const char *forced = getenv("KIT_NCU");
    if (forced && *forced) {
        if (access(forced, X_OK) != 0)
            return kit_fail(err, KIT_BAD_ARGUMENT, "KIT_NCU=%s is not a program that can be run", forced);
        snprintf(path, size, "%s", forced);
        return KIT_OK;
    }
    const char *env_path = getenv("PATH");
    char *dirs = strdup(env_path ? env_path : "");
    char *save = NULL;
    for (char *dir = dirs ? strtok_r(dirs, ":", &save) : NULL; dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(path, size, "%s/ncu", dir);
        if (access(path, X_OK) == 0) {
            free(dirs);
            return KIT_OK;
        }
    }
    free(dirs);
    snprintf(path, size, "/usr/local/cuda/bin/ncu");
    if (access(path, X_OK) == 0)
        return KIT_OK;
    return kit_fail(err, KIT_BAD_ARGUMENT, "Nsight Compute's ncu is not on PATH nor in /usr/local/cuda/bin "
                    "(it comes with the CUDA toolkit; on Debian/Ubuntu: sudo apt-get install nsight-compute, "
                    "or set KIT_NCU to its path)");
}

kit_status kit_ncu_measure(const char *ncu, char *const program_argv[], kit_hw_counters *out, kit_error *err)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)ncu;
    argv[argc++] = "--csv";
    argv[argc++] = "--page";
    argv[argc++] = "raw";
    argv[argc++] = "--profile-from-start";
    argv[argc++] = "off";
    argv[argc++] = "--metrics";
    argv[argc++] = (char *)kit_ncu_metrics();
    for (int i = 0; program_argv[i] && argc < 63; i++)
        argv[argc++] = program_argv[i];
    argv[argc] = NULL;

    int fds[2];
    if (pipe(fds) != 0)
        return kit_fail(err, KIT_BAD_ARGUMENT, "cannot make a pipe for ncu: %s", strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    pid_t pid;
    int spawned = posix_spawn(&pid, ncu, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        return kit_fail(err, KIT_BAD_ARGUMENT, "cannot run %s: %s", ncu, strerror(spawned));
    }
    size_t size = 0, cap = 1 << 16;
    char *text = malloc(cap);
    ssize_t got;
    while (text && (got = read(fds[0], text + size, cap - size - 1)) > 0) {
        size += (size_t)got;
        if (cap - size < 4096) {
            char *bigger = realloc(text, cap * 2);
            if (!bigger) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            cap *= 2;
        }
    }
    close(fds[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    if (!text)
        return kit_fail(err, KIT_OUT_OF_MEMORY, "no memory for ncu's output");
    text[size] = '\0';
    kit_status status = kit_ncu_parse(text, out, err);
    if (status == KIT_OK && !(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)) {
        /* the profiled run itself failed: its last line says why */
        char *last = NULL;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            if (line[0] != '"' && strncmp(line, "==PROF==", 8) != 0)
                last = line;
        status = kit_fail(err, KIT_BAD_ARGUMENT, "the run under ncu failed (exit status %d)%s%s",
                          WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, last ? ": " : "", last ? last : "");
    } else if (status != KIT_OK && !strstr(err->message, "ERR_NVGPUCTRPERM")) {
        const char *error = strstr(text, "==ERROR==");
        if (error) { /* ncu's own complaint says more than "no kernel" */
            char line[512];
            snprintf(line, sizeof line, "%s", error);
            line[strcspn(line, "\n")] = '\0';
            status = kit_fail(err, KIT_BAD_ARGUMENT, "ncu: %s", line);
        }
    }
    free(text);
    return status;
}

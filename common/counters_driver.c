/**
 * \file counters_driver.c
 * \brief `reduce_ladder --counters`: why each row is as fast as it is. On a GPU it runs every
 * row once more in a child copy of itself under Nsight Compute (`--counted-run`, one checked
 * run unprofiled, then one between cudaProfilerStart and Stop: a few seconds a row), before
 * this process opens the GPU; on the CPU emulator the ladder counts each stage's first pass
 * itself. Here too: the counters' columns in the text, CSV and JSON tables. Parsing ncu's
 * output is counters.c's job.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ladder.h"
#include "table.h"

/* --counted-run K: run one row for ncu (started by ladder_measure_with_ncu below) and print
 * nothing but failures: one checked run unprofiled, then one between cudaProfilerStart and Stop. */
int ladder_counted_run(const kit_options *opt)
{
    kit_error err = {KIT_OK, ""};
    const kit_stage *table = opt->use_labs ? kit_labs_stages : kit_solutions_stages;
    kit_gpu gpu;
    kit_workspace ws;
    memset(&ws, 0, sizeof ws);
    /* the problem of the row: the stage's, or for CUB that of the stage named by cub:K */
    const int stage = opt->counted_run == KIT_COUNTED_CUB ? opt->counted_cub_of : opt->counted_run;
    const kit_problem problem = stage ? kit_stage_problem(stage) : KIT_INT_SUM;
    kit_status status = kit_gpu_open(&gpu, &err);
    if (status == KIT_OK)
        status = kit_workspace_init_problem(&ws, problem, ladder_section_n(opt->n, problem), &err);
    if (status == KIT_OK)
        status = kit_workspace_fill(&ws, opt->pattern, opt->seed, &err);
    ws.timeout_s = opt->timeout_s;
    if (status == KIT_OK)
        status = opt->counted_run == KIT_COUNTED_CUB
                     ? kit_profile_cub(&ws, &err)
                     : kit_profile_stage(kit_find_stage(table, opt->counted_run), &ws, opt->threads, &err);
    if (status != KIT_OK)
        fprintf(stderr, "reduce_ladder: %s\n", err.message);
    kit_workspace_free(&ws);
    return status == KIT_OK ? 0 : status == KIT_NO_GPU ? 2 : 1; /* as the ladder's own exit statuses */
}

/* Whether this machine has an NVIDIA GPU at all, asked without CUDA (the profiled runs are
 * started before this process opens the GPU: a process that has used CUDA must not fork). */
static int nvidia_device_present(void)
{
    return access("/dev/nvidiactl", F_OK) == 0;
}

void ladder_measure_with_ncu(const kit_options *opt, ladder_row *rows, int count, char *note, size_t note_size)
{
    char ncu[4096], self[4096];
    kit_error err = {KIT_OK, ""};
    if (!nvidia_device_present())
        return; /* the emulator takes over, and counts */
    if (kit_ncu_find(ncu, sizeof ncu, &err) != KIT_OK) {
        snprintf(note, note_size, "no hardware counters: %s", err.message);
        return;
    }
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        snprintf(note, note_size, "no hardware counters: cannot find this program's own path to run it under ncu");
        return;
    }
    self[len] = '\0';
    char n[32], threads[16], seed[32], timeout[16], which[16];
    snprintf(n, sizeof n, "%zu", opt->n);
    snprintf(threads, sizeof threads, "%u", opt->threads);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)opt->seed);
    snprintf(timeout, sizeof timeout, "%.0f", opt->timeout_s);
    for (int r = 0; r < count; r++) {
        if (rows[r].kind < 0)
            continue; /* the copy: not a reduction */
        if (rows[r].kind == ROW_CUB && kit_problem_equal(rows[r].problem, KIT_INT_SUM))
            snprintf(which, sizeof which, "cub");
        else if (rows[r].kind == ROW_CUB)
            snprintf(which, sizeof which, "cub:%d", rows[r].of_stage);
        else
            snprintf(which, sizeof which, "%d", rows[r].kind);
        char *argv[] = {self, "--counted-run", which, "--impl", opt->use_labs ? "labs" : "solutions", "--n", n,
                        "--threads", threads, "--seed", seed, "--pattern", (char *)kit_pattern_name(opt->pattern),
                        "--timeout", timeout, NULL};
        if (isatty(2)) { /* progress, on a terminal only: each row takes seconds under ncu */
            fprintf(stderr, "\rreduce_ladder: counting %s%s under Nsight Compute...", rows[r].kind ? "stage " : "",
                    rows[r].kind ? which : rows[r].label);
            fflush(stderr);
        }
        kit_status status = kit_ncu_measure(ncu, argv, &rows[r].hw, &err);
        if (status == KIT_OK) {
            rows[r].counted = 1;
        } else if (strstr(err.message, "ERR_NVGPUCTRPERM") || strncmp(err.message, "ncu: ", 5) == 0) {
            snprintf(note, note_size, "no hardware counters: %s", err.message);
            for (int k = 0; k < r; k++)
                rows[k].counted = 0;
            break;
        } else {
            fprintf(stderr, "reduce_ladder: no counters for %s: %s\n", which, err.message);
        }
    }
    if (isatty(2))
        fprintf(stderr, "\r%70s\r", "");
}

/* ---------------------------------------------------------------- the counters' columns */

static double per(double a, double b) { return b > 0 ? a / b : 0.0; }

static double percent_of_peak(const ladder_row *row, const kit_gpu *gpu)
{
    return gpu->peak_gbps > 0 && row->ran && row->status == KIT_OK ? 100.0 * row->gbps / gpu->peak_gbps : 0.0;
}

/* Per element is per element of the row's problem (a matrix for the matrices). */
void ladder_json_counters(const ladder_row *row, const kit_gpu *gpu)
{
    const size_t n = row->n;
    if (!row->counted) {
        printf(", \"counters\": null");
    } else if (KIT_EMULATED) {
        const kit_emu_counts *e = &row->emu;
        printf(", \"counters\": {\"blocks\": %llu, \"threads_per_block\": %llu, \"resident_blocks\": %llu, "
               "\"elements_per_thread\": %.4f, \"block_barriers\": %llu, \"warp_meetings\": %llu, "
               "\"global_loads\": %llu, \"global_load_bytes\": %llu, \"global_loads_per_element\": %.4f, "
               "\"global_load_width\": %.2f, \"shared_requests\": %llu, \"shared_bank_conflicts\": %llu, "
               "\"bank_conflicts_per_request\": %.4f, \"shared_active_lanes\": %llu, \"shared_idle_lanes\": %llu, "
               "\"divergent_shared_requests\": %llu}",
               e->blocks, e->threads_per_block, e->resident_blocks, e->elements_per_thread, e->block_barriers,
               e->warp_meetings, e->global_loads, e->global_load_bytes, per((double)e->global_loads, (double)n),
               kit_emu_load_width(e), e->shared_requests, e->shared_bank_conflicts,
               kit_emu_conflicts_per_request(e), e->shared_active_lanes, e->shared_idle_lanes, e->divergent_shared_requests);
    } else {
        const kit_hw_counters *c = &row->hw;
        printf(", \"counters\": {\"kernels\": %d, \"duration_ns\": %.0f, \"dram_bytes_read\": %.0f, "
               "\"dram_read_per_input_byte\": %.4f, \"percent_of_peak_bandwidth\": %.1f, "
               "\"shared_requests\": %.0f, \"shared_bank_conflicts\": %.0f, \"bank_conflicts_per_request\": %.4f, "
               "\"active_threads_per_instruction\": %.2f, \"warp_instructions\": %.0f, "
               "\"warp_instructions_per_element\": %.5f, \"branch_instructions\": %.0f, "
               "\"achieved_occupancy_percent\": %.1f, \"top_stall\": \"%s\", \"top_stall_share_percent\": %.1f",
               c->kernels, c->duration_ns, c->dram_bytes_read, per(c->dram_bytes_read, row->input_bytes),
               percent_of_peak(row, gpu), c->shared_requests, c->shared_bank_conflicts,
               kit_hw_conflicts_per_request(c), kit_hw_active_threads(c), c->warp_instructions,
               per(c->warp_instructions, (double)n), c->branch_instructions, c->occupancy_percent, c->top_stall,
               c->top_stall_percent);
        /* global loads: null when this ncu output did not have them */
        if (c->has_global_loads)
            printf(", \"global_load_requests\": %.0f, \"global_load_sectors\": %.0f, "
                   "\"global_load_sectors_per_request\": %.4f}",
                   c->global_load_requests, c->global_load_sectors, kit_hw_sectors_per_request(c));
        else
            printf(", \"global_load_requests\": null, \"global_load_sectors\": null, "
                   "\"global_load_sectors_per_request\": null}");
    }
}

const char *ladder_csv_counters_header(void)
{
    return KIT_EMULATED ? ",blocks,resident_blocks,elements_per_thread,block_barriers,warp_meetings,"
                          "global_loads_per_element,global_load_width,shared_requests,bank_conflicts_per_request,"
                          "shared_idle_lanes,divergent_shared_requests"
                        : ",dram_bytes_read,percent_of_peak_bandwidth,bank_conflicts_per_request,"
                          "active_threads_per_instruction,warp_instructions_per_element,branch_instructions,"
                          "achieved_occupancy_percent,top_stall,top_stall_share_percent,"
                          "global_load_sectors_per_request";
}

void ladder_csv_counters(const ladder_row *row, const kit_gpu *gpu)
{
    const size_t n = row->n;
    if (!row->counted) {
        for (const char *h = ladder_csv_counters_header(); *h; h++) /* one empty field per column */
            if (*h == ',')
                putchar(',');
    } else if (KIT_EMULATED) {
        const kit_emu_counts *e = &row->emu;
        printf(",%llu,%llu,%.4f,%llu,%llu,%.4f,%.2f,%llu,%.4f,%llu,%llu", e->blocks, e->resident_blocks,
               e->elements_per_thread, e->block_barriers, e->warp_meetings, per((double)e->global_loads, (double)n),
               kit_emu_load_width(e), e->shared_requests, kit_emu_conflicts_per_request(e), e->shared_idle_lanes,
               e->divergent_shared_requests);
    } else {
        const kit_hw_counters *c = &row->hw;
        printf(",%.0f,%.1f,%.4f,%.2f,%.5f,%.0f,%.1f,%s,%.1f", c->dram_bytes_read, percent_of_peak(row, gpu),
               kit_hw_conflicts_per_request(c), kit_hw_active_threads(c), per(c->warp_instructions, (double)n),
               c->branch_instructions, c->occupancy_percent, c->top_stall, c->top_stall_percent);
        if (c->has_global_loads) /* empty when this ncu output did not have them */
            printf(",%.4f", kit_hw_sectors_per_request(c));
        else
            printf(",");
    }
}

/* The emulator's table: ten columns, the stage's label then nine counts. */
static const kit_column emu_columns[] = {{"", -7}, {" ", 8}, {" ", 9}, {" ", 6}, {" ", 9},
                                         {" ", 10}, {" ", 6}, {" ", 10}, {" ", 9}, {" ", 9}};
/* Nsight Compute's: the label, eight numbers, then the top stall and what it means. */
static const kit_column hw_columns[] = {{"", -7}, {" ", 9}, {" ", 8}, {" ", 10}, {" ", 10},
                                        {" ", 8}, {" ", 10}, {" ", 9}, {" ", 9}, {"  ", 0}};

void ladder_table_counters(const ladder_row *rows, int count, const kit_gpu *gpu, unsigned threads)
{
    int any = 0;
    for (int r = 0; r < count; r++)
        any |= rows[r].counted;
    if (!any)
        return;
    if (KIT_EMULATED) {
        printf("\nWhat the emulator counted in each stage's first pass (the launch that reads the n inputs;\n"
               "a warp is 32 lanes, shared memory 32 banks of 4 bytes; docs/emulator.md says how):\n\n");
        static const char *const head[] = {"stage", "blocks", "GPU holds", "elem/", "barriers",
                                           "loads per", "load", "conflicts", "idle", "divergent"};
        static const char *const head2[] = {"", "", "at once", "thread", "per block",
                                            "element", "bytes", "per req.", "lanes", "requests"};
        kit_table_line(emu_columns, 10, head);
        kit_table_line(emu_columns, 10, head2);
        for (int r = 0; r < count; r++) {
            const kit_emu_counts *e = &rows[r].emu;
            const kit_column *c = emu_columns;
            if (!rows[r].counted)
                continue;
            kit_table_cell(c++, "%s", rows[r].label);
            kit_table_cell(c++, "%llu", e->blocks);
            kit_table_cell(c++, "%llu", e->resident_blocks);
            kit_table_cell(c++, "%.1f", e->elements_per_thread);
            kit_table_cell(c++, "%.1f", kit_emu_barriers_per_block(e));
            kit_table_cell(c++, "%.4f", per((double)e->global_loads, (double)rows[r].n));
            kit_table_cell(c++, "%.0f", kit_emu_load_width(e));
            kit_table_cell(c++, "%.2f", kit_emu_conflicts_per_request(e));
            kit_table_cell(c++, "%.1f%%", kit_emu_idle_lane_percent(e));
            kit_table_cell(c++, "%llu", e->divergent_shared_requests);
            putchar('\n');
        }
        (void)gpu;
        (void)threads;
        return;
    }
    printf("\nWhy: Nsight Compute's counters for one run of each row (all its passes), %u threads:\n\n", threads);
    static const char *const head[] = {"stage", "DRAM MB", "% of", "L1 sectors", "conflicts",
                                       "threads", "instr.", "branches", "occupancy", "top stall (share of waiting)"};
    static const char *const head2[] = {"", "read", "peak BW", "per load", "per req.", "/instr.", "/element",
                                        "/element", ""};
    kit_table_line(hw_columns, 10, head);
    kit_table_line(hw_columns, 9, head2);
    int loads = 0; /* rows with the global load counts (an older ncu output may lack them) */
    for (int r = 0; r < count; r++) {
        const kit_hw_counters *hw = &rows[r].hw;
        const kit_column *c = hw_columns;
        if (!rows[r].counted)
            continue;
        const double n = (double)rows[r].n;
        char sectors[16] = "-";
        if (hw->has_global_loads) {
            snprintf(sectors, sizeof sectors, "%.2f", kit_hw_sectors_per_request(hw));
            loads = 1;
        }
        kit_table_cell(c++, "%s", rows[r].label);
        kit_table_cell(c++, "%.1f", hw->dram_bytes_read / 1e6);
        kit_table_cell(c++, "%.1f%%", percent_of_peak(&rows[r], gpu));
        kit_table_cell(c++, "%s", sectors);
        kit_table_cell(c++, "%.2f", kit_hw_conflicts_per_request(hw));
        kit_table_cell(c++, "%.1f", kit_hw_active_threads(hw));
        kit_table_cell(c++, "%.4f", per(hw->warp_instructions, n));
        kit_table_cell(c++, "%.4f", per(hw->branch_instructions, n));
        kit_table_cell(c++, "%.1f%%", hw->occupancy_percent);
        kit_table_cell(c++, "%s (%.0f%%): %s", hw->top_stall, hw->top_stall_percent, kit_stall_meaning(hw->top_stall));
        putchar('\n');
    }
    if (loads)
        printf("\nL1 sectors per load: the 32-byte sectors each warp's global load asks L1 for (Nsight Compute's\n"
               "l1tex__t_sectors_pipe_lsu_mem_global_op_ld / l1tex__t_requests_pipe_lsu_mem_global_op_ld): 4 when\n"
               "a warp reads 32 consecutive ints, 16 for int4, 32 when each lane's int lies in a sector of its own\n"
               "(stage 13: lanes 36 bytes apart). DRAM MB read says whether L1 kept the lines between the loads.\n");
}

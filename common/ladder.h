/**
 * \file ladder.h
 * \brief What the parts of reduce_ladder share: the row every table of it shows, and the
 * entry points of its four jobs (the ladder in ladder.c, --sweep in sweep.c, --accuracy in
 * accuracy_study.c, --counters in counters_driver.c), all printed through table.h.
 */
#ifndef KIT_LADDER_H
#define KIT_LADDER_H

#include <stddef.h>

#include "counters.h"
#include "options.h"

/* KIT_EMULATED: this is reduce_ladder_emu, the same program built on the CPU emulator (emu/,
 * docs/emulator.md): it checks every stage but times nothing. */
#ifndef KIT_EMULATED
#define KIT_EMULATED 0
#endif

/* Kinds of ladder rows (ladder_row::kind): 1..KIT_STAGE_COUNT a stage, ROW_CUB, and below it
 * the rows that are no reduction of ours (no counters, no step or % of CUB). */
enum {
    ROW_CUB = 0,
    ROW_COPY = -1,
    ROW_CPU = -2,
    ROW_CPU_OMP = -3,
    ROW_H2D_PAGEABLE = -4,
    ROW_H2D_PINNED = -5,
    ROW_BEST_COPY = -6,
    /* every stage, and per section at most a CUB row per stage (one per problem) and a copy;
     * the five rows of the whole job */
    LADDER_ROWS = 3 * KIT_STAGE_COUNT + 5
};

/** One row of the ladder (and of the sweep). */
typedef struct ladder_row {
    const char *label;  /* "1".."15", "CUB", "copy", "cpu", "cpu-omp", "h2d-pageable", "h2d-pinned", "best+copy";
                           in the other problems' sections "CUB-K" (CUB on the problem and input of stage K,
                           the section's first stage of that problem) and "copy-K" (K: the section's
                           baseline); in a sweep "7", "8", "CUB", "copy", "launch" */
    char name[16];      /* where a label made here lives */
    int kind;           /* a stage's number, ROW_CUB, ROW_COPY, ROW_CPU, ... (the ladder's rows) */
    int of_stage;       /* CUB and copy rows: the stage whose problem and input they reduce or copy */
    int section;        /* the baseline stage of its section (kit_ladder_section()) */
    kit_problem problem; /* what it reduces (a copy: the problem whose input it copies) */
    size_t n;           /* elements of that problem it reads */
    double input_bytes; /* bytes of that input */
    const char *title;
    int ran;            /* 0: not run (an earlier failure made the GPU unusable) */
    const char *verdict; /* shown instead of the result, and no failure: a row this build or run cannot
                            have (no OpenMP); message says why */
    kit_status status;
    char message[sizeof(((kit_error *)0)->message)];
    kit_timing timing;
    double gbps;
    double bytes;       /* bytes the row moves per run: what GB/s divides */
    int counted;        /* --counters: 1 when hw (GPU) or emu (emulator) holds this row's counts */
    kit_hw_counters hw;
    kit_emu_counts emu;
} ladder_row;

/* ---------------------------------------------------------------- the rows (ladder.c) */

/** Elements of \p problem that take as many bytes as \p n ints (at least 1). */
size_t ladder_section_n(size_t n, kit_problem problem);
/** Records a row's run: its status, the bytes it moves and its GB/s. */
void ladder_row_ran(ladder_row *row, double bytes, kit_status status, const kit_error *err);
/** The row's result: "ok", the failure's name, "not run", or its verdict. */
const char *ladder_row_result(const ladder_row *row);
/** A row that did not give its exact answer (or did not run): the exit status is 1. */
int ladder_row_failed(const ladder_row *row);
/** A failure that leaves the CUDA context unusable: the rows after it do not run. */
int ladder_context_lost(kit_status status);
/** \p b's time over \p a's ("2.31x"), or with \p percent a's GB/s as a share of \p b's
 *  ("87.5%"); "-" when either has no time (the emulator times nothing). */
void ladder_ratio(char *out, size_t size, const ladder_row *a, const ladder_row *b, int percent);
/** Opens the GPU; without one, hands over to the CPU emulator (which returns only on failure).
 *  0 when the GPU is open, else the exit status. */
int ladder_open_gpu(kit_gpu *gpu, char **argv);

/* ---------------------------------------------------------------- the other jobs */

/** --sweep (sweep.c): the exit status. */
int ladder_sweep(const kit_options *opt, const kit_stage *table, const kit_gpu *gpu);
/** --accuracy (accuracy_study.c): the exit status. */
int ladder_accuracy_study(const kit_options *opt, const kit_stage *table, const kit_gpu *gpu);

/** --picture and --trace (picture.c): stage \p labs_or_solution's small launch recorded on the
 *  CPU emulator and drawn; \p reference: the same stage's reference solution (for --compare).
 *  The exit status. */
int ladder_picture(const kit_options *opt, const kit_stage *labs_or_solution, const kit_stage *reference);

/* --counters (counters_driver.c) */

/** --counted-run K: runs one row for ncu and prints nothing but failures; the exit status. */
int ladder_counted_run(const kit_options *opt);
/** Runs every row once more under ncu, before this process touches CUDA; when counters cannot
 *  be had (no ncu, not permitted) \p note says so in one line, and the ladder runs without. */
void ladder_measure_with_ncu(const kit_options *opt, ladder_row *rows, int count, char *note, size_t note_size);
/** The row's "counters" member in --format json (null when it has none). */
void ladder_json_counters(const ladder_row *row, const kit_gpu *gpu);
/** The counters' columns of --format csv: their heads, and one row's fields. */
const char *ladder_csv_counters_header(void);
void ladder_csv_counters(const ladder_row *row, const kit_gpu *gpu);
/** The text table's second part: why each row is as fast as it is. */
void ladder_table_counters(const ladder_row *rows, int count, const kit_gpu *gpu, unsigned threads);

#endif

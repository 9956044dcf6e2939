/**
 * \file grader.h
 * \brief The grader: what `make check` runs for each stage, as a library.
 *
 * Grading a stage has three parts, each a CTest test of its own:
 *   - correctness: the stage against the right answer (common/problems.c: exact, or for floats
 *     within an error bound) over a matrix of sizes, block sizes, input patterns and seeds, plus
 *     repeated runs, which must give the same bits (a float stage must be reproducible);
 *     failures are summed up into one message with the most likely cause (kit_diagnose());
 *   - speedup: the student's stage and the reference stages timed in one process,
 *     interleaved, at 2^26 ints' worth of input (speedup.n / the words of an element); the
 *     student's speedup over the reference of the row's baseline stage (stages.def's last
 *     column: stage 1 for the int sums) must reach a fraction of what reference stage K reaches
 *     in the same run (kit_speedup_decide()); for a row that is its own baseline that reads:
 *     at least the fraction of the reference's own speed;
 *   - sanitizer: the stage's runner runs a few small cases once, at every supported block size
 *     (kit_grade_run_once()), under compute-sanitizer's racecheck, synccheck, memcheck and
 *     initcheck (tests/grader/sanitize.sh).
 *
 * Two processes, so that student code never writes its own grade:
 *   - the runner (runner.c + runs.c, library kit_grader_runs) links one stage file, the
 *     reference stages it is timed against and the harness (common/kit.h, on a GPU or on the
 *     CPU emulator); it runs the cases and answers on a pipe, in a sandbox (sandbox.c);
 *   - kit_grade (grade.c) never loads student code and never calls CUDA: it audits the
 *     compiled stage file (audit.c), asks the runner, checks every answer itself (each case's
 *     reference is recomputed from problem, n, pattern and seed and the answer judged with
 *     kit_judge(); answers.c), decides, and writes the result files.
 * The host-only parts (config, diagnosis, speedup rule, result files, report, audit,
 * sandbox: library kit_grader_host) are tested in CI without a GPU.
 */
#ifndef KIT_GRADER_H
#define KIT_GRADER_H

#include <stdio.h>

#include "kit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- configuration */

/** The parts of a stage's grade, in report order. */
typedef enum kit_part {
    KIT_PART_CORRECTNESS,
    KIT_PART_SPEEDUP,
    KIT_PART_RACECHECK,
    KIT_PART_SYNCCHECK,
    KIT_PART_MEMCHECK,
    KIT_PART_INITCHECK,
    KIT_PART_EMULATED,       /**< correctness on the CPU emulator (no GPU), sizes up to 2^20 + 7 */
    KIT_PART_EMULATED_RACES, /**< the emulator's race check: ThreadSanitizer and thread orders */
    KIT_PART_EMULATED_SPEED, /**< what the emulator counts of speed without a clock: a stage with a
                                  max_sectors_per_request rule (stage 15), its global loads' sectors */
} kit_part;

#define KIT_PART_COUNT 9
#define KIT_SANITIZER_PARTS 4 /**< racecheck .. initcheck: the compute-sanitizer tools */
/** Whether \p p is one of the compute-sanitizer parts. */
#define KIT_PART_IS_SANITIZER(p) ((p) >= KIT_PART_RACECHECK && (p) < KIT_PART_RACECHECK + KIT_SANITIZER_PARTS)

/** The largest input graded on the CPU emulator, in 4-byte words: the harness's size classes up
 *  to n = 2^20 + 7 ints (2^26 would take minutes per stage on a CPU); for 3x3 matrices
 *  kit_grade_elements() of it, 116,509 (the correctness matrix adds that n: several passes, a
 *  ragged last block), as 2^20 + 7 of them took 2 minutes of CPU a stage. */
#define KIT_EMULATED_MAX_N (((size_t)1 << 20) + 7)

/* ---------------------------------------------------------------- the stages (stages.c) */

/** What stage \p stage reduces (its row of common/stages.def; the int sum for a number out of range). */
kit_problem kit_grade_problem(int stage);
/** The stage whose reference stage \p stage's speed is measured against (stages.def's last column). */
int kit_grade_baseline(int stage);
/** The block sizes stage \p stage supports (stages.def: powers of two from \p low to \p high). */
void kit_grade_threads(int stage, unsigned *low, unsigned *high);
/** The stage's title ("3x3 matrices, 9 ints per thread"). */
/** Stage \p stage's file under labs/ (or solutions/): "03_sequential_addressing/reduce_sequential_addressing.cu". */
const char *kit_grade_file(int stage);
const char *kit_grade_title(int stage);
/** Whether the stage finishes in one pass (KIT_PASSES_ONE). */
int kit_grade_one_pass(int stage);
/** The n of stage \p stage's speed case for \p n ints' worth of input: n / kit_in_words()
 *  (the same bytes for every problem: 2^26 ints, or 2^26 / 9 matrices). */
size_t kit_grade_elements(int stage, size_t n_ints);

/** Name of a part as used in file names and reports ("correctness", "racecheck", ...). */
const char *kit_part_name(kit_part part);

/**
 * Grading rules, read from a plain `key = value` file (tests/grader/grading.conf documents every
 * key). Arrays are indexed by stage number, 1..KIT_STAGE_COUNT.
 */
typedef struct kit_grade_config {
    double speedup_fraction;   /**< required = fraction x the reference stage's speedup (0.8) */
    double max_spread;         /**< above this relative spread a timing is too noisy to decide */
    int speedup_rounds;        /**< interleaved visits per implementation and attempt */
    int speedup_reps;          /**< timed runs per visit (the visit's median is one sample) */
    int speedup_attempts;      /**< measurements before deciding on what was seen */
    size_t speedup_n;          /**< input size of the speedup case (2^26) */
    unsigned speedup_threads;  /**< block size of the speedup case (256) */
    double min_speedup[KIT_STAGE_COUNT + 1];        /**< absolute floor, 0 = none */
    size_t latency_n[KIT_STAGE_COUNT + 1];          /**< a second speed case at this small n, where launch
                                                         latency decides (stage 8: 2^18); 0 = none */
    double points[KIT_STAGE_COUNT + 1][3];          /**< correctness, speedup, sanitizer */
    double max_sectors_per_request[KIT_STAGE_COUNT + 1]; /**< the emulator's load rule (kit_loads_decide()):
                                                         at most this times the reference's; 0 = none */
    int emulated_scale;        /**< emulated.full_marks: 0 (keep) a stage graded without a GPU reaches
                                    correctness + sanitizer points only (8 of 10); 1 (scale) its points
                                    are scaled so that it reaches the stage's full marks */
} kit_grade_config;

/** The defaults: 0.8 of the reference, 10 points a stage (6 correctness, 2 speed, 2 sanitizer). */
void kit_grade_config_default(kit_grade_config *config);

/** Applies the `key = value` lines of \p text; KIT_BAD_ARGUMENT names the line that is wrong. */
kit_status kit_grade_config_parse(kit_grade_config *config, const char *text, const char *source,
                                  kit_error *err);

/** Defaults, then the file at \p path (if \p path is NULL or empty: defaults only). */
kit_status kit_grade_config_load(kit_grade_config *config, const char *path, kit_error *err);

/* ---------------------------------------------------------------- correctness cases */

/** One checked run of a stage and what it gave. */
typedef struct kit_case {
    int id;              /**< the planned case it answers (kit_planned_case::id) */
    size_t n;
    unsigned threads;
    kit_pattern pattern;
    unsigned long long seed;
    int repeat;          /**< 0 for the first run of this input, 1.. for repeats */
    kit_status status;
    kit_value got;       /**< the stage's answer, when it gave one (kit_out_words() words; the rest 0) */
    kit_value expected;  /**< the right answer (the int sum's: w[0]; a float sum's: the exact sum, rounded) */
    char message[sizeof(((kit_error *)0)->message)];
} kit_case;

/** A growing list of cases. */
typedef struct kit_case_log {
    kit_case *cases;
    int count, capacity;
} kit_case_log;

/** Appends a copy of \p c (returns 0 if out of memory). */
int kit_case_log_add(kit_case_log *log, const kit_case *c);
void kit_case_log_free(kit_case_log *log);

/**
 * One message about all failed cases of a stage: the likely cause where the pattern of
 * failures shows one (hard-coded block size, power-of-two sizes only, a grid rounded down,
 * blocks that overlap, a race, answers that change from run to run, ...), how many runs
 * failed, and the first failure in full. The counts of lost elements are the int sum's only.
 * Returns the number of failed cases (0: \p out is empty).
 */
int kit_diagnose(int stage, const kit_case *cases, int count, char *out, size_t size);

/** Which case a picture of a failed emulated grade draws (kit_choose_picture_case()). */
typedef enum kit_picture_kind {
    KIT_PICTURE_NO_FAILURE,       /**< no failed case logged: 64 threads, random input, the picture's own n (n 0) */
    KIT_PICTURE_FIRST_FAILURE,    /**< the first failing case, as graded (the one the message gives in full) */
    KIT_PICTURE_SMALLEST_FAILURE, /**< the smallest failing case a trace holds, as graded */
    KIT_PICTURE_LIKE_A_FAILURE    /**< no failing case fits a trace: a failing case's block size (within the
                                       trace's), pattern and seed at the largest n a trace holds, the most blocks */
} kit_picture_kind;

/** The case a picture draws, and the failing case it stands for. */
typedef struct kit_picture_case {
    kit_picture_kind kind;
    size_t n; /**< 0: let reduce_ladder choose (KIT_PICTURE_NO_FAILURE) */
    unsigned threads;
    kit_pattern pattern;
    unsigned long long seed;
    size_t failed_n; /**< the failing case it stands for (0 with KIT_PICTURE_NO_FAILURE) */
    unsigned failed_threads;
} kit_picture_case;

/**
 * The case a picture of a failed grade draws: the first failing case where its n is at most
 * \p max_n and its block size within [\p min_threads, \p max_threads] (what a trace holds), else
 * the smallest failing case that fits, else the block size (the nearest within the bounds),
 * pattern and seed of the first failing case whose block size fits (or the first) at n = \p max_n.
 * Whether the drawn run goes wrong is for the run to tell. Returns out->kind.
 */
kit_picture_kind kit_choose_picture_case(const kit_case *cases, int count, size_t max_n, unsigned min_threads,
                                         unsigned max_threads, kit_picture_case *out);

/** What the words of a picture's note call it: "first", "smallest", "like" or "none" (the kind). */
const char *kit_picture_kind_name(kit_picture_kind kind);

/**
 * What a picture of a failed grade drew, in words that begin "your kernel ...": \p drawn is the
 * kind's name (kit_picture_kind_name()) when the drawn run went wrong, "right" when it gave the
 * right answer (then the words say it is not the failing case), "" when not known.
 */
void kit_picture_words(const char *drawn, size_t n, unsigned threads, const char *pattern, char *out, size_t size);

/**
 * Reproducibility: every repeat of an input (same n, block size, pattern and seed) must give
 * the bits its first run gave. A repeat that passed but differs from a first run that passed
 * (a float sum within the error bound both times, added in another order) becomes
 * KIT_WRONG_RESULT with a message that says so ("not reproducible: run 1 gave X, run 2 gave Y
 * (bits differ): ..."). Returns how many cases it failed.
 */
int kit_check_reproducible(int stage, kit_case *cases, int count);

/**
 * kit_grade's own judgement of one case: the reference of \p problem for \p n elements of
 * \p pattern with \p seed (kit_fill_problem() and kit_reference_compute(), or for the int sum
 * kit_pattern_sum() without storing the input; the last input is kept, as repeats reuse it),
 * judged with kit_judge(). \p expected gets the right answer. Returns 1 when \p got is right,
 * 0 when not (\p why says why), -1 when the grader has no memory to check it (\p why says so).
 */
int kit_grade_judge(kit_problem problem, size_t n, kit_pattern pattern, unsigned long long seed, const kit_value *got,
                    kit_value *expected, char *why, size_t size);

/** Writes the words of an answer for the runner's pipe: "1a,ffffff00" (kit_out_words() of them, hex). */
void kit_value_to_words(kit_problem problem, const kit_value *value, char *out, size_t size);
/** Reads what kit_value_to_words() wrote (exactly kit_out_words() words; the rest of \p value 0);
 *  returns the characters read, or 0 if the text is not that. */
size_t kit_value_from_words(kit_problem problem, const char *text, kit_value *value);

/** Whether \p status leaves the CUDA context unusable (no further run can be trusted). */
int kit_status_is_fatal(kit_status status);

/* ---------------------------------------------------------------- speedup rule */

/** What one speedup measurement decides. */
typedef enum kit_verdict { KIT_VERDICT_PASS, KIT_VERDICT_FAIL, KIT_VERDICT_MEASURE_AGAIN } kit_verdict;

/** The numbers of the speedup case and the verdict on them. */
typedef struct kit_speedup {
    double student_ms, reference_ms; /**< medians over all samples so far */
    double baseline_ms;  /**< the reference of the row's baseline stage (stage 1 for the int sums; the
                              reference itself for a row that is its own baseline) */
    double spread;       /**< largest relative spread (IQR / median) of the three */
    double achieved;     /**< baseline_ms / student_ms */
    double reference;    /**< baseline_ms / reference_ms (1 for a row that is its own baseline) */
    double required;     /**< max(fraction x reference, absolute minimum) */
    int samples;         /**< samples per implementation */
    int attempts;
    int within_noise;    /**< passed only within the measurement's noise */
    double copy_ms;      /**< a device-to-device copy of the same input, measured in the same run */
    double floor_ms;     /**< no repetition may be faster (kit_read_floor_ms of the copy) */
    kit_verdict verdict;
} kit_speedup;

/**
 * Fills achieved/required and the verdict from the medians and spread in \p s. Decisive when
 * the spread is at most config->max_spread and achieved is on one side of required by more
 * than the spread; otherwise MEASURE_AGAIN, unless \p last_attempt: then it passes when
 * achieved is within the noise (at most 10 %) below required, so noise never fails a stage
 * that is as fast as required.
 */
kit_verdict kit_speedup_decide(const kit_grade_config *config, int stage, kit_speedup *s, int last_attempt);

/** Median and relative spread (IQR / median) of \p count values; sorts them in place. */
double kit_median_spread(double *values, int count, double *spread);

/* ---------------------------------------------------------------- result files */

/** Status of one part in a result file. */
typedef enum kit_outcome { KIT_OUTCOME_MISSING, KIT_OUTCOME_PASS, KIT_OUTCOME_FAIL, KIT_OUTCOME_SKIP } kit_outcome;

/** One part's result, as the tests write it and the report reads it. */
typedef struct kit_result {
    kit_outcome outcome;
    char message[2048];
    double achieved, required, reference, spread; /**< speedup only; 0 when not measured */
    size_t timed_n;                /**< speedup only: the n chosen at random for this run */
    unsigned timed_threads;        /**< speedup only: the block size chosen at random for this run */
    int not_built;                 /**< the CPU emulator's compiler could not build a file nvcc built: where a
                                        GPU graded the stage, its grade stands alone (kit_grade_stage()) */
    unsigned long long timed_seed; /**< speedup only: the input's seed */
    double student_ms, reference_ms; /**< speedup only: the medians timed, in ms (0 when not timed) */
    double bytes;                  /**< speedup only: the input's bytes at the timed n, what GB/s divides */
    char gpu[256];
} kit_result;

/** Writes DIR/stageK.PART (atomically); does nothing when \p dir is NULL or empty. */
int kit_result_write(const char *dir, int stage, kit_part part, const kit_result *result);
/** Reads DIR/stageK.PART; outcome MISSING if there is no such file. */
void kit_result_read(const char *dir, int stage, kit_part part, kit_result *result);
/** Removes DIR/stageK.* for one stage (0 = all stages). */
void kit_result_clear(const char *dir, int stage);

/* ---------------------------------------------------------------- the emulator's load rule */

/** What the CPU emulator counted of the global loads of every launch of a reduction (kit_emu_counts, counters.h). */
typedef struct kit_load_counts {
    unsigned long long requests; /**< warp-level global loads */
    unsigned long long sectors;  /**< the distinct 32-byte sectors each touched, summed (as Nsight Compute's
                                      l1tex__t_sectors_pipe_lsu_mem_global_op_ld) */
    unsigned long long needed;   /**< the fewest sectors each one's distinct bytes fill, summed */
} kit_load_counts;

/**
 * The load rule of a stage whose lesson is coalescing (stageK.max_sectors_per_request > 0:
 * stage 15), decided on what the CPU emulator counted over every launch of the student's stage
 * and of reference stage K, at the same \p n and \p threads. A GPU's L1 can hide strided loads
 * from the clock (on an H100, stage 13's 9 ints per thread run as fast as stage 15), so this
 * part counts instead: each load request's sectors against the fewest its bytes fill (1 for any
 * coalesced load, whatever its width; 8 for ints 36 bytes apart), and the student's may be at
 * most max_sectors_per_request times the reference's. Sectors per request as such would punish
 * wider loads (32 consecutive int4s take 16 sectors, ints 4). \p message says what was counted,
 * and on a failure what to change. Returns KIT_OUTCOME_MISSING (and an empty message) for a
 * stage without the rule, or counts without a load.
 */
kit_outcome kit_loads_decide(const kit_grade_config *config, int stage, size_t n, unsigned threads,
                             const kit_load_counts *mine, const kit_load_counts *reference, char *message,
                             size_t size);

/* ---------------------------------------------------------------- report */

/** A stage's grade, computed from its result files and the config. */
typedef struct kit_stage_grade {
    int stage;
    kit_result parts[KIT_PART_COUNT];
    double score, max_score;
    double part_score[3], part_max[3]; /**< correctness, speedup, sanitizer */
    double reachable;       /**< the most it could score where it was graded: max_score, or without a
                                 GPU (speed not measured) max_score less the speed points, unless
                                 emulated.full_marks = scale */
    int passed;    /**< every part passed */
    int emulated_correctness; /**< correctness comes from the CPU emulator */
    int emulated_races;       /**< the sanitizer column comes from the emulator's race check */
    int emulator_not_built;   /**< the emulator's compiler could not build the file: the GPU graded it alone */
    int load_rule_missing;    /**< a stage with a load rule passed the clock, but the rule did not run: no speed points */
    char advice[1024];        /**< what the CPU emulator saw that would be slow on a GPU (no points) */
} kit_stage_grade;

/**
 * Reads the result files of stage \p stage and scores them: correctness points when it
 * passed; speedup and sanitizer points only on top of a correct stage (an unfilled lab is
 * free of races, but earns nothing for it). A part not run scores 0, never full marks.
 *
 * Without a GPU the emulated parts stand in: the CPU emulator's correctness result earns the
 * correctness points and its race check the sanitizer points; speed is not measured and
 * earns none. A GPU result, when there is one (pass, or fail, as KIT_REQUIRE_GPU=1 makes a
 * missing GPU), always decides instead. Where both graded, both must pass, but a file that only the
 * emulator's compiler could not build (kit_result::not_built) is graded by the GPU alone, with a note. The emulator's load rule (KIT_PART_EMULATED_SPEED,
 * kit_loads_decide()) never earns points: where it ran and failed, the GPU's speed part earns
 * none either.
 */
void kit_grade_stage(const kit_grade_config *config, const char *dir, int stage, kit_stage_grade *grade);

/** The summary table (stage, correctness, speedup achieved/required, sanitizer, points). */
void kit_report_table(FILE *out, const kit_stage_grade *grades, int count, const char *title);
/** Gradescope-style results.json: tests[] with name, score, max_score, status, output. */
void kit_report_json(FILE *out, const kit_stage_grade *grades, int count, const char *title);
/**
 * The grade record, grade.json: every stage's points (each part's score, maximum and the
 * report's words for it), where correctness and races were decided (GPU or emulator), and the
 * record of every part that ran (outcome, message, device, the speed case's numbers and what
 * was timed: the speedups, and the medians in ms with the GB/s they give, student_ms,
 * reference_ms, gbps and reference_gbps, which the leaderboards rank). The table, results.json
 * and the class report are views of the same grades; the class tools read this file, never the
 * table's text. \p before: the grading before this one (a regrade; same stages in the same order),
 * or NULL: the record then says "previous" (its total) and "changes", each stage that changed
 * since (as kit_report_changes() tells them) with each points category that changed: its cell,
 * status and points then and now, and the message that explained it then.
 */
void kit_report_record(FILE *out, const kit_stage_grade *grades, int count, const char *title,
                       const kit_stage_grade *before);
/** "Changed since the last grade": each stage whose points or a part's outcome differ between
 *  \p before (the previous grading's results, same stages in the same order) and \p now.
 *  Returns how many stages changed. */
int kit_report_changes(FILE *out, const kit_stage_grade *now, const kit_stage_grade *before, int count);
/** A student's feedback, from the same grades: per stage, what passed, what failed and why (the
 *  part's own message), and what to try next. Plain text, ready to send. (grade_report adds
 *  kit_report_changes() after it on a regrade.) */
void kit_report_feedback(FILE *out, const kit_stage_grade *grades, int count, const char *student);
/** One line per lab, for make status: not started, not graded yet, changed since its last grade,
 *  fails (and why, in a few words), passes on the CPU emulator, or passes on a GPU with its points.
 *  \p labs is the folder of the lab files (NULL: the files are not looked at). "Changed" is by
 *  content where it can be: \p lab_hashes ("1=<hex>,3=<hex>", the lab files' SHA-256 now) against
 *  the SHA-256 check.cmake kept of each file it graded (RESULTS/stageK.lab-sha256); else (NULL, or
 *  a grade without one) by the file's modification time. */
void kit_report_status(FILE *out, const kit_stage_grade *grades, int count, const char *labs, const char *results,
                       const char *lab_hashes);
/** One CSV row: student, points of each stage (empty when not graded), total, maximum. */
void kit_report_csv_header(FILE *out);
void kit_report_csv_row(FILE *out, const char *student, const kit_stage_grade *grades, int count);

/* ---------------------------------------------------------------- running stages */

/* ---------------------------------------------------------------- the plan (plan.c) */

/** kit_grade's own randomness (splitmix64), seeded from /dev/urandom at every grading. */
typedef struct kit_random {
    uint64_t state;
} kit_random;
/** Seeds \p random from /dev/urandom (from the clock and pid where there is none). */
void kit_random_from_system(kit_random *random);
uint64_t kit_random_next(kit_random *random);

/** One case kit_grade asks a runner for: an input (n, pattern, seed) at one block size, run
 *  \p repeats times (each run must give the bits of the first). */
typedef struct kit_planned_case {
    int id;                  /**< its index in the plan: the runner's answer names it */
    size_t n;
    unsigned threads;
    kit_pattern pattern;
    unsigned long long seed;
    int repeats;
} kit_planned_case;

/** The cases of one request, in the order the runner runs them. */
typedef struct kit_plan {
    kit_planned_case *cases;
    int count, capacity;
} kit_plan;

/**
 * The correctness matrix of one stage: every size class (1, around a warp, below one block, just
 * past one and two blocks, powers of two and not, several passes), three sizes drawn now, every
 * supported block size, every input pattern with fresh seeds (two for a pattern drawn from its
 * seed); for a float stage then KIT_REPRODUCIBLE_RUNS runs of two drawn inputs at every block
 * size. \p max_n leaves out larger sizes (the CPU emulator's limit); 0 is a GPU's plan, whose
 * sizes go up to 2^21 words' worth (3x3 matrices: 233,016 of them, a size of the plan too).
 */
kit_status kit_plan_correctness(kit_plan *plan, int stage, size_t max_n, kit_random *random, kit_error *err);
/**
 * Thins the sizes above \p above to one input at one block size each: the first pattern the
 * plan has for the size (all ones for a fixed size; for a float stage's reproducibility input,
 * its seeded pattern and its repeats) at one of its block sizes drawn now. Every size stays; the
 * cases are numbered anew. For the kit's corpus rows expected right on the CPU emulator
 * (kit_grade emulated --large-cases skip), whose ten runs at each of the sizes from 3 * 2^18 to
 * 2^20 + 7 were most of the self-tests' CPU time.
 */
void kit_plan_thin_large_sizes(kit_plan *plan, size_t above, kit_random *random);
/** About 2^26 ints' worth (drawn within 1/16 below) at every block size: all ones and a seeded pattern. */
kit_status kit_plan_large(kit_plan *plan, int stage, kit_random *random, kit_error *err);
/** Two drawn inputs (about 2^20 and about 6,000 elements), 10 runs each at every block size. */
kit_status kit_plan_repeats(kit_plan *plan, int stage, kit_random *random, kit_error *err);
/** Within 2^16 of kit_max_n() (2^30 words), random small ints, at the smallest and largest block size. */
kit_status kit_plan_largest(kit_plan *plan, int stage, kit_random *random, kit_error *err);
/** A speed case around \p base elements: n from base / 2 to 2 x base, any supported block size, a fresh seed. */
void kit_plan_speed_case(int stage, size_t base, kit_random *random, size_t *n, unsigned *threads,
                         unsigned long long *seed);
/** The load rule's case (stage 15's): n from \p max_n / 2 to \p max_n and \p count (2, or 1 where
 *  the stage supports one block size) different block sizes, drawn now. */
void kit_plan_load_case(int stage, size_t max_n, kit_random *random, size_t *n, unsigned threads[2], int *count);
/** Appends a copy of \p c (its id as it is); 0 when out of memory. */
int kit_plan_append(kit_plan *plan, const kit_planned_case *c);
void kit_plan_free(kit_plan *plan);

/** The plan as the runner reads it on its standard input, a line a case:
 *  "case id=K n=N threads=T pattern=P seed=S repeats=R" (malloc'd; NULL when out of memory). */
char *kit_plan_text(const kit_plan *plan);
/** Reads one line of kit_plan_text() (the runner's side); 0 when it is not one. */
int kit_plan_parse_line(const char *line, kit_planned_case *c);

/**
 * The answers against the plan: each must name a planned case with its own n, block size,
 * pattern and seed and a run below its repeats, and none may come twice; when every answer
 * passed, every run of every case must have one, but for cases with n >= \p skipped_from_n
 * (0: none) that the runner said it could not hold. Returns 0 when they match, 1 when not
 * (\p why says how), -1 when out of memory.
 */
int kit_plan_check(const kit_plan *plan, const kit_case_log *log, size_t skipped_from_n, char *why, size_t size);

/* ---------------------------------------------------------------- running stages (runs.c) */

/** The exit status of a runner that said "done" after a run hung: it leaves without CUDA's
 *  clean-up, which would wait for the hung kernel. kit_grade accepts it only where the reply
 *  holds a run or an error that timed out; the part then fails with that run's message. */
#define KIT_RUNNER_HUNG_EXIT 124

/** The emulator's race check (races.c, linked into the emulated runners only): 0 no race, 1 a race,
 *  2 a case could not be set up, KIT_RACES_NO_RESULT no run of any case wrote a result (the runner
 *  then says "races no-result"). */
#define KIT_RACES_NO_RESULT 3
int kit_emulated_races(const kit_stage *stage, FILE *out, int under_threadsanitizer);

/** Runs of one input in the correctness matrix of a float stage (kit_plan_correctness()). */
#define KIT_REPRODUCIBLE_RUNS 4

/**
 * The runner's side: runs the planned cases in order, each checked by the harness (and judged
 * again by kit_grade), reusing one input for consecutive cases of the same n, pattern and seed.
 * Once a block size has failed, its cases above 4096 elements are left out (the small ones show
 * the pattern of the failure); a case the machine cannot hold (the 4 GiB ones) is left out with
 * a line to \p skipped. Stops when a run leaves the GPU unusable.
 */
kit_status kit_grade_cases(const kit_stage *stage, const kit_plan *plan, kit_case_log *log, char *skipped,
                           size_t skipped_size, kit_error *err);

/**
 * The speedup case at n = config->speedup_n elements with input \p seed (the grader picks both
 * at random for each run, n already divided by the words of an element); \p s gets the numbers
 * and verdict. The student's stage, its reference and the reference of its baseline stage
 * (reference_table's stage student->baseline; not timed twice where that is the reference
 * itself) are timed interleaved. Every timed repetition runs on a changed input and is
 * checked, and none may beat the copy-bandwidth floor. KIT_OK unless a run failed.
 */
kit_status kit_grade_speedup(const kit_grade_config *config, const kit_stage *student,
                             const kit_stage *reference_table, unsigned long long seed, kit_speedup *s,
                             kit_error *err);

/** A few small checked runs, no forking: what compute-sanitizer runs. Returns an exit code. */
int kit_grade_run_once(const kit_stage *stage, FILE *out);

/** The sum of input \p pattern with \p seed over \p n ints, computed without storing them
 *  (the grader recomputes every case a runner reports; common/input.c). */
int64_t kit_pattern_sum(size_t n, kit_pattern pattern, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif /* KIT_GRADER_H */

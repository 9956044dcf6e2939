/**
 * \file plan.c
 * \brief The cases kit_grade asks a runner for, drawn afresh at every grading (no CUDA here).
 *
 * A runner links student code, so nothing it decides can be trusted, not even which cases it
 * ran. kit_grade therefore draws every case itself (sizes, block sizes, patterns, seeds) from
 * /dev/urandom, hands the list to the runner, and accepts exactly one answer for each run of
 * each case (kit_plan_check()). A stage file cannot aim at a case it cannot know in advance.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grader.h"

/* ---------------------------------------------------------------- randomness */

uint64_t kit_random_next(kit_random *random)
{
    uint64_t z = (random->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void kit_random_from_system(kit_random *random)
{
    uint64_t state = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0 || read(fd, &state, sizeof state) != (ssize_t)sizeof state) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        state = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
    }
    if (fd >= 0)
        close(fd);
    random->state = state;
}

/** A value in [low, high] (inclusive). */
static size_t between(kit_random *random, size_t low, size_t high)
{
    return high <= low ? low : low + (size_t)(kit_random_next(random) % (uint64_t)(high - low + 1));
}

/** A seed the runner's input generator takes: below 2^53, so it survives any printf/strtoull round trip. */
static unsigned long long fresh_seed(kit_random *random)
{
    return kit_random_next(random) >> 11;
}

/* The seed of a seeded pattern's input: it also places the input's one extreme
 * (kit_pattern_seed_at()). A quarter of the time on the last element, a quarter at a block's
 * edge (the last element of a block or the first of the next, at 1, 2 or 4 blocks' worth of
 * threads), else anywhere: so over a matrix it lands in every lane of a thread's loads, on
 * the tail and on block edges, and no stage can know where. */
static unsigned long long extreme_seed(kit_random *random, size_t n, unsigned threads)
{
    size_t index = between(random, 0, n - 1);
    switch (kit_random_next(random) % 4) {
    case 0:
        index = n - 1;
        break;
    case 1: {
        size_t edge = (size_t)threads << between(random, 0, 2);
        size_t blocks = n / edge;
        if (blocks > 0) {
            const size_t at = edge * between(random, 1, blocks) - between(random, 0, 1); /* a block's last, or the next's first */
            index = at < n ? at : n - 1;
        }
        break;
    }
    default:
        break;
    }
    return kit_pattern_seed_at(n, index, kit_random_next(random) >> 34);
}

/** How many block sizes, powers of two from \p low to \p high, a stage supports. */
static int block_sizes(unsigned low, unsigned high)
{
    int count = 0;
    for (unsigned t = low; t <= high; t *= 2)
        count++;
    return count > 0 ? count : 1;
}

/* ---------------------------------------------------------------- the plan */

void kit_plan_free(kit_plan *plan)
{
    free(plan->cases);
    memset(plan, 0, sizeof *plan);
}

int kit_plan_append(kit_plan *plan, const kit_planned_case *c)
{
    if (plan->count == plan->capacity) {
        int capacity = plan->capacity ? 2 * plan->capacity : 256;
        kit_planned_case *bigger = realloc(plan->cases, (size_t)capacity * sizeof *bigger);
        if (!bigger)
            return 0;
        plan->cases = bigger;
        plan->capacity = capacity;
    }
    plan->cases[plan->count++] = *c;
    return 1;
}

static int add(kit_plan *plan, size_t n, unsigned threads, kit_pattern pattern, unsigned long long seed, int repeats)
{
    const kit_planned_case c = {plan->count, n, threads, pattern, seed, repeats};
    return kit_plan_append(plan, &c);
}

/* Whether a pattern's values come from its seed (all ones and last-only do not). Each pattern
 * runs once per size and block size, with a seed of its own drawn now: over the hundreds of
 * cases of a matrix, the planted extremes land on every residue of a thread's loads. */
static int seeded(kit_pattern pattern)
{
    return pattern != KIT_PATTERN_ONES && pattern != KIT_PATTERN_LAST_ONLY;
}

static kit_pattern pattern_in_order(int i)
{
    if (i == 0)
        return KIT_PATTERN_ONES;
    if (i == 1)
        return KIT_PATTERN_LAST_ONLY;
    int p = i - 2; /* every other pattern, in the table's order */
    for (int k = 0; k < KIT_PATTERN_COUNT; k++) {
        if (k == KIT_PATTERN_ONES || k == KIT_PATTERN_LAST_ONLY)
            continue;
        if (p-- == 0)
            return (kit_pattern)k;
    }
    return KIT_PATTERN_RANDOM;
}

/** A pattern whose values are drawn from the seed (not ones, not last-only), chosen at random. */
static kit_pattern seeded_pattern(kit_random *random)
{
    for (;;) {
        kit_pattern p = (kit_pattern)between(random, 0, KIT_PATTERN_COUNT - 1);
        if (seeded(p))
            return p;
    }
}

/* Sizes every stage must get right, each for a kind of mistake: 1 and 2 (a tree that needs two
 * values), around a warp (31-33), below, at and past one block, powers of two and their
 * neighbours (1023, 1025), a prime (1000003) and 2^20 + 7 (several passes, a ragged last block
 * in each), 3 * 2^18 (whole blocks, but not a power of two). */
static const size_t fixed_sizes[] = {1,   2,    3,    31,   32,    33,     63,     64,      65,
                                     100, 1000, 1023, 1024, 1025,  4096,   65536,  786432,  1000003,
                                     (size_t)1 << 20, ((size_t)1 << 20) + 7};
#define FIXED_SIZES (sizeof fixed_sizes / sizeof fixed_sizes[0])
/* Sizes relative to the block size: one short of a block, one past one and two blocks. */
#define RELATIVE_SIZES 5
/* Sizes drawn now, that no stage can be tuned for. */
#define DRAWN_SIZES 3
/* Seeded patterns run at each size above 4096 elements (plan_correctness()). */
#define LARGE_SEEDED 3

static size_t relative_size(unsigned threads, int which)
{
    const size_t t = threads;
    const size_t sizes[RELATIVE_SIZES] = {t - 1, t + 1, 2 * t - 1, 2 * t + 1, 3 * t + 5};
    return sizes[which];
}

static int supported(int stage, unsigned threads)
{
    unsigned low, high;
    kit_grade_threads(stage, &low, &high);
    return threads >= low && threads <= high;
}

/* The patterns one size runs: every one at the small sizes, where runs cost nothing; above
 * 4096 elements, where the time goes (on the CPU emulator above all), all ones, last-only and
 * LARGE_SEEDED seeded patterns drawn for this size (over the large sizes, every pattern runs).
 * On the CPU emulator (\p emulated) above EMULATED_FEW_PATTERNS elements: all ones (it counts
 * every lost or doubled element) and one seeded pattern. Those four sizes (3 * 2^18 to 2^20 + 7)
 * were 94% of an emulated grade's elements, five patterns each; every pattern still runs at
 * every size up to 2^17, where a 64-thread block already needs three passes. */
#define EMULATED_FEW_PATTERNS ((size_t)1 << 17)
static void patterns_for_size(size_t n, int emulated, kit_random *random, int runs[KIT_PATTERN_COUNT])
{
    const int few = emulated && n > EMULATED_FEW_PATTERNS;
    int seeded_count = 0;
    for (int p = 0; p < KIT_PATTERN_COUNT; p++) {
        runs[p] = n <= 4096 || !seeded((kit_pattern)p);
        if (few && (kit_pattern)p == KIT_PATTERN_LAST_ONLY)
            runs[p] = 0;
        seeded_count += seeded((kit_pattern)p);
    }
    int left = n <= 4096 ? 0 : few ? 1 : seeded_count < LARGE_SEEDED ? seeded_count : LARGE_SEEDED;
    while (left > 0) {
        kit_pattern p = seeded_pattern(random);
        if (!runs[p]) {
            runs[p] = 1;
            left--;
        }
    }
}

/* One input of \p n elements for each pattern the size runs, each at every block size of
 * \p threads: the runner makes it once and kit_grade checks it once for all of them. */
static int add_size(kit_plan *plan, size_t n, int emulated, const unsigned *threads, int thread_count,
                    kit_random *random)
{
    int runs[KIT_PATTERN_COUNT];
    patterns_for_size(n, emulated, random, runs);
    for (int p = 0; p < KIT_PATTERN_COUNT; p++) {
        /* The order puts first what says the most when it fails: all ones counts lost elements,
         * last-only a lost tail. */
        kit_pattern pattern = pattern_in_order(p);
        if (!runs[pattern])
            continue;
        const unsigned edge = threads[between(random, 0, (size_t)(thread_count - 1))];
        const unsigned long long seed = seeded(pattern) ? extreme_seed(random, n, edge) : 1;
        for (int t = 0; t < thread_count; t++)
            if (!add(plan, n, threads[t], pattern, seed, 1))
                return 0;
    }
    return 1;
}

kit_status kit_plan_correctness(kit_plan *plan, int stage, size_t max_n, kit_random *random, kit_error *err)
{
    unsigned low, high, threads[16];
    kit_grade_threads(stage, &low, &high);
    const kit_problem problem = kit_grade_problem(stage);
    int thread_count = 0;
    for (unsigned t = low; t <= high && thread_count < 16; t *= 2)
        if (supported(stage, t))
            threads[thread_count++] = t;
    /* On a GPU, sizes up to 2^21 words' worth: shapes (ragged blocks, passes) are what the matrix
     * is for, and scale is the 2^26 and 2^30 cases'. A 3x3 matrix is 9 words: up to 2^20 + 7
     * matrices, stage 13's matrix was 371 million words, 4.2 s of kit_grade's checking on one core
     * (an int stage's: 38 million, 0.16 s) and 29 to 34 s of an H200 make check where an int
     * stage's took 6 to 8 s (2026-11-27). An int problem's sizes are what they were. */
    const size_t top = max_n ? max_n : kit_grade_elements(stage, (size_t)1 << 21);
    size_t sizes[FIXED_SIZES + DRAWN_SIZES + 1];
    int count = 0;
    for (size_t s = 0; s < FIXED_SIZES; s++)
        if (fixed_sizes[s] <= top)
            sizes[count++] = fixed_sizes[s];
    /* On the CPU emulator (max_n set) below 2^17: a drawn size tests the odd shape of n, not its
     * scale, and the emulator runs a GPU thread per fiber. */
    const size_t range = !max_n ? top : max_n < ((size_t)1 << 17) ? max_n : (size_t)1 << 17;
    for (int r = 0; r < DRAWN_SIZES; r++)
        sizes[count++] = between(random, 1, range);
    /* A top below the largest fixed size (3x3 matrices) is a size too: the largest input there,
     * several passes and a ragged last block. */
    int listed = 0;
    for (int s = 0; s < count; s++)
        listed |= sizes[s] == top;
    if (!listed && top < fixed_sizes[FIXED_SIZES - 1])
        sizes[count++] = top;
    for (int s = 0; s < count; s++)
        if (!add_size(plan, sizes[s], max_n != 0, threads, thread_count, random))
            return kit_fail(err, KIT_OUT_OF_MEMORY, "no memory for the grading plan");
    /* Sizes relative to one block size, at that block size only (not again where a size above
     * already runs at every block size: 63, 65, 1023 and 1025 are fixed sizes too). */
    for (int t = 0; t < thread_count; t++)
        for (int r = 0; r < RELATIVE_SIZES; r++) {
            const size_t n = relative_size(threads[t], r);
            int again = 0;
            for (int s = 0; s < count; s++)
                again |= sizes[s] == n;
            if (!again && n <= top && !add_size(plan, n, max_n != 0, &threads[t], 1, random))
                return kit_fail(err, KIT_OUT_OF_MEMORY, "no memory for the grading plan");
        }
    /* A float stage must give the same bits every run: two drawn inputs, KIT_REPRODUCIBLE_RUNS
     * runs each at every block size (many blocks and three passes; a few blocks). */
    if (problem.type == KIT_FLOAT) {
        const size_t large = max_n && max_n < ((size_t)1 << 20) + 7 ? max_n : ((size_t)1 << 20) + 7;
        const size_t few_blocks = large > 7000 ? between(random, 5000, 7000) : between(random, large / 2, large);
        const size_t reproducible[2] = {between(random, large - large / 16, large), few_blocks};
        for (int s = 0; s < 2; s++) {
            kit_pattern pattern = seeded_pattern(random);
            unsigned long long seed = fresh_seed(random);
            for (unsigned t = low; t <= high; t *= 2)
                if (!add(plan, reproducible[s], t, pattern, seed, KIT_REPRODUCIBLE_RUNS))
                    return kit_fail(err, KIT_OUT_OF_MEMORY, "no memory for the grading plan");
        }
    }
    return KIT_OK;
}

/* One size kit_plan_thin_large_sizes() thins: the pattern and block size its one case keeps. */
typedef struct thinned_size {
    size_t n;
    kit_pattern pattern;
    unsigned threads;
    size_t block_sizes; /* the cases of that pattern at this size */
} thinned_size;

/* The index of \p n among the first \p count sizes of \p sizes, or \p count. */
static int thinned_index(const thinned_size *sizes, int count, size_t n)
{
    int s = 0;
    while (s < count && sizes[s].n != n)
        s++;
    return s;
}

void kit_plan_thin_large_sizes(kit_plan *plan, size_t above, kit_random *random)
{
    /* Per size above the limit: its first pattern (all ones, for a fixed size) and one of that
     * pattern's block sizes, drawn now. A plan has a few such sizes (at most 32 are thinned). */
    thinned_size sizes[32];
    int size_count = 0;
    for (int i = 0; i < plan->count; i++) {
        const kit_planned_case *c = &plan->cases[i];
        const int s = thinned_index(sizes, size_count, c->n);
        if (c->n <= above || (s == size_count && size_count == 32))
            continue;
        if (s == size_count) {
            sizes[s] = (thinned_size){c->n, c->pattern, 0, 0};
            size_count++;
        }
        sizes[s].block_sizes += c->pattern == sizes[s].pattern;
    }
    for (int s = 0; s < size_count; s++) {
        const size_t drawn = between(random, 0, sizes[s].block_sizes - 1);
        size_t seen = 0;
        for (int i = 0; i < plan->count && !sizes[s].threads; i++)
            if (plan->cases[i].n == sizes[s].n && plan->cases[i].pattern == sizes[s].pattern && seen++ == drawn)
                sizes[s].threads = plan->cases[i].threads;
    }
    int kept = 0;
    for (int i = 0; i < plan->count; i++) {
        kit_planned_case c = plan->cases[i];
        const int s = thinned_index(sizes, size_count, c.n);
        if (s < size_count && (c.pattern != sizes[s].pattern || c.threads != sizes[s].threads))
            continue;
        c.id = kept; /* the runner's answers name a case by its index */
        plan->cases[kept++] = c;
    }
    plan->count = kept;
}

kit_status kit_plan_large(kit_plan *plan, int stage, kit_random *random, kit_error *err)
{
    /* About 2^26 ints' worth (256 MiB, far above any L2), drawn within 1/16 below: every block
     * size, all ones (lost elements are counted) and random ints with a fresh seed. */
    unsigned low, high;
    kit_grade_threads(stage, &low, &high);
    const size_t top = kit_grade_elements(stage, (size_t)1 << 26);
    const size_t n = between(random, top - top / 16, top);
    /* All ones and the small random ints, as before: making and checking a full-range input of
     * 2^26 words cost seconds on both sides (the matrix has them up to 2^21 words' worth). */
    const kit_pattern patterns[2] = {KIT_PATTERN_ONES, KIT_PATTERN_RANDOM};
    for (int p = 0; p < 2; p++) {
        unsigned long long seed = fresh_seed(random);
        for (unsigned t = low; t <= high; t *= 2)
            if (!add(plan, n, t, patterns[p], seed, 1))
                return kit_fail(err, KIT_OUT_OF_MEMORY, "no memory for the grading plan");
    }
    return KIT_OK;
}

kit_status kit_plan_repeats(kit_plan *plan, int stage, kit_random *random, kit_error *err)
{
    /* Two drawn inputs ten times at every block size: a race, or a float sum added in another
     * order each time, shows as answers that differ. Many blocks and three passes; a few blocks. */
    unsigned low, high;
    kit_grade_threads(stage, &low, &high);
    const size_t large = ((size_t)1 << 20) + 7;
    const size_t sizes[2] = {between(random, large - large / 16, large), between(random, 5000, 7000)};
    for (int s = 0; s < 2; s++) {
        kit_pattern pattern = seeded_pattern(random);
        unsigned long long seed = fresh_seed(random);
        for (unsigned t = low; t <= high; t *= 2)
            if (!add(plan, sizes[s], t, pattern, seed, 10))
                return kit_fail(err, KIT_OUT_OF_MEMORY, "no memory for the grading plan");
    }
    return KIT_OK;
}

kit_status kit_plan_largest(kit_plan *plan, int stage, kit_random *random, kit_error *err)
{
    /* Within 2^16 of kit_max_n() (2^30 words, 4 GiB): byte offsets past 2^31 overflow a signed int
     * here and only here. The smallest and the largest block size. */
    unsigned low, high;
    kit_grade_threads(stage, &low, &high);
    const size_t top = kit_max_n(kit_grade_problem(stage));
    const size_t n = between(random, top - ((size_t)1 << 16), top);
    /* The small random pattern: what this case is for is the offsets, and a full-range input of
     * 2^30 words costs the runner and kit_grade seconds each to make and check. */
    const kit_pattern pattern = KIT_PATTERN_RANDOM;
    const unsigned long long seed = fresh_seed(random);
    if (!add(plan, n, low, pattern, seed, 1) || (high != low && !add(plan, n, high, pattern, seed, 1)))
        return kit_fail(err, KIT_OUT_OF_MEMORY, "no memory for the grading plan");
    return KIT_OK;
}

void kit_plan_speed_case(int stage, size_t base, kit_random *random, size_t *n, unsigned *threads,
                         unsigned long long *seed)
{
    /* Anywhere from half to twice the documented size, any parity, and any supported block
     * size: a fast path kept for one size or one block size is timed only by luck. */
    unsigned low, high;
    kit_grade_threads(stage, &low, &high);
    const size_t top = 2 * base <= kit_max_n(kit_grade_problem(stage)) ? 2 * base : kit_max_n(kit_grade_problem(stage));
    *n = between(random, base / 2 > 0 ? base / 2 : 1, top);
    *threads = low << between(random, 0, (size_t)(block_sizes(low, high) - 1));
    *seed = fresh_seed(random);
}

void kit_plan_load_case(int stage, size_t max_n, kit_random *random, size_t *n, unsigned threads[2], int *count)
{
    /* From the upper half of the emulator's range, and two different block sizes where the
     * stage supports two: a stage coalesced at one size or block size only is counted elsewhere. */
    unsigned low, high;
    kit_grade_threads(stage, &low, &high);
    const int choices = block_sizes(low, high);
    *n = between(random, max_n / 2 > 0 ? max_n / 2 : 1, max_n);
    const size_t first = between(random, 0, (size_t)(choices - 1));
    const size_t other = choices > 1 ? (first + 1 + between(random, 0, (size_t)(choices - 2))) % (size_t)choices : first;
    threads[0] = low << first;
    threads[1] = low << other;
    *count = choices > 1 ? 2 : 1;
}

/* ---------------------------------------------------------------- the plan on the pipe */

char *kit_plan_text(const kit_plan *plan)
{
    size_t size = (size_t)plan->count * 120 + 1, used = 0;
    char *text = malloc(size);
    if (!text)
        return NULL;
    text[0] = '\0';
    for (int i = 0; i < plan->count; i++) {
        const kit_planned_case *c = &plan->cases[i];
        used += (size_t)snprintf(text + used, size - used, "case id=%d n=%zu threads=%u pattern=%s seed=%llu repeats=%d\n",
                                 c->id, c->n, c->threads, kit_pattern_name(c->pattern), c->seed, c->repeats);
    }
    return text;
}

int kit_plan_parse_line(const char *line, kit_planned_case *c)
{
    char pattern[32];
    memset(c, 0, sizeof *c);
    if (sscanf(line, "case id=%d n=%zu threads=%u pattern=%31s seed=%llu repeats=%d", &c->id, &c->n, &c->threads,
               pattern, &c->seed, &c->repeats) != 6)
        return 0;
    kit_error err;
    return kit_pattern_parse(pattern, &c->pattern, &err) == KIT_OK && c->id >= 0 && c->n >= 1 && c->repeats >= 1 &&
           c->repeats <= 100 && c->threads >= 1;
}

/* ---------------------------------------------------------------- the answers against the plan */

int kit_plan_check(const kit_plan *plan, const kit_case_log *log, size_t skipped_from_n, char *why, size_t size)
{
    why[0] = '\0';
    int total = 0;
    for (int i = 0; i < plan->count; i++)
        total += plan->cases[i].repeats;
    unsigned char *seen = calloc((size_t)total + 1, 1);
    int *first_run = malloc(sizeof(int) * ((size_t)plan->count + 1));
    if (!seen || !first_run) {
        free(seen);
        free(first_run);
        snprintf(why, size, "the grader has no memory to check the answers against its plan");
        return -1;
    }
    for (int i = 0, at = 0; i < plan->count; at += plan->cases[i].repeats, i++)
        first_run[i] = at;
    int any_failed = 0, problem = 0;
    for (int i = 0; i < log->count && !problem; i++) {
        const kit_case *c = &log->cases[i];
        any_failed |= c->status != KIT_OK;
        if (c->id < 0 || c->id >= plan->count) {
            snprintf(why, size, "it answered case %d, which the grader never asked for", c->id);
            problem = 1;
            break;
        }
        const kit_planned_case *p = &plan->cases[c->id];
        if (c->n != p->n || c->threads != p->threads || c->pattern != p->pattern || c->seed != p->seed ||
            c->repeat < 0 || c->repeat >= p->repeats) {
            snprintf(why, size, "its answer to case %d (n = %zu, %u threads, %s input, seed %llu) names another case "
                     "(n = %zu, %u threads, %s input, seed %llu, run %d)", p->id, p->n, p->threads,
                     kit_pattern_name(p->pattern), p->seed, c->n, c->threads, kit_pattern_name(c->pattern), c->seed,
                     c->repeat + 1);
            problem = 1;
            break;
        }
        unsigned char *mark = &seen[first_run[c->id] + c->repeat];
        if (*mark) {
            snprintf(why, size, "it answered case %d (n = %zu, %u threads, %s input), run %d, more than once", p->id,
                     p->n, p->threads, kit_pattern_name(p->pattern), c->repeat + 1);
            problem = 1;
            break;
        }
        *mark = 1;
    }
    /* A failed case decides the part on its own; the runner may stop early then. A stage that
     * passed must have answered every run of every case, but those the runner could not hold
     * (n from skipped_from_n on, with a skip line saying why). */
    int missing = 0, first_missing = -1;
    for (int i = 0; i < plan->count && !problem && !any_failed; i++) {
        const kit_planned_case *p = &plan->cases[i];
        if (skipped_from_n && p->n >= skipped_from_n)
            continue;
        for (int r = 0; r < p->repeats; r++)
            if (!seen[first_run[i] + r]) {
                missing++;
                if (first_missing < 0)
                    first_missing = i;
            }
    }
    if (missing) {
        const kit_planned_case *p = &plan->cases[first_missing];
        snprintf(why, size, "it gave no answer for %d of the %d runs the grader asked for (the first: case %d, n = %zu, "
                 "%u threads, %s input)", missing, total, p->id, p->n, p->threads, kit_pattern_name(p->pattern));
        problem = 1;
    }
    free(seen);
    free(first_run);
    return problem;
}

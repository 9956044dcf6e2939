/**
 * \file stages.c
 * \brief The rows of common/stages.def as kit_grade and the report need them: what each stage
 *        reduces and which stage's reference its speed is measured against (no CUDA here; the
 *        launchers live in the runners).
 */
#include "grader.h"

typedef struct grade_row {
    int number;
    const char *file; /* dir/name.cu, under labs/ or solutions/ */
    const char *title;
    kit_passes passes;
    kit_problem problem;
    int baseline;
    unsigned min_threads, max_threads;
} grade_row;

#define KIT_STAGE(number, dir, name, title, min_threads, max_threads, passes, type, op, baseline) \
    {number, #dir "/" #name ".cu", title, passes, {type, op}, baseline, min_threads, max_threads},
static const grade_row rows[KIT_STAGE_COUNT] = {
#include "stages.def"
};
#undef KIT_STAGE

static const grade_row *row_of(int stage)
{
    for (int i = 0; i < KIT_STAGE_COUNT; i++)
        if (rows[i].number == stage)
            return &rows[i];
    return NULL;
}

kit_problem kit_grade_problem(int stage)
{
    const grade_row *row = row_of(stage);
    return row ? row->problem : KIT_INT_SUM;
}

int kit_grade_baseline(int stage)
{
    const grade_row *row = row_of(stage);
    return row ? row->baseline : 1;
}

void kit_grade_threads(int stage, unsigned *low, unsigned *high)
{
    const grade_row *row = row_of(stage);
    *low = row ? row->min_threads : 64;
    *high = row ? row->max_threads : 1024;
}

const char *kit_grade_file(int stage)
{
    const grade_row *r = row_of(stage);
    return r ? r->file : "";
}

const char *kit_grade_title(int stage)
{
    const grade_row *row = row_of(stage);
    return row ? row->title : "";
}

int kit_grade_one_pass(int stage)
{
    const grade_row *row = row_of(stage);
    return row && row->passes == KIT_PASSES_ONE;
}

size_t kit_grade_elements(int stage, size_t n_ints)
{
    size_t n = n_ints / kit_in_words(kit_grade_problem(stage));
    return n > 0 ? n : 1;
}

/**
 * \file grade_stage.c
 * \brief grade_stageK: the grader of one stage. CMake builds it once per stage in
 * common/stages.def, with KIT_GRADE_STAGE set to the stage number.
 *
 *   grade_stage3 correctness --results build/grade      the student's stage 3 (labs table)
 *   grade_stage3 speedup --impl solutions               the reference, timed against itself
 *   compute-sanitizer --tool racecheck grade_stage3 --run-once
 */
#include <string.h>

#include "grader.h"

int main(int argc, char **argv)
{
    kit_grade_args args;
    if (!kit_grade_parse_args(argc, argv, &args))
        return 2;
    const kit_stage *table = strcmp(args.impl, "solutions") == 0 ? kit_solutions_stages : kit_labs_stages;
    return kit_grade_run(&args, kit_find_stage(table, KIT_GRADE_STAGE), kit_solutions_stages);
}

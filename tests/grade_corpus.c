/**
 * \file grade_corpus.c
 * \brief grade_corpus --kernel NAME: grades one known-wrong kernel of tests/wrong_kernels/ in
 * the stage slot it pretends to fill, with exactly the suite a student's stage gets.
 */
#include <stdio.h>
#include <string.h>

#include "grader.h"
#include "wrong_kernels/corpus.h"

int main(int argc, char **argv)
{
    kit_grade_args args;
    if (!kit_grade_parse_args(argc, argv, &args))
        return 2;
    const kit_wrong_kernel *wrong = args.kernel ? kit_find_wrong_kernel(args.kernel) : NULL;
    if (!wrong) {
        fprintf(stderr, "grade_corpus: %s '%s'; the corpus has:\n", args.kernel ? "no known-wrong kernel named" :
                "give --kernel NAME", args.kernel ? args.kernel : "");
        for (int i = 0; i < kit_wrong_kernel_count; i++)
            fprintf(stderr, "  %-28s stage %d: %s\n", kit_wrong_kernels[i].name, kit_wrong_kernels[i].slot,
                    kit_wrong_kernels[i].what);
        return 2;
    }
    kit_stage stage;
    kit_wrong_kernel_as_stage(wrong, &stage);
    return kit_grade_run(&args, &stage, kit_solutions_stages);
}

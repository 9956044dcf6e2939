/**
 * \file picture_of_a_lab.c
 * \brief reduce_ladder's --picture and --trace (common/picture.c) on one planted-bug stage file,
 *        as if it were the student's lab of its stage: the same options, the same code path,
 *        without building a whole labs/ folder around each bug.
 */
#include <stdio.h>

#include "ladder.h"

extern const kit_pass_fn TRACE_BUG_SYMBOL;
extern const kit_signature TRACE_BUG_SIGNATURE;

int main(int argc, char **argv)
{
    kit_options opt;
    kit_error err = {KIT_OK, ""};
    if (kit_parse_options(argc, argv, &opt, &err) != KIT_OK) {
        fprintf(stderr, "picture_of_a_lab: %s\n", err.message);
        return 2;
    }
    const kit_stage *reference = kit_find_stage(kit_solutions_stages, TRACE_BUG_STAGE);
    kit_stage lab = *reference;
    lab.pass = &TRACE_BUG_SYMBOL;
    lab.signature = &TRACE_BUG_SIGNATURE;
    lab.impl = "labs";
    lab.source = TRACE_BUG_SOURCE;
    return ladder_picture(&opt, &lab, reference);
}

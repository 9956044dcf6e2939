/**
 * \file corpus_table.c
 * \brief The known-wrong kernels' table, generated from corpus.def (compiled with KIT_IMPL=corpus).
 */
#include <string.h>

#include "corpus.h"

#define KIT_WRONG_KERNEL(name, slot, part, expected, what) extern const kit_pass_fn KIT_SYMBOL(name);
#include "corpus.def"
#undef KIT_WRONG_KERNEL

const kit_wrong_kernel kit_wrong_kernels[] = {
#define KIT_WRONG_KERNEL(name, slot, part, expected, what) \
    {#name, slot, #part, expected, what, &KIT_SYMBOL(name), "tests/wrong_kernels/" #name ".cu"},
#include "corpus.def"
#undef KIT_WRONG_KERNEL
};

const int kit_wrong_kernel_count = (int)(sizeof kit_wrong_kernels / sizeof kit_wrong_kernels[0]);

const kit_wrong_kernel *kit_find_wrong_kernel(const char *name)
{
    for (int i = 0; i < kit_wrong_kernel_count; i++)
        if (strcmp(kit_wrong_kernels[i].name, name) == 0)
            return &kit_wrong_kernels[i];
    return NULL;
}

void kit_wrong_kernel_as_stage(const kit_wrong_kernel *kernel, kit_stage *stage)
{
    *stage = *kit_find_stage(kit_solutions_stages, kernel->slot);
    stage->pass = kernel->pass;
    stage->impl = "corpus";
    stage->source = kernel->source;
}

/**
 * \file stage_table.c
 * \brief The C table of one implementation's launchers, generated from common/stages.def.
 *
 * Compiled once per implementation with KIT_IMPL set to labs or solutions and KIT_IMPL_DIR to
 * the folder the stage files came from; each stage file registers its launcher as
 * kit_<impl>_<name> (KIT_REGISTER_STAGE in common/stage.h).
 */
#include "kit.h"

#define KIT_STR_(x) #x
#define KIT_STR(x) KIT_STR_(x)

#define KIT_STAGE(number, dir, name, title, min_threads, max_threads, passes, type, op, baseline) \
    extern const kit_pass_fn KIT_SYMBOL(name);                                                    \
    extern const kit_signature KIT_SIGNATURE_SYMBOL(name);
#include "stages.def"
#undef KIT_STAGE

#define KIT_STAGE(number, dir, name, title, min_threads, max_threads, passes, type, op, baseline)          \
    {number, #dir, #name, title, min_threads, max_threads, passes, {type, op}, baseline, &KIT_SYMBOL(name),    \
     &KIT_SIGNATURE_SYMBOL(name), KIT_STR(KIT_IMPL), KIT_IMPL_DIR "/" #dir "/" #name ".cu"},
const kit_stage KIT_SYMBOL(stages)[KIT_STAGE_COUNT] = {
#include "stages.def"
};
#undef KIT_STAGE

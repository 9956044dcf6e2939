/**
 * \file status.c
 * \brief Status names, error messages, and lookups in the stage table (no CUDA here).
 */
#include <stdarg.h>
#include <stdio.h>

#include "kit.h"

const char *kit_status_name(kit_status status)
{
    switch (status) {
    case KIT_OK: return "OK";
    case KIT_WRONG_RESULT: return "WRONG";
    case KIT_NO_RESULT: return "NO RESULT";
    case KIT_OUT_OF_BOUNDS: return "OUT OF BOUNDS";
    case KIT_INPUT_CHANGED: return "INPUT CHANGED";
    case KIT_BAD_LAUNCHER: return "BAD LAUNCHER";
    case KIT_TIMEOUT: return "TIMEOUT";
    case KIT_CUDA_ERROR: return "CUDA ERROR";
    case KIT_NO_GPU: return "NO GPU";
    case KIT_BAD_ARGUMENT: return "BAD ARGUMENT";
    case KIT_OUT_OF_MEMORY: return "OUT OF MEMORY";
    case KIT_TOO_FAST: return "TOO FAST";
    case KIT_NOT_RELEASED: return "NOT RELEASED";
    }
    return "UNKNOWN";
}

kit_status kit_fail(kit_error *err, kit_status status, const char *format, ...)
{
    if (err) {
        va_list args;
        va_start(args, format);
        err->status = status;
        vsnprintf(err->message, sizeof err->message, format, args);
        va_end(args);
    }
    return status;
}

const kit_stage *kit_find_stage(const kit_stage *table, int number)
{
    for (int i = 0; i < KIT_STAGE_COUNT; i++)
        if (table[i].number == number)
            return &table[i];
    return NULL;
}

int kit_stage_released(const kit_stage *stage)
{
    return stage && stage->pass && *stage->pass;
}

kit_status kit_check_threads(const kit_stage *stage, unsigned threads, kit_error *err)
{
    if (!kit_stage_released(stage))
        return kit_fail(err, KIT_NOT_RELEASED, "stage %d is not in this edition of the labs yet: "
                        "your instructor hands it out later", stage ? stage->number : 0);
    int power_of_two = threads != 0 && (threads & (threads - 1)) == 0;
    if (!power_of_two || threads < stage->min_threads || threads > stage->max_threads)
        return kit_fail(err, KIT_BAD_ARGUMENT,
                        "stage %d needs a power-of-two block size from %u to %u threads, not %u",
                        stage->number, stage->min_threads, stage->max_threads, threads);
    return KIT_OK;
}

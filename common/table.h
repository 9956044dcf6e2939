/**
 * \file table.h
 * \brief The one table printer of reduce_ladder: text columns and JSON values, used by the
 * ladder, the sweep, the accuracy study and the counters alike (no CUDA here).
 *
 * A text table is an array of kit_column, the gap before each cell and its width; a table's
 * heads and its rows go through the same array, so a head cannot drift off its numbers. Widths
 * count what the screen shows, not bytes: "µs" is 2 bytes of UTF-8 and 1 column, so the sweep's
 * "µs" head sits in the same 9 columns as its "%9.1f" times. In JSON, a value a row does not
 * have is null (the emulator times nothing: "median_ms": null), never a made-up 0.
 */
#ifndef KIT_TABLE_H
#define KIT_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "kit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One column of a text table. */
typedef struct kit_column {
    const char *gap; /**< printed before the cell: "" for the first column, else " " or "  " */
    int width;       /**< in screen columns: positive right-aligns (numbers), negative left-aligns
                          (names), 0 prints the cell as it is (the last column) */
} kit_column;

/** Prints one cell, printf's \p format and arguments, in \p column (its gap, then the cell
 *  padded to the column's width). A line is its cells, then a '\n' of the caller's. */
void kit_table_cell(const kit_column *column, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Prints a whole line of \p count cells already made (heads, mostly) in \p columns, and '\n'. */
void kit_table_line(const kit_column *columns, int count, const char *const *cells);

/** Today's date as YYYY-MM-DD, the date every table and JSON record carries. */
void kit_table_date(char *date, size_t size);

/** A JSON string, quotes and backslashes escaped (messages and GPU names may hold them). */
void kit_json_string(const char *text);

/** A JSON string on \p out, with control characters escaped too (a source line's tabs). */
void kit_json_string_to(FILE *out, const char *text);

/** A JSON number printed with \p format, or null when there is none (\p has is 0) or it is
 *  not finite (the bound of an exact sum of 0 is infinite). */
void kit_json_value(int has, const char *format, double value);

/** A member after others, `, "name": ` and kit_json_value(). */
void kit_json_member(const char *name, int has, const char *format, double value);

/** The "gpu" member every kind of JSON output has: name, SMs, L2 bytes, peak GB/s. */
void kit_json_gpu(const kit_gpu *gpu);

#ifdef __cplusplus
}
#endif

#endif

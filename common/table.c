/**
 * \file table.c
 * \brief The one table printer of reduce_ladder (table.h): cells padded to screen columns,
 * and JSON strings, numbers and nulls.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "table.h"

/* Columns \p text takes on screen: its UTF-8 characters, not its bytes (a continuation byte,
 * 10xxxxxx, starts none). */
static int screen_width(const char *text)
{
    int width = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        width += (*c & 0xC0) != 0x80;
    return width;
}

static void put_cell(const kit_column *column, const char *text)
{
    const int width = column->width < 0 ? -column->width : column->width;
    const int pad = width - screen_width(text);
    fputs(column->gap, stdout);
    if (column->width > 0 && pad > 0)
        printf("%*s", pad, "");
    fputs(text, stdout);
    if (column->width < 0 && pad > 0)
        printf("%*s", pad, "");
}

void kit_table_cell(const kit_column *column, const char *format, ...)
{
    char text[1024]; /* the longest cell, a stall and what it means, is about 150 bytes */
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    put_cell(column, text);
}

void kit_table_line(const kit_column *columns, int count, const char *const *cells)
{
    for (int c = 0; c < count; c++)
        put_cell(&columns[c], cells[c]);
    putchar('\n');
}

void kit_table_date(char *date, size_t size)
{
    time_t now = time(NULL);
    strftime(date, size, "%Y-%m-%d", localtime(&now));
}

void kit_json_string(const char *text)
{
    putchar('"');
    for (const char *c = text; *c; c++)
        printf(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
    putchar('"');
}

void kit_json_string_to(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

void kit_json_value(int has, const char *format, double value)
{
    if (has && isfinite(value))
        printf(format, value);
    else
        printf("null");
}

void kit_json_member(const char *name, int has, const char *format, double value)
{
    printf(", \"%s\": ", name);
    kit_json_value(has, format, value);
}

void kit_json_gpu(const kit_gpu *gpu)
{
    printf("\"gpu\": {\"name\": ");
    kit_json_string(gpu->name);
    printf(", \"sm_count\": %d, \"l2_bytes\": %d, \"peak_gbps\": %.1f}", gpu->sm_count, gpu->l2_bytes, gpu->peak_gbps);
}

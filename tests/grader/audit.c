/**
 * \file audit.c
 * \brief The static audit of a stage file (audit.h): its source, and the object nvcc made of it.
 *
 * The source is read once into a cleaned copy: line splices removed, comments blanked, string
 * literals and header names marked, and every character's original line kept, so that each
 * check can ask "where does this name appear outside comments and strings?". The object is
 * read through nm and objdump (and cuobjdump where installed), run with popen(); nothing here
 * writes to stdout or stderr, the tools' stderr included.
 *
 * Every decision of what a stage file may use is in one of four tables below: the includes
 * (allowed_includes), the names in the source (source_names), the undefined host symbols a
 * stage's object may have (allowed_symbols), and how the others are named in the message
 * (symbol_classes).
 *
 * The kernels of the object are found from what nvcc's registration code passes to
 * __cudaRegisterFunction: each kernel's device name as a string literal, and its host launch stub,
 * a function of the same name (with an L before names of internal linkage). So a string literal
 * of the object that names one of its functions names a kernel the host can launch, however the
 * toolkit writes its launch code; nm -C gives the demangled name. Where cuobjdump is installed,
 * the entry functions of the embedded cubins are added.
 */
#define _POSIX_C_SOURCE 200809L

#include "audit.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SOURCE_BYTES ((off_t)4 << 20)   /* stage files are a few KB; this is not one */
#define MAX_OBJECT_BYTES ((off_t)512 << 20) /* an object with all of CUB in it is ~2 MB */
#define TOOL_PATH_SIZE 4096
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* ------------------------------------------------------------------------------ the tables */

/** Headers a stage file may include: the kit's stage.h, the CUDA runtime, cooperative groups,
 *  libcu++'s types and atomics, and the C headers for types, printing and assert. */
static const struct {
    const char *name;
    int prefix; /* 1: any header under this folder */
} allowed_includes[] = {
    /* the kit's one header for stage files */
    {"stage.h", 0},
    /* CUDA: the runtime, cooperative groups, libcu++ (cuda::std types, cuda::atomic) */
    {"cuda_runtime.h", 0},
    {"cooperative_groups.h", 0},
    {"cooperative_groups/", 1},
    {"cuda/atomic", 0},
    {"cuda/std/", 1},
    /* C and C++ headers for fixed-width types, limits, printing and assert */
    {"stdint.h", 0},
    {"stddef.h", 0},
    {"limits.h", 0},
    {"stdio.h", 0},
    {"assert.h", 0},
    {"cstdint", 0},
    {"cstddef", 0},
    {"climits", 0},
    {"cstdio", 0},
    {"cassert", 0},
};

/** Path parts that show an include reaches into the kit itself rather than a library. */
static const char *const kit_solution_parts[] = {"solutions"};
static const char *const kit_harness_parts[] = {"common", "tests", "emu", "grader", "wrong_kernels", "kit.h",
                                                "kit_cuda.h", "harness.c", "baselines.cu", "stage_table.c"};

typedef enum { NAME_ALLOWED, NAME_KIT, NAME_PROBE, NAME_INTERNAL } name_rule;

/** Names in the source that decide on their own (cub:: and thrust:: are checked by context). The
 *  first match counts, so the names stage.h declares come before the kit's prefixes. */
static const struct {
    const char *name;
    int prefix; /* 1: every name that starts with this */
    name_rule rule;
} source_names[] = {
    /* what stage.h declares: a stage file uses these (its element types, the macro that
     * registers the launcher and what that expands to) */
    {"kit_pass_fn", 0, NAME_ALLOWED},
    {"kit_argmin", 0, NAME_ALLOWED},
    {"kit_mat3", 0, NAME_ALLOWED},
    {"kit_signature", 0, NAME_ALLOWED},
    {"kit_element_name", 0, NAME_ALLOWED},
    {"kit_erased_launcher", 0, NAME_ALLOWED},
    {"KIT_REGISTER_STAGE", 0, NAME_ALLOWED},
    {"KIT_MAX_N", 0, NAME_ALLOWED},
    {"KIT_CAT", 0, NAME_ALLOWED},
    {"KIT_CAT_", 0, NAME_ALLOWED},
    {"KIT_SYMBOL", 0, NAME_ALLOWED},
    {"KIT_SIGNATURE_SYMBOL", 0, NAME_ALLOWED},
    {"KIT_STAGE_H", 0, NAME_ALLOWED},
    /* platform probes: a stage file must behave the same on a GPU and on the CPU emulator, so
     * it must not ask which machine or compiler builds it (__CUDA_ARCH__ stays allowed: it is
     * how device code tells itself from host code, on both) */
    {"KIT_EMULATOR", 0, NAME_PROBE},
    {"emu_", 1, NAME_PROBE},
    {"EMU_", 1, NAME_PROBE},
    {"__NVCC__", 0, NAME_PROBE},
    {"__CUDACC", 1, NAME_PROBE}, /* __CUDACC__, __CUDACC_VER_MAJOR__, _MINOR__, _BUILD__, _RTC__ */
    {"__NVCOMPILER", 1, NAME_PROBE},
    {"__clang", 1, NAME_PROBE},
    {"__GNUC", 1, NAME_PROBE},
    {"__GNUG__", 0, NAME_PROBE},
    {"_MSC_VER", 0, NAME_PROBE},
    {"__x86_64", 1, NAME_PROBE},
    {"__amd64", 1, NAME_PROBE},
    {"__i386__", 0, NAME_PROBE},
    {"__aarch64__", 0, NAME_PROBE},
    {"__arm__", 0, NAME_PROBE},
    {"__linux", 1, NAME_PROBE},
    {"__unix", 1, NAME_PROBE},
    {"_WIN32", 0, NAME_PROBE},
    {"__APPLE__", 0, NAME_PROBE},
    {"__has_include", 1, NAME_PROBE}, /* and __has_include_next */
    {"CUDART_VERSION", 0, NAME_PROBE},
    {"__CUDART_API_VERSION", 0, NAME_PROBE},
    {"__CUDA_ARCH_LIST__", 0, NAME_PROBE},
    /* the kit's other names: its harness and its reference stages */
    {"kit_", 1, NAME_KIT},
    {"KIT_", 1, NAME_KIT},
    /* the runtime's internals that nvcc's own launch code calls (allowed in the object below):
     * a stage that called them itself could register and launch code nvcc never saw */
    {"__cuda", 1, NAME_INTERNAL},
    {"__sti_", 1, NAME_INTERNAL}, /* __sti____cudaRegisterAll, nvcc's registration constructor */
};

/** The undefined host symbols a stage's object may have. Anything else is refused. */
static const char *const allowed_symbols[] = {
    /* CUDA launch plumbing that nvcc emits. nvcc 13 emits, for <<<>>> launches of plain and
     * template kernels: __cudaRegisterFatBinary(End), __cudaUnregisterFatBinary,
     * __cudaRegisterFunction, __cudaPushCallConfiguration, __cudaPopCallConfiguration,
     * __cudaGetKernel and __cudaLaunchKernel; __cudaRegisterVar for __device__ and __constant__
     * variables, with __cudaInitModule at -O0; the _ptsz forms under --default-stream
     * per-thread. cudaLaunchKernel is the older toolkits' launch and the explicit one. */
    "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary",
    "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaInitModule", "__cudaPushCallConfiguration",
    "__cudaPopCallConfiguration", "__cudaGetKernel", "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz",
    "cudaLaunchKernel", "cudaLaunchKernel_ptsz", "cudaLaunchKernelExC", "cudaLaunchKernelExC_ptsz",
    "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz",
    /* read-only device queries, and waiting for the device (harmless). The templates
     * cudaOccupancyMaxPotentialBlockSize* are inline: they call the WithFlags query,
     * cudaFuncGetAttributes, cudaGetDevice and cudaDeviceGetAttribute. cudaFuncSetAttribute
     * raises a kernel's dynamic shared memory limit, which only that kernel uses. */
    "cudaGetDevice", "cudaGetDeviceCount", "cudaDeviceGetAttribute", "cudaGetDeviceProperties",
    "cudaGetDeviceProperties_v2", "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "cudaOccupancyAvailableDynamicSMemPerBlock",
    "cudaOccupancyMaxPotentialClusterSize", "cudaOccupancyMaxActiveClusters", "cudaFuncGetAttributes",
    "cudaFuncSetAttribute", "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString",
    "cudaGetErrorName", "cudaDeviceSynchronize",
    /* compiler and C++ runtime glue: function-local statics, exceptions unwinding through the
     * launcher, stack protection, position-independent code, struct copies, assert(). atexit
     * is nvcc's own (its registration code unregisters the fatbin with it): check 6 refuses
     * it from any other function. __cxa_atexit is not here: only a destructor of a file-scope
     * or static object needs it, and that runs after main, after the runner's last word. */
    "atexit", "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__gxx_personality_v0",
    "_Unwind_Resume", "__stack_chk_fail", "_GLOBAL_OFFSET_TABLE_", "memset", "memcpy", "memmove",
    "__assert_fail",
    /* debug printing to stdout, which the grader never reads, through functions that take no
     * FILE: a FILE (stdout, stderr) can be pointed at the runner's private reply pipe and
     * written to in the grader's words. gcc turns printf("x\n") into puts and printf("%c", c)
     * into putchar, but a putchar written out into putc(c, stdout): that one is refused. */
    "printf", "puts", "putchar", "__printf_chk",
};

/* Why a stage file may not call what symbol_classes lists. */
static const char WORK[] = "the stage's own kernel must do the work";
static const char PROCESS[] = "the grader's process, its files and the system are not a stage's to touch";
static const char SETTINGS[] = "the device's settings belong to the harness, which shares them with the reference stages";
static const char STREAMS[] = "the grader's streams and files are not a stage's to touch; print with printf or puts "
                              "(putchar(c) compiles to putc(c, stdout): write printf(\"%c\", c))";
static const char AFTER_MAIN[] = "a stage file's code may run only when the harness calls its launcher, never "
                                 "before or after main";

/** How a refused symbol is named in the message; the first match counts. */
static const struct {
    const char *name;
    int prefix;          /* 1: every symbol that starts with this; 2: that and then a capital */
    const char *what;    /* completes "calls NAME (line N), ..." */
    const char *why;     /* why a stage file may not */
    const char *spelled; /* how the source spells it, where not by its name (NULL: its name) */
} symbol_classes[] = {
    /* the kit: its harness and its reference launchers */
    {"kit_", 1, "the kit's harness or a reference stage", WORK, NULL},
    /* memory copies */
    {"cudaMemcpy", 1, "a memory copy", WORK, NULL},
    {"cudaMemset", 1, "a memory copy", WORK, NULL},
    /* allocations, on the device and on the host */
    {"cudaMalloc", 1, "an allocation", WORK, NULL},
    {"cudaFree", 1, "an allocation", WORK, NULL},
    {"cudaHostAlloc", 0, "an allocation", WORK, NULL},
    {"cudaMemPool", 1, "an allocation", WORK, NULL},
    {"malloc", 0, "an allocation", WORK, NULL},
    {"calloc", 0, "an allocation", WORK, NULL},
    {"realloc", 0, "an allocation", WORK, NULL},
    {"free", 0, "an allocation", WORK, NULL},
    {"aligned_alloc", 0, "an allocation", WORK, NULL},
    {"posix_memalign", 0, "an allocation", WORK, NULL},
    {"operator new", 1, "an allocation", WORK, "new"},
    {"operator delete", 1, "an allocation", WORK, "delete"},
    /* graphs first: capture is spelled cudaStream... */
    {"cudaGraph", 1, "a CUDA graph", WORK, NULL},
    {"cudaStreamBeginCapture", 1, "a CUDA graph", WORK, NULL},
    {"cudaStreamEndCapture", 1, "a CUDA graph", WORK, NULL},
    {"cudaStreamIsCapturing", 1, "a CUDA graph", WORK, NULL},
    {"cudaStreamGetCaptureInfo", 1, "a CUDA graph", WORK, NULL},
    {"cudaUserObject", 1, "a CUDA graph", WORK, NULL},
    /* streams and events */
    {"cudaStream", 1, "a stream", WORK, NULL},
    {"cudaEvent", 1, "an event", WORK, NULL},
    /* memory the harness did not hand to the launcher */
    {"__cudaRegisterManagedVar", 0, "managed or host-mapped memory", WORK, "__managed__"},
    {"cudaHostGetDevicePointer", 0, "managed or host-mapped memory", WORK, NULL},
    {"cudaHostRegister", 0, "managed or host-mapped memory", WORK, NULL},
    {"cudaMemPrefetchAsync", 1, "managed or host-mapped memory", WORK, NULL},
    {"cudaMemAdvise", 1, "managed or host-mapped memory", WORK, NULL},
    {"cudaGetSymbolAddress", 0, "memory outside the harness's buffers", WORK, NULL},
    /* the device's settings, which the harness and the reference stages share */
    {"cudaSetDevice", 1, "a change to the device's settings", SETTINGS, NULL},
    {"cudaDeviceSet", 1, "a change to the device's settings", SETTINGS, NULL},
    {"cudaDeviceReset", 0, "a change to the device's settings", SETTINGS, NULL},
    {"cudaCtxResetPersistingL2Cache", 0, "a change to the device's settings", SETTINGS, NULL},
    /* the driver API, and the runtime's door to it */
    {"cudaGetDriverEntryPoint", 1, "the CUDA driver API", WORK, NULL},
    {"cu", 2, "the CUDA driver API", WORK, NULL}, /* cuMemAlloc, cuLaunchKernel, cuGetProcAddress */
    {"cublas", 1, "a CUDA library", WORK, NULL},
    {"cufft", 1, "a CUDA library", WORK, NULL},
    {"curand", 1, "a CUDA library", WORK, NULL},
    {"cusparse", 1, "a CUDA library", WORK, NULL},
    {"cusolver", 1, "a CUDA library", WORK, NULL},
    {"cudnn", 1, "a CUDA library", WORK, NULL},
    {"nccl", 1, "a CUDA library", WORK, NULL},
    /* stdio's FILE objects and the functions that take one: the runner's reply pipe is a file
     * descriptor like stdout's, a FILE can be pointed at it */
    {"stdout", 0, "a stdio stream (FILE)", STREAMS, NULL},
    {"stderr", 0, "a stdio stream (FILE)", STREAMS, NULL},
    {"stdin", 0, "a stdio stream (FILE)", STREAMS, NULL},
    {"_IO_", 1, "a stdio stream (FILE)", STREAMS, NULL}, /* _IO_2_1_stdout_, _IO_putc, ... */
    {"putc", 1, "a function that writes to a stdio stream (FILE)", STREAMS, NULL}, /* and putc_unlocked */
    {"fputc", 1, "a function that writes to a stdio stream (FILE)", STREAMS, NULL},
    {"fputs", 1, "a function that writes to a stdio stream (FILE)", STREAMS, NULL},
    {"fprintf", 0, "a function that writes to a stdio stream (FILE)", STREAMS, NULL},
    {"vfprintf", 0, "a function that writes to a stdio stream (FILE)", STREAMS, NULL},
    {"__fprintf_chk", 0, "a function that writes to a stdio stream (FILE)", STREAMS, "fprintf"},
    {"__vfprintf_chk", 0, "a function that writes to a stdio stream (FILE)", STREAMS, "vfprintf"},
    {"fwrite", 1, "a function that writes to a stdio stream (FILE)", STREAMS, NULL},
    {"fflush", 1, "a function that writes to a stdio stream (FILE)", STREAMS, NULL},
    {"fileno", 1, "a function that reaches a stdio stream (FILE)", STREAMS, NULL},
    {"setvbuf", 0, "a function that reaches a stdio stream (FILE)", STREAMS, NULL},
    {"setbuf", 1, "a function that reaches a stdio stream (FILE)", STREAMS, NULL},
    {"setlinebuf", 0, "a function that reaches a stdio stream (FILE)", STREAMS, NULL},
    {"dprintf", 0, "a function that writes to a file descriptor", STREAMS, NULL},
    {"vdprintf", 0, "a function that writes to a file descriptor", STREAMS, NULL},
    {"__dprintf_chk", 0, "a function that writes to a file descriptor", STREAMS, "dprintf"},
    /* code that runs after main, when the runner has said its last word */
    {"__cxa_atexit", 0, "which runs code after main (a file-scope or static object's destructor)", AFTER_MAIN,
     NULL},
    {"__cxa_thread_atexit", 1, "which runs code after main (a thread_local object's destructor)", AFTER_MAIN, NULL},
    {"on_exit", 0, "which runs code after main", AFTER_MAIN, NULL},
    {"at_quick_exit", 0, "which runs code after main", AFTER_MAIN, NULL},
    /* processes, threads, files and the dynamic loader */
    {"exit", 0, "which ends the process", PROCESS, NULL},
    {"_exit", 0, "which ends the process", PROCESS, NULL},
    {"_Exit", 0, "which ends the process", PROCESS, NULL},
    {"quick_exit", 0, "which ends the process", PROCESS, NULL},
    {"abort", 0, "which ends the process", PROCESS, NULL},
    {"std::terminate()", 0, "which ends the process", PROCESS, "terminate"},
    {"fork", 0, "a process operation", PROCESS, NULL},
    {"vfork", 0, "a process operation", PROCESS, NULL},
    {"exec", 1, "a process operation", PROCESS, NULL},
    {"posix_spawn", 1, "a process operation", PROCESS, NULL},
    {"system", 0, "a process operation", PROCESS, NULL},
    {"popen", 0, "a process operation", PROCESS, NULL},
    {"kill", 0, "a process operation", PROCESS, NULL},
    {"raise", 0, "a process operation", PROCESS, NULL},
    {"signal", 0, "a process operation", PROCESS, NULL},
    {"sigaction", 0, "a process operation", PROCESS, NULL},
    {"syscall", 0, "a process operation", PROCESS, NULL},
    {"getenv", 0, "a process operation", PROCESS, NULL},
    {"setenv", 0, "a process operation", PROCESS, NULL},
    {"pthread_", 1, "a thread operation", PROCESS, NULL},
    {"fopen", 1, "a file operation", PROCESS, NULL},
    {"freopen", 1, "a file operation", PROCESS, NULL},
    {"fdopen", 0, "a file operation", PROCESS, NULL},
    {"open", 1, "a file operation", PROCESS, NULL},
    {"creat", 1, "a file operation", PROCESS, NULL},
    {"read", 0, "a file operation", PROCESS, NULL},
    {"write", 0, "a file operation", PROCESS, NULL},
    {"close", 0, "a file operation", PROCESS, NULL},
    {"unlink", 0, "a file operation", PROCESS, NULL},
    {"remove", 0, "a file operation", PROCESS, NULL},
    {"rename", 0, "a file operation", PROCESS, NULL},
    {"mmap", 1, "a file operation", PROCESS, NULL},
    {"dl", 1, "the dynamic loader", PROCESS, NULL}, /* dlopen, dlsym, dlvsym, dlclose */
};

/* ------------------------------------------------------------------- the audit's state */

/** The source: line splices removed, comments blanked, literals marked, lines kept. */
typedef struct source {
    char *text;
    unsigned char *quoted; /* 1 inside string and character literals and header names */
    int *line;             /* the file's line that text[i] came from */
    size_t len;
} source;

/** One symbol of the object, as nm lists it (in symbol table order, nm -p). */
typedef struct symbol {
    char type;       /* nm's letter: U, w, v undefined; t, T, W code; ... */
    char *name;      /* mangled */
    char *demangled; /* nm -C */
} symbol;

typedef struct symbols {
    symbol *items;
    size_t count, capacity;
} symbols;

/** A list of strings that owns them. */
typedef struct strings {
    char **items;
    size_t count, capacity;
} strings;

typedef struct audit {
    char who[1200]; /* "stage 7's file labs/07_multi_element/reduce_multi_element.cu" */
    char *message;
    size_t size;
    const char *source_path;
    const char *object;
    source src;
    symbols syms;
    char nm[TOOL_PATH_SIZE], objdump[TOOL_PATH_SIZE], cuobjdump[TOOL_PATH_SIZE]; /* "" : none */
    int nvcc;           /* the object registers device code: nvcc made it (else g++: the emulator's) */
    strings registered; /* the names nvcc registers: kernels and device variables (check 4) */
    char launcher[512]; /* the launcher's symbol (KIT_REGISTER_STAGE); "": found from the object */
} audit;

/** Fills the message (if any) and returns \p verdict. */
static kit_audit_verdict say(audit *a, kit_audit_verdict verdict, const char *format, ...)
{
    if (a->message && a->size > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(a->message, a->size, format, args);
        va_end(args);
    }
    return verdict;
}

/** "line 12", or why there is no line: the name is not in the file itself. */
static const char *line_phrase(int line, char *buf, size_t size)
{
    if (line > 0)
        snprintf(buf, size, "line %d", line);
    else
        snprintf(buf, size, "line unknown: it comes from an included header or a macro");
    return buf;
}

static int strings_add(strings *list, const char *s, size_t len)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 64;
        char **bigger = realloc(list->items, capacity * sizeof *bigger);
        if (!bigger)
            return 0;
        list->items = bigger;
        list->capacity = capacity;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return 0;
    memcpy(copy, s, len);
    copy[len] = '\0';
    list->items[list->count++] = copy;
    return 1;
}

static void strings_free(strings *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

/** Appends to \p out (of \p size) at \p *used, cutting what does not fit. */
static void append(char *out, size_t size, size_t *used, const char *format, ...)
{
    if (*used + 1 >= size)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(out + *used, size - *used, format, args);
    va_end(args);
    if (n > 0)
        *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/** Whether \p s is \p pattern (prefix 0), starts with it (1), or starts with it and a capital (2). */
static int matches(const char *s, const char *pattern, int prefix)
{
    if (!prefix)
        return strcmp(s, pattern) == 0;
    return starts_with(s, pattern) && (prefix == 1 || isupper((unsigned char)s[strlen(pattern)]));
}

/* ------------------------------------------------------------------------ reading files */

/** Whether \p path is a regular file no larger than \p limit (a FIFO would hang a reader). */
static int is_small_regular_file(const char *path, off_t limit)
{
    struct stat st;
    return path && *path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= limit &&
           access(path, R_OK) == 0;
}

/** The whole file, NUL-terminated; its length in \p len. NULL if it cannot be read. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t capacity = 4096, used = 0;
    char *data = malloc(capacity + 1);
    while (data) {
        used += fread(data + used, 1, capacity - used, f);
        if (used < capacity || (off_t)capacity >= MAX_SOURCE_BYTES)
            break;
        char *bigger = realloc(data, 2 * capacity + 1);
        if (!bigger) {
            free(data);
            data = NULL;
            break;
        }
        data = bigger;
        capacity *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(data);
        return NULL;
    }
    if (data) {
        data[used] = '\0';
        *len = used;
    }
    return data;
}

/* ----------------------------------------------------------------------- the source */

static int is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_' || c == '$';
}

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/** Blanks within a line (what may stand before and after the # of a directive). */
static int is_line_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

/** Removes backslash-newline splices (and the blanks gcc tolerates before the newline),
 *  remembering each character's line: `#inc\` + newline + `lude` is an include. */
static int splice_lines(source *src, const char *raw, size_t n)
{
    src->text = malloc(n + 1);
    src->quoted = calloc(n + 1, 1);
    src->line = malloc((n + 1) * sizeof *src->line);
    if (!src->text || !src->quoted || !src->line)
        return 0;
    int line = 1;
    size_t len = 0, i = 0;
    if (n >= 3 && memcmp(raw, "\xEF\xBB\xBF", 3) == 0)
        i = 3; /* a UTF-8 byte order mark, which gcc skips: the first line starts after it */
    for (; i < n; i++) {
        if (raw[i] == '\\') {
            size_t j = i + 1;
            while (j < n && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\r'))
                j++;
            if (j < n && raw[j] == '\n') {
                line++;
                i = j;
                continue;
            }
        }
        src->text[len] = raw[i];
        src->line[len++] = line;
        if (raw[i] == '\n')
            line++;
    }
    src->text[len] = '\0';
    src->line[len] = line;
    src->len = len;
    return 1;
}

/** Skips a number (digits, letters, dots, exponent signs and ' digit separators: 1'000). */
static size_t skip_number(const source *src, size_t i)
{
    const char *t = src->text;
    for (i++; i < src->len; i++) {
        char c = t[i];
        if (isalnum((unsigned char)c) || c == '_' || c == '.')
            continue;
        if (c == '\'' && i + 1 < src->len && isalnum((unsigned char)t[i + 1]))
            continue;
        if ((c == '+' || c == '-') && strchr("eEpP", t[i - 1]))
            continue;
        break;
    }
    return i;
}

/** Marks a "string" or 'c' literal starting at \p i; it ends at its quote or the line's end. */
static size_t skip_literal(source *src, size_t i)
{
    char quote = src->text[i];
    src->quoted[i++] = 1;
    while (i < src->len && src->text[i] != '\n') {
        char c = src->text[i];
        src->quoted[i++] = 1;
        if (c == '\\' && i < src->len && src->text[i] != '\n')
            src->quoted[i++] = 1;
        else if (c == quote)
            break;
    }
    return i;
}

/** Marks a raw string R"delim(...)delim" whose quote is at \p i; 0 if it is not one. */
static size_t skip_raw_string(source *src, size_t i)
{
    const char *t = src->text;
    size_t open = i + 1;
    while (open < src->len && open - i <= 17 && t[open] != '(') {
        if (strchr(" \\)\t\n", t[open]))
            return 0;
        open++;
    }
    if (open >= src->len || t[open] != '(')
        return 0;
    size_t delim_len = open - i - 1;
    size_t end = open + 1;
    for (; end < src->len; end++) {
        if (t[end] == ')' && end + 1 + delim_len < src->len && strncmp(t + end + 1, t + i + 1, delim_len) == 0 &&
            t[end + 1 + delim_len] == '"') {
            end += delim_len + 2;
            break;
        }
    }
    if (end > src->len)
        end = src->len;
    memset(src->quoted + i, 1, end - i);
    return end;
}

static int is_raw_prefix(const char *s, size_t len)
{
    static const char *const prefixes[] = {"R", "u8R", "uR", "UR", "LR"};
    for (size_t k = 0; k < COUNT(prefixes); k++)
        if (strlen(prefixes[k]) == len && strncmp(s, prefixes[k], len) == 0)
            return 1;
    return 0;
}

/** Blanks comments (keeping newlines, so lines stay lines) and marks literals. */
static void blank_comments(source *src)
{
    char *t = src->text;
    size_t i = 0, n = src->len;
    while (i < n) {
        char c = t[i], next = i + 1 < n ? t[i + 1] : '\0';
        if (c == '/' && next == '/') {
            while (i < n && t[i] != '\n')
                t[i++] = ' ';
        } else if (c == '/' && next == '*') {
            t[i] = t[i + 1] = ' ';
            for (i += 2; i < n && !(t[i] == '*' && i + 1 < n && t[i + 1] == '/'); i++)
                if (t[i] != '\n')
                    t[i] = ' ';
            if (i < n) {
                t[i] = t[i + 1] = ' ';
                i += 2;
            }
        } else if (is_ident_start(c)) {
            size_t start = i;
            while (i < n && is_ident_char(t[i]))
                i++;
            size_t end;
            if (i < n && t[i] == '"' && is_raw_prefix(t + start, i - start) && (end = skip_raw_string(src, i)))
                i = end;
        } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)next))) {
            i = skip_number(src, i);
        } else if (c == '"' || c == '\'') {
            i = skip_literal(src, i);
        } else {
            i++;
        }
    }
}

static int load_source(source *src, const char *path)
{
    size_t n = 0;
    char *raw = read_file(path, &n);
    if (!raw)
        return 0;
    int ok = splice_lines(src, raw, n);
    free(raw);
    if (ok)
        blank_comments(src);
    return ok;
}

static void free_source(source *src)
{
    free(src->text);
    free(src->quoted);
    free(src->line);
    memset(src, 0, sizeof *src);
}

/** A token of the cleaned source: an identifier, "::", or one other character. */
typedef struct token {
    size_t start, len;
    int line;
    int ident;
} token;

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/** The next token at or after \p *i, skipping blanks, literals and numbers; 0 at the end. */
static int next_token(const source *src, size_t *i, token *tok)
{
    const char *t = src->text;
    size_t k = *i;
    for (;;) {
        while (k < src->len && (is_blank(t[k]) || src->quoted[k]))
            k++;
        if (k >= src->len) {
            *i = k;
            return 0;
        }
        if (isdigit((unsigned char)t[k]) || (t[k] == '.' && k + 1 < src->len && isdigit((unsigned char)t[k + 1])))
            k = skip_number(src, k);
        else
            break;
    }
    tok->start = k;
    tok->line = src->line[k];
    tok->ident = is_ident_start(t[k]);
    if (tok->ident) {
        while (k < src->len && is_ident_char(t[k]) && !src->quoted[k])
            k++;
    } else if (t[k] == ':' && k + 1 < src->len && t[k + 1] == ':') {
        k += 2;
    } else {
        k++;
    }
    tok->len = k - tok->start;
    *i = k;
    return 1;
}

static int token_is(const source *src, const token *tok, const char *s)
{
    return tok->len == strlen(s) && strncmp(src->text + tok->start, s, tok->len) == 0;
}

/** The first line where \p name appears as an identifier outside comments and strings; 0 if none. */
static int line_of_name(const source *src, const char *name)
{
    size_t i = 0;
    token tok;
    while (next_token(src, &i, &tok))
        if (tok.ident && token_is(src, &tok, name))
            return tok.line;
    return 0;
}

/** The first line where \p word appears as a word outside comments, string literals included
 *  (inline assembly is a string); 0 if none. */
static int line_of_word(const source *src, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= src->len; i++)
        if (strncmp(src->text + i, word, n) == 0 && (i == 0 || !is_ident_char(src->text[i - 1])) &&
            !is_ident_char(src->text[i + n]))
            return src->line[i];
    return 0;
}

/* --------------------------------------------------------------- check 1: the includes */

/** One include directive: the name between <> or "", or none where a macro names the header. */
typedef struct include {
    char name[512];
    int angled, literal, line;
} include;

static int include_is_allowed(const include *inc)
{
    const char *name = inc->name;
    if (!inc->literal || name[0] == '/' || strstr(name, "..") || strchr(name, '\\'))
        return 0;
    for (size_t k = 0; k < COUNT(allowed_includes); k++) {
        const char *allowed = allowed_includes[k].name;
        if (allowed_includes[k].prefix ? starts_with(name, allowed) && strlen(name) > strlen(allowed)
                                       : strcmp(name, allowed) == 0)
            return 1;
    }
    return 0;
}

/** Whether a part of the path \p name (between slashes) is one of \p parts. */
static int path_has_part(const char *name, const char *const *parts, size_t count)
{
    for (const char *p = name; *p;) {
        size_t len = strcspn(p, "/");
        for (size_t k = 0; k < count; k++)
            if (strlen(parts[k]) == len && strncmp(p, parts[k], len) == 0)
                return 1;
        p += len;
        if (*p == '/')
            p++;
    }
    return 0;
}

/** Whether a file of the included name sits beside the stage file: "stage.h" in quotes finds
 *  that one first, and it could include anything. */
static int shadowed_beside(const char *source_path, const include *inc)
{
    if (inc->angled)
        return 0;
    const char *slash = strrchr(source_path, '/');
    char path[4096];
    if (slash)
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - source_path), source_path, inc->name);
    else
        snprintf(path, sizeof path, "%s", inc->name);
    return access(path, F_OK) == 0;
}

/** Reads the header name after `#include`, from \p i on the same line. */
static void read_header_name(source *src, size_t i, include *inc)
{
    const char *t = src->text;
    while (i < src->len && is_line_blank(t[i]))
        i++;
    char close = i < src->len && t[i] == '<' ? '>' : i < src->len && t[i] == '"' && src->quoted[i] ? '"' : 0;
    if (!close)
        return; /* a macro, or nothing: not a literal name */
    size_t end = i + 1;
    while (end < src->len && t[end] != close && t[end] != '\n')
        end++;
    if (end >= src->len || t[end] != close || end - i - 1 >= sizeof inc->name)
        return;
    memcpy(inc->name, t + i + 1, end - i - 1);
    inc->name[end - i - 1] = '\0';
    inc->angled = close == '>';
    inc->literal = 1;
    memset(src->quoted + i, 1, end - i + 1); /* the names in <cub/cub.cuh> are not code */
}

/** The include directive on the line starting at \p i, if it is one: #include, #include_next
 *  or #import, with # also spelled as the digraph %: or the trigraph ??=. */
static int read_include(source *src, size_t i, include *inc)
{
    const char *t = src->text;
    while (i < src->len && is_line_blank(t[i]))
        i++;
    if (i < src->len && src->quoted[i])
        return 0;
    if (i < src->len && t[i] == '#')
        i++;
    else if (i + 1 < src->len && t[i] == '%' && t[i + 1] == ':')
        i += 2;
    else if (i + 2 < src->len && t[i] == '?' && t[i + 1] == '?' && t[i + 2] == '=')
        i += 3;
    else
        return 0;
    while (i < src->len && is_line_blank(t[i]))
        i++;
    size_t start = i;
    while (i < src->len && is_ident_char(t[i]))
        i++;
    size_t len = i - start;
    if (!((len == 7 && !strncmp(t + start, "include", 7)) || (len == 12 && !strncmp(t + start, "include_next", 12)) ||
          (len == 6 && !strncmp(t + start, "import", 6))))
        return 0;
    memset(inc, 0, sizeof *inc);
    inc->line = src->line[start];
    read_header_name(src, i, inc);
    return 1;
}

/** Judges one include; the message names it as written. */
static kit_audit_verdict check_include(audit *a, const include *inc)
{
    static const char only[] = "a stage file may include only stage.h, cuda_runtime.h, cooperative groups, cuda/std "
                               "and the C headers for types and printing";
    char where[96];
    line_phrase(inc->line, where, sizeof where);
    const char *open = inc->angled ? "<" : "\"", *close = inc->angled ? ">" : "\"";
    if (!inc->literal)
        return say(a, KIT_AUDIT_FORBIDDEN, "%s includes a header named by a macro (%s): %s, each written out as "
                   "<name> or \"name\".", a->who, where, only);
    int solutions = path_has_part(inc->name, kit_solution_parts, COUNT(kit_solution_parts));
    if (solutions || path_has_part(inc->name, kit_harness_parts, COUNT(kit_harness_parts)))
        return say(a, KIT_AUDIT_FORBIDDEN,
                   "%s includes %s%s%s (%s), which is part of the kit's %s: the kit's harness and reference stages "
                   "are not for a stage to use; the stage's own kernel must do the work.",
                   a->who, open, inc->name, close, where, solutions ? "reference solutions" : "harness");
    if (!include_is_allowed(inc))
        return say(a, KIT_AUDIT_FORBIDDEN, "%s includes %s%s%s (%s): %s; the stage's own kernel must do the work.",
                   a->who, open, inc->name, close, where, only);
    if (shadowed_beside(a->source_path, inc))
        return say(a, KIT_AUDIT_FORBIDDEN,
                   "%s includes \"%s\" (%s), and a file of that name sits beside it, so that one is included instead "
                   "of the kit's: remove it; a stage file may include only the kit's own headers.",
                   a->who, inc->name, where);
    return KIT_AUDIT_CLEAN;
}

static kit_audit_verdict check_includes(audit *a)
{
    kit_audit_verdict verdict = KIT_AUDIT_CLEAN;
    for (size_t i = 0; i < a->src.len && verdict == KIT_AUDIT_CLEAN; i++) {
        include inc;
        if ((i == 0 || a->src.text[i - 1] == '\n') && read_include(&a->src, i, &inc))
            verdict = check_include(a, &inc);
    }
    return verdict;
}

/* ----------------------------------------------------------- check 2: names in the source */

/** Writes the qualified name that starts at the token at \p i (cub::DeviceReduce::Sum) into
 *  \p out; returns whether a "(" follows it: a call. */
static int qualified_name(const source *src, size_t i, char *out, size_t size)
{
    token tok, sep;
    size_t used = 0;
    int call = 0;
    out[0] = '\0';
    while (next_token(src, &i, &tok) && tok.ident) {
        append(out, size, &used, "%.*s", (int)tok.len, src->text + tok.start);
        size_t after = i;
        if (!next_token(src, &after, &sep))
            break;
        if (!token_is(src, &sep, "::")) {
            call = token_is(src, &sep, "(");
            break;
        }
        append(out, size, &used, "::");
        i = after;
    }
    return call;
}

static kit_audit_verdict refuse_library(audit *a, const token *tok)
{
    char name[256], where[96];
    int call = qualified_name(&a->src, tok->start, name, sizeof name);
    return say(a, KIT_AUDIT_FORBIDDEN,
               "%s %s %s (%s): the stage's own kernel must do the work, not CUB's or Thrust's.", a->who,
               call ? "calls" : "uses", name, line_phrase(tok->line, where, sizeof where));
}

static kit_audit_verdict refuse_name(audit *a, const token *tok, name_rule rule)
{
    char where[96];
    const char *name = a->src.text + tok->start;
    int len = (int)tok->len;
    line_phrase(tok->line, where, sizeof where);
    switch (rule) {
    case NAME_PROBE:
        return say(a, KIT_AUDIT_FORBIDDEN,
                   "%s %s %.*s (%s): a stage file must not ask which machine or compiler runs it; it must behave "
                   "the same on a GPU and on the CPU emulator.",
                   a->who, strncmp(name, "emu", 3) == 0 ? "uses" : "tests", len, name, where);
    case NAME_KIT:
        return say(a, KIT_AUDIT_FORBIDDEN,
                   "%s uses %.*s (%s): the kit's harness and reference stages are not for a stage to call; a "
                   "stage file uses only what stage.h declares (KIT_REGISTER_STAGE, kit_argmin, kit_mat3, KIT_MAX_N, "
                   "...).",
                   a->who, len, name, where);
    case NAME_INTERNAL:
        return say(a, KIT_AUDIT_FORBIDDEN,
                   "%s uses %.*s (%s), one of the CUDA runtime's internals: a stage file launches its kernels "
                   "with <<<...>>> and leaves the rest to nvcc.",
                   a->who, len, name, where);
    default:
        return KIT_AUDIT_CLEAN;
    }
}

/** emu::...: the kit's CPU emulator, asked for by name. */
static kit_audit_verdict refuse_emulator_namespace(audit *a, const token *tok)
{
    char name[256], where[96];
    qualified_name(&a->src, tok->start, name, sizeof name);
    return say(a, KIT_AUDIT_FORBIDDEN,
               "%s uses %s (%s): a stage file must not ask which machine or compiler runs it; it must behave the "
               "same on a GPU and on the CPU emulator.",
               a->who, name, line_phrase(tok->line, where, sizeof where));
}

static name_rule rule_of_name(const char *name, size_t len)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < 255 ? len : 255), name);
    for (size_t k = 0; k < COUNT(source_names); k++)
        if (matches(buf, source_names[k].name, source_names[k].prefix))
            return source_names[k].rule;
    return NAME_ALLOWED;
}

static kit_audit_verdict check_names(audit *a)
{
    const source *src = &a->src;
    size_t i = 0;
    token tok, prev = {0, 0, 0, 0};
    while (next_token(src, &i, &tok)) {
        token next;
        size_t after = i;
        int qualifies = next_token(src, &after, &next) && token_is(src, &next, "::");
        if (tok.ident && (token_is(src, &tok, "cub") || token_is(src, &tok, "thrust")) &&
            (qualifies || token_is(src, &prev, "namespace") || token_is(src, &prev, "=")))
            return refuse_library(a, &tok); /* cub::..., using namespace cub, namespace c = cub */
        if (tok.ident && token_is(src, &tok, "emu") && qualifies)
            return refuse_emulator_namespace(a, &tok);
        if (tok.ident) {
            name_rule rule = rule_of_name(src->text + tok.start, tok.len);
            if (rule != NAME_ALLOWED)
                return refuse_name(a, &tok, rule);
        }
        prev = tok;
    }
    return KIT_AUDIT_CLEAN;
}

/* ------------------------------------------------------------------- running the tools */

/** Finds \p given (a path, or a name to look up on PATH; NULL or "": \p name on PATH). */
static int find_tool(const char *given, const char *name, char *out, size_t size)
{
    const char *want = given && *given ? given : name;
    struct stat st;
    if (strchr(want, '/')) {
        snprintf(out, size, "%s", want);
        return stat(want, &st) == 0 && S_ISREG(st.st_mode) && access(want, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    for (const char *p = path;;) {
        size_t len = strcspn(p, ":");
        snprintf(out, size, "%.*s%s%s", (int)len, p, len ? "/" : "", want);
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 1;
        if (!p[len])
            break;
        p += len + 1;
    }
    out[0] = '\0';
    return 0;
}

/** Appends \p s to \p cmd in single quotes, for sh (a path may hold spaces or quotes); a
 *  \p file named like an option gets "./" before it. */
static int append_quoted(char *cmd, size_t size, const char *s, int file)
{
    size_t used = strlen(cmd);
    if (used + 5 >= size)
        return 0;
    cmd[used++] = '\'';
    if (file && s[0] == '-') {
        cmd[used++] = '.';
        cmd[used++] = '/';
    }
    for (; *s; s++) {
        if (used + 6 >= size)
            return 0;
        if (*s == '\'') {
            memcpy(cmd + used, "'\\''", 4);
            used += 4;
        } else {
            cmd[used++] = *s;
        }
    }
    cmd[used++] = '\'';
    cmd[used++] = ' ';
    cmd[used] = '\0';
    return 1;
}

/** Called with each line of a tool's output (newline removed); nonzero stops reading. */
typedef int (*line_fn)(void *context, char *line);

/**
 * Runs `tool options... file` with its stderr discarded and feeds each line of its output to
 * \p fn. Returns 1 if the tool ran and succeeded (or \p fn stopped it early), 0 otherwise.
 */
static int run_tool(const char *tool, const char *const *options, const char *file, line_fn fn, void *context)
{
    char cmd[3 * TOOL_PATH_SIZE + 1024] = "LC_ALL=C exec ";
    int ok = append_quoted(cmd, sizeof cmd, tool, 0);
    for (size_t k = 0; ok && options[k]; k++)
        ok = append_quoted(cmd, sizeof cmd, options[k], 0);
    ok = ok && append_quoted(cmd, sizeof cmd, file, 1);
    size_t used = strlen(cmd);
    if (!ok || used + 32 >= sizeof cmd)
        return 0;
    append(cmd, sizeof cmd, &used, "</dev/null 2>/dev/null");
    FILE *pipe = popen(cmd, "r");
    if (!pipe)
        return 0;
    char *line = NULL;
    size_t capacity = 0;
    ssize_t len;
    int stopped = 0, lines = 0;
    while (!stopped && (len = getline(&line, &capacity, pipe)) >= 0) {
        if (len > 0 && line[len - 1] == '\n')
            line[len - 1] = '\0';
        lines++;
        stopped = fn(context, line);
    }
    free(line);
    int status = pclose(pipe);
    if (stopped)
        return 1;
    if (status == -1)
        return errno == ECHILD && lines > 0; /* SIGCHLD ignored by the caller: the status is lost */
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ------------------------------------------------------------------------- the object */

/** Splits a line of `nm` into its type letter and name: "0000000000000010 t name" or
 *  "                 U name". */
static int parse_nm_line(char *line, char *type, char **name)
{
    char *p = line;
    while (*p == ' ')
        p++;
    char *q = p;
    while (isxdigit((unsigned char)*q))
        q++;
    if (q > p && q[0] == ' ' && q[1] && q[2] == ' ' && q[3]) {
        *type = q[1];
        *name = q + 3;
        return 1;
    }
    if (p > line && p[0] && p[1] == ' ' && p[2]) {
        *type = p[0];
        *name = p + 2;
        return 1;
    }
    return 0;
}

static int add_mangled(void *context, char *line)
{
    symbols *syms = context;
    char type, *name;
    if (!parse_nm_line(line, &type, &name))
        return 0;
    if (syms->count == syms->capacity) {
        size_t capacity = syms->capacity ? 2 * syms->capacity : 256;
        symbol *bigger = realloc(syms->items, capacity * sizeof *bigger);
        if (!bigger)
            return 1;
        syms->items = bigger;
        syms->capacity = capacity;
    }
    symbol *s = &syms->items[syms->count];
    s->type = type;
    s->demangled = NULL;
    s->name = strdup(name);
    if (!s->name)
        return 1;
    syms->count++;
    return 0;
}

typedef struct demangling {
    symbols *syms;
    size_t next;
    int mismatch;
} demangling;

static int add_demangled(void *context, char *line)
{
    demangling *d = context;
    char type, *name;
    if (!parse_nm_line(line, &type, &name))
        return 0;
    if (d->next >= d->syms->count || d->syms->items[d->next].type != type) {
        d->mismatch = 1;
        return 1;
    }
    d->syms->items[d->next].demangled = strdup(name);
    if (!d->syms->items[d->next++].demangled) {
        d->mismatch = 1;
        return 1;
    }
    return 0;
}

static void free_symbols(symbols *syms)
{
    for (size_t i = 0; i < syms->count; i++) {
        free(syms->items[i].name);
        free(syms->items[i].demangled);
    }
    free(syms->items);
    memset(syms, 0, sizeof *syms);
}

static int is_undefined(char type)
{
    return type == 'U' || type == 'w' || type == 'v';
}

/** Reads the object's symbols twice, mangled and demangled, in symbol table order (nm -p). */
static kit_audit_verdict read_symbols(audit *a, int require_nvcc)
{
    static const char *const mangled[] = {"-p", NULL}, *const demangled[] = {"-p", "-C", NULL};
    demangling d = {&a->syms, 0, 0};
    if (!run_tool(a->nm, mangled, a->object, add_mangled, &a->syms) ||
        !run_tool(a->nm, demangled, a->object, add_demangled, &d))
        return say(a, KIT_AUDIT_CANNOT_RUN,
                   "cannot audit %s: nm cannot read the object %s (is it the .o nvcc made from the stage file?).",
                   a->who, a->object);
    if (d.mismatch || d.next != a->syms.count)
        return say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: nm listed the symbols of %s differently twice.",
                   a->who, a->object);
    for (size_t i = 0; i < a->syms.count; i++)
        if (is_undefined(a->syms.items[i].type) && strcmp(a->syms.items[i].name, "__cudaRegisterFatBinary") == 0)
            a->nvcc = 1;
    if (a->nvcc || !require_nvcc)
        return KIT_AUDIT_CLEAN;
    return say(a, KIT_AUDIT_CANNOT_RUN,
               "cannot audit %s: %s does not look like an object nvcc made from a stage file (it registers no "
               "device code).",
               a->who, a->object);
}

/* -------------------------------------------------- check 3: the object's undefined symbols */

static int symbol_is_allowed(const char *name)
{
    for (size_t k = 0; k < COUNT(allowed_symbols); k++)
        if (strcmp(name, allowed_symbols[k]) == 0)
            return 1;
    return 0;
}

/** The table row that names \p name, or -1: "something else". */
static int class_of_symbol(const char *name)
{
    for (size_t k = 0; k < COUNT(symbol_classes); k++)
        if (matches(name, symbol_classes[k].name, symbol_classes[k].prefix))
            return (int)k;
    return -1;
}

/** The name as a source would spell it: the last part of a C++ name, without its parameters,
 *  template arguments or the suffixes that headers add by macro (_v2, _ptsz, _ptds). */
static void spelling_of_symbol(const char *name, char *out, size_t size)
{
    size_t len = strcspn(name, "(<");
    const char *start = name;
    for (const char *p = name; p < name + len; p++)
        if (p[0] == ':' && p[1] == ':')
            start = p + 2;
    snprintf(out, size, "%.*s", (int)(name + len - start), start);
}

static int line_of_symbol(const source *src, const char *name, const char *spelled)
{
    char word[256];
    spelling_of_symbol(spelled ? spelled : name, word, sizeof word);
    int line = line_of_name(src, word);
    static const char *const suffixes[] = {"_v2", "_v3", "_ptsz", "_ptds"};
    for (size_t k = 0; !line && k < COUNT(suffixes); k++) {
        size_t n = strlen(word), s = strlen(suffixes[k]);
        if (n > s && strcmp(word + n - s, suffixes[k]) == 0) {
            word[n - s] = '\0';
            line = line_of_name(src, word);
        }
    }
    return line;
}

/** Which refused symbol to name first: one the class table names (a memory copy, a file
 *  operation, ...) before "something else", and the first in the source before those it cannot
 *  place. Lower is named first. */
static long long symbol_rank(int line, int class_row)
{
    long long rank = line > 0 ? line : 1LL << 32;
    return class_row >= 0 ? rank : rank + (1LL << 33);
}

static kit_audit_verdict check_undefined_symbols(audit *a)
{
    const symbol *worst = NULL;
    int worst_line = 0, worst_class = -1;
    for (size_t i = 0; i < a->syms.count; i++) {
        const symbol *s = &a->syms.items[i];
        if (!is_undefined(s->type) || symbol_is_allowed(s->demangled))
            continue;
        int k = class_of_symbol(s->demangled);
        int line = line_of_symbol(&a->src, s->demangled, k >= 0 ? symbol_classes[k].spelled : NULL);
        if (!worst || symbol_rank(line, k) < symbol_rank(worst_line, worst_class)) {
            worst = s;
            worst_line = line;
            worst_class = k;
        }
    }
    if (!worst)
        return KIT_AUDIT_CLEAN;
    char where[160];
    const char *spelled = worst_class >= 0 ? symbol_classes[worst_class].spelled : NULL;
    int putchar_line = line_of_name(&a->src, "putchar");
    if (spelled && worst_line > 0) /* __managed__ for __cudaRegisterManagedVar, new for operator new */
        snprintf(where, sizeof where, "line %d, where %s is written", worst_line, spelled);
    else if (worst_line == 0 && putchar_line > 0 &&
             (strcmp(worst->demangled, "stdout") == 0 || strcmp(worst->demangled, "putc") == 0))
        snprintf(where, sizeof where, "line %d, where putchar is written", putchar_line);
    else
        line_phrase(worst_line, where, sizeof where);
    /* a FILE is data, not a function */
    int object = strcmp(worst->demangled, "stdout") == 0 || strcmp(worst->demangled, "stderr") == 0 ||
                 strcmp(worst->demangled, "stdin") == 0 || starts_with(worst->demangled, "_IO_2_1_");
    return say(a, KIT_AUDIT_FORBIDDEN,
               "%s %s %s (%s), %s: %s; a stage file may only launch its kernels, query the device "
               "(cudaGetDevice, cudaDeviceGetAttribute, cudaOccupancy*, cudaFuncGetAttributes, ...) and print.",
               a->who, object ? "uses" : "calls", worst->demangled, where,
               worst_class >= 0 ? symbol_classes[worst_class].what : "which a stage file has no use for",
               worst_class >= 0 ? symbol_classes[worst_class].why : WORK);
}

/* ----------------------------------------------------------- check 4: the embedded kernels */

/** Collects the NUL-separated strings of `objdump -s` hex dumps: " 0010 5f5a3274 6b494c69 ...". */
typedef struct dump {
    strings *out;
    char pending[4096];
    size_t used;
    int failed;
} dump;

static int hex_value(char c)
{
    return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

static void dump_byte(dump *d, unsigned char byte)
{
    if (byte == '\0') {
        if (d->used > 0 && !strings_add(d->out, d->pending, d->used))
            d->failed = 1;
        d->used = 0;
    } else if (d->used < sizeof d->pending) {
        d->pending[d->used++] = (char)byte;
    }
}

static int add_dump_line(void *context, char *line)
{
    dump *d = context;
    if (starts_with(line, "Contents of section ")) {
        dump_byte(d, '\0'); /* a string never runs on into the next section */
        return 0;
    }
    if (line[0] != ' ' || !isxdigit((unsigned char)line[1]))
        return 0;
    char *p = line + 1;
    while (isxdigit((unsigned char)*p))
        p++;
    if (*p++ != ' ')
        return 0;
    /* four groups of up to 8 hex digits (35 columns), then the ASCII column */
    for (int column = 0; column < 35 && p[0] && p[1]; column++, p++) {
        if (*p == ' ')
            continue;
        if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]))
            break;
        dump_byte(d, (unsigned char)(hex_value(p[0]) * 16 + hex_value(p[1])));
        p++;
        column++;
    }
    return d->failed;
}

typedef struct section_list {
    char names[16][64];
    const char *argv[2 * 16 + 2]; /* -s, then -j and a name for each */
    int count;
} section_list;

/** Notes the sections that hold string literals, from `objdump -h`: "  5 .rodata.str1.1  0000004c
 *  ..." (gcc's mergeable strings), or plain .rodata where constants are not merged (-O0). */
static int add_string_section(void *context, char *line)
{
    section_list *list = context;
    char name[64];
    int index;
    if (sscanf(line, " %d %63s", &index, name) == 2 && (strcmp(name, ".rodata") == 0 || starts_with(name, ".rodata.str")) &&
        list->count < 16)
        snprintf(list->names[list->count++], sizeof list->names[0], "%s", name);
    return 0;
}

/**
 * The names nvcc registers for the object's kernels and device variables: nvcc's host code
 * passes each kernel's device name to __cudaRegisterFunction as a string constant, so the
 * object's read-only strings hold every kernel a host can launch, whatever the launch code
 * looks like in this toolkit.
 */
static int read_string_literals(audit *a, strings *out)
{
    static const char *const headers[] = {"-h", NULL};
    section_list *list = calloc(1, sizeof *list);
    if (!list || !run_tool(a->objdump, headers, a->object, add_string_section, list)) {
        free(list);
        return 0;
    }
    int argc = 0;
    list->argv[argc++] = "-s";
    for (int k = 0; k < list->count; k++) {
        list->argv[argc++] = "-j";
        list->argv[argc++] = list->names[k];
    }
    list->argv[argc] = NULL;
    dump d = {out, {0}, 0, 0};
    int ok = list->count == 0 || run_tool(a->objdump, list->argv, a->object, add_dump_line, &d);
    dump_byte(&d, '\0');
    free(list);
    return ok && !d.failed;
}

/** The entry functions (kernels) of the embedded cubins: "STT_FUNC STB_GLOBAL STO_ENTRY name". */
static int add_cubin_kernel(void *context, char *line)
{
    if (!starts_with(line, "STT_FUNC") || !strstr(line, "STO_ENTRY"))
        return 0;
    char *name = line + strlen(line);
    while (name > line && is_blank(name[-1]))
        *--name = '\0';
    while (name > line && !is_blank(name[-1]))
        name--;
    return *name && !strings_add(context, name, strlen(name));
}

/** Whether \p host is \p device with the marks of internal linkage that only the host's name
 *  carries: an L before a name (_ZL2skPi for the device's _Z2skPi, ...detailL11EmptyKernel...). */
static int same_function(const char *host, const char *device)
{
    while (*host || *device) {
        if (*host == *device) {
            host++;
            device++;
        } else if (*host == 'L' && isdigit((unsigned char)host[1])) {
            host++;
        } else {
            return 0;
        }
    }
    return 1;
}

/** The host function (the launch stub) of a kernel's device name, or NULL. */
static const symbol *host_symbol_of(const audit *a, const char *device_name)
{
    for (size_t i = 0; i < a->syms.count; i++) {
        const symbol *s = &a->syms.items[i];
        if (s->type && strchr("tTW", s->type) && same_function(s->name, device_name))
            return s;
    }
    return NULL;
}

/** The qualified name of a demangled function, without return type, template arguments or
 *  parameters: "void cub::X::K<int>(int*)" -> "cub::X::K". */
static void function_name(const char *demangled, char *out, size_t size)
{
    static const char anonymous[] = "(anonymous namespace)";
    char buf[1024];
    size_t used = 0;
    int angle = 0;
    buf[0] = '\0';
    for (const char *p = demangled; *p; p++) {
        if (starts_with(p, anonymous)) { /* keep its parentheses out of the way */
            append(buf, sizeof buf, &used, "%s", angle ? "" : "{anonymous}");
            p += strlen(anonymous) - 1;
        } else if (*p == '<') {
            angle++;
        } else if (*p == '>' && angle > 0) {
            angle--;
        } else if (*p == '(' && angle == 0) {
            break; /* the parameters */
        } else if (angle == 0) {
            append(buf, sizeof buf, &used, "%c", *p);
        }
    }
    const char *name = strrchr(buf, ' '); /* after the return type */
    snprintf(out, size, "%s", name ? name + 1 : buf);
}

/** The name of a kernel known only by its mangled name: _Z3fooPi -> foo, _ZN2ns3fooE... -> ns::foo. */
static void mangled_function_name(const char *mangled, char *out, size_t size)
{
    const char *p = mangled;
    out[0] = '\0';
    if (!starts_with(p, "_Z")) {
        snprintf(out, size, "%s", mangled);
        return;
    }
    p += 2;
    if (*p == 'L')
        p++;
    int nested = *p == 'N';
    p += nested;
    size_t used = 0;
    for (;;) {
        if (*p == 'L' && isdigit((unsigned char)p[1]))
            p++; /* internal linkage */
        if (!isdigit((unsigned char)*p))
            break;
        long len = strtol(p, (char **)&p, 10);
        if (len <= 0 || (size_t)len > strlen(p))
            break;
        const char *part = starts_with(p, "_GLOBAL__N") ? "{anonymous}" : p;
        int part_len = part == p ? (int)len : (int)strlen(part);
        append(out, size, &used, "%s%.*s", used ? "::" : "", part_len, part);
        p += len;
        if (!nested)
            break;
    }
}

/** Splits a qualified name into its outermost named namespace (\p outer, "" if none: the
 *  anonymous namespace does not count) and its last part (\p last). */
static void split_kernel_name(const char *qualified, char *outer, char *last, size_t size)
{
    static const char anonymous[] = "{anonymous}";
    outer[0] = '\0';
    const char *part = qualified;
    for (const char *p; (p = strstr(part, "::")) != NULL; part = p + 2) {
        size_t len = (size_t)(p - part);
        int is_anonymous = len == strlen(anonymous) && strncmp(part, anonymous, len) == 0;
        if (!outer[0] && !is_anonymous)
            snprintf(outer, size, "%.*s", (int)len, part);
    }
    snprintf(last, size, "%s", part);
}

/** For the message: "{anonymous}" as C++ writes it. */
static void shown_kernel_name(const char *qualified, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *p = qualified; *p;) {
        if (starts_with(p, "{anonymous}")) {
            append(out, size, &used, "(anonymous namespace)");
            p += strlen("{anonymous}");
        } else {
            append(out, size, &used, "%c", *p++);
        }
    }
}

/**
 * Judges one kernel of the object. It is the stage's own if it is not in a named namespace and
 * its name is written in the source; a library's kernels (cub::...) are in namespaces, and one
 * that a macro or a header brought in is not written in the file.
 */
static kit_audit_verdict check_kernel(audit *a, const char *device_name)
{
    const symbol *host = host_symbol_of(a, device_name);
    char qualified[1024], outer[1024], last[1024], shown[1100], where[1100];
    if (host)
        function_name(host->demangled, qualified, sizeof qualified);
    else
        mangled_function_name(device_name, qualified, sizeof qualified);
    split_kernel_name(qualified, outer, last, sizeof outer);
    int name_line = line_of_name(&a->src, last), outer_line = outer[0] ? line_of_name(&a->src, outer) : 0;
    if (!qualified[0] || (!outer[0] && name_line > 0))
        return KIT_AUDIT_CLEAN;
    shown_kernel_name(qualified, shown, sizeof shown);
    if (outer[0] && outer_line > 0 && name_line > 0)
        return say(a, KIT_AUDIT_FORBIDDEN,
                   "%s defines the kernel %s inside namespace %s (line %d): define the stage's kernels at file "
                   "scope or in an anonymous namespace, where the audit can tell them from a library's.",
                   a->who, shown, outer, outer_line);
    if (outer[0] && outer_line > 0)
        snprintf(where, sizeof where, "line %d, where %s is used", outer_line, outer);
    else
        line_phrase(0, where, sizeof where);
    return say(a, KIT_AUDIT_FORBIDDEN,
               outer[0] ? "%s embeds the kernel %s, which it does not define itself (%s): the stage's own kernel "
                          "must do the work."
                        : "%s embeds the kernel %s, whose name is written nowhere in the file (%s): the stage's own "
                          "kernel must do the work, and its name must be written out where it is defined.",
               a->who, shown, where);
}

static kit_audit_verdict check_kernels(audit *a)
{
    strings names = {0};
    if (!read_string_literals(a, &names)) {
        strings_free(&names);
        return say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: objdump cannot read the object %s.", a->who,
                   a->object);
    }
    size_t registered = names.count; /* the rest, if any, are the cubins' own entries */
    static const char *const symbols_option[] = {"-symbols", NULL};
    if (a->cuobjdump[0] && !run_tool(a->cuobjdump, symbols_option, a->object, add_cubin_kernel, &names)) {
        strings_free(&names);
        return say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: cuobjdump cannot read the device code of %s.",
                   a->who, a->object);
    }
    kit_audit_verdict verdict = KIT_AUDIT_CLEAN;
    for (size_t i = 0; i < names.count && verdict == KIT_AUDIT_CLEAN; i++) {
        /* a string constant names a kernel only if a host function (its launch stub) has that
         * name; a cubin's entry is a kernel in any case */
        if (i >= registered || host_symbol_of(a, names.items[i]))
            verdict = check_kernel(a, names.items[i]);
    }
    strings_free(&a->registered);
    a->registered = names; /* check 7 tells the kernels' stubs by these names */
    return verdict;
}

/* ------------------------------------------------------- check 5: raw system calls on the host */

typedef struct disassembly {
    char function[512];      /* the function being read */
    const char *instruction; /* the system call found in it, or NULL */
} disassembly;

/** Reads `objdump -d -C --no-show-raw-insn -w`: "0000000000000000 <name>:" and "  c5:\tsyscall". */
static int find_system_call(void *context, char *line)
{
    disassembly *d = context;
    size_t len = strlen(line);
    char *open = strchr(line, '<');
    if (len > 2 && line[len - 1] == ':' && line[len - 2] == '>' && open && isxdigit((unsigned char)line[0])) {
        snprintf(d->function, sizeof d->function, "%.*s", (int)(line + len - 2 - open - 1), open + 1);
        return 0;
    }
    char *code = strchr(line, '\t');
    if (!code || !strchr(line, ':') || strchr(line, ':') > code)
        return 0;
    char *comment = strchr(code, '#');
    if (comment)
        *comment = '\0';
    static const char *const calls[] = {"syscall", "sysenter", "svc"};
    int interrupt = 0;
    char *rest = NULL;
    for (char *word = strtok_r(code + 1, " \t,", &rest); word; word = strtok_r(NULL, " \t,", &rest)) {
        if (interrupt && strcmp(word, "$0x80") == 0)
            d->instruction = "int $0x80";
        interrupt = strcmp(word, "int") == 0;
        for (size_t k = 0; k < COUNT(calls); k++)
            if (strcmp(word, calls[k]) == 0)
                d->instruction = calls[k];
    }
    return d->instruction != NULL;
}

static kit_audit_verdict check_system_calls(audit *a)
{
    static const char *const options[] = {"-d", "-C", "--no-show-raw-insn", "-w", NULL};
    disassembly d = {"", NULL};
    if (!run_tool(a->objdump, options, a->object, find_system_call, &d))
        return say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: objdump cannot disassemble the object %s.", a->who,
                   a->object);
    if (!d.instruction)
        return KIT_AUDIT_CLEAN;
    char where[96];
    const char *word = strcmp(d.instruction, "int $0x80") == 0 ? "0x80" : d.instruction;
    int static_init = starts_with(d.function, "_GLOBAL__sub_I_");
    return say(a, KIT_AUDIT_FORBIDDEN,
               "%s makes a raw system call in host code (%s in %s, %s): a stage file may only launch its "
               "kernels, query the device and print; it must not talk to the operating system.",
               a->who, d.instruction, static_init ? "a static initializer" : d.function,
               line_phrase(line_of_word(&a->src, word), where, sizeof where));
}

/* ------------------------------------ the object's sections, symbols and relocations (objdump) */

/** A symbol of `objdump -t`: where it lies, so that a relocation can be traced to a function. */
typedef struct placed_symbol {
    char *section, *name;
    unsigned long long value, size;
} placed_symbol;

/** A relocation of `objdump -r`: the place it fills (section, offset) and what it points to. */
typedef struct relocation {
    char *section, *target;
    unsigned long long offset;
    long long addend;
} relocation;

typedef struct layout {
    placed_symbol *symbols;
    size_t symbol_count, symbol_capacity;
    relocation *relocations;
    size_t relocation_count, relocation_capacity;
    char **sections;
    unsigned long long *section_sizes;
    size_t section_count, section_capacity;
    char current[256]; /* the section whose relocations objdump -r is listing */
    int failed;
} layout;

/** Room for one more item in \p *items (of \p size bytes each); 0 when out of memory. */
static int grow(void **items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return 1;
    size_t bigger = *capacity ? 2 * *capacity : 64;
    void *moved = realloc(*items, bigger * size);
    if (!moved)
        return 0;
    *items = moved;
    *capacity = bigger;
    return 1;
}

/** `objdump -h -w`: "  5 .init_array   00000008  0000000000000000 ...". */
static int add_section(void *context, char *line)
{
    layout *l = context;
    char name[256];
    unsigned long long size;
    int index;
    if (sscanf(line, " %d %255s %llx", &index, name, &size) != 3)
        return 0;
    size_t capacity = l->section_capacity;
    if (!grow((void **)&l->sections, &l->section_capacity, l->section_count, sizeof *l->sections) ||
        !grow((void **)&l->section_sizes, &capacity, l->section_count, sizeof *l->section_sizes) ||
        !(l->sections[l->section_count] = strdup(name))) {
        l->failed = 1;
        return 1;
    }
    l->section_sizes[l->section_count++] = size;
    return 0;
}

/** `objdump -t -w`: "0000000000000598 l     F .text\t000000000000000e _sub_I_00099_0" (7 flag
 *  columns, the section, a tab, the size, the name). */
static int add_placed_symbol(void *context, char *line)
{
    layout *l = context;
    char *p;
    unsigned long long value = strtoull(line, &p, 16);
    if (p == line || *p != ' ' || strlen(p) < 10 || p[8] != ' ')
        return 0;
    char *section = p + 9, *tab = strchr(section, '\t');
    if (!tab)
        return 0;
    *tab = '\0';
    unsigned long long size = strtoull(tab + 1, &p, 16);
    if (*p != ' ' || !p[1])
        return 0;
    if (!grow((void **)&l->symbols, &l->symbol_capacity, l->symbol_count, sizeof *l->symbols)) {
        l->failed = 1;
        return 1;
    }
    placed_symbol *s = &l->symbols[l->symbol_count];
    s->section = strdup(section);
    s->name = strdup(p + 1);
    s->value = value;
    s->size = size;
    if (!s->section || !s->name) {
        free(s->section);
        free(s->name);
        l->failed = 1;
        return 1;
    }
    l->symbol_count++;
    return 0;
}

/** `objdump -r -w`: "RELOCATION RECORDS FOR [.init_array]:", then
 *  "0000000000000008 R_X86_64_64       .text.startup+0x0000000000000010". */
static int add_relocation(void *context, char *line)
{
    layout *l = context;
    static const char records[] = "RELOCATION RECORDS FOR [";
    if (starts_with(line, records)) {
        const char *name = line + strlen(records);
        snprintf(l->current, sizeof l->current, "%.*s", (int)strcspn(name, "]"), name);
        return 0;
    }
    char *p, *type, *target;
    unsigned long long offset = strtoull(line, &p, 16);
    if (p == line || *p != ' ' || !l->current[0])
        return 0;
    type = p + strspn(p, " ");
    target = type + strcspn(type, " \t");
    if (!starts_with(type, "R_") || !*target)
        return 0;
    target += strspn(target, " \t");
    long long addend = 0;
    char *plus = strstr(target, "+0x"), *minus = strstr(target, "-0x");
    char *sign = plus ? plus : minus;
    if (sign) {
        addend = (long long)strtoull(sign + 1, NULL, 16) * (sign == minus ? -1 : 1);
        *sign = '\0';
    }
    if (!grow((void **)&l->relocations, &l->relocation_capacity, l->relocation_count, sizeof *l->relocations)) {
        l->failed = 1;
        return 1;
    }
    relocation *r = &l->relocations[l->relocation_count];
    r->section = strdup(l->current);
    r->target = strdup(target);
    r->offset = offset;
    r->addend = addend;
    if (!r->section || !r->target) {
        free(r->section);
        free(r->target);
        l->failed = 1;
        return 1;
    }
    l->relocation_count++;
    return 0;
}

static void free_layout(layout *l)
{
    for (size_t i = 0; i < l->symbol_count; i++) {
        free(l->symbols[i].section);
        free(l->symbols[i].name);
    }
    for (size_t i = 0; i < l->relocation_count; i++) {
        free(l->relocations[i].section);
        free(l->relocations[i].target);
    }
    for (size_t i = 0; i < l->section_count; i++)
        free(l->sections[i]);
    free(l->symbols);
    free(l->relocations);
    free(l->sections);
    free(l->section_sizes);
    memset(l, 0, sizeof *l);
}

static int read_layout(audit *a, layout *l)
{
    static const char *const headers[] = {"-h", "-w", NULL}, *const table[] = {"-t", "-w", NULL},
                             *const relocations[] = {"-r", "-w", NULL};
    return run_tool(a->objdump, headers, a->object, add_section, l) &&
           run_tool(a->objdump, table, a->object, add_placed_symbol, l) &&
           run_tool(a->objdump, relocations, a->object, add_relocation, l) && !l->failed;
}

static int is_section(const layout *l, const char *name)
{
    for (size_t i = 0; i < l->section_count; i++)
        if (strcmp(l->sections[i], name) == 0)
            return 1;
    return 0;
}

/** The function a pointer to \p target + \p addend points to (its start), or NULL. A pointer to
 *  a local function is written as its section and an offset. */
static const char *function_at(const layout *l, const char *target, long long addend)
{
    int in_section = is_section(l, target);
    for (size_t i = 0; i < l->symbol_count; i++) {
        const placed_symbol *s = &l->symbols[i];
        if (in_section ? strcmp(s->section, target) == 0 && s->value == (unsigned long long)addend && s->size > 0
                       : strcmp(s->name, target) == 0 && addend == 0)
            return s->name;
    }
    return NULL;
}

/** The function whose code holds \p section + \p offset, or NULL. */
static const placed_symbol *function_around(const layout *l, const char *section, unsigned long long offset)
{
    for (size_t i = 0; i < l->symbol_count; i++) {
        const placed_symbol *s = &l->symbols[i];
        if (s->size > 0 && strcmp(s->section, section) == 0 && s->value <= offset && offset < s->value + s->size)
            return s;
    }
    return NULL;
}

/** The demangled name nm gave \p mangled, or \p mangled itself. */
static const char *demangled_name(const audit *a, const char *mangled)
{
    for (size_t i = 0; i < a->syms.count; i++)
        if (strcmp(a->syms.items[i].name, mangled) == 0)
            return a->syms.items[i].demangled;
    return mangled;
}

/* -------------------------------------------- check 6: code that runs before or after main */

/** The sections whose pointers the C runtime calls before main (1) or after it (0). */
static const struct {
    const char *name;
    int before;
} startup_sections[] = {
    {".preinit_array", 1}, {".init_array", 1}, {".ctors", 1}, {".fini_array", 0}, {".dtors", 0},
};

/** nvcc's registration constructor: it registers the fatbin and the kernels, and asks atexit to
 *  unregister them. */
static const char NVCC_REGISTRATION[] = "_ZL24__sti____cudaRegisterAllv";

/** Whether every relocation inside the function \p f points only to \p allowed: what ThreadSanitizer's
 *  module constructor (g++ -fsanitize=thread) does is call __tsan_init, nothing else. */
static int function_only_calls(const layout *l, const placed_symbol *f, const char *allowed)
{
    for (size_t i = 0; i < l->relocation_count; i++) {
        const relocation *r = &l->relocations[i];
        if (strcmp(r->section, f->section) == 0 && r->offset >= f->value && r->offset < f->value + f->size &&
            strcmp(r->target, allowed) != 0)
            return 0;
    }
    return 1;
}

static const placed_symbol *placed_named(const layout *l, const char *name)
{
    for (size_t i = 0; i < l->symbol_count; i++)
        if (strcmp(l->symbols[i].name, name) == 0)
            return &l->symbols[i];
    return NULL;
}

/** Whether the startup entry pointing to \p function is one the toolchain itself puts there. */
static int startup_entry_is_the_toolchains(const audit *a, const layout *l, const char *section,
                                           const char *function, int *registrations)
{
    if (!function)
        return 0;
    if (a->nvcc && strcmp(section, ".init_array") == 0 && strcmp(function, NVCC_REGISTRATION) == 0)
        return ++*registrations == 1;
    if (!a->nvcc && starts_with(section, ".init_array.") && starts_with(function, "_sub_I_")) {
        const placed_symbol *f = placed_named(l, function);
        return f && function_only_calls(l, f, "__tsan_init");
    }
    return 0;
}

/** Names what runs outside the launcher for the message: "early() (line 6)", "a file-scope
 *  object's constructor or initializer (line unknown ...)". */
static void describe_function(const audit *a, const char *mangled, char *out, size_t size)
{
    char where[96];
    if (!mangled) {
        snprintf(out, size, "code the audit cannot name");
        return;
    }
    if (starts_with(mangled, "_GLOBAL__sub_I_") || starts_with(mangled, "_GLOBAL__I_")) {
        snprintf(out, size, "the constructor or initializer of a file-scope object (%s)",
                 "its line is not known: look for a file-scope object whose initial value is computed, or "
                 "whose type has a constructor or destructor");
        return;
    }
    const char *name = demangled_name(a, mangled);
    int line = line_of_symbol(&a->src, name, NULL);
    if (!line)
        line = line_of_word(&a->src, mangled); /* an asm label spells the mangled name */
    snprintf(out, size, "%s (%s)", name, line_phrase(line, where, sizeof where));
}

static kit_audit_verdict refuse_outside_main(audit *a, const char *what, int before, const char *section)
{
    return say(a, KIT_AUDIT_FORBIDDEN,
               "%s has %s run %s main (from its %s section): %s; remove the constructor or destructor, and give "
               "file-scope objects constant initial values.",
               a->who, what, before ? "before" : "after", section, AFTER_MAIN);
}

static kit_audit_verdict check_code_outside_launcher(audit *a, const layout *l)
{
    char what[1024];
    /* code placed in .init or .fini runs as part of the program's own _init and _fini */
    for (size_t i = 0; i < l->section_count; i++)
        if (strcmp(l->sections[i], ".init") == 0 || strcmp(l->sections[i], ".fini") == 0)
            return refuse_outside_main(a, "code of its own", strcmp(l->sections[i], ".init") == 0, l->sections[i]);
    int registrations = 0;
    for (size_t i = 0; i < l->section_count; i++) {
        const char *section = l->sections[i];
        int before = -1;
        for (size_t k = 0; k < COUNT(startup_sections); k++)
            if (strcmp(section, startup_sections[k].name) == 0 ||
                (starts_with(section, startup_sections[k].name) && section[strlen(startup_sections[k].name)] == '.'))
                before = startup_sections[k].before;
        if (before < 0)
            continue;
        /* each pointer in the section is one relocation; a slot without one is an address the
         * audit cannot follow */
        unsigned long long slots = (l->section_sizes[i] + 7) / 8, followed = 0;
        for (size_t r = 0; r < l->relocation_count; r++) {
            const relocation *rel = &l->relocations[r];
            if (strcmp(rel->section, section) != 0)
                continue;
            followed++;
            const char *function = function_at(l, rel->target, rel->addend);
            if (!startup_entry_is_the_toolchains(a, l, section, function, &registrations)) {
                describe_function(a, function, what, sizeof what);
                return refuse_outside_main(a, what, before, section);
            }
        }
        if (followed < slots)
            return refuse_outside_main(a, "code at an address the audit cannot follow", before, section);
    }
    /* an indirect function's resolver runs while the program is loaded */
    for (size_t i = 0; i < a->syms.count; i++)
        if (a->syms.items[i].type == 'i') {
            snprintf(what, sizeof what, "the resolver of the indirect function %s", a->syms.items[i].demangled);
            return refuse_outside_main(a, what, 1, "symbol table");
        }
    /* atexit is nvcc's, from its registration constructor; from anywhere else it runs code after
     * main, after the runner's last word */
    const placed_symbol *registration = a->nvcc ? placed_named(l, NVCC_REGISTRATION) : NULL;
    for (size_t r = 0; r < l->relocation_count; r++) {
        const relocation *rel = &l->relocations[r];
        if (strcmp(rel->target, "atexit") != 0)
            continue;
        const placed_symbol *f = function_around(l, rel->section, rel->offset);
        if (registration && f == registration)
            continue;
        char where[96];
        const char *name = f ? demangled_name(a, f->name) : "code the audit cannot name";
        return say(a, KIT_AUDIT_FORBIDDEN,
                   "%s calls atexit (%s, in %s), which runs code after main: %s.", a->who,
                   line_phrase(line_of_name(&a->src, "atexit"), where, sizeof where), name, AFTER_MAIN);
    }
    return KIT_AUDIT_CLEAN;
}

/* ---------------------------------------------- check 7: the object's defined global symbols */

/** Whether nm's letter is a definition that other objects can see (a local one cannot replace
 *  anything): T, D, B, R, C, G, S, A, V, W, u (unique), i (indirect function). */
static int is_global_definition(char type)
{
    return (isupper((unsigned char)type) && type != 'U' && type != 'N') || type == 'u' || type == 'i';
}

static int is_weak_definition(char type)
{
    return type == 'W' || type == 'V' || type == 'u';
}

/** Where the headers a stage file may include put the functions and objects they instantiate:
 *  weak definitions there are the headers' own, the same in every object that includes them. */
static const char *const header_scopes[] = {"cuda", "cooperative_groups", "dim3", "__cudaOccupancyB2DHelper"};

/** Namespaces and prefixes of the C++ library, the C++ runtime, the kit and its emulator: a
 *  stage file never defines anything there. */
static const char *const reserved_scopes[] = {"std", "__gnu_cxx", "__cxxabiv1", "__gnu_debug", "emu"};
static const char *const reserved_prefixes[] = {"kit_", "emu_", "__"};

/** The outermost scope of a demangled name: "cuda" for cuda::std::__4::in_place, "dim3" for
 *  dim3::dim3(unsigned int, ...), "helper" for a function helper(int). */
static void outer_scope(const char *demangled, char *out, size_t size)
{
    char qualified[1024];
    function_name(demangled, qualified, sizeof qualified);
    const char *colons = strstr(qualified, "::");
    snprintf(out, size, "%.*s", colons ? (int)(colons - qualified) : (int)strlen(qualified), qualified);
}

static int is_reserved_scope(const char *scope)
{
    for (size_t k = 0; k < COUNT(reserved_scopes); k++)
        if (strcmp(scope, reserved_scopes[k]) == 0)
            return 1;
    for (size_t k = 0; k < COUNT(reserved_prefixes); k++)
        if (starts_with(scope, reserved_prefixes[k]))
            return 1;
    return 0;
}

static int is_defined_here(const audit *a, const char *mangled)
{
    for (size_t i = 0; i < a->syms.count; i++)
        if (!is_undefined(a->syms.items[i].type) && strcmp(a->syms.items[i].name, mangled) == 0)
            return 1;
    return 0;
}

/** kit_erased_launcher<&launcher>::pass and ::signature (what KIT_REGISTER_STAGE instantiates, weak
 *  where the launcher has external linkage), for a launcher this object defines. */
static int is_own_erased_launcher(const audit *a, const char *mangled)
{
    static const char prefix[] = "_ZN19kit_erased_launcherIXadL";
    static const char *const members[] = {"EEE4passE", "EEE9signatureE"};
    if (!starts_with(mangled, prefix))
        return 0;
    const char *inner = mangled + strlen(prefix);
    for (size_t k = 0; k < COUNT(members); k++) {
        const char *end = strstr(inner, members[k]);
        if (end) {
            char launcher[1024];
            snprintf(launcher, sizeof launcher, "%.*s", (int)(end - inner), inner);
            return is_defined_here(a, launcher);
        }
    }
    return 0;
}

/** The name of nvcc's anonymous namespace in \p mangled ("_GLOBAL__N__4b7a14f9_20_stage_cu_46dfbab4",
 *  as long as its length prefix says), or 0 if it has none. nvcc gives the names of an anonymous
 *  namespace external linkage, under a name of the file's own. */
static size_t anonymous_namespace(const char *mangled, const char **start)
{
    const char *p = strstr(mangled, "_GLOBAL__N__");
    if (!p)
        return 0;
    const char *digits = p;
    while (digits > mangled && isdigit((unsigned char)digits[-1]))
        digits--;
    size_t len = digits < p ? (size_t)strtoul(digits, NULL, 10) : 0;
    if (len == 0 || len > strlen(p))
        return 0;
    *start = p;
    return len;
}

/** Whether \p s is the stub or host function of a kernel (or the host shadow of a device
 *  variable) that nvcc registered from this file. */
static int is_registered_here(const audit *a, const symbol *s)
{
    if (!starts_with(s->name, "_Z"))
        return 0; /* a kernel with C linkage: its stub would be a C function like any other */
    char identifier[1024];
    snprintf(identifier, sizeof identifier, "%.*s", (int)strcspn(s->demangled, "("), s->demangled);
    static const char stub[] = "__device_stub_"; /* __device_stub__Z12block_argminPKij: _Z12block_argminPKij */
    const char *name = starts_with(identifier, stub) ? identifier + strlen(stub) : s->name;
    for (size_t i = 0; i < a->registered.count; i++)
        if (same_function(name, a->registered.items[i]))
            return 1;
    return 0;
}

/** Finds the launcher where the caller did not name it: KIT_REGISTER_STAGE defines the C symbols
 *  kit_<impl>_<name> and kit_<impl>_<name>_signature. The reference stages' names
 *  (kit_solutions_...) are never a graded file's. */
static void find_launcher(audit *a)
{
    for (size_t i = 0; i < a->syms.count && !a->launcher[0]; i++) {
        const symbol *s = &a->syms.items[i];
        if (!is_global_definition(s->type) || !starts_with(s->name, "kit_") || starts_with(s->name, "kit_solutions_"))
            continue;
        char signature[600];
        snprintf(signature, sizeof signature, "%s_signature", s->name);
        if (strlen(s->name) < sizeof a->launcher && is_defined_here(a, signature))
            snprintf(a->launcher, sizeof a->launcher, "%s", s->name);
    }
}

static int is_launcher(const audit *a, const char *name)
{
    size_t n = strlen(a->launcher);
    return n > 0 && strncmp(name, a->launcher, n) == 0 && (name[n] == '\0' || strcmp(name + n, "_signature") == 0);
}

/** Whether \p mangled is the typed launcher KIT_REGISTER_STAGE wraps (kit_erased_launcher<&it>),
 *  which has external linkage where the file did not make it static. */
static int is_typed_launcher(const audit *a, const char *mangled)
{
    static const char prefix[] = "_ZN19kit_erased_launcherIXadL";
    size_t n = strlen(mangled);
    for (size_t i = 0; i < a->syms.count; i++) {
        const char *name = a->syms.items[i].name;
        if (starts_with(name, prefix) && strncmp(name + strlen(prefix), mangled, n) == 0 &&
            starts_with(name + strlen(prefix) + n, "EEE"))
            return 1;
    }
    return 0;
}

/** Data of the C library that a definition of the same name in the program would take over. */
static const char *const libc_data[] = {"environ", "optarg", "optind", "opterr", "optopt", "daylight", "timezone",
                                        "tzname", "signgam", "program_invocation_name",
                                        "program_invocation_short_name", "h_errno", "errno"};

/** Whether \p s is, in g++'s object of the emulator, a __device__ or __constant__ variable of the
 *  file: a global variable there, under its plain name (nvcc makes its host shadow local). It
 *  must be declared so on the line where the source first names it. */
static int is_device_variable_on_emulator(const audit *a, const symbol *s)
{
    if (a->nvcc || !strchr("BDRCGS", s->type) || is_reserved_scope(s->name))
        return 0;
    for (size_t k = 0; k < COUNT(libc_data); k++)
        if (strcmp(s->name, libc_data[k]) == 0)
            return 0;
    int line = line_of_name(&a->src, s->name);
    if (line <= 0)
        return 0;
    size_t i = 0;
    while (i < a->src.len && a->src.line[i] < line)
        i++;
    for (token tok; next_token(&a->src, &i, &tok) && tok.line == line;)
        if (token_is(&a->src, &tok, "__device__") || token_is(&a->src, &tok, "__constant__"))
            return 1;
    return 0;
}

/** Whether the definition \p s is one a stage's object may hold. */
static int definition_is_allowed(const audit *a, const symbol *s, const char *anonymous, size_t anonymous_len)
{
    if (is_launcher(a, s->name))
        return 1;
    if (strcmp(s->name, "DW.ref.__gxx_personality_v0") == 0) /* gcc's pointer to the C++ runtime's */
        return 1;
    if (!starts_with(s->name, "_Z")) /* C linkage: a name in the C library's and the kit's own space */
        return is_device_variable_on_emulator(a, s);
    const char *start;
    size_t len = anonymous_namespace(s->name, &start);
    if (len > 0) /* the file's own anonymous namespace, and only one: another file's is another name */
        return anonymous && len == anonymous_len && strncmp(start, anonymous, len) == 0;
    if ((a->nvcc && is_registered_here(a, s)) || is_typed_launcher(a, s->name))
        return 1;
    char scope[1024];
    outer_scope(s->demangled, scope, sizeof scope);
    if (is_weak_definition(s->type)) {
        if (is_own_erased_launcher(a, s->name) || starts_with(s->name, "_ZN16kit_element_name"))
            return 1;
        for (size_t k = 0; k < COUNT(header_scopes); k++)
            if (strcmp(scope, header_scopes[k]) == 0)
                return 1;
        /* the emulator's templates (the launch of a kernel, <<<...>>> rewritten), which its header
         * instantiates for each kernel: its own code, whichever object the linker takes it from */
        if (!a->nvcc && strcmp(scope, "emu") == 0 && strchr(s->demangled, '<'))
            return 1;
    }
    /* g++'s object of the emulator: the stage's __device__ functions are host functions there;
     * they may be global, outside the names of the libraries and the kit */
    if (!a->nvcc && !is_reserved_scope(scope)) {
        for (size_t k = 0; k < COUNT(header_scopes); k++)
            if (strcmp(scope, header_scopes[k]) == 0)
                return 0;
        return 1;
    }
    return 0;
}

static kit_audit_verdict check_defined_symbols(audit *a)
{
    if (!a->launcher[0])
        find_launcher(a);
    const char *anonymous = NULL;
    size_t anonymous_len = 0;
    for (size_t i = 0; i < a->syms.count && !anonymous; i++)
        if (is_global_definition(a->syms.items[i].type))
            anonymous_len = anonymous_namespace(a->syms.items[i].name, &anonymous);
    const symbol *worst = NULL;
    int worst_line = 0;
    for (size_t i = 0; i < a->syms.count; i++) {
        const symbol *s = &a->syms.items[i];
        if (!is_global_definition(s->type) || definition_is_allowed(a, s, anonymous, anonymous_len))
            continue;
        int line = starts_with(s->name, "_Z") ? line_of_symbol(&a->src, s->demangled, NULL) : 0;
        if (!line)
            line = line_of_word(&a->src, s->name); /* its name, or an asm label that spells it */
        if (!worst || (line > 0 && (worst_line == 0 || line < worst_line))) {
            worst = s;
            worst_line = line;
        }
    }
    if (!worst)
        return KIT_AUDIT_CLEAN;
    char where[96];
    line_phrase(worst_line, where, sizeof where);
    for (size_t i = 0; i < a->registered.count; i++)
        if (strcmp(a->registered.items[i], worst->name) == 0)
            return say(a, KIT_AUDIT_FORBIDDEN,
                       "%s defines the kernel %s with C linkage (%s): its host stub is a global C function that "
                       "could replace the kit's or the C library's own in the grader's program; declare the kernel "
                       "without extern \"C\".",
                       a->who, worst->demangled, where);
    return say(a, KIT_AUDIT_FORBIDDEN,
               "%s defines %s (%s), a global symbol that is neither its launcher (KIT_REGISTER_STAGE) nor a "
               "kernel: the grader's program is linked from this object first, so it could replace the kit's or "
               "the C library's own; make it static or put it in an anonymous namespace.",
               a->who, worst->demangled, where);
}

/* ------------------------------------------------------ check 8: inline assembly in host code */

/** Whether the token at \p tok is the first thing on its line and a # (a preprocessor directive). */
static int starts_directive(const source *src, const token *tok)
{
    if (src->text[tok->start] != '#' && !(src->text[tok->start] == '%' && src->text[tok->start + 1] == ':'))
        return 0;
    for (size_t k = tok->start; k > 0 && src->text[k - 1] != '\n'; k--)
        if (!is_line_blank(src->text[k - 1]))
            return 0;
    return 1;
}

typedef enum { SCOPE_NAMESPACE, SCOPE_HOST, SCOPE_DEVICE } scope_kind;

/**
 * Inline assembly is device code's (inline PTX in a __device__ or __global__ function) and never
 * host code's: on the host it is a raw system call or a symbol of any name, out of the compiler's
 * sight. The source is read brace by brace: a { after `namespace` or `extern "C"` keeps file
 * scope, one after a declaration that says __device__ or __global__ (or a macro that expands to
 * one) opens device code, and anything inside device code is device code. Directive lines are
 * skipped (a macro's body is judged where the object shows it: checks 6 and 7 see the symbols an
 * asm label or file-scope assembly makes).
 */
static kit_audit_verdict check_host_assembly(audit *a)
{
    const source *src = &a->src;
    enum { MAX_DEPTH = 256, MAX_MACROS = 64 };
    scope_kind scopes[MAX_DEPTH];
    char device_macros[MAX_MACROS][64];
    int depth = 0, macros = 0, device = 0, names_namespace = 0;
    token tok, prev = {0, 0, 0, 0};
    size_t i = 0;
    while (next_token(src, &i, &tok)) {
        if (starts_directive(src, &tok)) {
            /* #define NAME ... __device__ ...: NAME marks device code too */
            size_t end = tok.start;
            while (end < src->len && src->text[end] != '\n')
                end++;
            token word, name;
            size_t k = i;
            if (next_token(src, &k, &word) && token_is(src, &word, "define") && next_token(src, &k, &name) &&
                name.ident && name.len < sizeof device_macros[0] && macros < MAX_MACROS) {
                for (token body; k < end && next_token(src, &k, &body) && body.start < end;)
                    if (token_is(src, &body, "__device__") || token_is(src, &body, "__global__")) {
                        snprintf(device_macros[macros++], sizeof device_macros[0], "%.*s", (int)name.len,
                                 src->text + name.start);
                        break;
                    }
            }
            i = end;
            continue;
        }
        scope_kind here = depth > 0 ? scopes[depth - 1] : SCOPE_NAMESPACE;
        if (token_is(src, &tok, ";") || token_is(src, &tok, "}") || token_is(src, &tok, "{")) {
            if (token_is(src, &tok, "{") && depth < MAX_DEPTH)
                scopes[depth++] = names_namespace || token_is(src, &prev, "extern") ? SCOPE_NAMESPACE
                                  : here == SCOPE_DEVICE || device       ? SCOPE_DEVICE
                                                                         : SCOPE_HOST;
            else if (token_is(src, &tok, "{"))
                return KIT_AUDIT_CLEAN; /* nested past reason: not a stage file; nvcc judges it */
            else if (token_is(src, &tok, "}") && depth > 0)
                depth--;
            device = names_namespace = 0;
        } else if (tok.ident && (token_is(src, &tok, "__device__") || token_is(src, &tok, "__global__"))) {
            device = 1;
        } else if (tok.ident && token_is(src, &tok, "namespace")) {
            names_namespace = 1;
        } else if (tok.ident) {
            for (int m = 0; m < macros; m++)
                if (tok.len == strlen(device_macros[m]) && strncmp(src->text + tok.start, device_macros[m], tok.len) == 0)
                    device = 1;
        }
        if (tok.ident && (token_is(src, &tok, "asm") || token_is(src, &tok, "__asm__") || token_is(src, &tok, "__asm")) &&
            here != SCOPE_DEVICE && !device) {
            if (here == SCOPE_NAMESPACE)
                return say(a, KIT_AUDIT_FORBIDDEN,
                           "%s uses %.*s at file scope (line %d): an asm label or file-scope assembly gives host code "
                           "a name or code of its own that the compiler never checks; inline PTX belongs inside "
                           "__device__ and __global__ functions.",
                           a->who, (int)tok.len, src->text + tok.start, tok.line);
            return say(a, KIT_AUDIT_FORBIDDEN,
                       "%s uses %.*s in host code (line %d, in a function that is not __device__ or __global__): "
                       "inline assembly on the host can do anything behind the compiler's back; inline PTX belongs "
                       "inside __device__ and __global__ functions.",
                       a->who, (int)tok.len, src->text + tok.start, tok.line);
        }
        prev = tok;
    }
    return KIT_AUDIT_CLEAN;
}

/** Checks 6 and 7, on an object nvcc or the emulator's g++ made. */
static kit_audit_verdict check_object_shape(audit *a)
{
    layout *l = calloc(1, sizeof *l);
    if (!l)
        return say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: out of memory.", a->who);
    kit_audit_verdict verdict = read_layout(a, l)
                                    ? check_code_outside_launcher(a, l)
                                    : say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: objdump cannot read the "
                                          "sections, symbols and relocations of %s.", a->who, a->object);
    free_layout(l);
    free(l);
    return verdict == KIT_AUDIT_CLEAN ? check_defined_symbols(a) : verdict;
}

/* ---------------------------------------------------------------------------- the audit */

static kit_audit_verdict find_tools(audit *a, const kit_audit_tools *tools)
{
    static const char binutils[] = "it comes with binutils (`sudo apt-get install binutils`)";
    if (!find_tool(tools ? tools->nm : NULL, "nm", a->nm, sizeof a->nm))
        return say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: nm was not found (%s); %s.", a->who,
                   tools && tools->nm && *tools->nm ? tools->nm : "not on PATH", binutils);
    if (!find_tool(tools ? tools->objdump : NULL, "objdump", a->objdump, sizeof a->objdump))
        return say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: objdump was not found (%s); %s.", a->who,
                   tools && tools->objdump && *tools->objdump ? tools->objdump : "not on PATH", binutils);
    /* cuobjdump adds the cubins' own list of kernels; nm and objdump suffice without it, so it
     * is needed only where the caller named it */
    const char *cuobjdump = tools ? tools->cuobjdump : NULL;
    if (!find_tool(cuobjdump, "cuobjdump", a->cuobjdump, sizeof a->cuobjdump) && cuobjdump && *cuobjdump)
        return say(a, KIT_AUDIT_CANNOT_RUN,
                   "cannot audit %s: cuobjdump was not found at %s; it comes with the CUDA toolkit.", a->who,
                   cuobjdump);
    return KIT_AUDIT_CLEAN;
}

static kit_audit_verdict audit_source(audit *a)
{
    if (!is_small_regular_file(a->source_path, MAX_SOURCE_BYTES))
        return say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: cannot read %s (missing, not a file, or over 4 MB).",
                   a->who, a->source_path ? a->source_path : "(no source given)");
    if (!load_source(&a->src, a->source_path))
        return say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: cannot read %s (or out of memory).", a->who,
                   a->source_path);
    kit_audit_verdict verdict = check_includes(a);
    return verdict != KIT_AUDIT_CLEAN ? verdict : check_names(a);
}

static kit_audit_verdict audit_object(audit *a, const kit_audit_tools *tools)
{
    if (!is_small_regular_file(a->object, MAX_OBJECT_BYTES))
        return say(a, KIT_AUDIT_CANNOT_RUN,
                   "cannot audit %s: cannot read the object %s (missing, not a file, or over 512 MB).", a->who,
                   a->object ? a->object : "(no object given)");
    kit_audit_verdict verdict = find_tools(a, tools);
    if (verdict == KIT_AUDIT_CLEAN)
        verdict = read_symbols(a, 1);
    if (verdict == KIT_AUDIT_CLEAN)
        verdict = check_undefined_symbols(a);
    if (verdict == KIT_AUDIT_CLEAN)
        verdict = check_kernels(a);
    if (verdict == KIT_AUDIT_CLEAN)
        verdict = check_system_calls(a);
    if (verdict == KIT_AUDIT_CLEAN)
        verdict = check_object_shape(a);
    if (verdict == KIT_AUDIT_CLEAN)
        verdict = check_host_assembly(a);
    return verdict;
}

kit_audit_verdict kit_audit_stage(int stage, const char *object, const char *source, const char *shown,
                                  const kit_audit_tools *tools, char *message, size_t size)
{
    audit *a = calloc(1, sizeof *a);
    if (message && size > 0)
        message[0] = '\0';
    if (!a) {
        if (message && size > 0)
            snprintf(message, size, "cannot audit stage %d's file: out of memory.", stage);
        return KIT_AUDIT_CANNOT_RUN;
    }
    a->message = message;
    a->size = size;
    a->source_path = source;
    a->object = object;
    const char *path = shown && *shown ? shown : source;
    snprintf(a->who, sizeof a->who, "stage %d's file%s%s", stage, path && *path ? " " : "", path ? path : "");
    kit_audit_verdict verdict = audit_source(a);
    if (verdict == KIT_AUDIT_CLEAN)
        verdict = audit_object(a, tools);
    if (verdict == KIT_AUDIT_CLEAN && message && size > 0)
        message[0] = '\0';
    free_source(&a->src);
    free_symbols(&a->syms);
    strings_free(&a->registered);
    free(a);
    return verdict;
}

kit_audit_verdict kit_audit_object_shape(int stage, const char *object, const char *source, const char *shown,
                                         const char *launcher_symbol, const kit_audit_tools *tools, char *message,
                                         size_t size)
{
    audit *a = calloc(1, sizeof *a);
    if (message && size > 0)
        message[0] = '\0';
    if (!a) {
        if (message && size > 0)
            snprintf(message, size, "cannot audit stage %d's object: out of memory.", stage);
        return KIT_AUDIT_CANNOT_RUN;
    }
    a->message = message;
    a->size = size;
    a->source_path = source;
    a->object = object;
    const char *path = shown && *shown ? shown : source && *source ? source : object;
    snprintf(a->who, sizeof a->who, "stage %d's file%s%s", stage, path && *path ? " " : "", path ? path : "");
    if (launcher_symbol && strlen(launcher_symbol) < sizeof a->launcher)
        snprintf(a->launcher, sizeof a->launcher, "%s", launcher_symbol);
    kit_audit_verdict verdict = KIT_AUDIT_CLEAN;
    /* the source only gives the message its lines: without it the rules are the same */
    if (source && *source && !(is_small_regular_file(source, MAX_SOURCE_BYTES) && load_source(&a->src, source)))
        verdict = say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: cannot read %s (missing, not a file, or over 4 MB).",
                      a->who, source);
    if (verdict == KIT_AUDIT_CLEAN && !is_small_regular_file(object, MAX_OBJECT_BYTES))
        verdict = say(a, KIT_AUDIT_CANNOT_RUN,
                      "cannot audit %s: cannot read the object %s (missing, not a file, or over 512 MB).", a->who,
                      object ? object : "(no object given)");
    if (verdict == KIT_AUDIT_CLEAN)
        verdict = find_tools(a, tools);
    if (verdict == KIT_AUDIT_CLEAN)
        verdict = read_symbols(a, 0);
    /* nvcc's object: its registered kernels and device variables have global stubs and shadows */
    strings names = {0};
    if (verdict == KIT_AUDIT_CLEAN && a->nvcc && !read_string_literals(a, &names))
        verdict = say(a, KIT_AUDIT_CANNOT_RUN, "cannot audit %s: objdump cannot read the object %s.", a->who,
                      a->object);
    a->registered = names;
    if (verdict == KIT_AUDIT_CLEAN)
        verdict = check_object_shape(a);
    if (verdict == KIT_AUDIT_CLEAN && message && size > 0)
        message[0] = '\0';
    free_source(&a->src);
    free_symbols(&a->syms);
    strings_free(&a->registered);
    free(a);
    return verdict;
}

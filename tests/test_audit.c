/**
 * \file test_audit.c
 * \brief The grader's static audit of stage files (tests/grader/audit.h), without a GPU: the
 * fixtures in tests/audit_fixtures/ (stage files that cheat, and clean ones), the kit's own stage
 * files, source tricks, garbage input and missing tools. Runs in CI.
 *
 * Needs two compile definitions: KIT_SOURCE_DIR (the kit's source tree) and
 * KIT_AUDIT_FIXTURE_DIR (where the build put the objects): the object of the fixture
 * <path>.cu (relative to the source tree) is KIT_AUDIT_FIXTURE_DIR/<path>.o, compiled by nvcc
 * with -c -I common -DKIT_IMPL=audit -arch=sm_80 -lineinfo -O3 --std=c++17. A stage file the
 * build grades anyway (the kit's solutions and skeletons, the Thrust and CUB cheats) is audited
 * in the object its grading audits, with that object's KIT_IMPL: the generated
 * audit_built_objects.h lists them (tests/CMakeLists.txt).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"

#ifndef KIT_SOURCE_DIR
#error "KIT_SOURCE_DIR must name the kit's source tree"
#endif
#ifndef KIT_AUDIT_FIXTURE_DIR
#error "KIT_AUDIT_FIXTURE_DIR must name the folder of the fixtures' objects"
#endif

#define MESSAGE_SIZE 2048

#include "audit_built_objects.h" /* built_objects: files audited in the object the build grades */

/** The index of the stage file \p rel in built_objects, or -1 for a fixture. */
static int built_row(const char *rel)
{
    for (int k = 0; built_objects[k].file; k++)
        if (strcmp(built_objects[k].file, rel) == 0)
            return k;
    return -1;
}

/** The KIT_IMPL the object of stage file \p rel was compiled with: a fixture's is "audit". */
static const char *impl_of(const char *rel)
{
    const int k = built_row(rel);
    return k < 0 ? "audit" : built_objects[k].impl;
}

/** Paths of the stage file \p rel (relative to the source tree) and of its object: the one the
 *  build grades, for a file it grades (built_objects), else the fixture's own. */
static void paths_of(const char *rel, char *source, char *object, size_t size)
{
    snprintf(source, size, "%s/%s", KIT_SOURCE_DIR, rel);
    const int k = built_row(rel);
    if (k >= 0) {
        snprintf(object, size, "%s", built_objects[k].object);
        return;
    }
    snprintf(object, size, "%s/%.*s.o", KIT_AUDIT_FIXTURE_DIR, (int)(strlen(rel) - strlen(".cu")), rel);
}

/** Audits the stage file \p rel with its own object, as stage \p stage. */
static kit_audit_verdict audit_file(const char *rel, int stage, char *message)
{
    char source[1024], object[1024];
    paths_of(rel, source, object, sizeof source);
    return kit_audit_stage(stage, object, source, rel, NULL, message, MESSAGE_SIZE);
}

static int has(const char *message, const char *part)
{
    return strstr(message, part) != NULL;
}

/** Whether the message names line \p line ("line 14", not "line 145"). */
static int has_line(const char *message, int line)
{
    char words[32];
    int len = snprintf(words, sizeof words, "line %d", line);
    for (const char *p = message; (p = strstr(p, words)) != NULL; p++)
        if (p[len] < '0' || p[len] > '9')
            return 1;
    return 0;
}

/* ------------------------------------------------------------------ the fixtures */

#define FIXTURE(name) "tests/audit_fixtures/" name ".cu"
#define CHEAT(name) "tests/cheats/" name ".cu" /* a corpus row's: audited in its graded object */
#define UNKNOWN_LINE (-1)
#define NO_LINE_CHECKED (-2) /* the message says in its own words where to look */

/** Each fixture, its verdict, the call its message must name and the line (0: clean). */
static const struct {
    const char *file;
    kit_audit_verdict verdict;
    const char *names; /* words the message must contain */
    int line;
} fixtures[] = {
    /* 1. includes */
    {CHEAT("cub_device_reduce"), KIT_AUDIT_FORBIDDEN, "includes <cub/device/device_reduce.cuh>", 18},
    {CHEAT("thrust_reduce"), KIT_AUDIT_FORBIDDEN, "includes <thrust/execution_policy.h>", 15},
    {FIXTURE("cub_namespace_alias"), KIT_AUDIT_FORBIDDEN, "includes <cub/device/device_reduce.cuh>", 4},
    {FIXTURE("spliced_include"), KIT_AUDIT_FORBIDDEN, "includes <thrust/version.h>", 4},
    {FIXTURE("macro_include"), KIT_AUDIT_FORBIDDEN, "includes a header named by a macro", 5},
    {FIXTURE("includes_solution"), KIT_AUDIT_FORBIDDEN,
     "includes \"../../solutions/01_naive/reduce_naive.cu\"", 2},
    {FIXTURE("shadowed/shadowed_stage_h"), KIT_AUDIT_FORBIDDEN, "a file of that name sits beside it", 2},
    /* 2. names in the source */
    {FIXTURE("calls_reference_stage"), KIT_AUDIT_FORBIDDEN, "uses kit_solutions_reduce_naive", 4},
    {FIXTURE("ifdef_emulator"), KIT_AUDIT_FORBIDDEN, "tests KIT_EMULATOR", 13},
    {FIXTURE("calls_host_reference"), KIT_AUDIT_FORBIDDEN, "uses kit_reference_compute", 5},
    /* 3. undefined host symbols */
    {FIXTURE("sums_on_host"), KIT_AUDIT_FORBIDDEN, "calls cudaMemcpy", 14},
    {FIXTURE("new_on_host"), KIT_AUDIT_FORBIDDEN, "calls operator new[]", 9},
    {FIXTURE("exit_in_constructor"), KIT_AUDIT_FORBIDDEN, "calls exit", 5},
    {FIXTURE("fopen_in_constructor"), KIT_AUDIT_FORBIDDEN, "calls fopen", 9},
    {FIXTURE("stream_launch"), KIT_AUDIT_FORBIDDEN, "calls cudaStreamCreateWithFlags", 25},
    {FIXTURE("graph_capture"), KIT_AUDIT_FORBIDDEN, "calls cudaStreamBeginCapture", 26},
    /* 4. embedded kernels */
    {FIXTURE("kernel_in_namespace"), KIT_AUDIT_FORBIDDEN, "the kernel helpers::block_sums inside namespace helpers", 4},
    {FIXTURE("macro_named_kernel"), KIT_AUDIT_FORBIDDEN, "embeds the kernel reduce_pasted", UNKNOWN_LINE},
    /* 5. raw system calls */
    {FIXTURE("syscall_in_constructor"), KIT_AUDIT_FORBIDDEN, "makes a raw system call in host code (syscall", 7},
    /* 3. undefined host symbols: stdio's FILE objects, and code after main */
    {FIXTURE("writes_to_stderr"), KIT_AUDIT_FORBIDDEN, "uses stderr", 8},
    {FIXTURE("putchar_on_stdout"), KIT_AUDIT_FORBIDDEN, "uses stdout (line 24, where putchar is written)", 24},
    {FIXTURE("static_object_destructor"), KIT_AUDIT_FORBIDDEN, "calls __cxa_atexit", UNKNOWN_LINE},
    /* 6. code that runs before or after main */
    {FIXTURE("constructor_attribute"), KIT_AUDIT_FORBIDDEN, "has early() (line 6) run before main", 6},
    {FIXTURE("destructor_attribute"), KIT_AUDIT_FORBIDDEN, "has late() (line 6) run after main", 6},
    {FIXTURE("static_object_constructor"), KIT_AUDIT_FORBIDDEN,
     "has the constructor or initializer of a file-scope object", NO_LINE_CHECKED},
    {FIXTURE("init_array_pointer"), KIT_AUDIT_FORBIDDEN, "has hook() (line 6) run before main (from its .init_array", 6},
    {FIXTURE("atexit_in_launcher"), KIT_AUDIT_FORBIDDEN, "calls atexit (line 28", 28},
    /* 7. defined global symbols */
    {FIXTURE("replaces_kit_function"), KIT_AUDIT_FORBIDDEN, "defines kit_timing_spread (line 6)", 6},
    {FIXTURE("replaces_libc_function"), KIT_AUDIT_FORBIDDEN, "defines memcmp (line 6)", 6},
    {FIXTURE("defines_in_std"), KIT_AUDIT_FORBIDDEN, "defines std::steady_ticks_override", 7},
    {FIXTURE("global_host_helper"), KIT_AUDIT_FORBIDDEN, "defines blocks_for(unsigned long, unsigned int) (line 6)", 6},
    {FIXTURE("extern_c_kernel"), KIT_AUDIT_FORBIDDEN, "defines the kernel add_pairs with C linkage", 6},
    /* 8. inline assembly in host code */
    {FIXTURE("host_inline_asm"), KIT_AUDIT_FORBIDDEN, "uses asm in host code (line 24", 24},
    /* clean */
    {FIXTURE("clean_global_names"), KIT_AUDIT_CLEAN, NULL, 0},
    {FIXTURE("clean_device_inline_ptx"), KIT_AUDIT_CLEAN, NULL, 0},
    {FIXTURE("clean_cooperative_groups"), KIT_AUDIT_CLEAN, NULL, 0},
    {FIXTURE("clean_reduce_add_sync"), KIT_AUDIT_CLEAN, NULL, 0},
    {FIXTURE("clean_anonymous_namespace"), KIT_AUDIT_CLEAN, NULL, 0},
    {FIXTURE("clean_template_kernel"), KIT_AUDIT_CLEAN, NULL, 0},
    {FIXTURE("clean_device_counter"), KIT_AUDIT_CLEAN, NULL, 0},
    {FIXTURE("clean_printf_debugging"), KIT_AUDIT_CLEAN, NULL, 0},
    {FIXTURE("clean_device_queries"), KIT_AUDIT_CLEAN, NULL, 0},
    {FIXTURE("clean_mentions_in_comments"), KIT_AUDIT_CLEAN, NULL, 0},
    {FIXTURE("clean_argmin_and_matrices"), KIT_AUDIT_CLEAN, NULL, 0},
};

START_TEST(each_fixture_gets_its_verdict_and_a_message_naming_the_call_and_its_line)
{
    char message[MESSAGE_SIZE];
    kit_audit_verdict verdict = audit_file(fixtures[_i].file, 7, message);
    ck_assert_msg(verdict == fixtures[_i].verdict, "%s: verdict %d, expected %d: %s", fixtures[_i].file, verdict,
                  fixtures[_i].verdict, message);
    if (verdict == KIT_AUDIT_CLEAN) {
        ck_assert_str_eq(message, "");
        return;
    }
    ck_assert_msg(has(message, "stage 7's file ") && has(message, fixtures[_i].file), "%s", message);
    ck_assert_msg(has(message, fixtures[_i].names), "%s: expected \"%s\" in: %s", fixtures[_i].file,
                  fixtures[_i].names, message);
    if (fixtures[_i].line == NO_LINE_CHECKED)
        return;
    if (fixtures[_i].line == UNKNOWN_LINE)
        ck_assert_msg(has(message, "(line unknown: it comes from an included header or a macro)"), "%s", message);
    else
        ck_assert_msg(has_line(message, fixtures[_i].line), "%s: expected line %d in: %s", fixtures[_i].file,
                      fixtures[_i].line, message);
}
END_TEST

START_TEST(each_message_says_what_is_wrong_with_the_call)
{
    static const struct {
        const char *file, *says;
    } reasons[] = {
        {FIXTURE("includes_solution"), "the kit's reference solutions"},
        {FIXTURE("sums_on_host"), "a memory copy: the stage's own kernel must do the work"},
        {FIXTURE("new_on_host"), "an allocation"},
        {FIXTURE("exit_in_constructor"), "which ends the process"},
        {FIXTURE("fopen_in_constructor"), "a file operation"},
        {FIXTURE("stream_launch"), "a stream"},
        {FIXTURE("graph_capture"), "a CUDA graph"},
        {FIXTURE("calls_reference_stage"), "the kit's harness and reference stages are not for a stage to call"},
        {FIXTURE("calls_host_reference"), "uses only what stage.h declares (KIT_REGISTER_STAGE, kit_argmin, kit_mat3"},
        {FIXTURE("ifdef_emulator"), "the same on a GPU and on the CPU emulator"},
        {CHEAT("cub_device_reduce"), "a stage file may include only stage.h, cuda_runtime.h"},
        {FIXTURE("writes_to_stderr"), "a stdio stream (FILE): the grader's streams and files are not a stage's to touch"},
        {FIXTURE("putchar_on_stdout"), "putchar(c) compiles to putc(c, stdout): write printf(\"%c\", c)"},
        {FIXTURE("static_object_destructor"), "which runs code after main"},
        {FIXTURE("constructor_attribute"), "may run only when the harness calls its launcher, never before or after main"},
        {FIXTURE("static_object_constructor"), "look for a file-scope object whose initial value is computed"},
        {FIXTURE("atexit_in_launcher"), "which runs code after main"},
        {FIXTURE("replaces_kit_function"), "could replace the kit's or the C library's own"},
        {FIXTURE("global_host_helper"), "make it static or put it in an anonymous namespace"},
        {FIXTURE("extern_c_kernel"), "declare the kernel without extern \"C\""},
        {FIXTURE("host_inline_asm"), "inline PTX belongs inside __device__ and __global__ functions"},
    };
    for (size_t k = 0; k < sizeof reasons / sizeof reasons[0]; k++) {
        char message[MESSAGE_SIZE];
        ck_assert_int_eq(audit_file(reasons[k].file, 3, message), KIT_AUDIT_FORBIDDEN);
        ck_assert_msg(has(message, reasons[k].says), "%s: expected \"%s\" in: %s", reasons[k].file,
                      reasons[k].says, message);
    }
}
END_TEST

/** The kit's stages, from the one list of them. */
static const struct {
    int number;
    const char *dir, *name;
} kit_stages[] = {
#define KIT_STAGE(number, dir, name, title, min_threads, max_threads, passes, type, op, baseline) {number, #dir, #name},
#include "stages.def"
#undef KIT_STAGE
};

START_TEST(the_kits_reference_solutions_and_lab_skeletons_pass_the_audit)
{
    static const char *const impls[] = {"solutions", "labs"};
    for (size_t k = 0; k < sizeof impls / sizeof impls[0]; k++) {
        char rel[256], message[MESSAGE_SIZE];
        snprintf(rel, sizeof rel, "%s/%s/%s.cu", impls[k], kit_stages[_i].dir, kit_stages[_i].name);
        kit_audit_verdict verdict = audit_file(rel, kit_stages[_i].number, message);
        ck_assert_msg(verdict == KIT_AUDIT_CLEAN, "%s: %s", rel, message);
    }
}
END_TEST

/* --------------------------------------------------- sources the audit must see through */

static char temp_dir[256];

static void make_temp_dir(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(temp_dir, sizeof temp_dir, "%s/kit_audit_XXXXXX", base && *base ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(temp_dir));
}

static void remove_temp_dir(void)
{
    char path[512];
    static const char *const names[] = {"stage.cu", "fifo", "empty.o", "garbage.o", "bin/nm"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", temp_dir, names[k]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/bin", temp_dir);
    rmdir(path);
    rmdir(temp_dir);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

/** Writes \p before, then the text of the stage file \p rel, into temp_dir/stage.cu. */
static void write_stage(const char *before, const char *rel)
{
    char source[1024], object[1024], path[512];
    const char *text = "";
    if (rel) {
        paths_of(rel, source, object, sizeof source);
        text = read_text(source);
    }
    snprintf(path, sizeof path, "%s/stage.cu", temp_dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(before, f);
    fputs(text, f);
    fclose(f);
}

/** Audits temp_dir/stage.cu against the object of the stage file \p rel. */
static kit_audit_verdict audit_written(const char *rel, char *message)
{
    char source[1024], object[1024], written[512];
    paths_of(rel, source, object, sizeof source);
    snprintf(written, sizeof written, "%s/stage.cu", temp_dir);
    return kit_audit_stage(4, object, written, "labs/04_first_add_on_load/reduce_first_add_on_load.cu", NULL,
                           message, MESSAGE_SIZE);
}

/** Source text put before a clean stage file, and the words its message must have (NULL: clean). */
static const struct {
    const char *before, *says;
} source_tricks[] = {
    {"#include <cuda/std/../../cub/cub.cuh>\n", "includes <cuda/std/../../cub/cub.cuh> (line 1)"},
    {"%:include <thrust/reduce.h>\n", "includes <thrust/reduce.h> (line 1)"},
    {"  # /* a comment */ include <cub/cub.cuh>\n", "includes <cub/cub.cuh> (line 1)"},
    {"#include_next <cub/cub.cuh>\n", "includes <cub/cub.cuh> (line 1)"},
    {"\xEF\xBB\xBF#include <cub/cub.cuh>\n", "includes <cub/cub.cuh> (line 1)"},
    {"/* first */ #include <cub/cub.cuh>\r\n", "includes <cub/cub.cuh> (line 1)"},
    {"\n#include \"kit.h\"\n", "includes \"kit.h\" (line 2), which is part of the kit's harness"},
    {"#define HEADER <cub/cub.cuh>\n#include HEADER\n", "a header named by a macro (line 2)"},
    {"#include /*\n*/ <cub/cub.cuh>\n", "a header named by a macro (line 1)"},
    {"#if __CUDACC_VER_MAJOR__ >= 13\n#endif\n", "tests __CUDACC_VER_MAJOR__ (line 1)"},
    {"#if __has_include(<cub/cub.cuh>)\n#endif\n", "tests __has_include (line 1)"},
    {"#ifdef __GNUC__\n#endif\n", "tests __GNUC__ (line 1)"},
    {"static int lanes() { return emu::lanes; }\n", "uses emu::lanes (line 1)"},
    {"static int on_emulator = emu_active();\n", "uses emu_active (line 1)"},
    {"static const char *where_am_i = KIT_IMPL_DIR;\n", "uses KIT_IMPL_DIR (line 1)"},
    {"using namespace thrust;\n", "uses thrust (line 1)"},
    {"namespace c = cub;\n", "uses cub (line 1)"},
    {"static void f() { ::cub::DeviceReduce::Sum(0, 0, 0, 0, 0); }\n", "calls cub::DeviceReduce::Sum (line 1)"},
    {"static void f() { __cudaPushCallConfiguration(0, 0, 0, 0); }\n", "uses __cudaPushCallConfiguration (line 1)"},
    {"int a = 1; \\\n int b = 2;\n#ifdef KIT_EMULATOR\n#endif\n", "tests KIT_EMULATOR (line 3)"},
    {"static int k = 1'000, j = 'a';\nstatic int z = thrust::x;\n", "uses thrust::x (line 2)"},
    {"static const char *s = R\"x( )\" cub::Fake )x\";\nstatic int z = thrust::x;\n", "uses thrust::x (line 2)"},
    {"asm(\".globl kit_fake\");\n", "uses asm at file scope (line 1)"},
    {"namespace outer {\nextern \"C\" {\nint hidden() __asm__(\"kit_fake\");\n}\n}\n", "uses __asm__ at file scope (line 3)"},
    {"static void f() { if (1) { __asm__ volatile(\"nop\"); } }\n", "uses __asm__ in host code (line 1"},
    {"struct s {\n  void f() { asm(\"nop\"); }\n};\n", "uses asm in host code (line 2"},
    /* clean: comments, strings, the allowed headers and names */
    {"// cub::DeviceReduce::Sum and #include <cub/cub.cuh>\n", NULL},
    {"static const char *s = \"thrust::reduce(\\\"KIT_EMULATOR\\\")\";\n", NULL},
    {"static const char *s = R\"x( )\" cub::Fake \" )x\";\n", NULL},
    {"#include <cstdio>\n#include <cuda/std/atomic>\n#include <cuda/atomic>\n#include <cooperative_groups/reduce.h>\n",
     NULL},
    {"#ifdef __CUDA_ARCH__\n#endif\nstatic_assert(KIT_MAX_N > 0, \"\");\nstatic kit_pass_fn unused_pass;\n", NULL},
    /* clean: inline PTX in device code, however the function says it is device code */
    {"static __device__ void trap() { asm(\"trap;\"); }\n", NULL},
    {"#define DEV __device__\n#define PTX(x) asm volatile(x)\nDEV void f() { if (1) { PTX(\"trap;\"); } }\n", NULL},
    {"static void host() { auto l = [] __device__ () { asm(\"trap;\"); }; (void)l; }\n", NULL},
    {"template <int N> __global__ void k(int *p) { asm(\"st.global.u32 [%0], 1;\" :: \"l\"(p)); }\n", NULL},
};

START_TEST(source_tricks_are_seen_through_and_comments_and_strings_are_not_read_as_code)
{
    char message[MESSAGE_SIZE];
    make_temp_dir();
    write_stage(source_tricks[_i].before, FIXTURE("clean_template_kernel"));
    kit_audit_verdict verdict = audit_written(FIXTURE("clean_template_kernel"), message);
    remove_temp_dir();
    if (!source_tricks[_i].says) {
        ck_assert_msg(verdict == KIT_AUDIT_CLEAN, "%s\n-> %s", source_tricks[_i].before, message);
        return;
    }
    ck_assert_msg(verdict == KIT_AUDIT_FORBIDDEN, "%s\n-> %d %s", source_tricks[_i].before, verdict, message);
    ck_assert_msg(has(message, source_tricks[_i].says), "%s\nexpected \"%s\" in: %s", source_tricks[_i].before,
                  source_tricks[_i].says, message);
}
END_TEST

START_TEST(a_cub_kernel_is_refused_from_the_object_even_where_the_source_never_names_cub)
{
    /* The object was built with a stage.h beside the file that brought in CUB. Were that
     * stage.h gone by audit time, the source alone would look clean: the object still shows
     * CUB's kernel. */
    char message[MESSAGE_SIZE];
    make_temp_dir();
    write_stage("", FIXTURE("shadowed/shadowed_stage_h"));
    kit_audit_verdict verdict = audit_written(FIXTURE("shadowed/shadowed_stage_h"), message);
    remove_temp_dir();
    ck_assert_msg(verdict == KIT_AUDIT_FORBIDDEN, "%s", message);
    ck_assert_msg(has(message, "embeds the kernel cub::") && has(message, "EmptyKernel, which it does not define"),
                  "%s", message);
}
END_TEST

START_TEST(a_namespace_alias_for_cub_is_refused_where_the_include_is_not_seen)
{
    char source[1024], object[1024], message[MESSAGE_SIZE];
    paths_of(FIXTURE("cub_namespace_alias"), source, object, sizeof source);
    char *text = read_text(source), *include = strstr(text, "#include <cub/");
    ck_assert_ptr_nonnull(include);
    memset(include, ' ', strcspn(include, "\n")); /* the include gone, the lines kept */
    make_temp_dir();
    write_stage(text, NULL);
    kit_audit_verdict verdict = audit_written(FIXTURE("cub_namespace_alias"), message);
    remove_temp_dir();
    ck_assert_int_eq(verdict, KIT_AUDIT_FORBIDDEN);
    ck_assert_msg(has(message, "uses cub (line 8)"), "%s", message);
}
END_TEST

/* ------------------------------------------------- the shape of any object: kit_audit_object_shape */

START_TEST(the_shape_audit_accepts_nvccs_objects_of_the_kits_stages_and_their_launchers)
{
    char source[1024], object[1024], rel[256], launcher[256], message[MESSAGE_SIZE];
    snprintf(rel, sizeof rel, "solutions/%s/%s.cu", kit_stages[_i].dir, kit_stages[_i].name);
    paths_of(rel, source, object, sizeof source);
    snprintf(launcher, sizeof launcher, "kit_%s_%s", impl_of(rel), kit_stages[_i].name);
    kit_audit_verdict verdict = kit_audit_object_shape(kit_stages[_i].number, object, source, rel, launcher, NULL,
                                                       message, sizeof message);
    ck_assert_msg(verdict == KIT_AUDIT_CLEAN, "%s: %s", rel, message);
    verdict = kit_audit_object_shape(kit_stages[_i].number, object, NULL, NULL, NULL, NULL, message, sizeof message);
    ck_assert_msg(verdict == KIT_AUDIT_CLEAN, "%s, its launcher found from the object: %s", rel, message);
}
END_TEST

START_TEST(the_shape_audit_refuses_replacements_constructors_and_a_launcher_of_another_name)
{
    char source[1024], object[1024], message[MESSAGE_SIZE];
    paths_of(FIXTURE("replaces_kit_function"), source, object, sizeof source);
    ck_assert_int_eq(kit_audit_object_shape(5, object, NULL, "student.cu", NULL, NULL, message, sizeof message),
                     KIT_AUDIT_FORBIDDEN);
    ck_assert_msg(has(message, "stage 5's file student.cu defines kit_timing_spread (line unknown"), "%s", message);
    paths_of(FIXTURE("constructor_attribute"), source, object, sizeof source);
    ck_assert_int_eq(kit_audit_object_shape(5, object, source, NULL, NULL, NULL, message, sizeof message),
                     KIT_AUDIT_FORBIDDEN);
    ck_assert_msg(has(message, "has early() (line 6) run before main"), "%s", message);
    /* the launcher the runner looks for is the only one: a pair under another name is refused */
    paths_of(FIXTURE("clean_template_kernel"), source, object, sizeof source);
    ck_assert_int_eq(kit_audit_object_shape(5, object, source, NULL, "kit_audit_other_name", NULL, message,
                                            sizeof message),
                     KIT_AUDIT_FORBIDDEN);
    ck_assert_msg(has(message, "defines kit_audit_clean_template_kernel"), "%s", message);
    ck_assert_int_eq(kit_audit_object_shape(5, "/nonexistent/x.o", NULL, NULL, NULL, NULL, message, sizeof message),
                     KIT_AUDIT_CANNOT_RUN);
}
END_TEST

/** A stand-in for g++'s object of a stage file rewritten for the emulator: the launcher pair, a
 *  kernel and a __device__ helper that are host functions, a global __device__ variable, and the
 *  weak instance of an emulator template. */
static const char emulated_stage[] =
    "#define __device__\n"
    "namespace emu { template <class T> struct kernel_call { static int invoke(T *p); }; }\n"
    "template <class T> int emu::kernel_call<T>::invoke(T *p) { return *p; }\n"
    "template struct emu::kernel_call<int>;\n"
    "__device__ int blocks_done;\n"
    "int add_pair(int a, int b) { return a + b + blocks_done; }\n"
    "typedef unsigned long (*pass_fn)(const void *, void *, unsigned long, unsigned);\n"
    "static unsigned long pass(const void *, void *, unsigned long n, unsigned) { return n; }\n"
    "extern \"C\" const pass_fn kit_labs_emulated = pass;\n"
    "extern \"C\" const char *const kit_labs_emulated_signature[2] = {\"int\", \"int\"};\n";

/** Compiles emulated_stage and \p extra with the C++ compiler into temp_dir/stage.o; 0 if there is
 *  no C++ compiler here. */
static int compile_emulated(const char *extra, char *source, char *object, size_t size)
{
    snprintf(source, size, "%s/stage.cpp", temp_dir);
    snprintf(object, size, "%s/stage.o", temp_dir);
    FILE *f = fopen(source, "w");
    ck_assert_ptr_nonnull(f);
    fputs(emulated_stage, f);
    fputs(extra, f);
    fclose(f);
    char command[4096];
    snprintf(command, sizeof command, "c++ -O1 -c -o '%s' '%s' 2>/dev/null", object, source);
    return system(command) == 0;
}

START_TEST(the_shape_audit_of_the_emulators_object_lets_device_functions_be_global_but_nothing_else)
{
    static const struct {
        const char *extra, *says; /* NULL: clean */
    } cases[] = {
        {"", NULL},
        {"extern \"C\" int memcmp(const void *, const void *, unsigned long) { return 0; }\n", "defines memcmp (line 11)"},
        {"namespace std { int hook() { return 1; } }\n", "defines std::hook() (line 11)"},
        {"namespace emu { int scheduler_hook() { return 1; } }\n", "defines emu::scheduler_hook() (line 11)"},
        {"int optind = 1;\n", "defines optind (line 11)"},
        {"__attribute__((constructor)) static void early() { blocks_done = 1; }\n", "has early() (line 11) run before main"},
    };
    char source[1024], object[1024], message[MESSAGE_SIZE];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        make_temp_dir();
        int compiled = compile_emulated(cases[k].extra, source, object, sizeof source);
        kit_audit_verdict verdict = compiled ? kit_audit_object_shape(9, object, source, "stage.cu", "kit_labs_emulated",
                                                                      NULL, message, sizeof message)
                                             : KIT_AUDIT_CANNOT_RUN;
        unlink(source);
        unlink(object);
        remove_temp_dir();
        if (!compiled)
            return; /* no C++ compiler here: the emulator's objects cannot be made either */
        if (!cases[k].says) {
            ck_assert_msg(verdict == KIT_AUDIT_CLEAN, "%s -> %s", cases[k].extra, message);
            continue;
        }
        ck_assert_msg(verdict == KIT_AUDIT_FORBIDDEN && has(message, cases[k].says), "%s -> %d %s\nexpected \"%s\"",
                      cases[k].extra, verdict, message, cases[k].says);
    }
}
END_TEST

/* ------------------------------------------------------ files and tools that are not there */

START_TEST(garbage_missing_or_special_files_make_the_audit_say_it_cannot_run)
{
    char source[1024], object[1024], message[MESSAGE_SIZE], path[512];
    paths_of(FIXTURE("clean_template_kernel"), source, object, sizeof source);
    make_temp_dir();
    snprintf(path, sizeof path, "%s/garbage.o", temp_dir);
    FILE *f = fopen(path, "wb");
    for (int k = 0; k < 4096; k++)
        fputc((k * 7919) & 0xff, f);
    fclose(f);
    ck_assert_int_eq(kit_audit_stage(2, path, source, NULL, NULL, message, sizeof message), KIT_AUDIT_CANNOT_RUN);
    ck_assert_msg(has(message, "nm cannot read the object"), "%s", message);
    /* a text file is no object either, nor an empty one */
    ck_assert_int_eq(kit_audit_stage(2, source, source, NULL, NULL, message, sizeof message), KIT_AUDIT_CANNOT_RUN);
    snprintf(path, sizeof path, "%s/empty.o", temp_dir);
    fclose(fopen(path, "wb"));
    ck_assert_int_eq(kit_audit_stage(2, path, source, NULL, NULL, message, sizeof message), KIT_AUDIT_CANNOT_RUN);
    /* a FIFO would block a reader forever */
    snprintf(path, sizeof path, "%s/fifo", temp_dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(kit_audit_stage(2, path, source, NULL, NULL, message, sizeof message), KIT_AUDIT_CANNOT_RUN);
    ck_assert_msg(has(message, "cannot read the object"), "%s", message);
    ck_assert_int_eq(kit_audit_stage(2, object, path, NULL, NULL, message, sizeof message), KIT_AUDIT_CANNOT_RUN);
    /* missing files, a folder, no paths at all */
    ck_assert_int_eq(kit_audit_stage(2, "/nonexistent/x.o", source, NULL, NULL, message, sizeof message),
                     KIT_AUDIT_CANNOT_RUN);
    ck_assert_int_eq(kit_audit_stage(2, object, "/nonexistent/x.cu", NULL, NULL, message, sizeof message),
                     KIT_AUDIT_CANNOT_RUN);
    ck_assert_msg(has(message, "cannot read /nonexistent/x.cu"), "%s", message);
    ck_assert_int_eq(kit_audit_stage(2, temp_dir, source, NULL, NULL, message, sizeof message), KIT_AUDIT_CANNOT_RUN);
    ck_assert_int_eq(kit_audit_stage(2, NULL, NULL, NULL, NULL, message, sizeof message), KIT_AUDIT_CANNOT_RUN);
    remove_temp_dir();
}
END_TEST

START_TEST(a_missing_tool_is_named_with_the_package_that_brings_it)
{
    char source[1024], object[1024], message[MESSAGE_SIZE];
    paths_of(FIXTURE("clean_template_kernel"), source, object, sizeof source);
    kit_audit_tools no_nm = {"/nonexistent/nm", NULL, NULL};
    ck_assert_int_eq(kit_audit_stage(2, object, source, NULL, &no_nm, message, sizeof message), KIT_AUDIT_CANNOT_RUN);
    ck_assert_msg(has(message, "nm was not found (/nonexistent/nm)") && has(message, "sudo apt-get install binutils"),
                  "%s", message);
    kit_audit_tools no_objdump = {"", "/nonexistent/objdump", ""};
    ck_assert_int_eq(kit_audit_stage(2, object, source, NULL, &no_objdump, message, sizeof message),
                     KIT_AUDIT_CANNOT_RUN);
    ck_assert_msg(has(message, "objdump was not found") && has(message, "binutils"), "%s", message);
    kit_audit_tools no_cuobjdump = {NULL, NULL, "/nonexistent/cuobjdump"};
    ck_assert_int_eq(kit_audit_stage(2, object, source, NULL, &no_cuobjdump, message, sizeof message),
                     KIT_AUDIT_CANNOT_RUN);
    ck_assert_msg(has(message, "cuobjdump was not found") && has(message, "CUDA toolkit"), "%s", message);
    /* nothing on PATH: nm is missing, and the source checks still speak first */
    char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/nonexistent", 1);
    ck_assert_int_eq(kit_audit_stage(2, object, source, NULL, NULL, message, sizeof message), KIT_AUDIT_CANNOT_RUN);
    ck_assert_msg(has(message, "nm was not found (not on PATH)"), "%s", message);
    char cub_source[1024], cub_object[1024];
    paths_of(CHEAT("cub_device_reduce"), cub_source, cub_object, sizeof cub_source);
    ck_assert_int_eq(kit_audit_stage(2, cub_object, cub_source, NULL, NULL, message, sizeof message),
                     KIT_AUDIT_FORBIDDEN);
    if (path)
        setenv("PATH", path, 1);
    free(path);
}
END_TEST

START_TEST(a_tool_that_fails_makes_the_audit_say_it_cannot_run)
{
    char source[1024], object[1024], message[MESSAGE_SIZE], fake[512];
    paths_of(FIXTURE("clean_template_kernel"), source, object, sizeof source);
    make_temp_dir();
    snprintf(fake, sizeof fake, "%s/bin", temp_dir);
    ck_assert_int_eq(mkdir(fake, 0700), 0);
    snprintf(fake, sizeof fake, "%s/bin/nm", temp_dir);
    FILE *f = fopen(fake, "w");
    fputs("#!/bin/sh\necho 'nm: something went wrong' >&2\nexit 3\n", f);
    fclose(f);
    chmod(fake, 0700);
    kit_audit_tools failing = {fake, NULL, NULL};
    kit_audit_verdict verdict = kit_audit_stage(2, object, source, NULL, &failing, message, sizeof message);
    remove_temp_dir();
    ck_assert_int_eq(verdict, KIT_AUDIT_CANNOT_RUN);
    ck_assert_msg(has(message, "nm cannot read the object"), "%s", message);
}
END_TEST

START_TEST(cuobjdump_where_installed_agrees_with_what_nm_and_objdump_found)
{
    static const char *const places[] = {"/usr/local/cuda/bin/cuobjdump", "cuobjdump"};
    char message[MESSAGE_SIZE], source[1024], object[1024];
    for (size_t k = 0; k < sizeof places / sizeof places[0]; k++) {
        if (places[k][0] == '/' && access(places[k], X_OK) != 0)
            continue;
        kit_audit_tools tools = {NULL, NULL, places[k]};
        paths_of(FIXTURE("clean_template_kernel"), source, object, sizeof source);
        kit_audit_verdict verdict = kit_audit_stage(6, object, source, NULL, &tools, message, sizeof message);
        if (verdict == KIT_AUDIT_CANNOT_RUN && has(message, "cuobjdump was not found"))
            continue; /* not installed here: nm and objdump did the work in the other tests */
        ck_assert_msg(verdict == KIT_AUDIT_CLEAN, "%s", message);
        paths_of(FIXTURE("kernel_in_namespace"), source, object, sizeof source);
        ck_assert_int_eq(kit_audit_stage(6, object, source, NULL, &tools, message, sizeof message),
                         KIT_AUDIT_FORBIDDEN);
        ck_assert_msg(has(message, "helpers::block_sums"), "%s", message);
    }
}
END_TEST

START_TEST(the_message_fits_any_buffer_and_none_is_needed)
{
    char source[1024], object[1024], small[16];
    paths_of(FIXTURE("sums_on_host"), source, object, sizeof source);
    memset(small, 'x', sizeof small);
    ck_assert_int_eq(kit_audit_stage(3, object, source, NULL, NULL, small, sizeof small), KIT_AUDIT_FORBIDDEN);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    ck_assert_int_eq(kit_audit_stage(3, object, source, NULL, NULL, NULL, 0), KIT_AUDIT_FORBIDDEN);
    ck_assert_int_eq(kit_audit_stage(3, object, source, "", NULL, small, 1), KIT_AUDIT_FORBIDDEN);
    ck_assert_str_eq(small, "");
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("audit");
    TCase *fixture = tcase_create("fixtures");
    tcase_set_timeout(fixture, 120);
    tcase_add_loop_test(fixture, each_fixture_gets_its_verdict_and_a_message_naming_the_call_and_its_line, 0,
                        (int)(sizeof fixtures / sizeof fixtures[0]));
    tcase_add_test(fixture, each_message_says_what_is_wrong_with_the_call);
    tcase_add_loop_test(fixture, the_kits_reference_solutions_and_lab_skeletons_pass_the_audit, 0,
                        (int)(sizeof kit_stages / sizeof kit_stages[0]));
    suite_add_tcase(suite, fixture);
    TCase *tricks = tcase_create("tricks");
    tcase_set_timeout(tricks, 120);
    tcase_add_loop_test(tricks, source_tricks_are_seen_through_and_comments_and_strings_are_not_read_as_code, 0,
                        (int)(sizeof source_tricks / sizeof source_tricks[0]));
    tcase_add_test(tricks, a_cub_kernel_is_refused_from_the_object_even_where_the_source_never_names_cub);
    tcase_add_test(tricks, a_namespace_alias_for_cub_is_refused_where_the_include_is_not_seen);
    suite_add_tcase(suite, tricks);
    TCase *shape = tcase_create("object shape");
    tcase_set_timeout(shape, 120);
    tcase_add_loop_test(shape, the_shape_audit_accepts_nvccs_objects_of_the_kits_stages_and_their_launchers, 0,
                        (int)(sizeof kit_stages / sizeof kit_stages[0]));
    tcase_add_test(shape, the_shape_audit_refuses_replacements_constructors_and_a_launcher_of_another_name);
    tcase_add_test(shape, the_shape_audit_of_the_emulators_object_lets_device_functions_be_global_but_nothing_else);
    suite_add_tcase(suite, shape);
    TCase *robust = tcase_create("robustness");
    tcase_set_timeout(robust, 120);
    tcase_add_test(robust, garbage_missing_or_special_files_make_the_audit_say_it_cannot_run);
    tcase_add_test(robust, a_missing_tool_is_named_with_the_package_that_brings_it);
    tcase_add_test(robust, a_tool_that_fails_makes_the_audit_say_it_cannot_run);
    tcase_add_test(robust, cuobjdump_where_installed_agrees_with_what_nm_and_objdump_found);
    tcase_add_test(robust, the_message_fits_any_buffer_and_none_is_needed);
    suite_add_tcase(suite, robust);

    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

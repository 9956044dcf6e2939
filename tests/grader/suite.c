/**
 * \file suite.c
 * \brief A stage's Check suite and the main program of its grader.
 *
 * Check runs every test in a forked child, with a timeout, so a kernel that crashes or hangs
 * fails its own test only. The parent never calls CUDA (a CUDA call before fork() makes
 * every CUDA call in the children fail with error 3): it asks kit_probe_gpu(), which asks in
 * a child of its own, and it writes the result files from what Check reports.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_probe.h"
#include "grader.h"

static const kit_stage *graded;          /* the stage under test (student's, reference or corpus) */
static const kit_stage *reference_table; /* what the speedup case compares with */
static kit_grade_config config;
static const char *results_dir;
static size_t max_n; /* 0, or the emulator's limit */

/* Fails the running test with one message about every failed case, or about the setup. */
static void assert_every_case_passed(const kit_case_log *log, kit_status status, const kit_error *err)
{
    static char message[4096];
    int failed = kit_diagnose(graded->number, log->cases, log->count, message, sizeof message);
    if (failed == 0 && status != KIT_OK)
        ck_abort_msg("%s: %s", kit_status_name(status), err->message);
    ck_assert_msg(failed == 0, "%s", message);
}

static void open_gpu(void)
{
    kit_gpu gpu;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_gpu_open(&gpu, &err) == KIT_OK, "%s", err.message);
}

START_TEST(gives_the_exact_sum_at_every_size_block_size_and_input)
{
    open_gpu();
    kit_case_log log = {NULL, 0, 0};
    kit_error err = {KIT_OK, ""};
    kit_status status = kit_grade_correctness(graded, 0, max_n, &log, &err);
    assert_every_case_passed(&log, status, &err);
    kit_case_log_free(&log);
}
END_TEST

START_TEST(gives_the_exact_sum_for_2_26_ints_at_every_block_size)
{
    open_gpu();
    kit_case_log log = {NULL, 0, 0};
    kit_error err = {KIT_OK, ""};
    kit_status status = kit_grade_correctness(graded, 1, 0, &log, &err);
    assert_every_case_passed(&log, status, &err);
    kit_case_log_free(&log);
}
END_TEST

START_TEST(gives_the_same_exact_sum_every_time_it_runs)
{
    open_gpu();
    kit_case_log log = {NULL, 0, 0};
    kit_error err = {KIT_OK, ""};
    kit_status status = kit_grade_repeats(graded, &log, &err);
    assert_every_case_passed(&log, status, &err);
    kit_case_log_free(&log);
}
END_TEST

START_TEST(reaches_the_required_speedup_over_reference_stage_1)
{
    kit_gpu gpu;
    kit_error err = {KIT_OK, ""};
    ck_assert_msg(kit_gpu_open(&gpu, &err) == KIT_OK, "%s", err.message);
    kit_speedup s;
    kit_status status = kit_grade_speedup(&config, graded, reference_table, &s, &err);
    kit_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.gpu, sizeof r.gpu, "%s", gpu.name);
    if (status != KIT_OK) {
        r.outcome = KIT_OUTCOME_FAIL;
        snprintf(r.message, sizeof r.message, "%s", err.message);
    } else {
        r.outcome = s.verdict == KIT_VERDICT_PASS ? KIT_OUTCOME_PASS : KIT_OUTCOME_FAIL;
        r.achieved = s.achieved;
        r.required = s.required;
        r.reference = s.reference;
        r.spread = s.spread;
        char rule[160];
        if (config.min_speedup[graded->number] >= config.speedup_fraction * s.reference)
            snprintf(rule, sizeof rule, "the configured minimum for stage %d; reference stage %d reached %.2fx",
                     graded->number, graded->number, s.reference);
        else
            snprintf(rule, sizeof rule, "%.2g x reference stage %d's %.2fx in this run", config.speedup_fraction,
                     graded->number, s.reference);
        snprintf(r.message, sizeof r.message,
                 "stage %d (%s) is %.2fx faster than reference stage 1; required %.2fx (%s). n = %zu, %u threads, "
                 "median of %d interleaved samples each, spread %.1f%%, %d attempt(s)%s%s",
                 graded->number, graded->impl, s.achieved, s.required, rule, config.speedup_n,
                 config.speedup_threads, s.samples, 100 * s.spread, s.attempts,
                 s.within_noise ? "; passed within the measurement's noise" : "",
                 r.outcome == KIT_OUTCOME_PASS ? ""
                 : ". Is it still doing the work of an earlier stage (block count, loads per thread)?");
        if (r.outcome == KIT_OUTCOME_PASS && s.reference > 0 && s.required > s.reference)
            snprintf(r.message + strlen(r.message), sizeof r.message - strlen(r.message),
                     " (note: the reference itself is below the configured minimum on this GPU)");
    }
    kit_result_write(results_dir, graded->number, KIT_PART_SPEEDUP, &r);
    ck_assert_msg(r.outcome == KIT_OUTCOME_PASS, "%s", r.message);
}
END_TEST

/* ---------------------------------------------------------------- the runner's parent */

static void usage(FILE *out, const char *program)
{
    fprintf(out,
            "usage: %s [correctness|speedup|all] [options]\n"
            "Grades one stage: its Check suite (each test in its own process), or --run-once.\n"
            "  --impl labs|solutions  which kernels to grade (default: labs, the student's)\n"
            "  --kernel NAME          (grade_corpus) the known-wrong kernel to grade\n"
            "  --results DIR          write DIR/stageK.PART result files for the report\n"
            "  --logs DIR             write Check's XML and TAP logs there\n"
            "  --config FILE          grading rules (default: none, built-in defaults)\n"
            "  --run-once             no Check, no fork: a few small checked runs, for compute-sanitizer\n"
            "  --probe-gpu            only say whether a CUDA GPU is usable (exit 0, or 77)\n"
            "Exit status: 0 all passed, 1 a test failed, 2 bad usage, 77 no GPU (1 if KIT_REQUIRE_GPU=1).\n",
            program);
}

int kit_grade_parse_args(int argc, char **argv, kit_grade_args *a)
{
    memset(a, 0, sizeof *a);
    a->part = "all";
    a->impl = "labs";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char **value = strcmp(arg, "--impl") == 0      ? &a->impl
                             : strcmp(arg, "--kernel") == 0  ? &a->kernel
                             : strcmp(arg, "--results") == 0 ? &a->results
                             : strcmp(arg, "--logs") == 0    ? &a->logs
                             : strcmp(arg, "--config") == 0  ? &a->config
                                                             : NULL;
        if (value) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value\n", argv[0], arg);
                return 0;
            }
            *value = argv[++i];
        } else if (strcmp(arg, "--run-once") == 0) {
            a->run_once = 1;
        } else if (strcmp(arg, "--probe-gpu") == 0) {
            a->probe_gpu = 1;
        } else if (strcmp(arg, "--help") == 0) {
            usage(stdout, argv[0]);
            exit(0);
        } else if (strcmp(arg, "correctness") == 0 || strcmp(arg, "speedup") == 0 || strcmp(arg, "all") == 0) {
            a->part = arg;
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], arg);
            usage(stderr, argv[0]);
            return 0;
        }
    }
    if (strcmp(a->impl, "labs") != 0 && strcmp(a->impl, "solutions") != 0) {
        fprintf(stderr, "%s: --impl must be labs or solutions, not '%s'\n", argv[0], a->impl);
        return 0;
    }
    return 1;
}

static int selected(const kit_grade_args *a, const char *part)
{
    return strcmp(a->part, "all") == 0 || strcmp(a->part, part) == 0;
}

/* Turns Check's results for one test case into the part's result file (\p device: where it ran). */
static int record(SRunner *runner, const char *tcase, kit_part part, int stage, const char *device)
{
    kit_result r;
    memset(&r, 0, sizeof r);
    if (results_dir)
        kit_result_read(results_dir, stage, part, &r); /* the numbers the child left */
    TestResult **results = srunner_results(runner);
    int total = srunner_ntests_run(runner), ran = 0, failed = 0;
    char message[sizeof r.message] = "";
    for (int i = 0; i < total; i++) {
        if (strcmp(tr_tcname(results[i]), tcase) != 0)
            continue;
        ran++;
        if (tr_rtype(results[i]) == CK_PASS)
            continue;
        failed++;
        /* One message per cause: an unfilled skeleton fails all three tests the same way. */
        const char *text = tr_msg(results[i]);
        char head[64];
        snprintf(head, sizeof head, "%s", text);
        char *cut = strchr(head, '(');
        if (cut)
            *cut = '\0';
        if (strstr(message, head))
            continue;
        size_t used = strlen(message);
        snprintf(message + used, sizeof message - used, "%s%s", used ? " | " : "", text);
    }
    free(results);
    if (ran == 0)
        return 0;
    r.outcome = failed ? KIT_OUTCOME_FAIL : KIT_OUTCOME_PASS;
    if (failed || part != KIT_PART_SPEEDUP || !r.message[0])
        snprintf(r.message, sizeof r.message, "%s",
                 failed                         ? message
                 : part == KIT_PART_EMULATED ? "every run gave the exact sum on the CPU emulator (n up to 2^20 + 7)"
                                                : "every run gave the exact sum");
    if (device)
        snprintf(r.gpu, sizeof r.gpu, "%s", device);
    kit_result_write(results_dir, stage, part, &r);
    return failed;
}

int kit_grade_run(const kit_grade_args *a, const kit_stage *stage, const kit_stage *references)
{
    graded = stage;
    reference_table = references;
    results_dir = a->results && *a->results ? a->results : NULL;
    kit_error err = {KIT_OK, ""};
    if (kit_grade_config_load(&config, a->config, &err) != KIT_OK) {
        fprintf(stderr, "grader: %s\n", err.message);
        return 2;
    }
    if (a->run_once) {
        int code = kit_grade_run_once(stage, stdout);
        return code == 77 ? kit_no_gpu_exit_code() : code;
    }

    char why[256];
    max_n = a->emulated ? KIT_EMULATED_MAX_N : 0;
    if (a->emulated && !selected(a, "correctness")) {
        fprintf(stderr, "grader: the CPU emulator grades correctness only; it cannot time a GPU\n");
        return 2;
    }
    if (a->probe_gpu && a->emulated) {
        printf("the CPU emulator is always usable\n");
        return 0;
    }
    kit_gpu device;
    memset(&device, 0, sizeof device);
    if (a->emulated) {
        /* The emulator's "device" is the CPU: no CUDA here, so the parent may open it. */
        if (kit_gpu_open(&device, &err) != KIT_OK) {
            fprintf(stderr, "grader: %s\n", err.message);
            return 2;
        }
    } else if (a->probe_gpu) {
        if (kit_probe_gpu(why, sizeof why))
            return 0;
        printf("SKIPPED: no CUDA GPU (%s)\n", why);
        return kit_no_gpu_exit_code();
    }
    if (!a->emulated && !kit_probe_gpu(why, sizeof why)) {
        int code = kit_no_gpu_exit_code();
        printf("SKIPPED: no CUDA GPU (%s): stage %d's GPU tests did not run%s\n", why, stage->number,
               code == 77 ? "" : ", and KIT_REQUIRE_GPU=1 makes that a failure");
        kit_result r;
        memset(&r, 0, sizeof r);
        r.outcome = code == 77 ? KIT_OUTCOME_SKIP : KIT_OUTCOME_FAIL;
        snprintf(r.message, sizeof r.message, "not graded: no CUDA GPU (%s)", why);
        if (selected(a, "correctness"))
            kit_result_write(results_dir, stage->number, KIT_PART_CORRECTNESS, &r);
        if (selected(a, "speedup"))
            kit_result_write(results_dir, stage->number, KIT_PART_SPEEDUP, &r);
        return code;
    }

    static char name[160];
    snprintf(name, sizeof name, "stage%d_%s_%s", stage->number, stage->name + strlen("reduce_"), stage->impl);
    Suite *suite = suite_create(name);
    TCase *correctness = tcase_create("correctness");
    /* The emulator runs the matrix on one CPU core: 1 to 45 s a stage on the 2-core CI machine. */
    tcase_set_timeout(correctness, a->emulated ? 300 : 90);
    tcase_add_test(correctness, gives_the_exact_sum_at_every_size_block_size_and_input);
    /* On the emulator: no 2^26 case (minutes per stage on a CPU), and no repeats: a run in the
     * same thread order gives the same answer every time there; the race check's four thread
     * orders (grade_emulated.c --races) take their place. */
    if (!a->emulated) {
        tcase_add_test(correctness, gives_the_exact_sum_for_2_26_ints_at_every_block_size);
        tcase_add_test(correctness, gives_the_same_exact_sum_every_time_it_runs);
    }
    suite_add_tcase(suite, correctness);
    if (!a->emulated) {
        TCase *speedup = tcase_create("speedup");
        tcase_set_timeout(speedup, 90);
        tcase_add_test(speedup, reaches_the_required_speedup_over_reference_stage_1);
        suite_add_tcase(suite, speedup);
    }

    SRunner *runner = srunner_create(suite);
    srunner_set_fork_status(runner, CK_FORK);
    char xml[4096], tap[4096];
    if (a->logs && *a->logs) {
        snprintf(xml, sizeof xml, "%s/stage%d-%s%s.xml", a->logs, stage->number, a->emulated ? "emulated-" : "",
                 a->part);
        snprintf(tap, sizeof tap, "%s/stage%d-%s%s.tap", a->logs, stage->number, a->emulated ? "emulated-" : "",
                 a->part);
        srunner_set_xml(runner, xml);
        srunner_set_tap(runner, tap);
    }
    srunner_run(runner, NULL, strcmp(a->part, "all") == 0 ? NULL : a->part, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    if (a->emulated)
        record(runner, "correctness", KIT_PART_EMULATED, stage->number, device.name);
    else if (selected(a, "correctness"))
        record(runner, "correctness", KIT_PART_CORRECTNESS, stage->number, NULL);
    if (!a->emulated && selected(a, "speedup"))
        record(runner, "speedup", KIT_PART_SPEEDUP, stage->number, NULL);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/**
 * \file gpu_probe.h
 * \brief Asks whether a CUDA GPU is usable without touching CUDA in the calling process.
 *
 * Check runs each test in a forked child. A process that has made any CUDA call before
 * fork() leaves its children unable to use CUDA (every call fails with error 3,
 * initialization error; measured on an H200), so the test runner's parent must stay
 * CUDA-free. The probe forks a child that asks CUDA and reports through its exit status.
 */
#ifndef KIT_GPU_PROBE_H
#define KIT_GPU_PROBE_H

/** 1 if a CUDA GPU is usable, 0 if not; \p why gets CUDA's reason when there is none. */
int kit_probe_gpu(char *why, int why_size);

/**
 * The exit code for "no GPU": 77 (CTest's SKIP_RETURN_CODE) unless the environment sets
 * KIT_REQUIRE_GPU=1, as a grading machine should, which makes it a failure (1).
 */
int kit_no_gpu_exit_code(void);

#endif

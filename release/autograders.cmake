# Autograders for the student edition (included by release/CMakeLists.txt, after the target
# student-release and KIT_STUDENT_EDITION_DIR):
#   gradescope   build/student/autograder.zip: Gradescope's layout (setup.sh and run_autograder
#                at its root, the edition as reduction-lab-kit/; release/gradescope/)
#   release/github/grade.yml   the edition's .github/workflows/grade.yml for GitHub Classroom
# and their tests (labels release and selftest), each on an edition of their own of cheap stages
# (below), cut down to a few stages to keep CI short (see release/tests/).
if(NOT TARGET student-release OR NOT KIT_STUDENT_EDITION_DIR)
  message(FATAL_ERROR "release/autograders.cmake: include it after the target student-release and "
                      "KIT_STUDENT_EDITION_DIR are defined")
endif()

set(KIT_AUTOGRADER_ZIP "${CMAKE_BINARY_DIR}/student/autograder.zip")
# Gradescope's machines have no GPU: its grade of a stage is the CPU emulator's, correctness and
# races, 8 of 10 by default (keep). scale: those scaled to each stage's full marks, in the zip's
# copy of the edition only; the student edition keeps its grading.conf (and says so).
set(KIT_GRADESCOPE_FULL_MARKS "" CACHE STRING
    "What a stage graded on Gradescope's CPU emulator is worth: keep (8 of 10 by default) or scale (10 of 10); empty: as grading.conf says")
set_property(CACHE KIT_GRADESCOPE_FULL_MARKS PROPERTY STRINGS "" keep scale)
if(NOT KIT_GRADESCOPE_FULL_MARKS MATCHES "^(|keep|scale)$")
  message(FATAL_ERROR "KIT_GRADESCOPE_FULL_MARKS is keep, scale or empty, not '${KIT_GRADESCOPE_FULL_MARKS}'")
endif()
add_custom_target(gradescope
                  COMMAND "${CMAKE_COMMAND}" "-DEDITION=${KIT_STUDENT_EDITION_DIR}"
                          "-DSCRIPTS=${CMAKE_CURRENT_LIST_DIR}/gradescope" "-DZIP=${KIT_AUTOGRADER_ZIP}"
                          "-DFULL_MARKS=${KIT_GRADESCOPE_FULL_MARKS}"
                          -P "${CMAKE_CURRENT_LIST_DIR}/gradescope/make_zip.cmake"
                  COMMENT "Writing Gradescope's autograder.zip from ${KIT_STUDENT_EDITION_DIR}"
                  VERBATIM)
add_dependencies(gradescope student-release)

# ---------------------------------------------------------------- tests
# Each edition says what it is graded on: the zip made with KIT_GRADESCOPE_FULL_MARKS=scale has a
# scaled grading.conf, kit.json and README, and the student edition it was made from (and its
# tarball) still say keep; stand-in references, no build: about a second.
if(BUILD_TESTING)
  add_test(NAME gradescope_zip_scaled_to_full_marks_leaves_the_student_edition_saying_8_of_10
           COMMAND "${CMAKE_COMMAND}" "-DKIT=${CMAKE_SOURCE_DIR}" "-DWORK=${CMAKE_BINARY_DIR}/autograder-test/full-marks"
                   -P "${CMAKE_CURRENT_LIST_DIR}/tests/gradescope_zip_full_marks.cmake")
  set_tests_properties(gradescope_zip_scaled_to_full_marks_leaves_the_student_edition_saying_8_of_10
                       PROPERTIES LABELS "host;release")
endif()

# run_autograder's fallback when grading raises, on a stand-in 15-stage edition (no build, no
# grading: about a second): every released stage's parts at 0, with kit.json's names and points.
if(BUILD_TESTING)
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    add_test(NAME gradescope_fallback_reports_every_stage_of_a_15_stage_edition_at_0_when_grading_raises
             COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_LIST_DIR}/tests/gradescope_fallback.py"
                     --kit "${CMAKE_SOURCE_DIR}" --autograder "${CMAKE_CURRENT_LIST_DIR}/gradescope/run_autograder"
                     --cmake "${CMAKE_COMMAND}" --work "${CMAKE_BINARY_DIR}/autograder-test/fallback")
    set_tests_properties(gradescope_fallback_reports_every_stage_of_a_15_stage_edition_at_0_when_grading_raises
                         PROPERTIES LABELS "host;release")
  endif()
endif()

# Both run on an edition of their own, written by the fixture test
# autograder_test_edition_is_written with make_release.cmake (the student-release target's
# script) for the batch KIT_AUTOGRADER_TEST_BATCH (release/CMakeLists.txt, default 5-8), and never
# write to it: the Gradescope test makes its zip with the gradescope target's own command, into a
# folder of its own. Why not the build's edition: by default it is batch 1 (stages 1-3), whose
# correct stages cost 75 s (stage 3) to over 4 minutes (stage 1) of emulated grading on 2 cores,
# where stages 7 and 8 cost 10 to 30 s; the autograders' flow is the same for every stage. The
# build's own edition is built and graded by student_edition_* (release/CMakeLists.txt), and the
# stages of other problems (9 to 15) are graded one by one by the kit's own make check; the
# workflow's step for each stage is checked against stages.def by the classroom test's wiring check.
# Each test cuts its copy down to a few of the batch's stages (edition.cmake's
# KIT_RELEASED_STAGES, and labs/); every edition holds reference stage 1, which each stage's
# speed is measured against.
#   KIT_AUTOGRADER_TEST_STAGES   the stages the Gradescope test keeps (4 at least, 5 with the
#                                hang): the first three are broken in its second run, and the
#                                reference is graded in full only for the last two
#   KIT_AUTOGRADER_TEST_HANG     the Gradescope test also grades a kernel that never ends (up to
#                                4 more minutes: the emulator's ThreadSanitizer build does not
#                                always stop an endless loop, and the test's time limit then does)
#   KIT_CLASSROOM_TEST_STAGES    the stages the GitHub Classroom test keeps, two at least (the
#                                first unfilled, the others the reference)
option(KIT_AUTOGRADER_TEST_HANG "The Gradescope autograder test also grades a kernel that never ends" OFF)
if(KIT_AUTOGRADER_TEST_HANG)
  set(kit_gs_default "4;5;6;7;8")
else()
  set(kit_gs_default "5;6;7;8")
endif()
set(KIT_AUTOGRADER_TEST_STAGES "" CACHE STRING
    "Stages the Gradescope autograder test keeps of its edition (empty: ${kit_gs_default})")
set(KIT_CLASSROOM_TEST_STAGES "7;8" CACHE STRING "Stages the GitHub Classroom workflow test keeps of its edition")
set(kit_autograder_edition "${CMAKE_BINARY_DIR}/autograder-test/edition/reduction-lab-kit")
if(BUILD_TESTING AND NOT kit_release_problem AND kit_autograder_batch)
  find_package(Python3 COMPONENTS Interpreter)
  # The autograder tests' edition: make_release.cmake as the target student-release runs it, for
  # the batch KIT_AUTOGRADER_TEST_BATCH (its GPU and emulator reference built first). No answer
  # check: it is never handed out.
  set(kit_autograder_targets docs-student)
  set(kit_autograder_emu "")
  foreach(k IN LISTS kit_autograder_reference)
    list(APPEND kit_autograder_targets kit_release_reference_stage${k})
    foreach(major IN LISTS kit_release_extra_majors) # the same for the other CUDA majors (KIT_RELEASE_EXTRA_NVCC)
      list(APPEND kit_autograder_targets kit_release_reference_stage${k}_cuda${major})
    endforeach()
    foreach(flavor plain race)
      if(TARGET emu_reference_stage${k}_${flavor})
        list(APPEND kit_autograder_targets emu_reference_stage${k}_${flavor})
        list(APPEND kit_autograder_emu "$<TARGET_FILE:emu_reference_stage${k}_${flavor}>")
      endif()
    endforeach()
  endforeach()
  string(JOIN "," kit_autograder_emu_arg ${kit_autograder_emu})
  string(JOIN "," kit_autograder_batch_arg ${kit_autograder_batch})
  string(JOIN "," kit_autograder_reference_arg ${kit_autograder_reference})
  add_custom_target(autograder-test-edition
                    COMMAND "${CMAKE_COMMAND}" "-DSOURCE=${CMAKE_SOURCE_DIR}" "-DDEST=${kit_autograder_edition}"
                            "-DSTAGES=${kit_autograder_batch_arg}" "-DCLOSED="
                            "-DREFERENCE_STAGES=${kit_autograder_reference_arg}"
                            "-DGPU_REFERENCE=${kit_release_gpu_dir}"
                            "-DEMU_REFERENCE=${kit_autograder_emu_arg}" "-DDOCS=${CMAKE_BINARY_DIR}/docs-student/html"
                            "-DCUDA_VERSION=${CMAKE_CUDA_COMPILER_VERSION}" "-DARCHS=${kit_release_archs_text}"
                            "-DEXTRA_GPU_REFERENCE=${kit_release_extra_arg}"
                            "-DCXX=${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}"
                            -P "${CMAKE_CURRENT_LIST_DIR}/make_release.cmake"
                    DEPENDS ${kit_autograder_targets}
                    COMMENT "Writing the autograder tests' edition (stages ${kit_autograder_batch_arg}) to ${kit_autograder_edition}"
                    VERBATIM)
  add_test(NAME autograder_test_edition_is_written
           COMMAND "${CMAKE_COMMAND}" --build "${CMAKE_BINARY_DIR}" --target autograder-test-edition)
  set_tests_properties(autograder_test_edition_is_written PROPERTIES
                       LABELS "release;selftest" FIXTURES_SETUP kit_autograder_test_edition TIMEOUT 1200
                       RESOURCE_LOCK kit_docs_build) # builds docs-student in this tree, as the docs tests do
  set(kit_gs_stages "${KIT_AUTOGRADER_TEST_STAGES}")
  if(NOT kit_gs_stages)
    set(kit_gs_stages "${kit_gs_default}")
  endif()
  string(REPLACE ";" "," kit_gs_stages "${kit_gs_stages}")
  string(REPLACE ";" "," kit_gh_stages "${KIT_CLASSROOM_TEST_STAGES}")
  set(kit_gs_hang "")
  if(KIT_AUTOGRADER_TEST_HANG)
    set(kit_gs_hang hang)
  endif()
  set(kit_gs_test gradescope_autograder_gives_full_emulated_marks_to_the_reference_and_clear_zeros_to_a_broken_submission)
  add_test(NAME ${kit_gs_test}
           COMMAND bash "${CMAKE_CURRENT_LIST_DIR}/tests/gradescope_autograder.sh" "${kit_autograder_edition}"
                   "${CMAKE_CURRENT_LIST_DIR}/gradescope" "${CMAKE_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/autograder-test/gradescope"
                   "${kit_gs_stages}" ${kit_gs_hang})
  set(kit_gh_test github_classroom_workflow_fails_an_unfilled_stage_with_the_fill_in_message_and_passes_the_reference_in_the_others)
  add_test(NAME ${kit_gh_test}
           COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_LIST_DIR}/tests/classroom_workflow.py"
                   --workflow "${CMAKE_CURRENT_LIST_DIR}/github/grade.yml" --edition "${kit_autograder_edition}"
                   --kit "${CMAKE_SOURCE_DIR}" --work "${CMAKE_BINARY_DIR}/autograder-test/classroom"
                   --stages "${kit_gh_stages}")
  set_tests_properties(${kit_gs_test} ${kit_gh_test} PROPERTIES LABELS "release;selftest"
                       FIXTURES_REQUIRED kit_autograder_test_edition TIMEOUT 1800)
endif()

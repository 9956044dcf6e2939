# Autograders for the student edition (included by release/CMakeLists.txt, after the target
# student-release and KIT_STUDENT_EDITION_DIR):
#   gradescope   build/student/autograder.zip: Gradescope's layout (setup.sh and run_autograder
#                at its root, the edition as reduction-lab-kit/; release/gradescope/)
#   release/github/grade.yml   the edition's .github/workflows/grade.yml for GitHub Classroom
# and their tests (labels release and selftest), each on the edition the build's student-release
# wrote, cut down to a few stages to keep CI short (see release/tests/).
if(NOT TARGET student-release OR NOT KIT_STUDENT_EDITION_DIR)
  message(FATAL_ERROR "release/autograders.cmake: include it after the target student-release and "
                      "KIT_STUDENT_EDITION_DIR are defined")
endif()

set(KIT_AUTOGRADER_ZIP "${CMAKE_BINARY_DIR}/student/autograder.zip")
add_custom_target(gradescope
                  COMMAND "${CMAKE_COMMAND}" "-DEDITION=${KIT_STUDENT_EDITION_DIR}"
                          "-DSCRIPTS=${CMAKE_CURRENT_LIST_DIR}/gradescope" "-DZIP=${KIT_AUTOGRADER_ZIP}"
                          -P "${CMAKE_CURRENT_LIST_DIR}/gradescope/make_zip.cmake"
                  COMMENT "Writing Gradescope's autograder.zip from ${KIT_STUDENT_EDITION_DIR}"
                  VERBATIM)
add_dependencies(gradescope student-release)

# ---------------------------------------------------------------- tests
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

# Both use the edition the fixture kit_student_edition (release/CMakeLists.txt) wrote, and never
# write to it: the Gradescope test makes its zip with the gradescope target's own command, into
# a folder of its own. Each cuts its copy of the edition down to a few of the released stages
# (edition.cmake's KIT_RELEASED_STAGES, and labs/): a correct stage costs 10 s (stage 7) to 2
# minutes (stage 1) of emulated grading on CI's 2 cores, a broken one a few seconds, so the
# cheap late stages are kept (every edition holds reference stage 1, which each stage's speed
# is measured against, whether stage 1 is handed out or not). They test the autograders' flow,
# which is the same for every stage: the stages of other problems (9 to 15) get their full marks
# in student_edition_with_the_reference_solutions_in_its_labs_gets_full_marks, and the workflow's
# step for each of them is checked against stages.def by the classroom test's wiring check.
#   KIT_AUTOGRADER_TEST_STAGES   the stages the Gradescope test keeps (4 at least, 5 with the hang)
#   KIT_AUTOGRADER_TEST_HANG     the Gradescope test also grades a kernel that never ends (up to
#                                4 more minutes: the emulator's ThreadSanitizer build does not
#                                always stop an endless loop, and the test's time limit then does)
#   KIT_CLASSROOM_TEST_STAGES    the stages the GitHub Classroom test keeps (the first is the
#                                unfilled one in its second run)
option(KIT_AUTOGRADER_TEST_HANG "The Gradescope autograder test also grades a kernel that never ends" OFF)
if(KIT_AUTOGRADER_TEST_HANG)
  set(kit_gs_default "3;4;5;6;7")
else()
  set(kit_gs_default "4;5;6;7")
endif()
set(KIT_AUTOGRADER_TEST_STAGES "" CACHE STRING
    "Stages the Gradescope autograder test keeps of the student edition (empty: ${kit_gs_default})")
set(KIT_CLASSROOM_TEST_STAGES "6;7" CACHE STRING "Stages the GitHub Classroom workflow test keeps of the student edition")
if(BUILD_TESTING AND NOT kit_release_problem)
  find_package(Python3 COMPONENTS Interpreter)
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
           COMMAND bash "${CMAKE_CURRENT_LIST_DIR}/tests/gradescope_autograder.sh" "${KIT_STUDENT_EDITION_DIR}"
                   "${CMAKE_CURRENT_LIST_DIR}/gradescope" "${CMAKE_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/autograder-test/gradescope"
                   "${kit_gs_stages}" ${kit_gs_hang})
  set(kit_gh_test github_classroom_workflow_gives_the_reference_every_stage_and_fails_an_unfilled_one_with_the_fill_in_message)
  add_test(NAME ${kit_gh_test}
           COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_LIST_DIR}/tests/classroom_workflow.py"
                   --workflow "${CMAKE_CURRENT_LIST_DIR}/github/grade.yml" --edition "${KIT_STUDENT_EDITION_DIR}"
                   --kit "${CMAKE_SOURCE_DIR}" --work "${CMAKE_BINARY_DIR}/autograder-test/classroom"
                   --stages "${kit_gh_stages}")
  set_tests_properties(${kit_gs_test} ${kit_gh_test} PROPERTIES LABELS "release;selftest"
                       FIXTURES_REQUIRED kit_student_edition TIMEOUT 1800)
endif()

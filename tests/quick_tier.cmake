# The quick tier: label `quick` on the tests that guard the kit's own logic in seconds, for the
# edit-test loop (`ctest --test-dir build-ref -L quick -j2`, or `make check-quick`): the unit
# tests of the grader, the host code, the audit, the problems and the kit's description, the
# python tests (the no-answer check, the class report, Gradescope's fallback), the emulator's
# own tests, and the docs checks that need no doxygen build. About 60 s on 2 cores after the
# build.
#
# Every directory that registers tests calls kit_quick_tier() at its end. A test is quick unless
# it grades a stage file (the corpora's grader_on_*/grader_gives_*, the labs' stageK_*, and the
# checks that read their results), needs a GPU, or is one of the slow tiers by its properties:
# a fixture (the docs' HTML, the student edition and the autograders on it), a resource lock
# (Slurm), an order after another test, or a time limit of 5 minutes or more (class grading).
# A new test is quick by default; give it one of those, or name it below, if it takes more than
# a few seconds.
set(kit_not_quick_names
    "^grader_on_" "^grader_gives_" "^stage[0-9]+_" "^gpu_"
    "^grader_advises_without_a_gpu" "^grader_rejects_a_strided_aos_read"
    "^class_grading_" "^slurm_" "^student_edition_" "^student_release_"
    "^gradescope_autograder_gives" "^github_classroom_workflow"
    "^similarity_check_") # compare50 twice on a fake class: 8 s

function(kit_quick_tier)
  get_property(tests DIRECTORY PROPERTY TESTS)
  set(quick "")
  foreach(test IN LISTS tests)
    set(slow OFF)
    foreach(pattern IN LISTS kit_not_quick_names)
      if(test MATCHES "${pattern}")
        set(slow ON)
      endif()
    endforeach()
    get_test_property(${test} LABELS labels)
    if(labels AND "gpu" IN_LIST labels)
      set(slow ON)
    endif()
    foreach(property FIXTURES_SETUP FIXTURES_REQUIRED RESOURCE_LOCK DEPENDS)
      get_test_property(${test} ${property} value)
      if(value)
        set(slow ON)
      endif()
    endforeach()
    get_test_property(${test} TIMEOUT timeout)
    if(timeout AND timeout GREATER_EQUAL 300)
      set(slow ON)
      # The long ones start first (CTest runs higher costs first until it has measured them):
      # on a 16-core H200 the class-grading test (244 s) started 2 minutes into the run and was
      # the last to end, 6 minutes in.
      set_tests_properties(${test} PROPERTIES COST ${timeout})
    endif()
    if(NOT slow)
      list(APPEND quick ${test})
    endif()
  endforeach()
  if(quick)
    set_property(TEST ${quick} APPEND PROPERTY LABELS quick)
  endif()
  kit_share_build_cache("${tests}")
  # Check stops a test after 4 s unless its case says otherwise: a limit for hangs, which a loaded
  # machine reached with a test that takes 0.8 s alone (test_host's 2^26 floats, in a 2-core CI
  # run where make check runs two tests more than the cores). A minute for every case that sets none.
  if(tests)
    set_property(TEST ${tests} APPEND PROPERTY ENVIRONMENT "CK_DEFAULT_TIMEOUT=60")
  endif()
endfunction()

# The end-to-end tests each build a kit (a student edition, Gradescope's and Classroom's copies,
# the Colab notebook's, a class's submissions): the same common/, emu/ and grader sources, in
# folders of their own. Each copy is configured by the commands a student or an instructor types,
# and takes two things from the environment given here: KIT_WERROR, this build's warnings policy
# (CMakeLists.txt), so that it compiles with this build's flags; and CCACHE_DIR, the compiler cache
# this build compiled through (CMakeLists.txt's KIT_CCACHE: ccache's own folder, as this configure
# found it). A copy laid out as the kit (common/, emu/ and the grader under its root, its build
# folder one level down) then hits this build's objects instead of compiling them again, and the
# class grader's submissions (tests/class/grade_class.py, which takes CCACHE_DIR) share one cache
# with each other. Measured on 2 cores (2026-11-27): a student edition's build took 28.2 s with a
# cold cache of its own and 10.9 s with build-ref's objects in the cache (61 of its 97 compiles hit).
set(KIT_CCACHE_DIR "")
if(KIT_CCACHE AND KIT_CCACHE_PROGRAM)
  execute_process(COMMAND "${KIT_CCACHE_PROGRAM}" -k cache_dir OUTPUT_VARIABLE KIT_CCACHE_DIR
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE kit_no_cache_dir)
  if(NOT kit_no_cache_dir EQUAL 0)
    set(KIT_CCACHE_DIR "") # an older ccache: the copies use its default folder, as this build does
  endif()
endif()
function(kit_share_build_cache tests)
  if(NOT tests)
    return()
  endif()
  set(environment "KIT_WERROR=OFF")
  if(KIT_WERROR)
    set(environment "KIT_WERROR=ON")
  endif()
  if(KIT_CCACHE_DIR)
    list(APPEND environment "CCACHE_DIR=${KIT_CCACHE_DIR}")
  elseif(NOT KIT_CCACHE)
    list(APPEND environment "CCACHE_DISABLE=1") # -DKIT_CCACHE=OFF: the copies' launchers pass the compiles through
  endif()
  set_property(TEST ${tests} APPEND PROPERTY ENVIRONMENT ${environment})
endfunction()

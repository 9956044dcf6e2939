# `make check`, `make check-grade` and `make check-stageK`: build, run the tests, then print
# the grade report.
#   cmake -DCTEST=... -DBUILD=... -DRESULTS=... -DREPORT=... -DCONFIG=... -DTITLE=... -DSTUDENT=...
#         -DJOBS=N -DGENERATOR=... [-DRELEASED=1,2,3] [-DBUILD_ALL=ON | -DBUILD_TARGET=T]
#         [-DSTAGE=K | -DLABEL=grade [-DPART=emulated|gpu]] [-DTARGET=check-stage3]
#         [-DSTATUS_FILE=F] [-DLABS=<the labs folder>] [-DGPU_SLOTS=N] -P check.cmake
# BUILD_ALL builds every target first (make check runs every test of the kit), BUILD_TARGET
# one target (make check-grade: the grading programs). Old result
# files go first, so the report shows this run only. CTest's exit status decides the
# target's, after the report is printed; CTest writes JUnit XML next to the results. A build
# that can grade nothing (no usable GPU, no CPU emulator) ends non-zero, naming the package.
# PART splits check-grade in two for tests/class/grade_class.py, so that a GPU is lent to a
# submission only while its GPU tests run: PART=emulated runs the tests on the CPU emulator
# (label emulated) and writes no report; PART=gpu then runs the others, keeping the emulated
# results, and reports on both.
# The run ends with one line of the kit's own: what failed (or that all passed) and the exit
# status. A failing run then ends non-zero without CMake's "CMake Error at ..." block: with
# cmake_language(EXIT) where CMake has it (3.29), else by writing the status to STATUS_FILE
# (the make target's next command, cmake -E compare_files, fails silently on a status other
# than 0), else, as a last resort, with message(FATAL_ERROR).
cmake_policy(VERSION 3.16) # IN_LIST, continue()
if(NOT TARGET)
  if(STAGE)
    set(TARGET check-stage${STAGE})
  elseif(PART STREQUAL "emulated")
    set(TARGET check-grade-emulated)
  elseif(PART STREQUAL "gpu")
    set(TARGET check-grade-on-gpu)
  elseif(LABEL)
    set(TARGET check-grade)
  else()
    set(TARGET check)
  endif()
endif()
# Ends the run: the closing line, then exit status STATUS (0 or 1).
macro(kit_check_end status line)
  if("${status}" EQUAL 0)
    message("\n${TARGET}: ${line}; exit status 0")
  else()
    message("\n${TARGET}: ${line}; exit status ${status} (the build tool's own error lines follow)")
  endif()
  if(STATUS_FILE)
    file(WRITE "${STATUS_FILE}" "${status}\n")
  endif()
  if(NOT "${status}" EQUAL 0)
    if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.29)
      cmake_language(EXIT ${status})
    elseif(NOT STATUS_FILE)
      message(FATAL_ERROR "${TARGET} failed (the line above says why)")
    endif()
  endif()
  return()
endmacro()

if(STAGE)
  file(GLOB old "${RESULTS}/stage${STAGE}.*" "${RESULTS}/logs/stage${STAGE}-*" "${RESULTS}/not-graded.txt")
  set(select -L "^stage${STAGE}$")
  set(junit "${RESULTS}/junit-stage${STAGE}.xml")
  set(report_args --stage ${STAGE} --json "${RESULTS}/results-stage${STAGE}.json"
                  --record "${RESULTS}/grade-stage${STAGE}.json" --feedback "${RESULTS}/feedback-stage${STAGE}.txt")
else()
  file(GLOB old "${RESULTS}/stage*" "${RESULTS}/logs/*" "${RESULTS}/*.json" "${RESULTS}/*.csv" "${RESULTS}/*.xml"
                "${RESULTS}/feedback*.txt" "${RESULTS}/not-graded.txt")
  set(select "")
  if(LABEL)
    set(select -L "^${LABEL}$")
  endif()
  set(junit "${RESULTS}/junit.xml")
  if(PART STREQUAL "emulated")
    list(APPEND select -L "^emulated$")
    set(junit "${RESULTS}/junit-emulated.xml")
  elseif(PART STREQUAL "gpu")
    list(APPEND select -LE "^emulated$")
    set(old "") # the emulated part's results stay
  elseif(PART)
    message(FATAL_ERROR "check.cmake: PART is emulated or gpu, not '${PART}'")
  endif()
  set(report_args --json "${RESULTS}/results.json" --csv "${RESULTS}/summary.csv" --student "${STUDENT}"
                  --record "${RESULTS}/grade.json" --feedback "${RESULTS}/feedback.txt")
  if(RELEASED) # the stages of this edition (a student edition: those handed out so far)
    list(APPEND report_args --stages "${RELEASED}")
  endif()
endif()
# A regrade keeps the grading before it: its result files go to RESULTS/previous/ (the last one
# only), and the report ends with what changed since (grade_report --previous).
if(old AND NOT PART STREQUAL "gpu")
  if(STAGE)
    file(GLOB last_parts "${RESULTS}/stage${STAGE}.*")
    file(GLOB replaced "${RESULTS}/previous/stage${STAGE}.*")
  else()
    file(GLOB last_parts "${RESULTS}/stage*.*")
    file(GLOB replaced "${RESULTS}/previous/stage*.*")
  endif()
  if(last_parts)
    if(replaced)
      file(REMOVE ${replaced})
    endif()
    file(COPY ${last_parts} DESTINATION "${RESULTS}/previous")
  endif()
  file(REMOVE ${old})
endif()
list(APPEND report_args --previous "${RESULTS}/previous")
# The grader's self-tests grade their corpora into folders of their own: start them afresh too.
if(NOT STAGE AND NOT LABEL)
  file(REMOVE_RECURSE "${BUILD}/grade-selftest")
endif()
file(MAKE_DIRECTORY "${RESULTS}/logs")
# What is graded: each graded lab file's SHA-256 (BUILD/kit.json names the files), kept as
# RESULTS/stageK.lab-sha256, so that make status tells a lab changed since its grade by its content
# (tests/grader/status.cmake), not by the file's time.
if(LABS AND EXISTS "${BUILD}/kit.json" AND NOT PART STREQUAL "gpu")
  file(READ "${BUILD}/kit.json" kit)
  string(JSON count LENGTH "${kit}" stages)
  string(REPLACE "," ";" graded "${RELEASED}")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON k GET "${kit}" stages ${i} number)
    string(JSON lab GET "${kit}" stages ${i} file)
    if((STAGE AND NOT k EQUAL STAGE) OR (NOT STAGE AND RELEASED AND NOT k IN_LIST graded) OR NOT EXISTS "${LABS}/${lab}")
      continue()
    endif()
    file(SHA256 "${LABS}/${lab}" hash)
    file(WRITE "${RESULTS}/stage${k}.lab-sha256" "${hash}\n")
  endforeach()
endif()
if(STATUS_FILE) # a run stopped half-way (Ctrl-C, an error of CMake's) leaves a failure behind
  file(WRITE "${STATUS_FILE}" "1\n")
endif()

# The build (make check: everything; make check-grade: the grading programs), going on past a
# stage file that does not compile: that stage's tests then fail with the compiler's message
# (kit_grade reads logs/build.log) and the other stages are still graded and reported.
set(build_failed 0)
if(BUILD_ALL OR BUILD_TARGET)
  set(target "")
  if(BUILD_TARGET)
    set(target --target ${BUILD_TARGET})
  endif()
  set(keep_going -k)
  if(GENERATOR MATCHES "Ninja")
    set(keep_going -k 0)
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD}" -j ${JOBS} ${target} -- ${keep_going}
                  OUTPUT_VARIABLE build_output ERROR_VARIABLE build_output RESULT_VARIABLE build_failed)
  file(WRITE "${RESULTS}/logs/build.log" "${build_output}")
  if(NOT build_failed EQUAL 0)
    string(REGEX MATCHALL "[^\n]*(error|Error)[^\n]*" errors "${build_output}")
    list(LENGTH errors count)
    if(count GREATER 40)
      list(SUBLIST errors 0 40 errors)
    endif()
    string(JOIN "\n" errors ${errors})
    message("${errors}\n\nmake check: the build failed (above, and all of it in ${RESULTS}/logs/build.log); "
            "grading what did build")
  endif()
endif()

# The GPU as a resource of GPU_SLOTS slots (tests/grader/CMakeLists.txt): a timing takes them all.
set(resources "${BUILD}/kit-resources.json")
file(WRITE "${resources}" "{\"version\": {\"major\": 1, \"minor\": 0}, \"local\": [{\"gpu\": [{\"id\": \"0\", \"slots\": ${GPU_SLOTS}}]}]}\n")
# make check runs two tests more than the cores at once: its end-to-end tests spend most of their
# time waiting (a Slurm poll, a time limit that must pass, a heartbeat), and a waiting test held a
# core's turn: on 2 cores the two class-grading tests took 299 s of CTest's time and 82 s of CPU.
# A grading (check-grade, check-stageK) runs as many as the cores, its timings undisturbed.
set(test_jobs ${JOBS})
if(BUILD_ALL)
  math(EXPR test_jobs "${JOBS} + 2")
endif()
string(TIMESTAMP started "%s")
# Through ctest_progress.sh: a line as each test starts and ends and, every 15 s, one for each
# test still running; a failing test's output after its end line (--output-on-failure's).
execute_process(COMMAND sh "${CMAKE_CURRENT_LIST_DIR}/ctest_progress.sh" "${CTEST}" --test-dir "${BUILD}"
                        -j ${test_jobs} ${select} --no-label-summary --output-junit "${junit}" --resource-spec-file "${resources}"
                RESULT_VARIABLE tests_failed)
string(TIMESTAMP finished "%s")
math(EXPR seconds "${finished} - ${started}")
if(PART STREQUAL "emulated") # the report comes with the GPU part
  message("check-grade-emulated: the emulated tests took ${seconds} s; check-grade-on-gpu runs the rest and reports")
  if(STATUS_FILE)
    file(WRITE "${STATUS_FILE}" "0\n") # as before: the GPU part decides
  endif()
  return()
endif()
string(TIMESTAMP today "%Y-%m-%d")

execute_process(COMMAND "${REPORT}" --results "${RESULTS}" --config "${CONFIG}"
                        --title "${TITLE}, ${today}, tests took ${seconds} s" ${report_args}
                RESULT_VARIABLE report_failed)
message("Logs: JUnit ${junit}, Check XML and TAP in ${RESULTS}/logs/")
# What failed, in a few words: the graded parts that failed (stageK.<part>, written by
# kit_grade and the race and sanitizer scripts), stage by stage.
if(STAGE)
  file(GLOB part_files "${RESULTS}/stage${STAGE}.*")
else()
  file(GLOB part_files "${RESULTS}/stage*.*")
endif()
set(failed_stages "")
foreach(f IN LISTS part_files)
  get_filename_component(name "${f}" NAME)
  if(NOT name MATCHES "^stage([0-9]+)\\.([a-z-]+)$")
    continue()
  endif()
  set(k ${CMAKE_MATCH_1})
  set(part ${CMAKE_MATCH_2})
  file(STRINGS "${f}" status_line REGEX "^status=" LIMIT_COUNT 1)
  if(NOT status_line STREQUAL "status=fail")
    continue()
  endif()
  if(part MATCHES "^emulated-(.*)$")
    set(part "${CMAKE_MATCH_1} (emulated)")
  endif()
  if(NOT k IN_LIST failed_stages)
    list(APPEND failed_stages ${k})
  endif()
  list(APPEND failed_parts_${k} "${part}")
endforeach()
list(SORT failed_stages COMPARE NATURAL)
set(failed "")
foreach(k IN LISTS failed_stages)
  string(JOIN ", " parts ${failed_parts_${k}})
  list(APPEND failed "stage ${k} failed ${parts}")
endforeach()
string(JOIN "; " failed ${failed})

# No usable GPU and no CPU emulator: the test grading_has_a_gpu_or_the_cpu_emulator failed and
# left this note (tests/grader/gpu_or_emulator.c); the report marked every stage with it.
if(EXISTS "${RESULTS}/not-graded.txt")
  file(STRINGS "${RESULTS}/not-graded.txt" note LIMIT_COUNT 1)
  kit_check_end(1 "${note}")
endif()
if(NOT build_failed EQUAL 0)
  if(failed)
    set(failed "; ${failed}")
  endif()
  kit_check_end(1 "the build failed (the compiler's messages are in ${RESULTS}/logs/build.log)${failed}")
endif()
if(NOT tests_failed EQUAL 0)
  if(NOT failed)
    set(failed "some tests failed (their output is above, under CTest's list of them)")
  endif()
  kit_check_end(1 "${failed}; the report above says why")
endif()
if(report_failed EQUAL 1)
  kit_check_end(1 "some stages could not be graded (the report above says why)")
elseif(NOT report_failed EQUAL 0)
  kit_check_end(1 "the grade report could not be written")
endif()
if(STAGE)
  kit_check_end(0 "stage ${STAGE} passed every part graded here")
else()
  kit_check_end(0 "every test passed")
endif()

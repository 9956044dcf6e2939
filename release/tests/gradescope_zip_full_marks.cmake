# Each edition says what it is graded on. release/make_release.cmake writes a student edition
# (batch 1, stages 1-3, on stand-in prebuilt references and pages, as
# edition_holds_only_allowed_files.cmake does), then release/gradescope/make_zip.cmake, as the
# gradescope target runs it, writes the Gradescope zip from it:
#   - with FULL_MARKS=scale (KIT_GRADESCOPE_FULL_MARKS), the zip's copy of the edition has
#     emulated.full_marks = scale in its grading.conf, in its kit.json (a stage's emulated points
#     total its full marks) and in its README (10 of 10), while the student edition and its
#     tarball still say keep and 8 of 10;
#   - without it, the zip's copy is the edition's (keep).
# And the release's words for an edition's stages read right for 0, 1 or several closed stages
# (release/edition_words.cmake: the student-release target's line and make_release.cmake's).
# Under a second or two, no build.
#   cmake -DKIT=<kit> -DWORK=<scratch folder> -P gradescope_zip_full_marks.cmake
cmake_minimum_required(VERSION 3.24)
foreach(var KIT WORK)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "gradescope_zip_full_marks.cmake: -D${var}=... is missing")
  endif()
endforeach()
set(problems "")
macro(problem text)
  list(APPEND problems "${text}")
endmacro()

# The release's words for the stages of an edition.
include("${KIT}/release/edition_words.cmake")
macro(words want)
  kit_edition_words(said ${ARGN})
  if(NOT said STREQUAL "${want}")
    problem("kit_edition_words(${ARGN}) says '${said}', not '${want}'")
  endif()
endmacro()
words("stages 1, 2, 3" STAGES 1 2 3)
words("stage 4" STAGES 4 CLOSED)
words("stages 4, 5, over closed stage 3" STAGES 4 5 CLOSED 3)
words("stages 4, 5, over closed stages 1, 2, 3" STAGES 4 5 CLOSED 1 2 3)

include("${KIT}/release/tests/stand_in_edition.cmake")
kit_write_stand_in_edition("${KIT}" "${WORK}" dest log)
if(NOT log MATCHES "Student edition \\(stages 1, 2, 3; reference stages")
  problem("make_release.cmake's last line does not say 'Student edition (stages 1, 2, 3; reference stages': ${log}")
endif()

# What one copy of an edition says: keep or scale, in grading.conf, kit.json and README.md.
function(says folder out)
  file(STRINGS "${folder}/tests/grader/grading.conf" line REGEX "^[ \t]*emulated\\.full_marks[ \t]*=")
  string(REGEX REPLACE "^[^=]*=[ \t]*" "" conf "${line}")
  file(READ "${folder}/kit.json" kit)
  string(JSON json GET "${kit}" emulated_full_marks)
  string(JSON total GET "${kit}" stages 0 emulated_points total)
  file(READ "${folder}/README.md" readme)
  set(words "")
  if(readme MATCHES "so a perfect stage scores 8 of 10 there")
    set(words "8 of 10")
  elseif(readme MATCHES "so a\n  perfect stage scores 10 of 10 there")
    set(words "10 of 10")
  endif()
  set(${out} "grading.conf ${conf}, kit.json ${json} (stage 1: ${total} without a GPU), README ${words}" PARENT_SCOPE)
endfunction()
set(keep "grading.conf keep, kit.json keep (stage 1: 8 without a GPU), README 8 of 10")
set(scale "grading.conf scale, kit.json scale (stage 1: 10 without a GPU), README 10 of 10")

foreach(marks scale "")
  set(zip "${WORK}/zip-${marks}/autograder.zip")
  file(MAKE_DIRECTORY "${WORK}/zip-${marks}/unpacked")
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DEDITION=${dest}" "-DSCRIPTS=${KIT}/release/gradescope" "-DZIP=${zip}"
                          "-DFULL_MARKS=${marks}" -P "${KIT}/release/gradescope/make_zip.cmake"
                  RESULT_VARIABLE failed OUTPUT_VARIABLE zip_log ERROR_VARIABLE zip_log)
  if(failed)
    message(FATAL_ERROR "make_zip.cmake -DFULL_MARKS=${marks} failed:\n${zip_log}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E tar xf "${zip}" WORKING_DIRECTORY "${WORK}/zip-${marks}/unpacked"
                  RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "cannot unpack ${zip}")
  endif()
  says("${WORK}/zip-${marks}/unpacked/reduction-lab-kit" zip_says)
  set(want "${keep}")
  if(marks STREQUAL "scale")
    set(want "${scale}")
  endif()
  if(NOT zip_says STREQUAL want)
    problem("the zip made with FULL_MARKS='${marks}' says '${zip_says}', not '${want}'")
  endif()
  says("${dest}" edition_says)
  if(NOT edition_says STREQUAL keep)
    problem("after the zip made with FULL_MARKS='${marks}', the student edition says '${edition_says}', not '${keep}'")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK}/tarball")
execute_process(COMMAND "${CMAKE_COMMAND}" -E tar xf "${WORK}/edition/reduction-lab-kit.tar.gz"
                WORKING_DIRECTORY "${WORK}/tarball" RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "cannot unpack ${WORK}/edition/reduction-lab-kit.tar.gz")
endif()
says("${WORK}/tarball/reduction-lab-kit" tarball_says)
if(NOT tarball_says STREQUAL keep)
  problem("the student edition's tarball says '${tarball_says}', not '${keep}'")
endif()

if(problems)
  string(REPLACE ";" "\n  " text "${problems}")
  message(FATAL_ERROR "An edition does not say what it is graded on:\n  ${text}")
endif()
message("ok: the zip scaled to full marks says scale in grading.conf, kit.json and README; the student edition "
        "and its tarball still say keep (8 of 10); the release words 0, 1 and several closed stages right")

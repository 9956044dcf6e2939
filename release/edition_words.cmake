# What a student edition says of itself, for the release's scripts (make_release.cmake, the
# student-release target, gradescope/make_zip.cmake):
#   kit_edition_words(<out> STAGES <k>... [CLOSED <k>...])
#       "stages 1, 2, 3", "stage 4, over closed stage 3", "stages 4, 5, over closed stages 1, 2, 3"
#   kit_edition_say_full_marks(<edition folder>)
#       makes the edition's README.md say what its grading configuration makes a stage graded on
#       the CPU emulator worth, as its kit.json says it (emulated_full_marks): the README is
#       written for keep (8 of 10: speed needs a GPU); with scale its sentence says 10 of 10.

# "stage 3" or "stages 1, 2, 3" (<what>: "stage" or "closed stage").
function(_kit_stage_list out what)
  list(LENGTH ARGN count)
  string(JOIN ", " text ${ARGN})
  if(count EQUAL 1)
    set(${out} "${what} ${text}" PARENT_SCOPE)
  else()
    set(${out} "${what}s ${text}" PARENT_SCOPE)
  endif()
endfunction()

function(kit_edition_words out)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "STAGES;CLOSED")
  _kit_stage_list(text stage ${arg_STAGES})
  if(arg_CLOSED)
    _kit_stage_list(closed "closed stage" ${arg_CLOSED})
    string(APPEND text ", over ${closed}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(KIT_EDITION_KEEP_SENTENCE "so a perfect stage scores 8 of 10 there: speed points need a GPU.")
set(KIT_EDITION_SCALE_SENTENCE
    "and this edition's grading scales the others to the\n  stage's full marks (`emulated.full_marks = scale` in `tests/grader/grading.conf`), so a\n  perfect stage scores 10 of 10 there.")

function(kit_edition_say_full_marks edition)
  file(READ "${edition}/kit.json" kit)
  string(JSON marks GET "${kit}" emulated_full_marks)
  if(NOT marks STREQUAL "scale")
    return()
  endif()
  file(READ "${edition}/README.md" readme)
  string(FIND "${readme}" "${KIT_EDITION_KEEP_SENTENCE}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "kit_edition_say_full_marks: ${edition}/README.md no longer says '${KIT_EDITION_KEEP_SENTENCE}' "
                        "on one line: say in release/edition_words.cmake what it says now")
  endif()
  string(REPLACE "${KIT_EDITION_KEEP_SENTENCE}" "${KIT_EDITION_SCALE_SENTENCE}" readme "${readme}")
  file(WRITE "${edition}/README.md" "${readme}")
endfunction()

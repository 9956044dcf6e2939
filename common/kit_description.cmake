# The kit's description, kit.json: one machine-readable file, written from common/stages.def
# (the stages), common/problems.c (each type and operator's name in words) and grading.conf
# (the points), for the scripts that would otherwise parse those themselves (Gradescope's
# run_autograder, the release's tests, class grading). Written at configure time to
# <build>/kit.json by CMakeLists.txt, and to a student edition's top (kit.json) by
# release/make_release.cmake; an edition's own build writes its own <build>/kit.json too.
#
# Its fields (format 1):
#   format           1; a reader refuses another number
#   edition          "instructor" or "student"
#   released         the stages this build or edition has (and grades), as numbers
#   closed, batch    a student edition: the stages of earlier batches (their deadline has passed)
#                    and the ones this batch hands out (released = closed + batch)
#   student_edition  the instructor's build: what `student-release` would write now,
#                    {"release": [...], "closed": [...], "stages": [...]} (KIT_RELEASE_STAGES,
#                    KIT_CLOSED_STAGES, KIT_EDITION_STAGES)
#   grading_config   the grading.conf the points come from (relative to the edition's top where
#                    it lies inside it)
#   reference_cuda   the CUDA version the reference stages were built with ("13.0.88"): a student
#                    edition's (make_release.cmake's CUDA_VERSION, edition.cmake's
#                    KIT_REFERENCE_CUDA_VERSION), the instructor's build's nvcc; "" where unknown
#   emulated_full_marks  grading.conf's emulated.full_marks: "keep" or "scale" (what a stage
#                    graded without a GPU can reach: see emulated_points)
#   part_keys        ["correctness", "speedup", "sanitizer"]: the parts that carry points
#   stages           every row of stages.def, in order, each:
#     number, dir, name, file ("<dir>/<name>.cu", under labs/ and solutions/), title,
#     threads {min, max}, passes ("many" or "one"), type, op (as in stages.def: "KIT_INT",
#     "KIT_SUM"), problem (words, common/problems.c: "int sum", "int argmin", ...),
#     baseline (the stage whose reference its speed is measured against), released (bool),
#     points {correctness, speedup, sanitizer} (grading.conf, per-stage overrides applied),
#     emulated_points {correctness, speedup, sanitizer, total}: what the stage can earn where no
#       GPU grades it (the CPU emulator: a laptop, GitHub's and Gradescope's machines), as
#       grade_report awards it: speed 0 (it needs a GPU); keep: correctness and sanitizer as in
#       points, total their sum (8 of 10 by default); scale: those two scaled to the stage's full
#       marks (7.5 and 2.5 of 10), total the full marks (numbers to 6 decimals),
#     parts [{key, name, points}] (name as the report's results.json names it:
#     "stage K: correctness", "stage K: speedup", "stage K: races and memory errors"),
#     tests {correctness, speedup, emulated}: the CTest names of the stage's graded lab
#     (stageK_...: they say the stage's problem and baseline)
#
# In CMake: include() it, then
#   kit_description_read(<kit top>)       sets KIT_DESCRIBED_STAGES and, per stage K,
#       kit_stage<K>_{dir,name,title,min_threads,max_threads,passes,type,op,baseline,problem,
#       correctness_sentence,speedup_sentence,emulated_sentence}
#   kit_description_write(OUTPUT <file> SOURCE <kit top> GRADING_CONFIG <file> EDITION <e>
#       RELEASED <k>... [CLOSED <k>...] [BATCH <k>...] [RELEASE <k>...] [EDITION_STAGES <k>...]
#       [REFERENCE_CUDA <version>])
# As a script (a copy of the inputs, a cut-down edition):
#   cmake -DSOURCE=<kit top> -DOUTPUT=<file> [-DGRADING_CONFIG=<file>] [-DEDITION=student]
#         [-DRELEASED=4,5] [-DCLOSED=..] [-DBATCH=..] [-DREFERENCE_CUDA=13.0.88] -P common/kit_description.cmake
# (RELEASED defaults to every stage; GRADING_CONFIG to SOURCE/tests/grader/grading.conf;
# REFERENCE_CUDA to the KIT_REFERENCE_CUDA_VERSION of SOURCE/edition.cmake, a student edition's).
cmake_minimum_required(VERSION 3.24)

set(KIT_DESCRIPTION_FORMAT 1)
set(KIT_DESCRIPTION_PART_KEYS correctness speedup sanitizer)
set(KIT_DESCRIPTION_PART_NAMES "correctness" "speedup" "races and memory errors")

# A JSON string of <value>.
function(_kit_json_string out value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  string(REPLACE "\t" "\\t" value "${value}")
  string(REPLACE "\n" "\\n" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()

# A JSON array of the numbers in the list <ARGN>.
function(_kit_json_numbers out)
  string(JOIN ", " text ${ARGN})
  set(${out} "[${text}]" PARENT_SCOPE)
endfunction()

# Points as whole millionths (CMake's math is integer only): "2.5" -> 2500000.
function(_kit_micro out value)
  if(NOT value MATCHES "^([0-9]+)(\\.([0-9]*))?$")
    message(FATAL_ERROR "kit_description: '${value}' is not a number of points")
  endif()
  set(whole ${CMAKE_MATCH_1})
  string(SUBSTRING "${CMAKE_MATCH_3}000000" 0 6 fraction)
  string(REGEX REPLACE "^0+([0-9])" "\\1" whole "${whole}")
  string(REGEX REPLACE "^0+([0-9])" "\\1" fraction "${fraction}")
  math(EXPR micro "${whole} * 1000000 + ${fraction}")
  set(${out} ${micro} PARENT_SCOPE)
endfunction()

# Whole millionths as a JSON number: 7500000 -> 7.5, 8000000 -> 8.
function(_kit_decimal out micro)
  math(EXPR whole "${micro} / 1000000")
  math(EXPR fraction "${micro} % 1000000 + 1000000")
  string(SUBSTRING "${fraction}" 1 6 fraction)
  string(REGEX REPLACE "0+$" "" fraction "${fraction}")
  if(fraction STREQUAL "")
    set(${out} "${whole}" PARENT_SCOPE)
  else()
    set(${out} "${whole}.${fraction}" PARENT_SCOPE)
  endif()
endfunction()

# The test words of a problem: "int sum" -> "exact_sum", "float sum" -> "float_sum_within_its_error_bound",
# "element-wise min of 3x3 int matrices" -> "exact_min_of_3x3_matrices" (the words "int" and
# "element-wise" dropped: the test names stay short enough to read).
function(_kit_problem_words out type problem)
  string(REGEX REPLACE "[^A-Za-z0-9-]+" "_" words "_${problem}_")
  string(REPLACE "_int_" "_" words "${words}")
  string(REPLACE "_element-wise_" "_" words "${words}")
  string(REGEX REPLACE "[^A-Za-z0-9]+" "_" words "${words}")
  string(REGEX REPLACE "^_|_$" "" words "${words}")
  string(TOLOWER "${words}" words)
  if(type STREQUAL "KIT_FLOAT")
    set(words "${words}_within_its_error_bound")
  else()
    set(words "exact_${words}")
  endif()
  set(${out} "${words}" PARENT_SCOPE)
endfunction()

function(kit_description_read source)
  set(def "${source}/common/stages.def")
  set(problems_c "${source}/common/problems.c")
  foreach(file "${def}" "${problems_c}")
    if(NOT EXISTS "${file}")
      message(FATAL_ERROR "kit_description: ${file} is missing")
    endif()
  endforeach()
  # The problems' names: common/problems.c's table, {KIT_<type>, KIT_<op>, "words", ...}.
  file(STRINGS "${problems_c}" rows REGEX "^ *\\{KIT_[A-Z0-9_]+, *KIT_[A-Z0-9_]+, *\"")
  foreach(row IN LISTS rows)
    string(REGEX MATCH "^ *\\{(KIT_[A-Z0-9_]+), *(KIT_[A-Z0-9_]+), *\"([^\"]*)\"" _ "${row}")
    set(problem_${CMAKE_MATCH_1}_${CMAKE_MATCH_2} "${CMAKE_MATCH_3}")
  endforeach()
  file(STRINGS "${def}" lines REGEX "^KIT_STAGE\\(")
  set(numbers "")
  foreach(line IN LISTS lines)
    # (two matches: a CMake regular expression holds at most 9 groups)
    if(NOT line MATCHES "^KIT_STAGE\\(([0-9]+), *([A-Za-z0-9_]+), *([A-Za-z0-9_]+), *\"([^\"]*)\",(.*)$")
      message(FATAL_ERROR "kit_description: cannot read this row of ${def}:\n  ${line}")
    endif()
    set(k ${CMAKE_MATCH_1})
    list(APPEND numbers ${k})
    set(kit_stage${k}_dir "${CMAKE_MATCH_2}" PARENT_SCOPE)
    set(kit_stage${k}_name "${CMAKE_MATCH_3}" PARENT_SCOPE)
    set(kit_stage${k}_title "${CMAKE_MATCH_4}" PARENT_SCOPE)
    set(rest "${CMAKE_MATCH_5}")
    if(NOT rest MATCHES "^ *([0-9]+), *([0-9]+), *KIT_PASSES_([A-Z]+), *(KIT_[A-Z0-9_]+), *(KIT_[A-Z0-9_]+), *([0-9]+)\\) *$")
      message(FATAL_ERROR "kit_description: cannot read this row of ${def}:\n  ${line}")
    endif()
    set(kit_stage${k}_min_threads ${CMAKE_MATCH_1} PARENT_SCOPE)
    set(kit_stage${k}_max_threads ${CMAKE_MATCH_2} PARENT_SCOPE)
    string(TOLOWER "${CMAKE_MATCH_3}" passes)
    set(kit_stage${k}_passes "${passes}" PARENT_SCOPE)
    set(type ${CMAKE_MATCH_4})
    set(op ${CMAKE_MATCH_5})
    set(baseline ${CMAKE_MATCH_6})
    set(kit_stage${k}_type ${type} PARENT_SCOPE)
    set(kit_stage${k}_op ${op} PARENT_SCOPE)
    set(kit_stage${k}_baseline ${baseline} PARENT_SCOPE)
    if(NOT DEFINED problem_${type}_${op})
      message(FATAL_ERROR "kit_description: stage ${k} reduces ${type} with ${op}, which is no row of the problem "
                          "table in ${problems_c}")
    endif()
    set(problem "${problem_${type}_${op}}")
    set(kit_stage${k}_problem "${problem}" PARENT_SCOPE)
    _kit_problem_words(words ${type} "${problem}")
    set(kit_stage${k}_correctness_sentence "gives_the_${words}_at_every_size_block_size_and_input" PARENT_SCOPE)
    set(kit_stage${k}_emulated_sentence "gives_the_${words}_at_every_size_up_to_2_20_on_the_cpu_emulator" PARENT_SCOPE)
    set(kit_stage${k}_speedup_sentence "reaches_the_required_speedup_over_reference_stage_${baseline}" PARENT_SCOPE)
  endforeach()
  if(NOT numbers)
    message(FATAL_ERROR "kit_description: ${def} has no KIT_STAGE row")
  endif()
  set(KIT_DESCRIBED_STAGES ${numbers} PARENT_SCOPE)
endfunction()

# kit_description_points(<config> <stages>...): kit_stage<K>_points_<part> for each stage, from
# grading.conf's points.<part> and stage<K>.points.<part>, applied in order as the grader does.
function(kit_description_points config)
  set(stages ${ARGN})
  foreach(k IN LISTS stages)
    set(points${k}_correctness 6)
    set(points${k}_speedup 2)
    set(points${k}_sanitizer 2)
  endforeach()
  if(NOT EXISTS "${config}")
    message(FATAL_ERROR "kit_description: ${config} (the grading configuration) is missing")
  endif()
  set(full_marks keep)
  file(STRINGS "${config}" marks REGEX "^[ \t]*emulated\\.full_marks[ \t]*=")
  foreach(line IN LISTS marks)
    string(REGEX REPLACE "#.*" "" line "${line}")
    if(NOT line MATCHES "^[ \t]*emulated\\.full_marks[ \t]*=[ \t]*(keep|scale)[ \t]*$")
      message(FATAL_ERROR "kit_description: cannot read emulated.full_marks in this line of ${config} (keep or "
                          "scale):\n  ${line}")
    endif()
    set(full_marks ${CMAKE_MATCH_1})
  endforeach()
  set(KIT_DESCRIBED_FULL_MARKS ${full_marks} PARENT_SCOPE)
  file(STRINGS "${config}" lines REGEX "^[ \t]*(stage[0-9]+\\.)?points\\.")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "#.*" "" line "${line}")
    if(NOT line MATCHES "^[ \t]*(stage([0-9]+)\\.)?points\\.(correctness|speedup|sanitizer)[ \t]*=[ \t]*([0-9]+(\\.[0-9]+)?)[ \t]*$")
      message(FATAL_ERROR "kit_description: cannot read the points in this line of ${config} (a part is correctness, "
                          "speedup or sanitizer; a value a number such as 6 or 2.5):\n  ${line}")
    endif()
    set(part ${CMAKE_MATCH_3})
    set(value ${CMAKE_MATCH_4})
    if(CMAKE_MATCH_2)
      set(points${CMAKE_MATCH_2}_${part} ${value})
    else()
      foreach(k IN LISTS stages)
        set(points${k}_${part} ${value})
      endforeach()
    endif()
  endforeach()
  foreach(k IN LISTS stages)
    foreach(part IN LISTS KIT_DESCRIPTION_PART_KEYS)
      set(kit_stage${k}_points_${part} ${points${k}_${part}} PARENT_SCOPE)
    endforeach()
    # Without a GPU (tests/grader/report.c, kit_grade_stage): no speed points; keep: the rest as
    # it is; scale: the rest scaled by full marks / the rest (where the rest is not 0).
    _kit_micro(correctness ${points${k}_correctness})
    _kit_micro(speedup ${points${k}_speedup})
    _kit_micro(sanitizer ${points${k}_sanitizer})
    math(EXPR full "${correctness} + ${speedup} + ${sanitizer}")
    math(EXPR reachable "${correctness} + ${sanitizer}")
    if(full_marks STREQUAL "scale" AND reachable GREATER 0)
      math(EXPR correctness "(${correctness} * ${full} + ${reachable} / 2) / ${reachable}")
      math(EXPR sanitizer "(${sanitizer} * ${full} + ${reachable} / 2) / ${reachable}")
      set(reachable ${full})
    endif()
    foreach(part correctness sanitizer reachable)
      _kit_decimal(value ${${part}})
      set(kit_stage${k}_emulated_${part} ${value} PARENT_SCOPE)
    endforeach()
  endforeach()
endfunction()

function(kit_description_write)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "OUTPUT;SOURCE;GRADING_CONFIG;EDITION;REFERENCE_CUDA"
                        "RELEASED;CLOSED;BATCH;RELEASE;EDITION_STAGES")
  foreach(needed OUTPUT SOURCE GRADING_CONFIG EDITION)
    if(NOT arg_${needed})
      message(FATAL_ERROR "kit_description_write: ${needed} is missing")
    endif()
  endforeach()
  kit_description_read("${arg_SOURCE}")
  kit_description_points("${arg_GRADING_CONFIG}" ${KIT_DESCRIBED_STAGES})
  foreach(k IN LISTS arg_RELEASED arg_CLOSED arg_BATCH arg_RELEASE arg_EDITION_STAGES)
    if(NOT k IN_LIST KIT_DESCRIBED_STAGES)
      message(FATAL_ERROR "kit_description_write: there is no stage ${k} in ${arg_SOURCE}/common/stages.def")
    endif()
  endforeach()

  set(json "{}")
  string(JSON json SET "${json}" format ${KIT_DESCRIPTION_FORMAT})
  _kit_json_string(value "${arg_EDITION}")
  string(JSON json SET "${json}" edition "${value}")
  _kit_json_numbers(value ${arg_RELEASED})
  string(JSON json SET "${json}" released "${value}")
  if(arg_EDITION STREQUAL "student")
    _kit_json_numbers(value ${arg_CLOSED})
    string(JSON json SET "${json}" closed "${value}")
    _kit_json_numbers(value ${arg_BATCH})
    string(JSON json SET "${json}" batch "${value}")
  else()
    set(next "{}")
    foreach(field release closed stages)
      set(list_name RELEASE)
      if(field STREQUAL "closed")
        set(list_name CLOSED)
      elseif(field STREQUAL "stages")
        set(list_name EDITION_STAGES)
      endif()
      _kit_json_numbers(value ${arg_${list_name}})
      string(JSON next SET "${next}" ${field} "${value}")
    endforeach()
    string(JSON json SET "${json}" student_edition "${next}")
  endif()
  get_filename_component(config "${arg_GRADING_CONFIG}" ABSOLUTE)
  get_filename_component(top "${arg_SOURCE}" ABSOLUTE)
  file(RELATIVE_PATH shown "${top}" "${config}")
  if(shown MATCHES "^\\.\\./" OR IS_ABSOLUTE "${shown}")
    set(shown "${config}")
  endif()
  _kit_json_string(value "${shown}")
  string(JSON json SET "${json}" grading_config "${value}")
  _kit_json_string(value "${arg_REFERENCE_CUDA}")
  string(JSON json SET "${json}" reference_cuda "${value}")
  _kit_json_string(value "${KIT_DESCRIBED_FULL_MARKS}")
  string(JSON json SET "${json}" emulated_full_marks "${value}")
  set(keys "")
  foreach(part IN LISTS KIT_DESCRIPTION_PART_KEYS)
    _kit_json_string(value "${part}")
    list(APPEND keys "${value}")
  endforeach()
  string(JOIN ", " keys ${keys})
  string(JSON json SET "${json}" part_keys "[${keys}]")

  string(JSON json SET "${json}" stages "[]")
  set(i 0)
  foreach(k IN LISTS KIT_DESCRIBED_STAGES)
    set(s "{}")
    string(JSON s SET "${s}" number ${k})
    foreach(field dir name title passes type op problem)
      _kit_json_string(value "${kit_stage${k}_${field}}")
      string(JSON s SET "${s}" ${field} "${value}")
      if(field STREQUAL "name")
        _kit_json_string(value "${kit_stage${k}_dir}/${kit_stage${k}_name}.cu")
        string(JSON s SET "${s}" file "${value}")
      elseif(field STREQUAL "title")
        string(JSON s SET "${s}" threads "{\"min\": ${kit_stage${k}_min_threads}, \"max\": ${kit_stage${k}_max_threads}}")
      endif()
    endforeach()
    string(JSON s SET "${s}" baseline ${kit_stage${k}_baseline})
    if(k IN_LIST arg_RELEASED)
      string(JSON s SET "${s}" released true)
    else()
      string(JSON s SET "${s}" released false)
    endif()
    set(points "{}")
    set(parts "[]")
    set(j 0)
    foreach(part IN LISTS KIT_DESCRIPTION_PART_KEYS)
      list(GET KIT_DESCRIPTION_PART_NAMES ${j} part_name)
      string(JSON points SET "${points}" ${part} ${kit_stage${k}_points_${part}})
      _kit_json_string(key "${part}")
      _kit_json_string(name "stage ${k}: ${part_name}")
      string(JSON parts SET "${parts}" ${j}
             "{\"key\": ${key}, \"name\": ${name}, \"points\": ${kit_stage${k}_points_${part}}}")
      math(EXPR j "${j} + 1")
    endforeach()
    string(JSON s SET "${s}" points "${points}")
    string(JSON s SET "${s}" emulated_points
           "{\"correctness\": ${kit_stage${k}_emulated_correctness}, \"speedup\": 0, \"sanitizer\": ${kit_stage${k}_emulated_sanitizer}, \"total\": ${kit_stage${k}_emulated_reachable}}")
    string(JSON s SET "${s}" parts "${parts}")
    set(tests "{}")
    foreach(kind correctness speedup emulated)
      _kit_json_string(value "stage${k}_${kit_stage${k}_${kind}_sentence}")
      string(JSON tests SET "${tests}" ${kind} "${value}")
    endforeach()
    string(JSON s SET "${s}" tests "${tests}")
    string(JSON json SET "${json}" stages ${i} "${s}")
    math(EXPR i "${i} + 1")
  endforeach()
  # Written only when it changes: a configure that changes nothing leaves its time stamp alone.
  set(old "")
  if(EXISTS "${arg_OUTPUT}")
    file(READ "${arg_OUTPUT}" old)
  endif()
  if(NOT old STREQUAL "${json}\n")
    file(WRITE "${arg_OUTPUT}" "${json}\n")
  endif()
endfunction()

# As a script: describe SOURCE (a kit or a student edition, or a copy of their inputs).
if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  foreach(var SOURCE OUTPUT)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "kit_description.cmake: -D${var}=... is missing")
    endif()
  endforeach()
  if(NOT GRADING_CONFIG)
    set(GRADING_CONFIG "${SOURCE}/tests/grader/grading.conf")
  endif()
  if(NOT EDITION)
    set(EDITION instructor)
  endif()
  foreach(var RELEASED CLOSED BATCH)
    string(REPLACE "," ";" ${var} "${${var}}")
  endforeach()
  if(NOT RELEASED)
    kit_description_read("${SOURCE}")
    set(RELEASED ${KIT_DESCRIBED_STAGES})
  endif()
  # A student edition's CUDA version: its edition.cmake says it (read, not included: it stops a
  # configure whose nvcc is of another major version).
  if(NOT DEFINED REFERENCE_CUDA AND EXISTS "${SOURCE}/edition.cmake")
    file(STRINGS "${SOURCE}/edition.cmake" line REGEX "^set\\(KIT_REFERENCE_CUDA_VERSION [^)]*\\)")
    if(line MATCHES "^set\\(KIT_REFERENCE_CUDA_VERSION ([^)]*)\\)")
      set(REFERENCE_CUDA "${CMAKE_MATCH_1}")
    endif()
  endif()
  kit_description_write(OUTPUT "${OUTPUT}" SOURCE "${SOURCE}" GRADING_CONFIG "${GRADING_CONFIG}" EDITION "${EDITION}"
                        RELEASED ${RELEASED} CLOSED ${CLOSED} BATCH ${BATCH} REFERENCE_CUDA "${REFERENCE_CUDA}")
endif()

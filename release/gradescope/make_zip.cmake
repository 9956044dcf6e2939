# Writes Gradescope's autograder.zip (run by the target gradescope, release/autograders.cmake):
#   cmake -DEDITION=<student edition folder> -DSCRIPTS=<release/gradescope> -DZIP=<.../autograder.zip>
#         [-DFULL_MARKS=keep|scale] -P make_zip.cmake
# At the zip's root, as Gradescope's autograder specification asks: setup.sh and run_autograder
# (executable), README.md (for the instructor), and the edition as reduction-lab-kit/.
# Gradescope unpacks it in /autograder/source.
# FULL_MARKS (the cache variable KIT_GRADESCOPE_FULL_MARKS): what a stage graded on the CPU emulator
# is worth on Gradescope, whose machines have no GPU: keep (correctness and races, 8 of 10 by
# default) or scale (those scaled to the stage's full marks); empty: as the edition's grading.conf
# says. It is set in the zip's copy of the edition only (its grading.conf, kit.json and README):
# the student edition and its tarball, handed out already, keep saying what they are graded on.
cmake_minimum_required(VERSION 3.24)
foreach(var EDITION SCRIPTS ZIP)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "make_zip.cmake: -D${var}=... is missing")
  endif()
endforeach()
if(NOT EXISTS "${EDITION}/edition.cmake" OR NOT EXISTS "${EDITION}/common/stages.def" OR NOT EXISTS "${EDITION}/kit.json")
  message(FATAL_ERROR "make_zip.cmake: ${EDITION} is not a student edition (no edition.cmake, "
                      "common/stages.def or kit.json): build the target student-release first")
endif()
get_filename_component(ZIP "${ZIP}" ABSOLUTE)
get_filename_component(EDITION "${EDITION}" ABSOLUTE)
get_filename_component(SCRIPTS "${SCRIPTS}" ABSOLUTE)
get_filename_component(edition_name "${EDITION}" NAME)
if(NOT edition_name STREQUAL "reduction-lab-kit")
  message(FATAL_ERROR "make_zip.cmake: the edition folder must be named reduction-lab-kit (run_autograder "
                      "looks for it there), not ${edition_name}")
endif()

get_filename_component(zip_dir "${ZIP}" DIRECTORY)
set(stage "${zip_dir}/autograder-zip-contents")
file(REMOVE_RECURSE "${stage}")
file(MAKE_DIRECTORY "${stage}")
foreach(script setup.sh run_autograder)
  file(COPY "${SCRIPTS}/${script}" DESTINATION "${stage}"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
file(COPY_FILE "${SCRIPTS}/README.md" "${stage}/README.md")
# The edition, without a build folder a test may have left in it.
file(COPY "${EDITION}" DESTINATION "${stage}" USE_SOURCE_PERMISSIONS
     PATTERN "build" EXCLUDE PATTERN "build-*" EXCLUDE)
if(FULL_MARKS)
  if(NOT FULL_MARKS MATCHES "^(keep|scale)$")
    message(FATAL_ERROR "make_zip.cmake: FULL_MARKS (KIT_GRADESCOPE_FULL_MARKS) is keep or scale, not '${FULL_MARKS}'")
  endif()
  set(copy "${stage}/reduction-lab-kit")
  set(conf "${copy}/tests/grader/grading.conf")
  file(READ "${conf}" text)
  string(REGEX REPLACE "(^|\n)[ \t]*emulated\\.full_marks[ \t]*=[^\n]*" "\\1emulated.full_marks = ${FULL_MARKS}"
         text "${text}")
  if(NOT text MATCHES "(^|\n)emulated\\.full_marks = ${FULL_MARKS}")
    string(APPEND text "\n# Set by the gradescope target (KIT_GRADESCOPE_FULL_MARKS)\nemulated.full_marks = ${FULL_MARKS}\n")
  endif()
  file(WRITE "${conf}" "${text}")
  # Its kit.json from its grading.conf, as make_release.cmake wrote the edition's (the same stages)
  file(READ "${copy}/kit.json" kit)
  foreach(field released closed batch)
    set(${field} "")
    string(JSON count LENGTH "${kit}" ${field})
    if(count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(i RANGE ${last})
        string(JSON k GET "${kit}" ${field} ${i})
        list(APPEND ${field} ${k})
      endforeach()
    endif()
  endforeach()
  string(JSON reference_cuda GET "${kit}" reference_cuda)
  include("${copy}/common/kit_description.cmake")
  kit_description_write(OUTPUT "${copy}/kit.json" SOURCE "${copy}" GRADING_CONFIG "${conf}" EDITION student
                        RELEASED ${released} CLOSED ${closed} BATCH ${batch} REFERENCE_CUDA "${reference_cuda}")
  include("${CMAKE_CURRENT_LIST_DIR}/../edition_words.cmake")
  kit_edition_say_full_marks("${copy}")
endif()

file(REMOVE "${ZIP}")
execute_process(COMMAND "${CMAKE_COMMAND}" -E tar cf "${ZIP}" --format=zip setup.sh run_autograder README.md
                        reduction-lab-kit
                WORKING_DIRECTORY "${stage}" RESULT_VARIABLE zip_failed)
if(zip_failed OR NOT EXISTS "${ZIP}")
  message(FATAL_ERROR "make_zip.cmake: could not write ${ZIP}")
endif()
file(REMOVE_RECURSE "${stage}") # the zip is what Gradescope takes
file(STRINGS "${EDITION}/edition.cmake" released REGEX "^set\\(KIT_RELEASED_STAGES")
string(REGEX REPLACE "^set\\(KIT_RELEASED_STAGES (.*)\\)$" "\\1" released "${released}")
message(STATUS "Gradescope autograder (stages ${released}): ${ZIP}")

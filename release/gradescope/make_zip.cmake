# Writes Gradescope's autograder.zip (run by the target gradescope, release/autograders.cmake):
#   cmake -DEDITION=<student edition folder> -DSCRIPTS=<release/gradescope> -DZIP=<.../autograder.zip>
#         -P make_zip.cmake
# At the zip's root, as Gradescope's autograder specification asks: setup.sh and run_autograder
# (executable), README.md (for the instructor), and the edition as reduction-lab-kit/.
# Gradescope unpacks it in /autograder/source.
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

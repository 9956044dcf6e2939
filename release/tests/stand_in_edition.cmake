# kit_write_stand_in_edition(KIT WORK DEST_VAR LOG_VAR): runs release/make_release.cmake as the
# student-release target runs it (batch 1, stages 1-3) into WORK/edition/reduction-lab-kit, on
# stand-ins for what a build makes: an empty reference archive per stage (GPU and emulator) and
# one page. For the tests of which files an edition holds and what it says: under a second, no
# build. Sets DEST_VAR to the edition's folder and LOG_VAR to make_release.cmake's output; a
# failed make_release.cmake ends the script.
function(kit_write_stand_in_edition kit work dest_var log_var)
  file(REMOVE_RECURSE "${work}")
  file(MAKE_DIRECTORY "${work}/reference" "${work}/docs" "${work}/edition")
  file(STRINGS "${kit}/common/stages.def" stage_lines REGEX "^KIT_STAGE\\(")
  foreach(line IN LISTS stage_lines)
    string(REGEX MATCH "^KIT_STAGE\\(([0-9]+)," _ "${line}")
    file(TOUCH "${work}/reference/libkit_reference_stage${CMAKE_MATCH_1}.a")
  endforeach()
  file(TOUCH "${work}/reference/libemu_reference_stage1_plain.a" "${work}/reference/libemu_reference_stage1_race.a")
  file(WRITE "${work}/docs/index.html" "<html><body>pages</body></html>\n")
  set(dest "${work}/edition/reduction-lab-kit")
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DSOURCE=${kit}" "-DDEST=${dest}" -DSTAGES=1,2,3 "-DCLOSED="
                          "-DGPU_REFERENCE=${work}/reference" "-DDOCS=${work}/docs" -DCUDA_VERSION=13.0.0
                          "-DEMU_REFERENCE=${work}/reference/libemu_reference_stage1_plain.a,${work}/reference/libemu_reference_stage1_race.a"
                          -DARCHS=90-real -DCXX=GNU -P "${kit}/release/make_release.cmake"
                  RESULT_VARIABLE failed OUTPUT_VARIABLE log ERROR_VARIABLE log)
  if(failed)
    message(FATAL_ERROR "make_release.cmake failed:\n${log}")
  endif()
  set(${dest_var} "${dest}" PARENT_SCOPE)
  set(${log_var} "${log}" PARENT_SCOPE)
endfunction()

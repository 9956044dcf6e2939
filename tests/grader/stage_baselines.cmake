# The baseline column of common/stages.def (its last): the stage whose reference a stage's speed
# is measured against, as kit_stage<K>_baseline (stage 1 for the int sums; 13 for stage 15, the
# coalesced 3x3 matrices; a row's own number where it is its own baseline). Included by
# the top-level CMakeLists.txt, tests/grader/emulated.cmake and release/CMakeLists.txt.
file(STRINGS "${CMAKE_SOURCE_DIR}/common/stages.def" kit_baseline_lines REGEX "^KIT_STAGE\\(")
foreach(kit_baseline_line IN LISTS kit_baseline_lines)
  if(NOT kit_baseline_line MATCHES "^KIT_STAGE\\(([0-9]+),.*, *([0-9]+)\\) *$")
    message(FATAL_ERROR "common/stages.def: no baseline stage at the end of: ${kit_baseline_line}")
  endif()
  set(kit_stage${CMAKE_MATCH_1}_baseline ${CMAKE_MATCH_2})
endforeach()

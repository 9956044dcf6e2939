# Grading on the CPU emulator. Included by emu/CMakeLists.txt once the emulator's targets
# exist (only where Boost.Context is installed), so nothing else of the grader needs the emulator.
# For every stage file that kit_add_graded_file grades (CMakeLists.txt here: the labs;
# tests/CMakeLists.txt: the self-tests' corpora, in the instructor's edition), two runners of
# its own, each linking that file alone (rewritten as C++ by the emulator) with the reference
# stage K and that of its baseline stage (stages.def; stage 1 for the int sums):
#   run_ID_emu        the grader's correctness suite on the CPU, sizes up to 2^20 + 7
#   run_ID_emu_race   the same under ThreadSanitizer (request "races": small inputs, two thread orders);
#                     the race check runs run_ID_emu too (request "orders": larger inputs, four orders)
# and their tests, through kit_grade (sandboxed, answers checked, results written by it):
#   PREFIX_gives_the_<problem>_at_every_size_up_to_2_20_on_the_cpu_emulator (kit_stage<K>_emulated_sentence:
#     gives_the_exact_sum_..., gives_the_exact_argmin_..., common/kit_description.cmake)
#   PREFIX_has_no_race_under_threadsanitizer_or_thread_orders_on_the_cpu_emulator
# They run with or without a GPU: where a GPU grades the stage too, both must pass (the
# emulator checks shared-array bounds and global-memory races, which the GPU's tools miss).
# With KIT_REQUIRE_GPU=1 they still run, but cannot stand in for the GPU (report.c).

# An endless loop stops at the harness's limit, in CPU time per launch (the grader's: 5 s for
# the small runs, 10 s in the race check; a launch at 2^20 takes ~0.1 s). KIT_EMU_TIMEOUT
# would override it: left unset here.
set(kit_emu_env "KIT_EMU_TIMEOUT=")
# Corpus entries that never end: graded by the race check too (their rows expect 0 points, so
# tests/CMakeLists.txt gives them no race part), which must report a hang, quickly, not a race.
set(kit_emu_hang_ids wrong_kernels_endless_loop)
include("${CMAKE_CURRENT_LIST_DIR}/stage_baselines.cmake") # kit_stage<K>_baseline
get_property(kit_grade_tools GLOBAL PROPERTY KIT_GRADE_TOOLS) # the audit's tools (tests/grader/CMakeLists.txt)
# The emulated runners' code, compiled once per flavour (plain, race) against that flavour's
# harness: runner.c with KIT_RUNNER_EMULATED, and races.c. Each runner adds only its graded file's
# row (runner_row.c: kit_runner_row_ID, kit_add_graded_file). The trace pictures' grade
# (tests/trace_bugs/) links kit_runner_emulated_plain too.
foreach(flavor IN LISTS emu_flavors)
  add_library(kit_runner_emulated_${flavor} OBJECT "${CMAKE_CURRENT_LIST_DIR}/runner.c"
                                                   "${CMAKE_CURRENT_LIST_DIR}/races.c")
  target_link_libraries(kit_runner_emulated_${flavor} PUBLIC kit_grader_runs emu_harness_${flavor})
  target_include_directories(kit_runner_emulated_${flavor} PRIVATE "${CMAKE_SOURCE_DIR}/common"
                                                                   "${CMAKE_CURRENT_LIST_DIR}")
  target_compile_definitions(kit_runner_emulated_${flavor} PRIVATE KIT_RUNNER_EMULATED=1)
  target_compile_options(kit_runner_emulated_${flavor} PRIVATE ${kit_c_warnings})
endforeach()
get_property(kit_graded_files GLOBAL PROPERTY KIT_GRADED_FILES)
foreach(entry IN LISTS kit_graded_files)
  string(REPLACE "|" ";" fields "${entry}")
  list(GET fields 0 id)
  list(GET fields 1 k)
  list(GET fields 2 source)
  list(GET fields 3 impl)
  list(GET fields 4 registered)
  list(GET fields 5 prefix)
  list(GET fields 6 results)
  list(GET fields 7 labels)
  list(GET fields 8 parts)
  list(GET fields 9 shown)
  string(REPLACE "," ";" labels "${labels}")
  string(REPLACE "," ";" parts "${parts}")
  set(wrap "")
  if("selftest" IN_LIST labels) # a corpus entry of the kit's self-tests (tests/CMakeLists.txt)
    get_property(wrap GLOBAL PROPERTY KIT_SELFTEST_WRAP)
  endif()
  set(base --stage ${k} --object $<TARGET_OBJECTS:kit_graded_${id}> --source "${source}" --shown "${shown}"
           ${kit_grade_tools})
  if(results)
    list(APPEND base --results "${results}" --logs "${results}/logs")
  endif()

  if("audit" IN_LIST parts) # refused by the audit before any runner starts: no runner to build
    set(runner_path "${CMAKE_BINARY_DIR}/runners/run_${id}_emu (not built: the audit refuses the file)")
  else()
    set(runner_path $<TARGET_FILE:run_${id}_emu>)
  endif()
  foreach(flavor IN LISTS emu_flavors)
    if("audit" IN_LIST parts)
      break()
    endif()
    set(program run_${id}_emu)
    if(flavor STREQUAL "race")
      set(program run_${id}_emu_race)
      if(NOT "races" IN_LIST parts AND NOT id IN_LIST kit_emu_hang_ids)
        continue()
      endif()
    elseif(NOT "emulated" IN_LIST parts AND NOT "races" IN_LIST parts AND NOT id IN_LIST kit_emu_hang_ids)
      continue() # the plain runner: the correctness test's, and the race check's thread orders
    endif()
    emu_add_stage_object(emu_graded_${id}_${flavor} ${impl} ${flavor} "${source}")
    set(baseline ${kit_stage${k}_baseline}) # the reference its speed is measured against (stage_baselines.cmake)
    set(baseline_library "")
    if(NOT baseline EQUAL k)
      set(baseline_library emu_reference_stage${baseline}_${flavor})
    endif()
    add_executable(${program} $<TARGET_OBJECTS:kit_runner_row_${id}>)
    target_link_libraries(${program} PRIVATE emu_graded_${id}_${flavor} emu_reference_stage${k}_${flavor}
                                             ${baseline_library} kit_runner_emulated_${flavor})
    set_target_properties(${program} PROPERTIES LINKER_LANGUAGE CXX
                          RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/runners")
    if(id MATCHES "^labs_stage")
      add_dependencies(grade-programs ${program})
      add_dependencies(grade-programs-stage${k} ${program})
    endif()
  endforeach()

  # The load rule's own test (below) reads the strided kernel's results and a reference stage 15's.
  get_filename_component(source_real "${source}" REALPATH)
  get_filename_component(coalesced_real "${CMAKE_SOURCE_DIR}/solutions/15_matrices_coalesced/reduce_matrices_coalesced.cu"
                         REALPATH)
  if(id STREQUAL "wrong_kernels_matrices_strided_aos_for_stage_15" AND "emulated" IN_LIST parts)
    set(kit_strided_results "${results}")
    set(kit_strided_test ${prefix}_${kit_stage${k}_emulated_sentence})
  elseif(k EQUAL 15 AND "emulated" IN_LIST parts AND results AND
         source_real STREQUAL coalesced_real)
    set(kit_coalesced_results "${results}")
    set(kit_coalesced_test ${prefix}_${kit_stage${k}_emulated_sentence})
  endif()
  if("emulated" IN_LIST parts)
    set(test ${prefix}_${kit_stage${k}_emulated_sentence})
    # The emulator's own object of the file is audited too (its defined symbols and startup code):
    # its runner links it, not nvcc's.
    set(emu_object "")
    if(NOT "audit" IN_LIST parts) # a file the audit refuses has no emulator object
      set(emu_object --emu-object $<TARGET_OBJECTS:emu_graded_${id}_plain>)
    endif()
    # A corpus row expected right on the emulator (it has race points to earn) runs each size
    # above 2^17 ints' worth once, at one block size drawn now (tests/grader/grade.c): its ten
    # runs of each of the four largest sizes were most of the corpus's emulated CPU time (a
    # one-int-a-thread row took 13-15 s of 2 cores). The stages' own tests run every one.
    set(large "")
    if("selftest" IN_LIST labels AND "races" IN_LIST parts)
      set(large --large-cases skip)
    endif()
    add_test(NAME ${test} COMMAND ${wrap} $<TARGET_FILE:kit_grade> emulated --runner "${runner_path}" ${base}
                                  ${emu_object} ${large})
    set_tests_properties(${test} PROPERTIES LABELS "emulated;${labels}" TIMEOUT 900 ENVIRONMENT "${kit_emu_env}"
                                            COST 40) # the longest: CTest starts them first
  endif()
  if(("races" IN_LIST parts OR id IN_LIST kit_emu_hang_ids) AND EMU_HAVE_TSAN)
    set(test ${prefix}_has_no_race_under_threadsanitizer_or_thread_orders_on_the_cpu_emulator)
    set(tool_results "")
    if(results)
      set(tool_results --results "${results}" --logs "${results}/logs")
    endif()
    add_test(NAME ${test}
             COMMAND ${wrap} $<TARGET_FILE:kit_grade> races --stage ${k} --runner $<TARGET_FILE:run_${id}_emu_race>
                     --orders-runner $<TARGET_FILE:run_${id}_emu> ${tool_results})
    set_tests_properties(${test} PROPERTIES LABELS "emulated;race;${labels}" TIMEOUT 900
                                            ENVIRONMENT "${kit_emu_env}" COST 20)
  endif()
endforeach()

# Advice without a GPU: stage 3's kernel in stage 7's slot (a block per 256 ints, one int per
# load, a barrier per step, idle lanes in the last steps) is correct, so the emulator gives it
# full marks, and the report must advise on the grid, the loads and what the emulator counted.
if(KIT_GRADER_SELFTEST)
  add_test(NAME grader_advises_without_a_gpu_on_a_stage_7_with_too_many_blocks_and_one_int_per_load
           COMMAND sh -c "\"$1\" --results \"$2\" --config \"$3\" --stage 7 > \"$2/advice-report.txt\"; \
grep -q 'Advice from the CPU emulator' \"$2/advice-report.txt\" && grep -q 'launched 4,097 blocks of 256 threads for n = 1,048,583 in its first pass; the reference launches 257' \"$2/advice-report.txt\" && \
grep -q 'each of its loads from global memory reads 4 bytes where the reference.s read 16' \"$2/advice-report.txt\" && \
grep -q 'each of its blocks meets at __syncthreads() 9 times where the reference.s meet 3 times' \"$2/advice-report.txt\" && \
grep -q 'of the lanes of its warps sit idle in its shared-memory steps (the reference: 0%' \"$2/advice-report.txt\" || { cat \"$2/advice-report.txt\"; exit 1; }" advice
                   $<TARGET_FILE:grade_report> "${CMAKE_BINARY_DIR}/grade-selftest/wrong_kernels_too_slow_for_stage_7" "${KIT_GRADING_CONFIG}")
  set_tests_properties(grader_advises_without_a_gpu_on_a_stage_7_with_too_many_blocks_and_one_int_per_load PROPERTIES
                       LABELS "selftest" DEPENDS
                       grader_on_wrong_kernels_too_slow_for_stage_7_gives_the_exact_sum_at_every_size_up_to_2_20_on_the_cpu_emulator)
endif()

# The load rule (grading.conf, stage15.max_sectors_per_request): stage 13's loop handed in
# as stage 15 is right, and on an H100 as fast, but asks L1 for 32 sectors per warp load. Its
# corpus row expects full marks on the emulator alone (there are no speed points to take without
# a GPU), so this test shows the rule on the CPU: the strided kernel's emulated-speed part fails,
# saying why, and the reference stage 15's passes (the solution's corpus entry, or the labs'
# stage 15 where the build grades solutions/).
if(KIT_GRADER_SELFTEST AND kit_strided_results AND kit_coalesced_results)
  add_test(NAME grader_rejects_a_strided_aos_read_in_stage_15_by_the_sectors_the_emulator_counts
           COMMAND sh -c "grep -qx 'status=fail' \"$1/stage15.emulated-speed\" && \
grep -qE 'asks L1 for [0-9.]+ sectors per warp load where the reference asks for [0-9.]+' \"$1/stage15.emulated-speed\" && \
grep -q 'its lanes read 36 bytes apart' \"$1/stage15.emulated-speed\" && \
grep -qx 'status=pass' \"$2/stage15.emulated-speed\" && \
grep -qE 'asks L1 for [0-9.]+ sectors per warp load, 1[.]0[0-9] times' \"$2/stage15.emulated-speed\" || \
{ cat \"$1/stage15.emulated-speed\" \"$2/stage15.emulated-speed\"; exit 1; }" loads "${kit_strided_results}" "${kit_coalesced_results}")
  set_tests_properties(grader_rejects_a_strided_aos_read_in_stage_15_by_the_sectors_the_emulator_counts PROPERTIES
                       LABELS "selftest" DEPENDS "${kit_strided_test};${kit_coalesced_test}")
endif()

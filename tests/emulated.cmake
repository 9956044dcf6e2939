# Grading on the CPU emulator, for machines without a GPU. Included by emu/CMakeLists.txt once
# the emulator's targets exist (only where Boost.Context is installed), so nothing in tests/
# needs the emulator. Per stage:
#   grade_stageK_emu       the grader's correctness suite (tests/grader/), linked against the
#                          emulator's harness and stage files: sizes up to 2^20 + 7, no timings
#   grade_stageK_emu_race  the same stage under ThreadSanitizer, in four thread orders (--races)
# Both skip (77) at once where a CUDA GPU is usable (the GPU grader's --probe-gpu says so), and
# with KIT_REQUIRE_GPU=1. The report shows their results as "(emulated)" (tests/grader/report.c).

set(kit_emu_grade_dir "${CMAKE_BINARY_DIR}/grade")
set(kit_emu_results --results "${kit_emu_grade_dir}" --logs "${kit_emu_grade_dir}/logs")
# An endless loop stops after 10 s of CPU time (a launch at 2^20 takes ~0.1 s).
set(kit_emu_env "KIT_EMU_TIMEOUT=10")
if(KIT_REQUIRE_GPU)
  list(APPEND kit_emu_env "KIT_REQUIRE_GPU=1")
endif()

foreach(flavor IN LISTS emu_flavors)
  # The GPU probe, compiled against the emulator's runtime: the emulated "device" is always there.
  add_library(kit_gpu_probe_emu_${flavor} STATIC "${CMAKE_SOURCE_DIR}/tests/gpu_probe.c")
  target_include_directories(kit_gpu_probe_emu_${flavor} PUBLIC "${CMAKE_SOURCE_DIR}/tests")
  target_link_libraries(kit_gpu_probe_emu_${flavor} PUBLIC emu_runtime_${flavor})
  target_compile_options(kit_gpu_probe_emu_${flavor} PRIVATE ${kit_c_warnings})
endforeach()

foreach(stage IN LISTS KIT_STAGES)
  string(REPLACE ":" ";" parts "${stage}")
  list(GET parts 0 k)
  foreach(flavor IN LISTS emu_flavors)
    set(program grade_stage${k}_emu)
    if(flavor STREQUAL "race")
      set(program grade_stage${k}_emu_race)
    endif()
    add_executable(${program} "${CMAKE_SOURCE_DIR}/tests/grade_emulated.c")
    target_compile_definitions(${program} PRIVATE KIT_GRADE_STAGE=${k}
                               KIT_GPU_GRADER="$<TARGET_FILE:grade_stage${k}>")
    target_link_libraries(${program} PRIVATE kit_grader kit_gpu_probe_emu_${flavor} emu_stages_labs_${flavor}
                                             emu_stages_solutions_${flavor} emu_harness_${flavor})
    target_compile_options(${program} PRIVATE ${kit_c_warnings})
    set_target_properties(${program} PROPERTIES LINKER_LANGUAGE CXX
                          RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests")
    add_dependencies(${program} grade_stage${k})
    add_dependencies(check-grade ${program})
    add_dependencies(grade-programs ${program}) # what tests/grade_class.sh builds first
    add_dependencies(check-stage${k} ${program})
  endforeach()

  add_test(NAME stage${k}_gives_the_exact_sum_at_every_size_up_to_2_20_on_the_cpu_emulator
           COMMAND grade_stage${k}_emu correctness ${kit_emu_results} --config "${KIT_GRADING_CONFIG}")
  set_tests_properties(stage${k}_gives_the_exact_sum_at_every_size_up_to_2_20_on_the_cpu_emulator PROPERTIES
                       SKIP_RETURN_CODE 77 LABELS "emulated;grade;stage${k}" TIMEOUT 900
                       ENVIRONMENT "${kit_emu_env}" COST 40) # the longest: CTest starts them first
  if(EMU_HAVE_TSAN)
    add_test(NAME stage${k}_has_no_race_under_threadsanitizer_or_thread_orders_on_the_cpu_emulator
             COMMAND sh "${CMAKE_SOURCE_DIR}/tests/emulated_races.sh" ${k} "${kit_emu_grade_dir}" --
                     $<TARGET_FILE:grade_stage${k}_emu_race>)
    set_tests_properties(stage${k}_has_no_race_under_threadsanitizer_or_thread_orders_on_the_cpu_emulator
                         PROPERTIES SKIP_RETURN_CODE 77 LABELS "emulated;grade;stage${k};race" TIMEOUT 900
                                    ENVIRONMENT "${kit_emu_env}" COST 20)
  endif()
endforeach()

# The grader's own test on the emulator: every unfilled skeleton (the kit's labs/) is rejected
# with the fill-in message. Where the build grades labs/ itself the grade tests above show it.
if(KIT_GRADER_SELFTEST AND TARGET emu_stages_skeletons_plain)
  foreach(stage IN LISTS KIT_STAGES)
    string(REPLACE ":" ";" parts "${stage}")
    list(GET parts 0 k)
    list(GET parts 1 stage_dir)
    list(GET parts 2 stage_name)
    add_executable(grade_skeleton${k}_emu "${CMAKE_SOURCE_DIR}/tests/grade_emulated.c")
    target_compile_definitions(grade_skeleton${k}_emu PRIVATE KIT_GRADE_STAGE=${k}
                               KIT_GPU_GRADER="$<TARGET_FILE:grade_stage${k}>")
    target_link_libraries(grade_skeleton${k}_emu PRIVATE kit_grader kit_gpu_probe_emu_plain emu_stages_skeletons_plain
                                                         emu_stages_solutions_plain emu_harness_plain)
    target_compile_options(grade_skeleton${k}_emu PRIVATE ${kit_c_warnings})
    set_target_properties(grade_skeleton${k}_emu PROPERTIES LINKER_LANGUAGE CXX
                          RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests")
    add_dependencies(grade_skeleton${k}_emu grade_stage${k})
    add_test(NAME emulated_grader_rejects_unfilled_skeleton_stage_${k}
             COMMAND sh "${CMAKE_SOURCE_DIR}/tests/expect_rejection.sh"
                     "stage ${k} wrote no result: fill in the TODO in labs/${stage_dir}/${stage_name}.cu"
                     $<TARGET_FILE:grade_skeleton${k}_emu> correctness --config "${KIT_GRADING_CONFIG}")
    set_tests_properties(emulated_grader_rejects_unfilled_skeleton_stage_${k} PROPERTIES
                         SKIP_RETURN_CODE 77 LABELS "emulated;selftest" TIMEOUT 300 ENVIRONMENT "${kit_emu_env}")
  endforeach()
endif()

# Writes the student edition (run by the target student-release, release/CMakeLists.txt):
#   cmake -DSOURCE=<kit> -DDEST=<folder> -DSTAGES=4,5 [-DCLOSED=1,2,3] [-DREFERENCE_STAGES=1,2,3,4,5]
#         -DGPU_REFERENCE=<dir of libkit_reference_stageK.a>
#         -DEMU_REFERENCE=<archive>,<archive>,... -DDOCS=<student html> -DCUDA_VERSION=13.0.88
#         -DARCHS="75-real ... 90-virtual" -DCXX="GNU 13.3.0"
#         [-DEXTRA_GPU_REFERENCE=<version>|<dir>|<archs>,...] -P make_release.cmake
# EXTRA_GPU_REFERENCE: the same reference stages built by an nvcc of another CUDA major each
# (release/CMakeLists.txt, KIT_RELEASE_EXTRA_NVCC), e.g. 12.4.131|<build>/release-reference/gpu-cuda12|70-real ...
# then DEST.tar.gz beside DEST. What the edition holds is allow-listed in edition_allow_list.cmake
# (here, and nowhere else): the instructor's material (solutions/, tests/ but tests/grader/ -- the
# kit's self-tests and the grader's corpora --, the instructor docs, release/) never ships.
cmake_minimum_required(VERSION 3.24)
foreach(var SOURCE DEST STAGES GPU_REFERENCE DOCS CUDA_VERSION)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "make_release.cmake: -D${var}=... is missing")
  endif()
endforeach()
string(REPLACE "," ";" stages "${STAGES}")     # the labs this batch hands out
string(REPLACE "," ";" closed "${CLOSED}")     # the stages closed before it: their labs are the students'
set(edition_stages ${closed} ${stages})
list(SORT edition_stages COMPARE NATURAL)
string(REPLACE "," ";" emu_archives "${EMU_REFERENCE}")

file(REMOVE_RECURSE "${DEST}")
file(MAKE_DIRECTORY "${DEST}")

# Only the kit's own files ship: in a git checkout, the files git tracks (never a scratch
# file left in the tree); anywhere, never a hidden file.
set(tracked "")
find_program(GIT git)
if(GIT AND EXISTS "${SOURCE}/.git")
  execute_process(COMMAND "${GIT}" -C "${SOURCE}" ls-files OUTPUT_VARIABLE tracked RESULT_VARIABLE git_failed)
  if(git_failed)
    set(tracked "")
  else()
    string(REPLACE "\n" ";" tracked "${tracked}")
  endif()
endif()

# copy(<path>...): files of the kit, same place in the edition; a path ending in / or /* is a
# folder, copied with everything below it.
function(copy)
  foreach(path IN LISTS ARGN)
    if(path MATCHES "/$")
      string(APPEND path "*")
    endif()
    if(path MATCHES "/\\*$")
      file(GLOB_RECURSE files RELATIVE "${SOURCE}" "${SOURCE}/${path}")
    elseif(EXISTS "${SOURCE}/${path}")
      set(files "${path}")
    else()
      set(files "")
    endif()
    list(FILTER files EXCLUDE REGEX "(^|/)\\.")
    if(tracked)
      set(kept "")
      foreach(file IN LISTS files)
        if(file IN_LIST tracked)
          list(APPEND kept "${file}")
        endif()
      endforeach()
      set(files ${kept})
    endif()
    if(NOT files)
      message(FATAL_ERROR "make_release.cmake: the kit has no ${path}")
    endif()
    foreach(file IN LISTS files)
      get_filename_component(dir "${DEST}/${file}" DIRECTORY)
      file(COPY "${SOURCE}/${file}" DESTINATION "${dir}" USE_SOURCE_PERMISSIONS)
    endforeach()
  endforeach()
endfunction()

# The kit's files of the allow-list: the build, the harness, the emulator, the set-up script and
# the grader (tests/grader/, the whole of it; nothing else of tests/).
include("${CMAKE_CURRENT_LIST_DIR}/edition_allow_list.cmake")
copy(${kit_edition_from_kit})

# The labs this batch hands out (never a closed stage's: the student's own file by now), and the
# edition file that says which stages the edition has.
file(STRINGS "${SOURCE}/common/stages.def" stage_lines REGEX "^KIT_STAGE\\(")
set(released_dirs "")
foreach(line IN LISTS stage_lines)
  string(REGEX MATCH "^KIT_STAGE\\(([0-9]+), *([A-Za-z0-9_]+), *([A-Za-z0-9_]+)," _ "${line}")
  if(CMAKE_MATCH_1 IN_LIST stages)
    copy("labs/${CMAKE_MATCH_2}/${CMAKE_MATCH_3}.cu")
    list(APPEND released_dirs "${CMAKE_MATCH_2}")
  endif()
endforeach()
# The reference stages' CUDA versions: this build's nvcc and the other majors' (EXTRA_GPU_REFERENCE);
# reference/gpu/cuda<major>/ holds each one's archives.
string(REGEX MATCH "^[0-9]+" cuda_major "${CUDA_VERSION}")
set(gpu_versions ${CUDA_VERSION})
set(gpu_majors ${cuda_major})
set(gpu_dirs "${GPU_REFERENCE}")
set(gpu_archs "${ARCHS}")
string(REPLACE "," ";" extras "${EXTRA_GPU_REFERENCE}")
foreach(extra IN LISTS extras)
  string(REPLACE "|" ";" parts "${extra}")
  list(LENGTH parts n)
  if(NOT n EQUAL 3)
    message(FATAL_ERROR "make_release.cmake: -DEXTRA_GPU_REFERENCE: '${extra}' is not <version>|<dir>|<architectures>")
  endif()
  list(GET parts 0 version)
  list(GET parts 1 dir)
  list(GET parts 2 archs)
  string(REGEX MATCH "^[0-9]+" major "${version}")
  if(NOT major OR major IN_LIST gpu_majors)
    message(FATAL_ERROR "make_release.cmake: -DEXTRA_GPU_REFERENCE: CUDA '${version}' is not a major other than ${gpu_majors}")
  endif()
  list(APPEND gpu_versions ${version})
  list(APPEND gpu_majors ${major})
  list(APPEND gpu_dirs "${dir}")
  list(APPEND gpu_archs "${archs}")
endforeach()
string(REPLACE ";" " " gpu_versions_text "${gpu_versions}")
string(REPLACE ";" " " gpu_majors_text "${gpu_majors}")
string(REPLACE ";" " and " gpu_versions_words "${gpu_versions}")   # 13.0.88 and 12.4.131
string(REPLACE ";" ".x or " gpu_toolkits_words "${gpu_majors}.x")  # 13.x or 12.x
string(REPLACE ";" " " stages_text "${stages}")
string(REPLACE ";" " " closed_text "${closed}")
string(REPLACE ";" " " edition_text "${edition_stages}")
file(WRITE "${DEST}/edition.cmake" "\
# A student edition of the GPU reduction lab kit (written by the instructor's student-release).
# The stages handed out so far: the closed ones (an earlier batch handed out their labs) and this
# batch's; the reference stages are prebuilt in reference/.
set(KIT_EDITION student)
set(KIT_RELEASED_STAGES ${edition_text})
set(KIT_CLOSED_STAGES ${closed_text})
set(KIT_BATCH_STAGES ${stages_text})
# reference/gpu/cuda<major>/ holds the reference stages built by nvcc of that CUDA major (the CUDA
# versions below, in the order of the majors): the host code and machine code nvcc writes belong to its
# major's runtime and driver, so a build links the archives of its own nvcc's major.
set(KIT_REFERENCE_CUDA_VERSION ${CUDA_VERSION})
set(KIT_REFERENCE_CUDA_VERSIONS ${gpu_versions_text})
set(KIT_REFERENCE_CUDA_MAJORS ${gpu_majors_text})
string(REGEX MATCH \"^[0-9]+\" kit_cuda_major \"\${CMAKE_CUDA_COMPILER_VERSION}\")
if(NOT kit_cuda_major IN_LIST KIT_REFERENCE_CUDA_MAJORS)
  message(FATAL_ERROR \"This edition's reference stages were built with CUDA ${gpu_versions_words}; this machine's nvcc \"
                      \"(\${CMAKE_CUDA_COMPILER}) is \${CMAKE_CUDA_COMPILER_VERSION}. Install a CUDA ${gpu_toolkits_words} \"
                      \"toolkit, or ask your instructor for an edition built with CUDA \${kit_cuda_major} too.\")
endif()
list(FIND KIT_REFERENCE_CUDA_MAJORS \${kit_cuda_major} kit_cuda_index)
list(GET KIT_REFERENCE_CUDA_VERSIONS \${kit_cuda_index} kit_cuda_reference)
set(KIT_REFERENCE_GPU_DIR \"\${CMAKE_CURRENT_LIST_DIR}/reference/gpu/cuda\${kit_cuda_major}\")
message(STATUS \"Reference stages: reference/gpu/cuda\${kit_cuda_major}, built with CUDA \${kit_cuda_reference} \"
               \"(this nvcc is CUDA \${CMAKE_CUDA_COMPILER_VERSION})\")
")

# The kit's description, kit.json at the edition's top (common/kit_description.cmake): the stages,
# which of them this edition has, the points of the grading.conf it ships and the CUDA version of
# its reference (what GitHub Classroom's workflow and Gradescope's setup.sh install). The edition's own
# build writes <build>/kit.json too, from the same files.
include("${SOURCE}/common/kit_description.cmake")
kit_description_write(OUTPUT "${DEST}/kit.json" SOURCE "${SOURCE}" GRADING_CONFIG "${SOURCE}/tests/grader/grading.conf"
                      EDITION student RELEASED ${edition_stages} CLOSED ${closed} BATCH ${stages}
                      REFERENCE_CUDA "${CUDA_VERSION}")

# The prebuilt reference: the GPU archives of each CUDA major, and the emulator's.
set(reference_stages "${edition_stages}")
if(REFERENCE_STAGES) # the stages handed out, and stage 1 (the speed rule measures against it)
  string(REPLACE "," ";" reference_stages "${REFERENCE_STAGES}")
endif()
set(gpu_lines "")
foreach(major dir version archs IN ZIP_LISTS gpu_majors gpu_dirs gpu_versions gpu_archs)
  file(MAKE_DIRECTORY "${DEST}/reference/gpu/cuda${major}")
  foreach(k IN LISTS reference_stages)
    set(archive "${dir}/libkit_reference_stage${k}.a")
    if(NOT EXISTS "${archive}")
      message(FATAL_ERROR "make_release.cmake: ${archive} was not built")
    endif()
    file(COPY "${archive}" DESTINATION "${DEST}/reference/gpu/cuda${major}")
  endforeach()
  string(APPEND gpu_lines "gpu/cuda${major}/  nvcc ${version}, for CUDA ${major} toolkits: CUDA architectures ${archs} (machine code, and PTX of the newest)\n")
endforeach()
foreach(archive IN LISTS emu_archives)
  get_filename_component(name "${archive}" NAME)
  if(name MATCHES "_race\\.a$")
    set(flavor race)
  else()
    set(flavor plain)
  endif()
  file(COPY "${archive}" DESTINATION "${DEST}/reference/emu-${flavor}")
endforeach()
string(TIMESTAMP today "%Y-%m-%d")
string(REPLACE ";" " " reference_text "${reference_stages}")
file(WRITE "${DEST}/reference/BUILD.txt" "\
The reference stages ${reference_text}, prebuilt on ${today} (no source: the labs are yours to write).
${gpu_lines}emu-plain/  the CPU emulator's build (${CXX}); emu-race/ the same under ThreadSanitizer
")

# The student docs, README, CI workflow and ignore file.
if(NOT EXISTS "${DOCS}/index.html")
  message(FATAL_ERROR "make_release.cmake: the student docs are missing (${DOCS}/index.html)")
endif()
file(COPY "${DOCS}/" DESTINATION "${DEST}/docs/html")
if(EXISTS "${SOURCE}/release/README.student.md")
  file(COPY_FILE "${SOURCE}/release/README.student.md" "${DEST}/README.md")
  # It says what a stage graded on the CPU emulator is worth here, as the edition's kit.json does.
  include("${CMAKE_CURRENT_LIST_DIR}/edition_words.cmake")
  kit_edition_say_full_marks("${DEST}")
else()
  message(FATAL_ERROR "make_release.cmake: release/README.student.md is missing")
endif()
if(IS_DIRECTORY "${SOURCE}/release/github")
  file(GLOB workflows "${SOURCE}/release/github/*.yml")
  file(COPY ${workflows} DESTINATION "${DEST}/.github/workflows")
endif()
# The Colab notebook, colab/reduction_lab.ipynb, and its link in the README (-DCOLAB_URL, -DCOLAB_EDITION).
include("${CMAKE_CURRENT_LIST_DIR}/colab/fill_notebook.cmake")
file(WRITE "${DEST}/.gitignore" "build/\nbuild-*/\n")

get_filename_component(parent "${DEST}" DIRECTORY)
get_filename_component(name "${DEST}" NAME)
execute_process(COMMAND "${CMAKE_COMMAND}" -E tar czf "${name}.tar.gz" "${name}" WORKING_DIRECTORY "${parent}"
                RESULT_VARIABLE tar_failed)
if(tar_failed)
  message(FATAL_ERROR "make_release.cmake: could not write ${parent}/${name}.tar.gz")
endif()
kit_edition_words(edition_words STAGES ${stages} CLOSED ${closed}) # "stages 4, 5, over closed stage 3"
message(STATUS "Student edition (${edition_words}; reference stages of CUDA ${gpu_versions_words}): ${DEST} and ${parent}/${name}.tar.gz")

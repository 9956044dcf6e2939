# What a student edition holds, and nothing else: the one list, read by release/make_release.cmake
# (which copies and writes these) and by release/tests/edition_holds_only_allowed_files.cmake
# (which checks every file of a written edition, and of its tarball, against it). An entry ending
# in / is a folder with everything below it; any other entry is one file. Of the kit's own files
# only those git tracks ship (in a git checkout), never a hidden one. Everything else stays with
# the instructor: solutions/, tests/ but tests/grader/ (the kit's self-tests, the grader's corpora,
# class grading, Slurm), release/, docs/ but the emulator's page, the instructor's README.

# From the kit, as they are: the build, the harness, the CPU emulator (its students' tools, not
# its tests), the grader and its configuration, the emulator's page.
set(kit_edition_from_kit
    CMakeLists.txt setup.sh common/
    emu/CMakeLists.txt emu/include/ emu/src/ emu/tools/ emu/tests/CMakeLists.txt emu/tests/emu_check.c
    tests/grader/
    docs/emulator.md docs/trace_format.md
    tools/trace_picture.py tools/trace_geometry.py) # --picture draws a student's own kernel
# The labs of the stages the batch hands out, labs/<dir>/<name>.cu (never a closed stage's: the
# student's own file by now).
set(kit_edition_labs labs/)
# Written by make_release.cmake: the student README (release/README.student.md), which stages the
# edition has, the kit's description, the ignore file, the prebuilt reference stages, the student
# pages (docs-student), the CI workflow (release/github/) and the Colab notebook (release/colab/,
# its link filled in).
set(kit_edition_written
    README.md edition.cmake kit.json .gitignore reference/ docs/html/ .github/workflows/
    colab/reduction_lab.ipynb)

set(kit_edition_allow_list ${kit_edition_from_kit} ${kit_edition_labs} ${kit_edition_written})

# kit_edition_allowed(<path> <out>): <out> is ON when <path> (relative to the edition's top) is on
# the list: one of its files, or below one of its folders.
function(kit_edition_allowed path out)
  set(allowed OFF)
  foreach(entry IN LISTS kit_edition_allow_list)
    if(entry MATCHES "/$")
      string(LENGTH "${entry}" length)
      string(SUBSTRING "${path}" 0 ${length} head)
      if(head STREQUAL entry)
        set(allowed ON)
      endif()
    elseif(path STREQUAL entry)
      set(allowed ON)
    endif()
  endforeach()
  set(${out} ${allowed} PARENT_SCOPE)
endfunction()

#!/bin/sh
# Runs one part of the grading of a corpus entry (tests/CMakeLists.txt): its verdict, pass or
# fail, is written to the entry's result folder and judged by expect_grade.sh afterwards, so
# here a failed part (exit 1) is a successful run. A skip (77) stays a skip; anything else
# (bad usage 2, a crash of the grader itself) is a failure of the grader.
# Usage: run_part.sh COMMAND [ARGS...]
"$@"
code=$?
case $code in
    0 | 1) exit 0 ;;
    *) exit "$code" ;;
esac

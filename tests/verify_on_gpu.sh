#!/usr/bin/env bash
# The grader's acceptance run on a GPU machine (issue 3, "Done when"). Logs go to OUT.
# Usage: tests/verify_on_gpu.sh OUT [checks|speedup|corpus|class|all]...
#   checks   build; make check on labs/ (must fail every stage) and 3x on solutions/ (must pass), timed
#   speedup  the speedup cases alone, 20 times in a row, on solutions/
#   corpus   the grader's corpora (wrong, cheating and valid stage files) graded, with its messages
#   class    four fake submissions graded into one CSV (tests/class/fake_class.sh, tests/class/grade_class.py)
set -u
out=${1:?usage: verify_on_gpu.sh OUT [checks|speedup|corpus|class|all]...}
shift
phases=" ${*:-all} "
want() { [[ "$phases" == *" $1 "* || "$phases" == *" all "* ]]; }
kit=$(cd "$(dirname "$0")/.." && pwd)
cd "$kit"
mkdir -p "$out"
summary="$out/summary.txt"
jobs=$(nproc)
note() { echo "$*" | tee -a "$summary"; }
timed() { # LABEL LOG COMMAND...: runs, appends output to LOG, notes exit code and seconds
    local label=$1 log=$2 start end code
    shift 2
    start=$(date +%s.%N)
    "$@" >> "$log" 2>&1
    code=$?
    end=$(date +%s.%N)
    note "$(printf '%-40s exit %3d  %6.1f s' "$label" "$code" "$(awk "BEGIN { print $end - $start }")")"
    return $code
}
build() { # DIR [cmake options]
    local dir=$1
    shift
    cmake -S . -B "$dir" "$@" > "$out/build-$(basename "$dir").log" 2>&1 &&
        cmake --build "$dir" -j "$jobs" >> "$out/build-$(basename "$dir").log" 2>&1
}

note "== $(date -u +%F) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) ($(nproc) CPUs)"
if want checks; then
    build build-gpu & build build-ref -DKIT_LABS_DIR="$kit/solutions" & wait
    note "builds: $(ls build-gpu/runners/run_labs_stage7 build-ref/runners/run_labs_stage7 2>&1 | tr '\n' ' ')"
    timed "make check (labs, with self-tests)" "$out/labs-check.log" make -C build-gpu check
    for i in 1 2 3; do
        timed "make check (solutions) run $i" "$out/ref-check.log" make -C build-ref check
    done
    grep -E "tests passed|tests failed|^stage|^total|The following tests FAILED" "$out/labs-check.log" | tail -60 >> "$summary"
    sed -n '/^Grade report/,/^Gradescope/p' "$out/ref-check.log" | tail -25 >> "$summary"
fi
if want speedup; then
    [ -x build-ref/runners/run_labs_stage7 ] || build build-ref -DKIT_LABS_DIR="$kit/solutions"
    passed=0
    for i in $(seq 1 20); do
        if timed "speedup cases (solutions) run $i" "$out/speedup.log" \
            ctest --test-dir build-ref -R reaches_the_required_speedup --output-on-failure; then
            passed=$((passed + 1))
        else
            break
        fi
    done
    note "speedup cases: $passed of 20 runs in a row passed"
    grep -h "^message=" build-ref/grade/stage*.speedup | grep -E "faster than reference stage|the speed of reference stage" >> "$summary"
fi
if want corpus; then # the wrong, cheating and valid stage files, each graded as a student's (label selftest)
    [ -x build-ref/tests/kit_grade ] || build build-ref -DKIT_LABS_DIR="$kit/solutions"
    timed "corpora (wrong, cheats, valid)" "$out/corpus.log" ctest --test-dir build-ref -L selftest -j "$jobs"
    grep -E "tests passed|tests failed|\*\*\*Failed" "$out/corpus.log" >> "$summary"
    for d in build-ref/grade-selftest/*/; do
        printf '%s: %s\n' "$(basename "$d")" "$(grep -h '^message=' "$d"stage* 2> /dev/null | cut -c9-200 | head -n 1)"
    done >> "$summary"
fi
if want class; then
    sh tests/class/fake_class.sh /tmp/fake-class >> "$summary"
    timed "grade_class.py (4 submissions)" "$out/class.log" python3 tests/class/grade_class.py /tmp/fake-class \
        "$out/class.csv" /tmp/build-class
    cat "$out/class.csv" >> "$summary"
fi

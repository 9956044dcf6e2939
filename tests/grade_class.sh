#!/usr/bin/env bash
# Grades a whole class: one build folder per submission, configured with
# -DKIT_LABS_DIR=<submission>, graded with `make check-grade`, and one CSV row per student
# (one column per stage, points from tests/grading.conf).
#
# Usage: tests/grade_class.sh SUBMISSIONS [CSV] [BUILD_ROOT]
#   SUBMISSIONS  a folder with one sub-folder per student, each a copy of labs/
#   CSV          the class table (default: class-grades.csv)
#   BUILD_ROOT   where the build folders and logs go (default: build-class)
# Extra CMake options (e.g. -DKIT_REQUIRE_GPU=ON, -DKIT_GRADING_CONFIG=...) go in KIT_CMAKE_ARGS.
#
# A stage file that is missing or does not compile is replaced by the kit's unfilled skeleton
# (it then scores 0) and the row's notes say so: one broken file costs one stage, not all.
# Each student's grade report is in BUILD_ROOT/<student>/grade/ (table in check.log,
# results.json for Gradescope).
set -uo pipefail
kit=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
submissions=$(cd "$1" && pwd)
csv=${2:-class-grades.csv}
root=${3:-build-class}
mkdir -p "$root" && root=$(cd "$root" && pwd)
jobs=$(nproc 2>/dev/null || echo 4)
stage_files=$(cd "$kit/labs" && ls -d */*.cu)
# The unfilled skeleton of a stage file, as committed: never the kit's working copy of labs/,
# which an instructor may have filled in (a submission that does not compile would then be
# graded with the instructor's answer).
skeleton() { # FILE DESTINATION
    git -C "$kit" show "HEAD:labs/$1" > "$2" 2> /dev/null || {
        echo "grade_class.sh: cannot read the committed skeleton labs/$1 (is $kit a git checkout?)" >&2
        exit 2
    }
}

stage_count=$(echo "$stage_files" | wc -l)
empty=$(printf ',%.0s' $(seq 1 $((stage_count + 2))))   # the stage, total and max_total columns
students=0
{
    printf 'student'
    for k in $(seq 1 "$stage_count"); do printf ',stage%d' "$k"; done
    printf ',total,max_total,notes\n'
} > "$csv"

for submission in "$submissions"/*/; do
    student=$(basename "$submission")
    build="$root/$student"
    logs="$root/$student-logs"
    mkdir -p "$logs"
    notes=""
    labs=${submission%/}
    echo "== $student"

    # Missing stage files: graded as unfilled.
    patched="$root/$student-patched"
    rm -rf "$patched"
    for file in $stage_files; do
        if [ ! -f "$labs/$file" ]; then
            [ -d "$patched" ] || cp -r "$labs" "$patched"
            mkdir -p "$patched/$(dirname "$file")"
            skeleton "$file" "$patched/$file"
            notes="$notes$file is missing (graded as unfilled); "
        fi
    done
    [ -d "$patched" ] && labs=$patched

    configure() {
        # shellcheck disable=SC2086
        cmake -S "$kit" -B "$build" -DKIT_LABS_DIR="$labs" -DKIT_GRADER_SELFTEST=OFF ${KIT_CMAKE_ARGS:-} \
            > "$logs/configure.log" 2>&1 &&
            cmake --build "$build" -j "$jobs" --target grade-programs > "$logs/build.log" 2>&1
    }
    if ! configure; then
        # nvcc names the file that failed ".../reduce_sequential_addressing.cu(12): error", the
        # emulator's C++ compiler ".../reduce_sequential_addressing.cu:12:5: error"
        for file in $stage_files; do
            if grep -E "$file(\(|:)[0-9]+" "$logs/build.log" 2>/dev/null | grep -q error; then
                [ -d "$patched" ] || cp -r "$labs" "$patched"
                skeleton "$file" "$patched/$file"
                notes="$notes$file does not compile (graded as unfilled; see $logs/build.log); "
            fi
        done
        labs=$patched
        if [ ! -d "$patched" ] || ! configure; then
            echo "   build failed: see $logs/"
            printf '%s%s,"build failed (see %s); %s"\n' "$student" "$empty" "$logs" "${notes%; }" >> "$csv"
            students=$((students + 1))
            continue
        fi
    fi
    cmake --build "$build" --target check-grade > "$logs/check.log" 2>&1
    row=$(tail -n 1 "$build/grade/summary.csv" 2>/dev/null)
    if [ -n "$row" ]; then
        printf '%s,%s,"%s"\n' "$student" "${row#*,}" "${notes%; }" >> "$csv"
    else
        printf '%s%s,"no grade report (see %s); %s"\n' "$student" "$empty" "$logs" "${notes%; }" >> "$csv"
    fi
    sed -n '/^Grade report/,/^Gradescope/p' "$logs/check.log" | sed 's/^/   /'
    students=$((students + 1))
done
echo "graded $students submission(s): $csv"
[ "$students" -gt 0 ]

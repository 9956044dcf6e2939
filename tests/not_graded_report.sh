#!/bin/sh
# A build that can grade nothing (no usable GPU, no CPU emulator) must say so, per stage, name
# the package to install, and end non-zero; a build that can grade must not. Checks
# kit_gpu_or_emulator (tests/grader/gpu_or_emulator.c) and grade_report on a results folder of their own.
# Usage: not_graded_report.sh KIT_GPU_OR_EMULATOR GRADE_REPORT CONFIG
set -u
probe=$1
report=$2
config=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
package="sudo apt-get install libboost-context-dev g++, then configure again"

# Bad usage: one message, exit 2.
"$probe" --emulator maybe --results "$dir" > /dev/null 2> "$dir/err"
code=$?
if [ $code -ne 2 ] || ! grep -q "built or missing" "$dir/err"; then
    fail "a bad --emulator value should exit 2 and say why, not $code"
fi

# With the emulator built, grading is possible with or without a GPU: exit 0, no note left.
echo "stale" > "$dir/not-graded.txt"
"$probe" --emulator built --results "$dir" || fail "with the emulator built the probe must pass"
[ ! -e "$dir/not-graded.txt" ] || fail "a passing probe must remove an old run's note"

# Without the emulator: passes where a GPU is usable, else fails and leaves the note.
"$probe" --emulator missing --results "$dir" > "$dir/out"
code=$?
cat "$dir/out"
if [ $code -eq 0 ]; then
    grep -q "GPU is usable" "$dir/out" || fail "exit 0 without the emulator, but no GPU named"
    # The report's part does not need the probe: write the note as the probe would.
    echo "not graded: no GPU found and this build has no CPU emulator ($package)" > "$dir/not-graded.txt"
else
    [ $code -eq 1 ] || fail "the probe should exit 1 (cannot grade), not $code"
    grep -q "$package" "$dir/out" || fail "the probe's failure must name the package"
    grep -q "$package" "$dir/not-graded.txt" || fail "the probe must leave the note for the report"
fi

# What kit_grade leaves without a GPU: a skipped correctness part for stages 1 and 2.
for k in 1 2; do
    printf 'status=skip\nmessage=not graded: no CUDA GPU (none here)\n' > "$dir/stage$k.correctness"
done
"$report" --results "$dir" --config "$config" --json "$dir/results.json" > "$dir/report" 2> "$dir/err"
code=$?
cat "$dir/report" "$dir/err"
[ $code -eq 1 ] || fail "grade_report must exit 1 when stages could not be graded, not $code"
stages=$(grep -c '^KIT_STAGE(' "$(dirname "$0")/../common/stages.def")
[ "$(grep -c "^- stage [0-9][0-9]* correctness: not graded: no GPU found.*$package" "$dir/report")" -eq "$stages" ] ||
    fail "every stage's line under What to fix must say it was not graded and name the package"
grep -q "^1 .*not graded .*0 / 10" "$dir/report" || fail "stage 1's row must say not graded, 0 points"
grep -q "$stages stage(s) were not graded: no GPU found" "$dir/report" || fail "the summary must say all $stages stages were not graded"
grep -q "compute-sanitizer checks did not run" "$dir/report" && fail "not graded is not a missing compute-sanitizer"
grep -q '"output": "not graded: no GPU found' "$dir/results.json" || fail "results.json must carry the reason"
grep -q "$package" "$dir/err" || fail "grade_report's error must name the package"

# The note gone (a GPU or the emulator graded): an ordinary report, exit 0.
rm -f "$dir/not-graded.txt"
"$report" --results "$dir" --config "$config" > "$dir/report" || fail "without the note grade_report must exit 0"
grep -q "not graded: no GPU found" "$dir/report" && fail "without the note no stage may say there is no emulator"
echo "ok: no GPU and no emulator is not graded, per stage, with the package named, exit 1; otherwise exit 0"

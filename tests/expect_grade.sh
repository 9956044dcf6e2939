#!/bin/sh
# The grader's own test on one corpus entry: after its parts have run (tests/CMakeLists.txt),
# the stage's points in RESULTS must match the corpus row. With GPU results the GPU points
# apply (10 is full marks), without them the CPU emulator's (8 is full marks). Full marks must
# be reached exactly; a smaller number is a ceiling, and then WORDS must appear in one of the
# stage's result messages (the reason a student would read).
# Usage: expect_grade.sh GRADE_REPORT CONFIG RESULTS STAGE GPU_POINTS EMULATOR_POINTS WORDS
set -u
report=$1
config=$2
results=$3
stage=$4
gpu_points=$5
emu_points=$6
words=$7

[ -d "$results" ] || { echo "FAIL: no results in $results: did the part tests run?"; exit 1; }
# A GPU result is one that passed or failed on a GPU (a skip says there was none).
if grep -qE '^status=(pass|fail)' "$results/stage$stage.correctness" 2> /dev/null; then
    where="a GPU"; expected=$gpu_points; full=10
else
    where="the CPU emulator"; expected=$emu_points; full=8
    grep -qE '^status=(pass|fail)' "$results/stage$stage.emulated-correctness" 2> /dev/null || {
        echo "FAIL: neither the GPU nor the CPU emulator graded stage $stage (nothing in $results)"
        exit 1
    }
fi
csv=$(mktemp)
"$report" --results "$results" --config "$config" --stage "$stage" --csv "$csv" --student corpus > /dev/null
row=$(tail -n 1 "$csv")
rm -f "$csv"
points=$(echo "$row" | awk -F, -v k="$stage" '{ print $(k + 1) }')
echo "graded on $where: $points points (corpus row: $expected of $full)"
grep -h '^message=' "$results"/stage"$stage".* 2> /dev/null | cut -c9- | sed 's/^/  /' | cut -c1-400
[ -n "$points" ] || { echo "FAIL: the report gave no points for stage $stage"; exit 1; }
if [ "$expected" -ge "$full" ]; then
    awk -v p="$points" -v f="$full" 'BEGIN { exit !(p + 0 >= f) }' || {
        echo "FAIL: a valid stage file must keep full marks ($full) on $where, it got $points"
        exit 1
    }
    echo "ok: full marks on $where"
    exit 0
fi
awk -v p="$points" -v e="$expected" 'BEGIN { exit !(p + 0 <= e) }' || {
    echo "FAIL: at most $expected points expected on $where, it got $points"
    exit 1
}
if [ -n "$words" ] && ! grep -h '^message=' "$results"/stage"$stage".* 2> /dev/null | grep -qF -- "$words"; then
    echo "FAIL: $points points as expected, but no message says \"$words\""
    exit 1
fi
echo "ok: $points of $full on $where${words:+, with \"$words\"}"

#!/bin/sh
# One stage under one compute-sanitizer tool, on small inputs (the stage's runner, request
# "once"), in the grader's sandbox: the runner holds student code, so it runs through
# `kit_grade sandbox`, which only succeeds when the runner finished and said so on its private
# pipe. Any error fails, and so does any racecheck hazard, warnings included: the
# volatile-only warp unroll gives the right sum every time, and racecheck's warnings are the
# only sign of its race. A stage's printf can add lines to the log but not remove the
# sanitizer's: any non-zero summary fails. This script (trusted) writes RESULTS/stageK.TOOL
# for the grade report (RESULTS may be "").
# Usage: sanitize.sh COMPUTE_SANITIZER TOOL STAGE RESULTS KIT_GRADE RUNNER
set -u
sanitizer=$1
tool=$2
stage=$3
results=$4
grade=$5
runner=$6

record() { # STATUS MESSAGE
    [ -n "$results" ] || return 0
    mkdir -p "$results"
    printf 'status=%s\nmessage=%s\n' "$1" "$2" > "$results/stage$stage.$tool.$$.tmp" &&
        mv "$results/stage$stage.$tool.$$.tmp" "$results/stage$stage.$tool"
}

# No GPU: say so and skip (or fail, with KIT_REQUIRE_GPU=1), as the Check suites do.
"$grade" probe --stage "$stage" --runner "$runner"
code=$?
if [ "$code" -ne 0 ]; then
    record "$([ "$code" -eq 77 ] && echo skip || echo fail)" "compute-sanitizer $tool not run: no CUDA GPU"
    exit "$code"
fi

log=$(mktemp)
"$grade" sandbox --stage "$stage" --timeout 600 -- "$sanitizer" --tool "$tool" --error-exitcode 86 "$runner" once > "$log" 2>&1
code=$?
tail -n 60 "$log"
summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | sed 's/^=* *//' | tr '\n' ' ' | sed 's/ *$//')
first=$(grep -E "^========= +(Error|Warning|Invalid|Uninitialized|Race|Barrier|Program hit)" "$log" | head -n 1 |
        sed 's/^=* *//' | cut -c1-300)
where=$(grep -E "^=========  +at .*:[0-9]+" "$log" | head -n 1 | sed 's/^=* *//' | cut -c1-200)
verdict_lost=$(grep '^kit_grade: ' "$log" | head -n 1 | cut -c12-300)
rm -f "$log"

hazards=0
printf '%s\n' "$summary" | grep -E -q "SUMMARY: [1-9]" && hazards=1
if [ "$code" -eq 86 ] || [ "$hazards" -eq 1 ]; then
    message="compute-sanitizer --tool $tool found problems in stage $stage: ${summary:-see the log}. First: ${first:-?} ${where}"
    echo "FAIL: $message"
    record fail "$message"
    exit 1
fi
if [ "$code" -eq 90 ]; then
    message="stage $stage's program ended before the grader got a verdict under compute-sanitizer --tool $tool: ${verdict_lost}"
    echo "FAIL: $message"
    record fail "$message"
    exit 1
fi
if [ "$code" -ne 0 ]; then
    message="stage $stage crashed or hung under compute-sanitizer --tool $tool (exit $code): ${first:-see the log}"
    echo "FAIL: $message"
    record fail "$message"
    exit 1
fi
if [ -z "$summary" ]; then
    echo "FAIL: compute-sanitizer printed no summary; cannot tell whether stage $stage is clean"
    record fail "compute-sanitizer --tool $tool printed no summary"
    exit 1
fi
echo "ok: stage $stage is clean under compute-sanitizer --tool $tool ($summary)"
record pass "clean: $summary"
exit 0

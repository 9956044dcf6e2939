#!/bin/sh
# Without a GPU, the grader skips (exit 77), unless KIT_REQUIRE_GPU=1: then it must fail, so
# an autograder that reads only the exit status cannot give full marks for skipped tests.
# With a GPU there is nothing to show here: the test skips itself.
# Usage: require_gpu.sh KIT_GRADE RUNNER OBJECT SOURCE
set -u
grade=$1
runner=$2
object=$3
source=$4
if KIT_REQUIRE_GPU=0 "$grade" probe --stage 1 --runner "$runner" > /dev/null; then
    echo "a GPU is usable here: nothing to test"
    exit 77
fi
KIT_REQUIRE_GPU=0 "$grade" correctness --stage 1 --runner "$runner" --object "$object" --source "$source" > /dev/null
skipped=$?
output=$(KIT_REQUIRE_GPU=1 "$grade" correctness --stage 1 --runner "$runner" --object "$object" --source "$source" 2>&1)
required=$?
echo "$output"
if [ "$skipped" -ne 77 ]; then
    echo "FAIL: without a GPU the grader should exit 77 (skipped), not $skipped"
    exit 1
fi
if [ "$required" -ne 1 ] || ! echo "$output" | grep -q "KIT_REQUIRE_GPU=1 makes that a failure"; then
    echo "FAIL: with KIT_REQUIRE_GPU=1 and no GPU the grader should fail (exit 1) and say why, not exit $required"
    exit 1
fi
echo "ok: no GPU is a skip (77), and a failure (1) with KIT_REQUIRE_GPU=1"

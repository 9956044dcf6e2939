#!/bin/sh
# The grader's own test: COMMAND grades a known-wrong kernel (or an unfilled skeleton) and
# must reject it, with a message containing WORDS. Exit 77 (no GPU) passes through as a skip.
# Usage: expect_rejection.sh WORDS COMMAND [ARGS...]
set -u
words=$1
shift
output=$("$@" 2>&1)
code=$?
printf '%s\n' "$output" | tail -n 40
if [ "$code" -eq 77 ]; then
    exit 77
fi
if [ "$code" -eq 0 ]; then
    echo "FAIL: the grader accepted it (exit 0); it must be rejected with \"$words\""
    exit 1
fi
if ! printf '%s\n' "$output" | grep -F -q -- "$words"; then
    echo "FAIL: rejected (exit $code), but no message says \"$words\""
    exit 1
fi
echo "ok: rejected (exit $code) with \"$words\""
exit 0

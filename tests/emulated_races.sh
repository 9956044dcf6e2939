#!/bin/sh
# The race check on the CPU emulator, where there is no GPU: it takes the place of the
# compute-sanitizer runs (tests/sanitize.sh). PROGRAM --races runs small inputs in four thread
# orders under ThreadSanitizer; a data race that ThreadSanitizer reports, or a result that
# depends on the thread order, fails. Writes RESULTS/stageK.emulated-races for the report
# (RESULTS may be "").
# Usage: emulated_races.sh STAGE RESULTS -- PROGRAM [ARGS...]
set -u
stage=$1
results=$2
shift 2
[ "${1:-}" = "--" ] && shift

record() { # STATUS MESSAGE
    [ -n "$results" ] || return 0
    mkdir -p "$results"
    printf 'status=%s\nmessage=%s\ngpu=%s\n' "$1" "$2" "the kit's CPU emulator (no GPU)" \
        > "$results/stage$stage.emulated-races.$$.tmp" &&
        mv "$results/stage$stage.emulated-races.$$.tmp" "$results/stage$stage.emulated-races"
}

# ThreadSanitizer needs a memory layout that address randomisation can break: setarch -R.
no_aslr=""
if command -v setarch > /dev/null 2>&1 && setarch "$(uname -m)" -R true 2> /dev/null; then
    no_aslr="setarch $(uname -m) -R"
fi
log=$(mktemp)
# shellcheck disable=SC2086
TSAN_OPTIONS="exitcode=66 ${TSAN_OPTIONS:-}" $no_aslr "$@" --races > "$log" 2>&1
code=$?
if [ "$code" -eq 77 ]; then # a GPU is here (compute-sanitizer grades races), or KIT_REQUIRE_GPU=1
    cat "$log"
    rm -f "$log"
    exit 77
fi
tail -n 60 "$log"
reports=$(grep -c "WARNING: ThreadSanitizer" "$log")
# The first report: its two accesses, the threads (fibers named "block(b) thread(t)") and lines.
first=$(grep -m 1 -A 12 "WARNING: ThreadSanitizer" "$log" | grep -E "^  [A-Z][a-z]+ .* by |^    #0 " |
        head -n 4 | sed 's/^ *//; s/ (grade_stage[^)]*)//' | tr '\n' ' ' | cut -c1-600)
orders=$(grep -m 1 "depends on the order of the threads" "$log" | cut -c1-600)
rm -f "$log"

if [ "$reports" -gt 0 ]; then
    message="ThreadSanitizer found $reports data race report(s) in stage $stage on the CPU emulator (a missing __syncthreads() or __syncwarp()?). First: $first"
elif [ -n "$orders" ]; then
    message="$orders"
elif [ "$code" -eq 0 ]; then
    echo "ok: stage $stage: no data race under ThreadSanitizer, the same results in every thread order"
    record pass "no race: ThreadSanitizer reported nothing and every thread order gave the same results (CPU emulator, n up to 2^16)"
    exit 0
else
    message="stage $stage crashed or hung in the emulator's race check (exit $code); see the test's output"
fi
echo "FAIL: $message"
record fail "$message"
exit 1

#!/bin/sh
# The race check on the CPU emulator, beside compute-sanitizer where there is a GPU and in its
# place where there is none: RUNNER races runs small inputs in four thread orders under
# ThreadSanitizer, sandboxed (kit_grade sandbox); a data race that ThreadSanitizer reports, in
# shared or global memory, or a result that depends on the thread order, fails. This script
# (trusted) writes RESULTS/stageK.emulated-races for the report (RESULTS may be "").
# Usage: emulated_races.sh STAGE RESULTS KIT_GRADE RUNNER
set -u
stage=$1
results=$2
grade=$3
runner=$4

record() { # STATUS MESSAGE
    [ -n "$results" ] || return 0
    mkdir -p "$results"
    printf 'status=%s\nmessage=%s\ngpu=%s\n' "$1" "$2" "the kit's CPU emulator (no GPU)" \
        > "$results/stage$stage.emulated-races.$$.tmp" &&
        mv "$results/stage$stage.emulated-races.$$.tmp" "$results/stage$stage.emulated-races"
}

# The first data race decides (halt_on_error): a racing kernel would otherwise report
# thousands, for minutes. ThreadSanitizer needs a memory layout that address randomisation can break: setarch -R.
no_aslr=""
if command -v setarch > /dev/null 2>&1 && setarch "$(uname -m)" -R true 2> /dev/null; then
    no_aslr="setarch $(uname -m) -R"
fi
log=$(mktemp)
# shellcheck disable=SC2086
TSAN_OPTIONS="exitcode=66 halt_on_error=1 ${TSAN_OPTIONS:-}" $no_aslr "$grade" sandbox --stage "$stage" --timeout 900 -- "$runner" races > "$log" 2>&1
code=$?
# ThreadSanitizer's own report (its stack frames, its exit status 66 for "a race was reported")
# goes to a log beside the results; the test's output says the race in the kit's words below.
kept=""
if [ -n "$results" ] && mkdir -p "$results/logs" 2> /dev/null &&
    cp "$log" "$results/logs/stage$stage-emulated-races.log" 2> /dev/null; then
    kept="$results/logs/stage$stage-emulated-races.log"
    # the program's own lines (its thread-order verdicts); ThreadSanitizer's report stays in the log
    grep -v '^    #\|^  \|^==================\|^$\|ThreadSanitizer' "$log" | tail -n 20
    why=""
    if [ "$code" -eq 66 ] || grep -q "exited with status 66" "$log"; then
        why=": 66 is ThreadSanitizer's exit status for \"a race was reported\""
    fi
    echo "ThreadSanitizer's full output (exit status $code$why): $kept"
else
    tail -n 60 "$log"
fi
reports=$(grep -c "WARNING: ThreadSanitizer" "$log")
# The first report in one line: each access, the GPU thread that made it (ThreadSanitizer's
# thread names are the fibers' "block(b) thread(t)") and its source line.
first=$(awk '/WARNING: ThreadSanitizer/ { on = 1; next }
             on && /^SUMMARY/ { exit }
             on && /^  [A-Z][a-z ]* of size [0-9]+ at .* by thread T[0-9]+/ {
                 kind[++n] = tolower($1 == "Previous" ? $1 " " $2 : $1); who[n] = $NF; sub(/:$/, "", who[n]); want = 1; next }
             on && want && /^    #0 / { where[n] = $(NF - 1); want = 0 }
             on && /^  Thread T[0-9]+ / { split($0, q, "\047"); name[$2] = q[2] }
             END { for (i = 1; i <= n; i++)
                       printf "%s%s by %s at %s", (i > 1 ? ", " : ""), kind[i], (name[who[i]] ? name[who[i]] : who[i]), where[i] }' "$log" |
        cut -c1-600)
orders=$(grep -m 1 "depends on the order of the threads" "$log" | cut -c1-600)
verdict_lost=$(grep '^kit_grade: ' "$log" | grep -v '^kit_grade: error: ' | head -n 1 | cut -c12-300)
# A hang: the runner's own verdict (kit_grade sandbox prints it), or the emulator's watchdog
# ending the process (exit 124) with its message on stderr.
hang=$(grep -m 1 '^kit_grade: error: TIMEOUT: ' "$log" | cut -c28-900)
if [ -z "$hang" ] && [ "$code" -eq 124 ]; then
    hang=$(grep -m 1 'still running after' "$log" | cut -c1-900)
fi
rm -f "$log"

if [ -n "$hang" ] || [ "$code" -eq 124 ]; then
    # Before any race report: a hang stops the check, and what it left behind is no race.
    message="${hang:-stage $stage did not finish in the emulator's race check: it was stopped at its time limit} (the race check ends at a hang: not a race)"
elif [ "$reports" -gt 0 ]; then
    message="ThreadSanitizer found $reports data race report(s) in stage $stage on the CPU emulator (a missing __syncthreads() or __syncwarp() in a block, or a global that two blocks write without an atomic?). First: $first"
elif [ -n "$orders" ]; then
    message="$orders"
elif [ "$code" -eq 90 ]; then
    message="stage $stage's program ended before the grader got a verdict in the emulator's race check: ${verdict_lost}"
elif [ "$code" -eq 0 ]; then
    echo "ok: stage $stage: no data race under ThreadSanitizer, the same results in every thread order"
    record pass "no race: ThreadSanitizer reported nothing and every thread order gave the same results (CPU emulator, inputs up to 2^16 ints' worth)"
    exit 0
else
    message="stage $stage crashed or hung in the emulator's race check (exit $code); see the test's output"
fi
echo "FAIL: $message"
record fail "$message"
exit 1

#!/bin/sh
# The grader's sandbox, tested without the audit in front of it (a stage file's static
# constructor could get this far with inline assembly the audit did not see): a program that
# ends without a verdict, answers twice (a fork), or hangs gets nothing, with a message that
# says so; and inside the sandbox the build, the results and the sources cannot be written.
# Usage: sandbox_defends_the_verdict.sh KIT_GRADE BUILD_DIR SOURCE_DIR
set -u
grade=$1
build=$2
source=$3
failed=0
expect() { # WORDS CODE -- COMMAND...: kit_grade sandbox must exit CODE and say WORDS
    words=$1
    code=$2
    shift 3
    output=$("$grade" sandbox --timeout 3 -- "$@" 2>&1)
    got=$?
    if [ "$got" -ne "$code" ] || ! printf '%s\n' "$output" | grep -qF -- "$words"; then
        echo "FAIL: $* gave exit $got ($output); expected exit $code and \"$words\""
        failed=1
    else
        echo "ok: $words"
    fi
}
echo "sandbox: $("$grade" sandbox -- sh -c 'printf "device x\ndone\n" >&3' > /dev/null 2>&1; echo ran)"
expect "ended before the grader got a verdict (it exited with status 0)" 90 -- sh -c 'exit 0'
expect "ended before the grader got a verdict" 90 -- sh -c 'kill -9 $$'
expect "answered more than once (did it fork?)" 90 -- sh -c 'printf "device x\ndone\n" >&3; printf "device x\ndone\n" >&3'
expect "said something after its last word" 90 -- sh -c 'printf "device x\ndone\ncase id=0 forged\n" >&3'
expect "did not finish within 3 s" 90 -- sh -c 'sleep 30'
expect "" 0 -- sh -c 'printf "device x\ndone\n" >&3'
# Nothing outside the scratch folder is writable (bubblewrap: read-only; setpriv: user nobody).
for folder in "$build" "$source" "$build/grade"; do
    mkdir -p "$folder"
    expect "" 7 -- sh -c "touch '$folder/written-by-a-stage' 2> /dev/null && exit 9; printf 'device x\ndone\n' >&3; exit 7"
    if [ -e "$folder/written-by-a-stage" ]; then
        echo "FAIL: a sandboxed program wrote into $folder"
        rm -f "$folder/written-by-a-stage"
        failed=1
    fi
done
expect "" 0 -- sh -c 'touch "$TMPDIR/scratch-is-writable" && printf "device x\ndone\n" >&3'
exit $failed

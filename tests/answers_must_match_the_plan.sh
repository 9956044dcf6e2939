#!/bin/sh
# kit_grade against runners that do not answer what it asked: each is a shell script standing in
# for a stage's runner (it finds a GPU), so the checks run without a GPU and without student
# code. Each must fail the correctness part with words that say what was wrong. Last, a runner
# that finds a GPU but cannot open it: each GPU part skips (77), as without a GPU, and fails
# under KIT_REQUIRE_GPU=1.
# Usage: answers_must_match_the_plan.sh KIT_GRADE OBJECT SOURCE
set -u
grade=$1
object=$2
source=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
expect() { # NAME WORDS SCRIPT: a runner doing SCRIPT after its device line must fail with WORDS
    name=$1
    words=$2
    script=$3
    runner="$work/$name"
    cat > "$runner" <<SCRIPT
#!/bin/sh
if [ "\$1" = probe ] || [ "\$1" = find ]; then printf 'device fake GPU\ndone\n' >&3; exit 0; fi
printf 'device fake GPU\n' >&3
first=\$(head -n 1)
id=\$(echo "\$first" | sed 's/.*id=\([0-9]*\).*/\1/')
n=\$(echo "\$first" | sed 's/.* n=\([0-9]*\).*/\1/')
threads=\$(echo "\$first" | sed 's/.*threads=\([0-9]*\).*/\1/')
pattern=\$(echo "\$first" | sed 's/.*pattern=\([a-z-]*\).*/\1/')
seed=\$(echo "\$first" | sed 's/.*seed=\([0-9]*\).*/\1/')
answer() { printf 'case id=%s n=%s threads=%s pattern=%s seed=%s repeat=0 status=0 got=0 message=\n' "\$1" "\$n" "\$threads" "\$pattern" "\$2" >&3; }
$script
SCRIPT
    chmod +x "$runner"
    rm -rf "$work/results"
    "$grade" correctness --stage 1 --runner "$runner" --object "$object" --source "$source" --results "$work/results" \
        > "$work/$name.log" 2>&1
    code=$?
    if [ "$code" -ne 1 ] || ! grep -qF -- "$words" "$work/results/stage1.correctness" 2> /dev/null; then
        echo "FAIL: $name: kit_grade exited $code; expected 1 and \"$words\" in the result:"
        cat "$work/results/stage1.correctness" 2> /dev/null || tail -n 20 "$work/$name.log"
        failed=1
    else
        echo "ok: $name: $words"
    fi
}
expect answers_nothing "it gave no answer for" 'printf "done\n" >&3'
expect answers_a_case_never_asked "which the grader never asked for" 'answer 999999 "$seed"; printf "done\n" >&3'
expect answers_another_input "names another case" 'answer "$id" 12345; printf "done\n" >&3'
expect answers_one_case_twice "more than once" 'answer "$id" "$seed"; answer "$id" "$seed"; printf "done\n" >&3'
expect exits_with_1_after_done "said it was done, but it exited with status 1" 'printf "done\n" >&3; exit 1'
expect dies_after_done "said it was done, but it" 'printf "done\n" >&3; kill -9 $$'
expect talks_after_done "said something after its last word" 'printf "done\n" >&3; answer "$id" "$seed"'
# A stage that hung: its runner says so, then leaves with KIT_RUNNER_HUNG_EXIT (124) without CUDA's
# clean-up. That is no forgery: the part fails with the hang's own words.
expect hangs_and_says_so "pass 1 did not finish within 5 s" \
    'printf "case id=%s n=%s threads=%s pattern=%s seed=%s repeat=0 status=6 got=0 message=pass 1 did not finish within 5 s\ndone\n" "$id" "$n" "$threads" "$pattern" "$seed" >&3; exit 124'
if grep -qF "nothing it said counts" "$work/results/stage1.correctness" 2> /dev/null; then
    echo "FAIL: hangs_and_says_so: a runner that hung and said so was taken for a forgery"
    failed=1
fi

# Found, not opened: kit_grade's parts only find the GPU first (no context), so the request after
# it is where an unusable GPU shows, as an error before any device line.
runner="$work/not_opened"
cat > "$runner" <<'SCRIPT'
#!/bin/sh
if [ "$1" = find ]; then printf 'device fake GPU\ndone\n' >&3; exit 0; fi
printf 'error status=3 message=the fake GPU is busy in exclusive-process mode\ndone\n' >&3
SCRIPT
sanitizer="$work/fake-compute-sanitizer"
printf '#!/bin/sh\nshift 4\nexec "$@"\n' > "$sanitizer" # --tool T --error-exitcode 86 RUNNER once
chmod +x "$runner" "$sanitizer"
for part in correctness speedup sanitize; do
    case $part in
    sanitize) run() { "$grade" sanitize --stage 1 --runner "$runner" --sanitizer "$sanitizer" --tool memcheck \
                  --results "$work/results-$part"; } ;;
    *) run() { "$grade" $part --stage 1 --runner "$runner" --object "$object" --source "$source" \
                  --results "$work/results-$part"; } ;;
    esac
    KIT_REQUIRE_GPU=0 run > "$work/$part.log" 2>&1
    skipped=$?
    KIT_REQUIRE_GPU=1 run > "$work/$part-required.log" 2>&1
    required=$?
    if [ "$skipped" -ne 77 ] || [ "$required" -ne 1 ] ||
        ! grep -rqF "busy in exclusive-process mode" "$work/results-$part" 2> /dev/null; then
        echo "FAIL: not_opened: kit_grade $part exited $skipped (and $required under KIT_REQUIRE_GPU=1); expected 77 and 1, and the runner's words in the result:"
        tail -n 5 "$work/$part.log" "$work/$part-required.log"
        failed=1
    else
        echo "ok: not_opened: $part skipped (77), failed under KIT_REQUIRE_GPU=1 (1), and said why"
    fi
done
exit $failed

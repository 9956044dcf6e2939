#!/usr/bin/env bash
# The class grader on this machine, end to end on the CPU emulator (--gpus none), stage 8 only
# (the cheapest stage to grade there): four fake submissions (tests/class/fake_class.sh).
#   1. interrupted (SIGTERM) once a first student is graded: exit 1, the graded rows kept, no
#      process of the grading left behind;
#   2. the same command resumes: it skips what is graded and grades the rest, each as expected
#      (alice 8 of 10: no speed without a GPU; bob 0: his race; carol 0: does not compile; dave 0:
#      file missing), with the class report beside the CSV;
#   3. a changed submission is graded again, alone;
#   4. a submission that overruns --time-limit is stopped and its row says "timed out";
#      then, grading nothing again: the gradebook for a roster that lacks dave, the leaderboards
#      by pseudonym (no times on the emulator) and, with compare50, the similarity check;
#   5. bad command lines exit 2 with one clear line.
# With the argument two-parts, alice alone, graded in two parts as on GPUs (check-grade-emulated,
# then check-grade-on-gpu; --gpus 0, where the GPU tests skip without a GPU): the same points,
# both parts' results kept. A test of its own, which CTest runs as a GPU test (not while a timing
# has the GPU) and, on a machine without one, after the first (their compiler cache).
# Usage: test_grading_a_class.sh [two-parts]
#   (ctest: class_grading_resumes_after_an_interruption_..., class_grading_in_two_parts_...)
set -euo pipefail
kit=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/grade_class_test.XXXXXX")
trap 'pkill -KILL -f "$work/" 2> /dev/null || true; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
grader=("${PYTHON:-python3}" "$kit/tests/class/grade_class.py")
grade() { "${grader[@]}" "$work/class" "$work/class.csv" "$work/root" --stages 8 --gpus none "$@"; }
row() { grep "^$1," "$work/class.csv" || fail "no row for $1 in class.csv: $(cat "$work/class.csv")"; }
records() { find "$work/root/results" -name '*.json' 2> /dev/null | wc -l; }

if [ "${1:-}" = two-parts ]; then
    sh "$kit/tests/class/fake_class.sh" "$work/class" 1 > /dev/null
    echo "== graded in two parts, as on GPUs (--gpus 0): the emulated tests, then the rest"
    # Without a GPU the GPU tests skip and alice gets the emulator's 8 of 10, with a warning that
    # the GPU lent to her did not grade her; on a GPU, 10 of 10.
    expected="alice,8,8,10,8,graded,emulator,"
    nvidia-smi -L 2> /dev/null | grep -q '^GPU 0' && expected="alice,10,10,10,10,graded,$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0),"
    "${grader[@]}" "$work/class" "$work/two.csv" "$work/two-root" --stages 8 --gpus 0 --keep-builds \
        > "$work/two.log" 2>&1 || fail "the two-part grading failed: $(cat "$work/two.log")"
    grep -qx "$expected" "$work/two.csv" || fail "graded in two parts, alice's row must be $expected: $(cat "$work/two.csv")"
    if [ "$expected" = "alice,8,8,10,8,graded,emulator," ]; then
        grep -q "^warning: 1 submission(s) were lent a GPU but graded on the CPU emulator, without speed points" "$work/two.log" &&
            grep -q "on the CPU emulator (GPU 0 was lent: it did not answer)" "$work/two.log" ||
            fail "a GPU lent but not grading must be said: $(cat "$work/two.log")"
    fi
    for f in junit-emulated.xml stage8.emulated-races stage8.correctness summary.csv stage8.lab-sha256; do
        [ -f "$work/two-root/students/alice/grade/$f" ] || fail "the two-part grading left no $f: the emulated part's results must stay"
    done
    echo "PASS: graded in two parts, alice's row is $expected and both parts' results stay"
    exit 0
fi
[ -z "${1:-}" ] || fail "usage: test_grading_a_class.sh [two-parts]"

sh "$kit/tests/class/fake_class.sh" "$work/class" 4 > /dev/null

echo "== 1. interrupted after the first student"
# One submission at a time (--cpus 1) where cores are few: with two, bob's grading ran beside
# alice's and was thrown away at the interruption, 10-20 CPU-s of a 2-core make check. Where
# they are many, all at once: one at a time, alice's build alone at -j1 made this test the last
# to end of a 16-core GPU make check (64 s of its 115, H200, 2026-11-27).
cpus=1
[ "$(nproc)" -lt 8 ] || cpus=$(nproc)
KIT_CLASS_HEARTBEAT=2 "${grader[@]}" "$work/class" "$work/class.csv" "$work/root" --stages 8 --gpus none --cpus "$cpus" \
    > "$work/first.log" 2>&1 &
pid=$! # python's own pid (a function run with & would be a subshell, and the signal would stop there)
for _ in $(seq 600); do [ "$(records)" -ge 1 ] && break; kill -0 "$pid" 2> /dev/null || break; sleep 1; done
[ "$(records)" -ge 1 ] || fail "no student graded in 600 s: $(cat "$work/first.log")"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
cat "$work/first.log"
[ "$status" -eq 1 ] || fail "an interrupted class must exit 1, not $status"
grep -q "interrupted" "$work/first.log" || fail "the interruption is not reported"
grep -q "^\[0/4\] still grading " "$work/first.log" ||
    fail "no progress line while the first submissions were graded (KIT_CLASS_HEARTBEAT=2)"
sleep 1
if pgrep -f "$work/root/students" > /dev/null; then
    fail "processes of the interrupted grading are still running: $(pgrep -af "$work/root/students")"
fi
graded=$(records)
[ "$graded" -lt 4 ] || fail "all four were graded before the interruption: nothing left to resume"
[ "$(grep -c ',graded,' "$work/class.csv")" -eq "$graded" ] || fail "class.csv does not hold the $graded graded row(s)"
# The students not graded yet have rows too: a student is never missing from the class table.
[ "$(grep -c ',not graded,,not graded yet: interrupted; the same command grades it$' "$work/class.csv")" -eq $((4 - graded)) ] ||
    fail "class.csv must say of the $((4 - graded)) other student(s) that they are not graded yet: $(cat "$work/class.csv")"

echo "== 2. resumed"
grade > "$work/second.log" 2>&1 || fail "the resumed class failed: $(cat "$work/second.log")"
cat "$work/second.log"
grep -q "^$graded of 4 submission(s) already graded and unchanged: skipped" "$work/second.log" ||
    fail "the resumed run does not say it skipped the $graded graded submission(s)"
grep -q "^grading $((4 - graded)) submission(s)" "$work/second.log" || fail "the resumed run grades more than the rest"
head -n 1 "$work/class.csv" | grep -qx "student,stage8,total,max_total,reachable_total,outcome,graded_on,notes" || fail "class.csv's header"
row alice | grep -q "^alice,8,8,10,8,graded,emulator,$" ||
    fail "alice (the solutions) must get 8 of 10 on the emulator, 8 reachable there: $(row alice)"
row bob | grep -q "^bob,0,0,10,8,graded," || fail "bob's race must cost stage 8: $(row bob)"
row carol | grep -q "^carol,0,0,10,8,graded,.*reduce_one_pass.cu does not compile (graded as unfilled; the compiler said: labs/08_one_pass/reduce_one_pass.cu[(:][0-9]" ||
    fail "carol's stage 8 does not compile, and the note must quote the compiler: $(row carol)"
# her feedback starts with what the compiler said, not only with the unfilled lab's "fill in the TODO"
feedback=$(find "$work/root" -path "*carol*" -name 'feedback*.txt' | head -1)
[ -n "$feedback" ] && head -1 "$feedback" | grep -q "^Stage 8: 08_one_pass/reduce_one_pass.cu does not compile; the compiler said: labs/" ||
    fail "carol's feedback must start with the compiler's message: ${feedback:-no feedback file}: $(head -3 "${feedback:-/dev/null}")"
grep -q "^Feedback for carol: " "$feedback" || fail "carol's feedback must be addressed to her (KIT_STUDENT), not to her folder: $(grep '^Feedback for' "$feedback")"
row dave | grep -q "^dave,0,0,10,8,graded,.*reduce_one_pass.cu is missing (graded as unfilled)" ||
    fail "dave's stage 8 is missing: $(row dave)"
for f in class-report.html class-report.csv; do [ -s "$work/$f" ] || fail "no $f beside class.csv"; done
grep -q "alice" "$work/class-report.html" || fail "the class report does not list the students"
grep -q "^points,8," "$work/class-report.csv" || fail "the report's CSV has no points distribution for stage 8"

echo "== 2b. after grading: the gradebook, the leaderboards by pseudonym and the similarity check"
# Nothing is graded again (the options of what comes after grading are not the grading's). On the
# emulator the board has no times; the fake class's stage 8 files are the solutions' (bob's one
# barrier short, carol's one comma short): compare50 pairs them, where it is installed.
printf 'student,id\nalice,A1\nbob,B2\ncarol,C3\n' > "$work/roster.csv"
extras=(--roster "$work/roster.csv" --pseudonyms)
has_compare50=$("${PYTHON:-python3}" -c "import sys; sys.path.insert(0, '$kit/tests/class'); import similarity
print('yes' if similarity.compare50_python() else 'no')")
[ "$has_compare50" = yes ] && extras+=(--similarity)
grade "${extras[@]}" > "$work/extras.log" 2>&1 || fail "the run after grading failed: $(cat "$work/extras.log")"
cat "$work/extras.log"
grep -q "^4 of 4 submission(s) already graded and unchanged: skipped" "$work/extras.log" || fail "it graded again"
grep -qx "alice,A1,8,8" "$work/class-gradebook.csv" && grep -qx "bob,B2,0,0" "$work/class-gradebook.csv" ||
    fail "the gradebook's rows: $(cat "$work/class-gradebook.csv")"
[ "$(grep -c "not in the roster.*: dave " "$work/extras.log")" -eq 1 ] || fail "dave, not in the roster, must be named once"
grep -q "No times, so no ranking: 1 correct submission(s) were graded on the CPU emulator" "$work/class-report.html" ||
    fail "the leaderboard must say the emulator times nothing"
alice=$(grep "^alice," "$work/class-pseudonyms.csv" | cut -d, -f2)
[ -n "$alice" ] && [ -s "$work/class-leaderboard.html" ] && ! grep -q alice "$work/class-leaderboard.html" ||
    fail "the leaderboard to share must show pseudonyms, not names"
if [ "$has_compare50" = yes ]; then
    grep -q "<h2>Similar submissions</h2>" "$work/class-report.html" || fail "no similarity section in the report"
    link=$(grep -o 'href="[^"]*match_[0-9]*.html"' "$work/class-report.html" | head -n 1 | sed 's/^href="//; s/"$//')
    [ -n "$link" ] && [ -f "$work/$link" ] || fail "the report's side-by-side link does not resolve: '$link'"
    grep -q "stage 8: alice and bob" "$work/extras.log" || fail "alice's and bob's stage 8 (the same file) must pair"
else
    echo "   (compare50 is not installed: the similarity check is not tried; pipx install compare50)"
fi

echo "== 3. a changed submission"
# carol's (it still does not compile: no emulated run of a correct stage 8 again, 20-30 s on 2 cores)
echo "// a late edit" >> "$work/class/carol/08_one_pass/reduce_one_pass.cu"
grade > "$work/third.log" 2>&1 || fail "the third run failed: $(cat "$work/third.log")"
cat "$work/third.log"
grep -q "^3 of 4 submission(s) already graded and unchanged: skipped" "$work/third.log" &&
    grep -q "^grading 1 submission(s)" "$work/third.log" && grep -q "carol: 0/10 points" "$work/third.log" ||
    fail "only carol's changed submission must be graded again"
# The regrade keeps her earlier record, and her row and feedback say what changed (nothing: it still
# does not compile), from the grade records
ls "$work/root/history/carol/"*.json > /dev/null 2>&1 || fail "carol's earlier record was not kept in history/carol/"
row carol | grep -q "regraded: nothing changed since the last grade (20" || fail "carol's regrade is not in her notes: $(row carol)"
tail -1 "$(find "$work/root/students/carol" -name 'feedback*.txt' | head -1)" | grep -qx "Nothing changed since the last grade." ||
    fail "carol's feedback must end with what changed since her last grade"

echo "== 4. past the time limit"
mkdir -p "$work/late"
cp -r "$work/class/alice" "$work/late/erin"
"${grader[@]}" "$work/late" "$work/late.csv" "$work/late-root" --stages 8 --gpus none --time-limit 2 \
    > "$work/late.log" 2>&1 || fail "a timed-out submission is a grade, not a failure of the class: $(cat "$work/late.log")"
grep -q '^erin,,,,,timed out,,"\{0,1\}stopped after the time limit of 2 s' "$work/late.csv" ||
    fail "erin's row must say timed out: $(cat "$work/late.csv")"
grep -q "^1 of 1 submission(s) graded (1 timed out: see their rows)" "$work/late.log" || fail "the summary must count the timed out"
pgrep -f "$work/late-root/students" > /dev/null && fail "the timed-out grading left processes behind"
# The same limit again: nothing to do. A longer one: erin alone is tried again (and runs out of it too).
"${grader[@]}" "$work/late" "$work/late.csv" "$work/late-root" --stages 8 --gpus none --time-limit 2 > "$work/late2.log" 2>&1 &&
    grep -q "^1 of 1 submission(s) already graded and unchanged: skipped" "$work/late2.log" ||
    fail "the same --time-limit must not grade erin again: $(cat "$work/late2.log")"
"${grader[@]}" "$work/late" "$work/late.csv" "$work/late-root" --stages 8 --gpus none --time-limit 3 > "$work/late3.log" 2>&1 &&
    grep -q "^grading 1 submission(s)" "$work/late3.log" &&
    grep -q '^erin,,,,,timed out,,"\{0,1\}stopped after the time limit of 3 s' "$work/late.csv" ||
    fail "a longer --time-limit must try erin again: $(cat "$work/late3.log" "$work/late.csv")"

echo "== 5. bad command lines"
expect_usage() { # WORDS ARGS...: exit 2 and a message with WORDS
    local words=$1 status=0
    shift
    "${grader[@]}" "$@" > "$work/usage.log" 2>&1 || status=$?
    [ "$status" -eq 2 ] && grep -q "$words" "$work/usage.log" || fail "grade_class.py $* exited $status: $(cat "$work/usage.log")"
}
expect_usage "is not a folder of submissions" "$work/nowhere"
expect_usage "there is no stage 99" "$work/class" --stages 99
expect_usage "GPU numbers such as 0,1 or none" "$work/class" --gpus first
expect_usage "names a GPU twice" "$work/class" --gpus 0,0
expect_usage "runs backwards (3-9?)" "$work/class" --stages 9-3
expect_usage "no-wait goes with --slurm" "$work/class" --no-wait
expect_usage "time-limit must be 1 second or more" "$work/class" --time-limit 0
mkdir -p "$work/empty"
expect_usage "has no sub-folder" "$work/empty"
echo "PASS: interrupted, resumed, changed, timed out and bad usage all behave"

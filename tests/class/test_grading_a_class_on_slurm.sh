#!/usr/bin/env bash
# tests/class/grade_class.py --slurm against a real Slurm cluster on this machine
# (tests/slurm/cluster.sh: Debian's slurmctld, slurmd and munged, one node, 2 "gpu" gres that
# Slurm counts although there is no GPU), grading four fake submissions (tests/class/fake_class.sh)
# on the CPU emulator, stage 8 only, one task per submission with --gres=gpu:1.
#   1. --slurm --no-wait submits one held job array (--sbatch=--hold) and returns; a second
#      --slurm while it is queued is refused (it would grade the same students twice at once);
#   2. dave's task is cancelled before it starts; the array is released; --attach is
#      interrupted while it waits (exit 1; the tasks go on) and a second --attach waits for the
#      rest and merges: exit 1, alice 8/10, bob 0 (a race), carol 0 (does not compile) in the
#      CSV, and dave listed apart as a task that failed to run (on the terminal, in his row and
#      in the class report), not as a submission that failed to grade; the "GPUs" Slurm lent
#      (counted gres, no GPU) did not grade the tasks, and that is warned of;
#   3. --slurm again submits dave's task alone and the class is whole: exit 0, dave 0 (file
#      missing), the report with no task failed;
#   4. a task cancelled while it runs (bob, changed) is reported as CANCELLED, and bob's row
#      says so until his change is graded (the CSV holds grades of the files as they are);
#   5. a job array that asks more CPUs per task than the node has is warned of while it waits
#      (squeue: PartitionConfig); --attach with nothing submitted, --slurm without the Slurm
#      client, and without a Slurm configuration: one line each, exit 2, 1 and 1.
# Exit 0: passed; 77: skipped (slurm-wlm and munge are not installed and cannot be); 1: failed.
# Usage: tests/class/test_grading_a_class_on_slurm.sh   (ctest: class_grading_on_slurm_...)
set -euo pipefail
kit=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/grade_class_slurm.XXXXXX")
cluster=$work/cluster
trap 'bash "$kit/tests/slurm/cluster.sh" stop "$cluster" > /dev/null 2>&1 || true
      pkill -KILL -f "$work/" 2> /dev/null || true; rm -rf "$work"' EXIT
fail() {
    echo "FAIL: $*" >&2
    for f in "$work"/root/slurm/task-*.out "$cluster/slurmctld.log"; do
        [ -f "$f" ] && { echo "---- last lines of $f" >&2; tail -n 8 "$f" >&2; }
    done
    exit 1
}
python=${PYTHON:-python3}
grader=("$python" "$kit/tests/class/grade_class.py")
grade() { "${grader[@]}" "$work/class" "$work/class.csv" "$work/root" --stages 8 --cpus-per-task 1 --poll 1 "$@"; }
row() { grep "^$1," "$work/class.csv" || fail "no row for $1 in class.csv: $(cat "$work/class.csv")"; }
job_id() { "$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["job"])' "$work/root/slurm/job.json"; }
records() { find "$work/root/results" -name '*.json' 2> /dev/null | wc -l; }

status=0
bash "$kit/tests/slurm/cluster.sh" start "$cluster" || status=$?
[ "$status" -ne 77 ] || exit 77
[ "$status" -eq 0 ] || fail "tests/slurm/cluster.sh start did not start a cluster (exit $status)"
# shellcheck source=/dev/null
source "$cluster/env.sh"
sh "$kit/tests/class/fake_class.sh" "$work/class" 4 > /dev/null

echo "== 1. submitted held, without waiting"
grade --slurm --sbatch=--hold --no-wait > "$work/submit.log" 2>&1 || fail "--slurm --no-wait failed: $(cat "$work/submit.log")"
cat "$work/submit.log"
job=$(job_id)
grep -q "^submitted job array $job: 4 task(s), one per submission" "$work/submit.log" || fail "no line naming job array $job"
grep -qx -- "#SBATCH --gres=gpu:1" "$work/root/slurm/job.sh" || fail "job.sh asks for no --gres=gpu:1: $(cat "$work/root/slurm/job.sh")"
[ "$(squeue -h -r -j "$job" -o '%t %r' | sort -u)" = "PD JobHeldUser" ] || fail "the array is not held: $(squeue -j "$job")"
[ "$(squeue -h -r -j "$job" | wc -l)" -eq 4 ] || fail "the array should have 4 tasks: $(squeue -r -j "$job")"
status=0
grade --slurm > "$work/twice.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "job array $job, submitted from .* still has tasks queued or running: --attach" "$work/twice.log" ||
    fail "a second --slurm while $job is queued must be refused (exit 2), not exit $status: $(cat "$work/twice.log")"
[ "$(job_id)" = "$job" ] || fail "the refused --slurm replaced job.json"

echo "== 2. dave's task cancelled before it runs; --attach interrupted, then attached again"
scancel "${job}_3" || fail "scancel ${job}_3 failed" # alice, bob, carol, dave: dave is task 3
scontrol release "$job" || fail "scontrol release $job failed"
"${grader[@]}" "$work/class" "$work/class.csv" "$work/root" --stages 8 --poll 1 --attach > "$work/attach1.log" 2>&1 &
pid=$! # python's own pid (a function run with & would be a subshell, and the signal would stop there)
for _ in $(seq 600); do [ "$(records)" -ge 1 ] && break; kill -0 "$pid" 2> /dev/null || break; sleep 1; done
[ "$(records)" -ge 1 ] || fail "no task graded its submission in 600 s: $(cat "$work/attach1.log")"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
cat "$work/attach1.log"
[ "$status" -eq 1 ] && grep -q "stopped waiting; job array $job goes on" "$work/attach1.log" ||
    fail "an interrupted --attach must say the array goes on and exit 1, not $status"
grep -q "^job $job: [0-9] of 4 graded, [0-9] running, [0-9] waiting" "$work/attach1.log" || fail "--attach printed no progress"
status=0
grade --attach > "$work/attach2.log" 2>&1 || status=$?
cat "$work/attach2.log"
[ "$status" -eq 1 ] || fail "a class with a task that failed to run must exit 1, not $status"
grep -q "^job $job: 3 of 4 task(s) graded their submission" "$work/attach2.log" || fail "3 of 4 tasks should have graded"
grep -q "^1 task(s) failed to run (not the submissions' fault" "$work/attach2.log" &&
    grep -q "^  dave (task ${job}_3): UNKNOWN: slurmctld has no record of it: cancelled before it started" "$work/attach2.log" ||
    fail "dave's cancelled task must be listed as failed to run"
row alice | grep -q "^alice,8,8,10,8,graded,emulator,$" || fail "alice (the solutions) must get 8 of 10 on the emulator: $(row alice)"
# The node's gpu gres are counted, not real: Slurm lent each task a "GPU" that did not grade it.
grep -q "^warning: 3 submission(s) were lent a GPU but graded on the CPU emulator" "$work/attach2.log" ||
    fail "tasks lent a GPU that did not grade them must be warned of"
row bob | grep -q "^bob,0,0,10,8,graded," || fail "bob's race must cost stage 8: $(row bob)"
row carol | grep -q "^carol,0,0,10,8,graded,.*reduce_one_pass.cu does not compile (graded as unfilled" ||
    fail "carol's stage 8 does not compile: $(row carol)"
row dave | grep -q "^dave,,,,,not graded,,its Slurm task ${job}_3 failed to run (UNKNOWN): --slurm again grades it$" ||
    fail "dave's row must say his task failed to run: $(row dave)"
grep -q "^failed-to-run,.*,dave,.*,${job}_3,UNKNOWN," "$work/class-report.csv" || fail "the report's CSV does not list dave's task"
grep -q "${job}_3" "$work/class-report.html" || fail "the report's page does not list dave's task"
grep -q "^not-graded,.*dave" "$work/class-report.csv" && fail "dave's task failed to run: he is not a submission that failed to grade"
for t in 0 1 2; do
    grep -q "\"slurm\": \"${job}_$t\"" "$work/root/results/"*.json || fail "no record says it was graded by task ${job}_$t"
done

echo "== 3. --slurm again grades dave alone"
grade --slurm > "$work/again.log" 2>&1 || fail "the second --slurm failed: $(cat "$work/again.log")"
cat "$work/again.log"
grep -q "^3 of 4 submission(s) already graded and unchanged: skipped" "$work/again.log" &&
    grep -q "^submitted job array [0-9]*: 1 task(s)" "$work/again.log" || fail "only dave's task must be submitted again"
row dave | grep -q "^dave,0,0,10,8,graded,.*reduce_one_pass.cu is missing (graded as unfilled)" || fail "dave's stage 8 is missing: $(row dave)"
grep -q "^failed-to-run," "$work/class-report.csv" && fail "the class is whole: the report lists no task failed"
[ "$(tail -n +2 "$work/class.csv" | wc -l)" -eq 4 ] || fail "class.csv should have 4 rows: $(cat "$work/class.csv")"

echo "== 4. a task cancelled while it runs"
echo "// a late edit" >> "$work/class/bob/08_one_pass/reduce_one_pass.cu"
grade --slurm --no-wait > "$work/late.log" 2>&1 || fail "--slurm for bob's change failed: $(cat "$work/late.log")"
late=$(job_id)
for _ in $(seq 300); do [ "$(squeue -h -j "$late" -o %t)" = R ] && break; sleep 0.2; done
[ "$(squeue -h -j "$late" -o %t)" = R ] || fail "bob's task is not running after 60 s: $(squeue -j "$late")"
sleep 2
scancel "$late" || fail "scancel $late failed"
status=0
grade --attach > "$work/cancelled.log" 2>&1 || status=$?
cat "$work/cancelled.log"
[ "$status" -eq 1 ] && grep -q "^  bob (task ${late}_0): CANCELLED: .*the task was stopped (scancel" "$work/cancelled.log" ||
    fail "bob's task, cancelled while running, must be reported CANCELLED (exit 1, not $status)"
row bob | grep -q "^bob,,,,,not graded,,its Slurm task ${late}_0 failed to run (CANCELLED)" ||
    fail "bob's grade was of his old file: his row must say his new one's task was cancelled: $(row bob)"

echo "== 5. a job array that can never run, and bad usage"
"${grader[@]}" "$work/class" "$work/big.csv" "$work/big-root" --stages 8 --poll 1 --slurm --no-wait --cpus-per-task 64 \
    > "$work/big.log" 2>&1 || fail "sbatch should take a job that waits: $(cat "$work/big.log")"
big=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["job"])' "$work/big-root/slurm/job.json")
status=0
timeout 30 "${grader[@]}" "$work/class" "$work/big.csv" "$work/big-root" --stages 8 --poll 1 --attach > "$work/big.log" 2>&1 || status=$?
scancel "$big" || true
grep -q "^job $big: 0 of 4 graded, 0 running, 4 waiting: PartitionConfig" "$work/big.log" &&
    grep -q "^warning: Slurm says the tasks of job $big wait for PartitionConfig: they cannot run as they were asked" "$work/big.log" ||
    fail "a job array that cannot run must be warned of while --attach waits (exit $status): $(cat "$work/big.log")"
status=0
"${grader[@]}" "$work/class" "$work/other.csv" "$work/other-root" --attach > "$work/usage.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "has no job array submitted by --slurm" "$work/usage.log" ||
    fail "--attach with nothing submitted must exit 2 with one line, not $status: $(cat "$work/usage.log")"
mkdir -p "$work/bin"
ln -s "$("$python" -c 'import sys; print(sys.executable)')" "$work/bin/python3" # the binary, not a shim
ln -s "$(command -v git)" "$work/bin/git"
ln -s "$(command -v cmake)" "$work/bin/cmake" # it writes the kit's description (kit.json) before anything else
status=0
PATH=$work/bin "$work/bin/python3" "$kit/tests/class/grade_class.py" "$work/class" "$work/other.csv" \
    "$work/other-root" --slurm --stages 8 > "$work/usage.log" 2>&1 || status=$?
[ "$status" -eq 1 ] && grep -q "sbatch is not installed here: --slurm runs on a machine that submits to your cluster" "$work/usage.log" ||
    fail "--slurm without the Slurm client must name it and exit 1, not $status: $(cat "$work/usage.log")"
if [ ! -e /etc/slurm/slurm.conf ]; then # else sbatch would reach this machine's own cluster
    status=0
    env -u SLURM_CONF "${grader[@]}" "$work/class" "$work/other.csv" "$work/other-root" --slurm --stages 8 \
        > "$work/usage.log" 2>&1 || status=$?
    [ "$status" -eq 1 ] && grep -q "sbatch found no Slurm configuration: set SLURM_CONF" "$work/usage.log" ||
        fail "--slurm without a Slurm configuration must say to set SLURM_CONF, exit 1, not $status: $(cat "$work/usage.log")"
fi
echo "PASS: a job array graded the class on a real Slurm cluster, re-attached, and told tasks that failed to run apart"

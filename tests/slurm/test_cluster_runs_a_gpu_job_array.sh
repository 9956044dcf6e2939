#!/usr/bin/env bash
# A real Slurm cluster on localhost (tests/slurm/cluster.sh) runs a job array the way
# tests/grade_class.py --slurm submits one: one task per student, --gres=gpu:1 each, although
# there is no GPU (the node has 2 gpu gres that Slurm only counts). Then the two things the
# driver relies on to tell graded tasks from tasks that never ran:
#   1. sbatch --parsable --array=0-2 --gres=gpu:1 runs every task once (SLURM_ARRAY_TASK_ID),
#      and `scontrol show job -o JOBID` says COMPLETED for each;
#   2. in an array submitted with --hold, a task cancelled while it is pending is gone: no line
#      of its own, "Job ID_1 not found" (Slurm drops it from the pending array, it never gets a
#      record); the others, released, run and say COMPLETED; a task cancelled while it runs
#      says CANCELLED.
# What Slurm 22.05 (Debian bookworm) prints here, for the driver:
#   squeue -j ID (pending elements stay one line, one per task with -r):
#                JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
#              1_[0-2]       kit     wrap     root PD       0:00      1 (JobHeldUser)
#     after the array's first tasks start: `3_[2-3] ... PD ... (Resources)` and `3_1 ... R`;
#     once every task has ended it prints the header only (squeue -h: nothing), exit 0.
#   scontrol show job -o ID, after the tasks end: one line per task that ran, in no order, each
#   its own JobId (the array's ID is the last task's), e.g. (cut)
#     JobId=4 ArrayJobId=3 ArrayTaskId=0 ... JobState=COMPLETED Reason=None ... ExitCode=0:0 ...
#     JobId=5 ArrayJobId=3 ArrayTaskId=1 ... JobState=FAILED Reason=NonZeroExitCode ... ExitCode=3:0
#     JobId=3 ArrayJobId=3 ArrayTaskId=2 ... JobState=CANCELLED Reason=None ... ExitCode=0:15
#   while tasks are pending, one more line for them all: ArrayTaskId=1-3 (or 0,2) JobState=PENDING.
#   The lines stay MinJobAge (3600 s in cluster.sh's slurm.conf; Slurm's default is 300 s);
#   then `scontrol show job` fails, "slurm_load_jobs error: Invalid job id specified" (exit 1).
#   There is no accounting: sacct says "Slurm accounting storage is disabled" (exit 1).
# Usage: tests/slurm/test_cluster_runs_a_gpu_job_array.sh
#   exit 0: it works; 77: skipped (slurm-wlm and munge not installed and not installable);
#   1: a failure, with what went wrong.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kit-slurm-test.XXXXXX")
cluster=$tmp/cluster
trap 'bash "$here/cluster.sh" stop "$cluster" > /dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    for f in "$cluster/slurmctld.log" "$cluster/slurmd.log"; do
        [ -f "$f" ] && { echo "---- last lines of $f"; tail -n 15 "$f"; }
    done
    exit 1
}

rc=0
bash "$here/cluster.sh" start "$cluster" || rc=$?
[ "$rc" -ne 77 ] || exit 77
[ "$rc" -eq 0 ] || fail "tests/slurm/cluster.sh start did not start a cluster (exit $rc)"
# shellcheck source=/dev/null
source "$cluster/env.sh"
cd "$tmp"

wait_for() { # JOBID: until squeue lists none of its tasks (60 s)
    local _
    for _ in $(seq 300); do
        [ -z "$(squeue -h -j "$1" 2> /dev/null)" ] && return 0
        sleep 0.2
    done
    squeue -j "$1" || true
    fail "job array $1 still queued or running after 60 s"
}
states() { # JOBID: "TASK STATE" lines from scontrol show job -o, by task
    scontrol show job -o "$1" |
        sed -n 's/.* ArrayTaskId=\([^ ]*\) .* JobState=\([^ ]*\) .*/\1 \2/p' | sort -n
}
expect_states() { # JOBID EXPECTED WHAT
    local got
    got=$(states "$1" 2>&1) || true
    [ "$got" = "$2" ] || fail "$3: scontrol show job -o $1 gives the tasks' states
$got
where it should give
$2
(all of it: $(scontrol show job -o "$1" 2>&1))"
}

# 1. A GPU job array: every task runs once, each says COMPLETED.
job=$(sbatch --parsable --array=0-2 --gres=gpu:1 --output="$tmp/slurm-%A_%a.out" \
    --wrap "echo task \$SLURM_ARRAY_TASK_ID > $tmp/out.\$SLURM_ARRAY_TASK_ID") ||
    fail "sbatch did not take the job array"
job=${job%%;*}
wait_for "$job"
for t in 0 1 2; do
    [ -f "$tmp/out.$t" ] || fail "task $t of job array $job wrote nothing ($(cat "$tmp/slurm-${job}_$t.out" 2> /dev/null))"
    [ "$(cat "$tmp/out.$t")" = "task $t" ] || fail "task $t of job array $job wrote '$(cat "$tmp/out.$t")', not 'task $t'"
done
expect_states "$job" "0 COMPLETED
1 COMPLETED
2 COMPLETED" "the finished array"
echo "ok: job array $job ran tasks 0-2 with --gres=gpu:1, and scontrol says COMPLETED for each"

# 2. A held array: task 1 cancelled while pending is gone; task 3 cancelled while it runs is
#    CANCELLED; the others, released, COMPLETED.
held=$(sbatch --parsable --hold --array=0-3 --gres=gpu:1 --output="$tmp/slurm-%A_%a.out" \
    --wrap "echo task \$SLURM_ARRAY_TASK_ID > $tmp/held.\$SLURM_ARRAY_TASK_ID; [ \$SLURM_ARRAY_TASK_ID != 3 ] || sleep 300") ||
    fail "sbatch --hold did not take the job array"
held=${held%%;*}
squeue -h -j "$held" -o '%i %t %r' | grep -qx "${held}_\[0-3\] PD JobHeldUser" ||
    fail "squeue should show the held array pending as one line, not: $(squeue -j "$held" 2>&1)"
scancel "${held}_1" || fail "scancel ${held}_1 failed"
scontrol release "$held" || fail "scontrol release $held failed"
for _ in $(seq 300); do
    [ "$(squeue -h -j "${held}_3" -t running -o %t 2> /dev/null)" = R ] && break
    sleep 0.2
done
[ "$(squeue -h -j "${held}_3" -o %t 2> /dev/null)" = R ] || fail "task 3 of $held is not running after 60 s: $(squeue -j "$held" 2>&1)"
scancel "${held}_3" || fail "scancel ${held}_3 failed"
wait_for "$held"
expect_states "$held" "0 COMPLETED
2 COMPLETED
3 CANCELLED" "the held array, task 1 cancelled while pending, task 3 while running"
if scontrol show job "${held}_1" > /dev/null 2>&1; then
    fail "scontrol show job ${held}_1 should find no task cancelled while pending"
fi
[ ! -e "$tmp/held.1" ] || fail "task 1 of $held ran after scancel ${held}_1"
for t in 0 2 3; do
    [ "$(cat "$tmp/held.$t" 2> /dev/null)" = "task $t" ] || fail "task $t of $held did not run"
done
echo "ok: held array $held: task 1 cancelled while pending has no record, task 3 cancelled while running is CANCELLED, 0 and 2 COMPLETED"

#!/usr/bin/env bash
# Times the grading of a fake class (tests/class/fake_class.sh) on one GPU, and on two where the
# machine has two, each run from a cold start (its own build folders and compiler cache), and
# checks that the runs gave every student the same points.
# Usage: tests/class/time_a_class.sh OUT [COUNT] [STAGES]
#   OUT     a folder for the CSVs, the logs and timings.json (one line per run)
#   COUNT   submissions in the class (default 16); STAGES  what is graded (default 7,8)
#        tests/class/time_a_class.sh compare A.csv B.csv
#   checks that two runs' CSVs give every student the same points (runs made apart, say on one
#   GPU in one session of a lent machine and on two in the next)
# KIT_CLASS_TIME_LIMIT (seconds) stops a run early; its CSV then holds the students graded so far.
# KIT_CLASS_GPU_RUNS picks the runs: GPU lists separated by spaces, e.g. "0" or "0,1" (default:
# "0 0,1" with two GPUs, "0" with one, "none" without).
set -euo pipefail
kit=$(cd "$(dirname "$0")/../.." && pwd)
same_points() { # A.csv B.csv: every column but the notes (they name each run's own folders)
    local a b
    a=$(head -n 1 "$1" | tr ',' '\n' | wc -l)
    b=$(head -n 1 "$2" | tr ',' '\n' | wc -l)
    if diff <(cut -d, -f1-"$((a - 1))" "$1") <(cut -d, -f1-"$((b - 1))" "$2"); then
        echo "same points in $1 and $2 ($(($(wc -l < "$1") - 1)) students)"
    else
        echo "the points differ between $1 and $2 (above)"
        return 1
    fi
}
if [ "${1:-}" = compare ]; then
    [ $# -eq 3 ] || { echo "usage: time_a_class.sh compare A.csv B.csv" >&2; exit 2; }
    same_points "$2" "$3"
    exit
fi
out=${1:?usage: time_a_class.sh OUT [COUNT] [STAGES]}
count=${2:-16}
stages=${3:-7,8}
mkdir -p "$out"
class=$(mktemp -d "${TMPDIR:-/tmp}/time-class.XXXXXX")
sh "$kit/tests/class/fake_class.sh" "$class/submissions" "$count"
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ' || true)
runs="0"
[ "${gpus:-0}" -ge 2 ] && runs="0 0,1"
[ "${gpus:-0}" -ge 1 ] || runs="none"
runs=${KIT_CLASS_GPU_RUNS:-$runs}
for list in $runs; do
    name="gpus-${list//,/-}"
    started=$(date +%s)
    status=0
    timeout -s TERM "${KIT_CLASS_TIME_LIMIT:-86400}" python3 "$kit/tests/class/grade_class.py" "$class/submissions" \
        "$out/$name.csv" "$class/root-$name" --stages "$stages" --gpus "$list" > "$out/$name.log" 2>&1 || status=$?
    seconds=$(($(date +%s) - started))
    graded=$(($(wc -l < "$out/$name.csv") - 1))
    # The seconds the students' records spent in each part, summed: build, emulated (tests on the
    # CPU), grade (the tests on a GPU, or all of them on the emulator).
    parts=$(python3 -c 'import glob, json, sys
sums = {"build": 0.0, "emulated": 0.0, "grade": 0.0}
for path in glob.glob(sys.argv[1] + "/*.json"):
    seconds = json.load(open(path)).get("seconds", {})
    for part in sums:
        sums[part] += seconds.get(part, 0.0)
print(json.dumps({part: round(value, 1) for part, value in sums.items()}))' "$class/root-$name/results")
    printf '{"gpus": "%s", "cpus": %d, "submissions": %d, "graded": %d, "stages": "%s", "seconds": %d, "exit": %d, "parts_summed": %s, "host": "%s", "gpu": "%s", "date": "%s"}\n' \
        "$list" "$(nproc)" "$count" "$graded" "$stages" "$seconds" "$status" "$parts" "$(hostname)" \
        "$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)" "$(date -u +%F)" >> "$out/timings.json"
    tail -n 1 "$out/timings.json"
done
# The same points for every student in every run.
if [ "$runs" = "0 0,1" ]; then
    same_points "$out/gpus-0.csv" "$out/gpus-0-1.csv"
fi
rm -rf "$class"

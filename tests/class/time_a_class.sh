#!/usr/bin/env bash
# Times the grading of a fake class (tests/class/fake_class.sh) on one GPU, and on two where the
# machine has two, each run from a cold start (its own build folders and compiler cache), and
# checks that the runs gave every student the same points.
# Usage: tests/class/time_a_class.sh OUT [COUNT] [STAGES]
#   OUT     a folder for the CSVs, the logs and timings.json (one line per run)
#   COUNT   submissions in the class (default 16); STAGES  what is graded (default 7,8)
# KIT_CLASS_TIME_LIMIT (seconds) stops a run early; its CSV then holds the students graded so far.
set -euo pipefail
kit=$(cd "$(dirname "$0")/../.." && pwd)
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
for list in $runs; do
    name="gpus-${list//,/-}"
    started=$(date +%s)
    status=0
    timeout -s TERM "${KIT_CLASS_TIME_LIMIT:-86400}" python3 "$kit/tests/class/grade_class.py" "$class/submissions" \
        "$out/$name.csv" "$class/root-$name" --stages "$stages" --gpus "$list" > "$out/$name.log" 2>&1 || status=$?
    seconds=$(($(date +%s) - started))
    graded=$(($(wc -l < "$out/$name.csv") - 1))
    printf '{"gpus": "%s", "submissions": %d, "graded": %d, "stages": "%s", "seconds": %d, "exit": %d, "host": "%s", "gpu": "%s", "date": "%s"}\n' \
        "$list" "$count" "$graded" "$stages" "$seconds" "$status" "$(hostname)" \
        "$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)" "$(date -u +%F)" >> "$out/timings.json"
    tail -n 1 "$out/timings.json"
done
# The same points for every student in every run (the notes name each run's own folders).
if [ "$runs" = "0 0,1" ]; then
    if diff <(cut -d, -f1-"$(($(head -n 1 "$out/gpus-0.csv" | tr ',' '\n' | wc -l) - 1))" "$out/gpus-0.csv") \
            <(cut -d, -f1-"$(($(head -n 1 "$out/gpus-0-1.csv" | tr ',' '\n' | wc -l) - 1))" "$out/gpus-0-1.csv"); then
        echo "same points on 1 GPU and on 2 GPUs"
    else
        echo "the points differ between 1 GPU and 2 GPUs (above)"
        exit 1
    fi
fi
rm -rf "$class"

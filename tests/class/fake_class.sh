#!/bin/sh
# Makes a folder of fake submissions from the kit, to try tests/class/grade_class.py. Four kinds:
#   alice  every stage correct (the solutions)
#   bob    the solutions without a barrier: in stage 3's loop, and after stage 8's warp sums (races)
#   carol  the solutions, with stage 7 left unfilled and stages 2 and 8 not compiling
#   dave   the solutions, with stage 8's file missing and stage 7's a symbolic link to the answer
# Usage: tests/class/fake_class.sh OUTPUT_FOLDER [COUNT]
#   OUTPUT_FOLDER  a new or empty folder (one that holds anything else is refused, never wiped)
#   COUNT  how many submissions (default 4): past the first four, the kinds repeat as alice5,
#          bob6, carol7, dave8, alice9, ... (a class to time: tests/class/grade_class.py on 1 or 2 GPUs)
set -eu
kit=$(cd "$(dirname "$0")/../.." && pwd)
usage() { echo "usage: tests/class/fake_class.sh OUTPUT_FOLDER [COUNT]  (a new or empty folder; COUNT default 4)" >&2; exit 2; }
case ${1:-} in '' | -*) [ "${1:-}" = -h ] || [ "${1:-}" = --help ] && { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }; usage ;; esac
[ $# -le 2 ] || usage
out=$1
count=${2:-4}
case $count in '' | *[!0-9]* | 0) echo "fake_class.sh: COUNT must be a number of submissions, 1 or more, not '$count'" >&2; exit 2 ;; esac
if [ -e "$out" ] && { [ ! -d "$out" ] || [ -n "$(ls -A "$out")" ]; }; then
    echo "fake_class.sh: $out already exists and is not an empty folder: name a new one (nothing was changed)" >&2
    exit 2
fi
mkdir -p "$out"
i=1
while [ "$i" -le "$count" ]; do
    case $(((i - 1) % 4)) in 0) kind=alice ;; 1) kind=bob ;; 2) kind=carol ;; *) kind=dave ;; esac
    student=$kind
    [ "$i" -le 4 ] || student=$kind$i
    s="$out/$student"
    cp -r "$kit/solutions" "$s"
    case $kind in
    bob)
        stage3="$s/03_sequential_addressing/reduce_sequential_addressing.cu"
        sed -i '/sdata\[tid\] += sdata\[tid + s\];/{n;/__syncthreads();/d}' "$stage3"
        grep -q '__syncthreads();' "$stage3" # the barrier after the load is still there
        stage8="$s/08_one_pass/reduce_one_pass.cu"
        sed -i '/warp_sums\[warp\] = sum;/{n;/__syncthreads();/d}' "$stage8"
        ! grep -q '__syncthreads();' "$stage8"
        ;;
    carol)
        cp "$kit/labs/07_multi_element/reduce_multi_element.cu" "$s/07_multi_element/"
        sed -i 's/unsigned int index = 2 \* s \* tid;/unsigned int index = 2 * s * tid/' \
            "$s/02_divergence_free/reduce_divergence_free.cu"
        sed -i 's/const unsigned int n4 = n \/ 4, stride/const unsigned int n4 = n \/ 4 stride/' \
            "$s/08_one_pass/reduce_one_pass.cu"
        grep -q 'n / 4 stride' "$s/08_one_pass/reduce_one_pass.cu"
        ;;
    dave)
        rm "$s/08_one_pass/reduce_one_pass.cu"
        ln -sf "$kit/solutions/07_multi_element/reduce_multi_element.cu" "$s/07_multi_element/reduce_multi_element.cu"
        ;;
    esac
    i=$((i + 1))
done
kinds="alice (all correct)|bob (races in stages 3 and 8)|carol (stage 7 unfilled, stages 2 and 8 do not compile)|dave (stage 8 missing, stage 7 a link to the answer)"
shown=$(echo "$kinds" | cut -d'|' -f1-"$((count < 4 ? count : 4))" | sed 's/|/, /g')
echo "$count submission(s) in $out: $shown"

#!/bin/sh
# Makes a folder of three fake submissions from the kit, to try tests/grade_class.sh:
#   alice  every stage correct (the solutions)
#   bob    the solutions, with the barrier in stage 3's loop deleted (a race)
#   carol  the solutions, with stage 7 left unfilled and stage 2 not compiling
# Usage: tests/fake_class.sh OUTPUT_FOLDER
set -eu
kit=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: fake_class.sh OUTPUT_FOLDER}
rm -rf "$out"
mkdir -p "$out"
for student in alice bob carol; do
    cp -r "$kit/solutions" "$out/$student"
done
stage3="$out/bob/03_sequential_addressing/reduce_sequential_addressing.cu"
sed -i '/sdata\[tid\] += sdata\[tid + s\];/{n;/__syncthreads();/d}' "$stage3"
grep -q '__syncthreads();' "$stage3"   # the barrier after the load is still there
cp "$kit/labs/07_multi_element/reduce_multi_element.cu" "$out/carol/07_multi_element/"
sed -i 's/unsigned int index = 2 \* s \* tid;/unsigned int index = 2 * s * tid/' \
    "$out/carol/02_divergence_free/reduce_divergence_free.cu"
echo "three submissions in $out: alice (all correct), bob (stage 3 without its loop barrier), carol (stage 7 unfilled, stage 2 does not compile)"

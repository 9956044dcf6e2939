#!/bin/sh
# Every lab must be its solution with only the TODO blocks emptied: the same header, the
# same launcher, the same names. A block runs from a line "// [todo...] TODO(student): ..."
# to the line "// [todo...] end of TODO". Usage: labs_match_solutions.sh SOURCE_DIR LABS_DIR
set -u
src=$1
labs=$2
outside_todo() {
    awk '/\/\/ \[todo[a-z-]*\] end of TODO/ { inside = 0 }
         !inside { print }
         /\/\/ \[todo[a-z-]*\] TODO\(student\)/ { inside = 1; blocks++ }
         END { if (blocks == 0) exit 3 }' "$1"
}
status=0
count=0
for solution in "$src"/solutions/*/*.cu; do
    stage=${solution#"$src"/solutions/}
    lab="$labs/$stage"
    count=$((count + 1))
    if [ ! -f "$lab" ]; then
        echo "FAIL $stage: labs has no such file"; status=1; continue
    fi
    if ! outside_todo "$solution" > /tmp/kit_solution.$$ || ! outside_todo "$lab" > /tmp/kit_lab.$$; then
        echo "FAIL $stage: no TODO(student) block"; status=1; continue
    fi
    if diff -u /tmp/kit_solution.$$ /tmp/kit_lab.$$ > /tmp/kit_diff.$$; then
        echo "ok   $stage"
    else
        echo "FAIL $stage: the lab differs from its solution outside the TODO blocks:"
        cat /tmp/kit_diff.$$
        status=1
    fi
done
rm -f /tmp/kit_solution.$$ /tmp/kit_lab.$$ /tmp/kit_diff.$$
stages=$(grep -c '^KIT_STAGE(' "$src/common/stages.def")
[ "$count" -eq "$stages" ] || { echo "FAIL: common/stages.def lists $stages stages, but solutions/ has $count files"; status=1; }
exit $status

#!/bin/sh
# A later batch of the student edition unpacks over an earlier one without touching a
# student's labs (release/make_release.cmake, run as student-release runs it, on stand-in
# prebuilt references and pages: what is checked is which files each batch holds).
#   batches_unpack_over_each_other.sh KIT WORK
# Batch 1 hands out stages 1-3; the student edits lab 1; batch 2 (stage 4, stages 1-3 closed)
# is unpacked over it. Lab 1 must keep the student's edit, lab 4 must arrive, batch 2's
# tarball must hold no lab of a closed stage, and its edition.cmake and kit.json (the kit's
# description) must name stages 1-4 with 1-3 closed.
set -u
kit=$1 work=$2
fail() { echo "FAILED: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/reference" "$work/docs" "$work/student" || exit 1
for k in 1 2 3 4; do : > "$work/reference/libkit_reference_stage$k.a"; done
echo '<html><body>pages</body></html>' > "$work/docs/index.html"
batch() { # NAME STAGES CLOSED
    cmake "-DSOURCE=$kit" "-DDEST=$work/$1/reduction-lab-kit" "-DSTAGES=$2" "-DCLOSED=$3" \
          "-DGPU_REFERENCE=$work/reference" "-DDOCS=$work/docs" -DCUDA_VERSION=13.0.0 \
          "-DARCHS=90-real" "-DCXX=GNU" -P "$kit/release/make_release.cmake" > "$work/$1.log" 2>&1 ||
        { cat "$work/$1.log"; fail "make_release.cmake failed for $1"; }
}
batch batch1 1,2,3 ""
batch batch2 4 1,2,3
tar -tzf "$work/batch2/reduction-lab-kit.tar.gz" > "$work/batch2.list" || fail "cannot list batch 2's tarball"
grep -q "reduction-lab-kit/labs/04_first_add_on_load/reduce_first_add_on_load.cu" "$work/batch2.list" ||
    fail "batch 2's tarball has no lab 4"
if grep -E "reduction-lab-kit/labs/0[123]_" "$work/batch2.list"; then
    fail "batch 2's tarball holds a lab of a closed stage (above): unpacking it would overwrite the student's file"
fi
cd "$work/student" || exit 1
tar -xzf "$work/batch1/reduction-lab-kit.tar.gz" || fail "cannot unpack batch 1"
lab1=reduction-lab-kit/labs/01_naive/reduce_naive.cu
[ -f "$lab1" ] || fail "batch 1 has no lab 1"
echo "/* the student's own work */" >> "$lab1"
tar -xzf "$work/batch2/reduction-lab-kit.tar.gz" || fail "cannot unpack batch 2 over batch 1"
tail -1 "$lab1" | grep -q "the student's own work" || fail "unpacking batch 2 changed the student's lab 1"
[ -f reduction-lab-kit/labs/04_first_add_on_load/reduce_first_add_on_load.cu ] || fail "lab 4 did not arrive"
grep -qx "set(KIT_RELEASED_STAGES 1 2 3 4)" reduction-lab-kit/edition.cmake &&
    grep -qx "set(KIT_CLOSED_STAGES 1 2 3)" reduction-lab-kit/edition.cmake ||
    { cat reduction-lab-kit/edition.cmake; fail "edition.cmake does not name stages 1-4 with 1-3 closed"; }
# The kit's description at the edition's top says the same (common/kit_description.cmake), and the
# edition's own copy of the generator, run on the edition's files, writes the same.
python3 - reduction-lab-kit/kit.json <<'EOF' || fail "kit.json does not describe stages 1-4 with 1-3 closed"
import json, sys
d = json.load(open(sys.argv[1]))
got = (d.get("edition"), d.get("released"), d.get("closed"), d.get("batch"),
       [s["number"] for s in d["stages"] if s["released"]])
want = ("student", [1, 2, 3, 4], [1, 2, 3], [4], [1, 2, 3, 4])
if got != want:
    print("kit.json: %r, expected %r" % (got, want))
    sys.exit(1)
EOF
cmake -DSOURCE=reduction-lab-kit "-DOUTPUT=$work/edition-kit.json" -DEDITION=student -DRELEASED=1,2,3,4 \
      -DCLOSED=1,2,3 -DBATCH=4 -P reduction-lab-kit/common/kit_description.cmake ||
    fail "the edition's common/kit_description.cmake cannot describe the edition"
cmp -s "$work/edition-kit.json" reduction-lab-kit/kit.json ||
    { diff "$work/edition-kit.json" reduction-lab-kit/kit.json | head -20; fail "the edition describes itself otherwise than its kit.json"; }
echo "ok: batch 2 unpacked over batch 1 added lab 4 and left the student's lab 1 as it was; kit.json describes stages 1-4"

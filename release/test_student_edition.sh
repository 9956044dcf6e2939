#!/bin/sh
# The student edition, built and graded as a student builds and grades it.
#   test_student_edition.sh EDITION COPY KIT STAGES unfilled|solutions [FULL]
# unfilled   copies EDITION (the output of student-release) to COPY afresh, builds it with the
#            student README's commands, then `cmake --build build --target check` must fail and
#            every released stage must say "stage K wrote no result: fill in the TODO", and its race
#            check that it was not checked (nothing written, nothing to race).
# solutions  drops KIT's reference solutions into COPY/labs for the released stages among FULL
#            (comma-separated; empty or absent: every released stage) and grades again with
#            `cmake --build build --target check`, as a student half-way through does: those
#            stages must get full marks (on the CPU emulator, where there is no GPU, all but the
#            speed points, which need a GPU), the others 0 with the fill-in message, and check
#            must pass exactly when every released stage got full marks.
# STAGES is the released stages, comma-separated (1,2,3).
#
# Why FULL (release/CMakeLists.txt, KIT_EDITION_TEST_FULL_STAGES): a correct stage costs 5 s
# (stage 7) to over 4 minutes (stage 1) of emulated grading on 2 cores, and the reference
# solutions are graded one by one in the kit's own make check (build-ref) anyway. What only this
# test shows is the edition: each released stage's lab, prebuilt reference (GPU and emulator) and
# grading wiring. The unfilled run grades every released stage and the ladder runs every prebuilt
# reference; full marks are shown for one stage of every problem of stages.def, both kinds of
# launcher (one pass, many) and a stage timed against another stage's reference (15, against 13).
set -u
edition=$1 copy=$2 kit=$3 stages=$4 mode=$5 full=${6:-}
fail() { echo "FAILED: $*"; exit 1; }
stage_files() { # "K dir name" for each stage of STAGES (the edition's description, kit.json)
    python3 - "$edition/kit.json" "$stages" <<'EOF'
import json, sys
wanted = {int(k) for k in sys.argv[2].split(",") if k}
for s in json.load(open(sys.argv[1]))["stages"]:
    if s["number"] in wanted:
        print(s["number"], s["dir"], s["name"])
EOF
}

case $mode in
unfilled)
    [ -f "$edition/edition.cmake" ] || fail "$edition is not a student edition (no edition.cmake)"
    rm -rf "$copy" && mkdir -p "$(dirname "$copy")" && cp -R "$edition" "$copy" || fail "cannot copy $edition"
    [ ! -e "$copy/solutions" ] || fail "the edition has a solutions/ folder"
    cd "$copy" || exit 1
    echo "== cmake -S . -B build && cmake --build build -j2 (in a copy of the edition)"
    cmake -S . -B build -DKIT_WERROR=ON >configure.log 2>&1 || { cat configure.log; fail "configure failed"; }
    cmake --build build -j2 >build.log 2>&1 || { tail -50 build.log; fail "the edition does not build"; }
    # The ladder's reference rows come from the prebuilt library: they must give the exact sum.
    ./build/reduce_ladder --n 100000 --reps 20 >ladder.log 2>&1 || { cat ladder.log; fail "reduce_ladder failed"; }
    cat ladder.log
    echo "== cmake --build build --target check (unfilled labs)"
    if cmake --build build --target check >check.log 2>&1; then
        tail -40 check.log; fail "make check passed on unfilled labs"
    fi
    stage_files | while read -r k dir name; do
        grep -q "stage $k wrote no result: fill in the TODO" check.log ||
            { tail -60 check.log; fail "stage $k's report does not say 'fill in the TODO'"; }
        # nothing written, nothing to race: the race check (where the emulator has one) stops before
        # ThreadSanitizer, and fails
        if grep -q "stage${k}_has_no_race_under_threadsanitizer" check.log; then
            grep -q "stage $k emulated-races: not checked for races: stage $k wrote no result" check.log ||
                { tail -60 check.log; fail "stage $k's race check must stop at an unfilled lab, and say so"; }
        fi
    done || exit 1
    grep -E "^(stage|total|[0-9] )" check.log | tail -20
    echo "ok: every released stage (${stages}) fails with the fill-in message"
    ;;
solutions)
    cd "$copy" 2>/dev/null && [ -d build ] || fail "$copy/build is missing: the unfilled test runs first"
    [ -n "$full" ] || full=$stages
    graded=""
    for k in $(echo "$stages" | tr ',' ' '); do
        case ",$full," in *",$k,"*) graded="$graded,$k" ;; esac
    done
    graded=${graded#,}
    [ -n "$graded" ] || fail "none of the stages $full is released by this edition ($stages)"
    stage_files | while read -r k dir name; do
        case ",$graded," in
        *",$k,"*) cp "$kit/solutions/$dir/$name.cu" "labs/$dir/$name.cu" || exit 1 ;;
        esac
    done || fail "cannot copy the solutions"
    echo "== cmake --build build --target check (the reference solutions in labs/ for stages $graded; the rest unfilled)"
    cmake --build build --target check >check.log 2>&1
    code=$?
    sed -n '/^stage  *correct/,/^total/p' check.log
    if [ "$graded" = "$stages" ] && [ "$code" -ne 0 ]; then
        tail -80 check.log; fail "make check failed on the reference solutions"
    elif [ "$graded" != "$stages" ] && [ "$code" -eq 0 ]; then
        tail -40 check.log; fail "make check passed with unfilled stages"
    fi
    python3 - build/grade/results.json "$stages" "$graded" <<'EOF' || fail "not as expected (above)"
import json, sys
results = json.load(open(sys.argv[1]))
stages = sys.argv[2].split(",")
full = sys.argv[3].split(",")
bad = []
names = [t["name"] for t in results["tests"]]
for k in stages:
    if not any(n.startswith("stage %s:" % k) for n in names):
        bad.append("stage %s has no result" % k)
for t in results["tests"]:
    stage = t["name"].split(":")[0].split()[-1]
    if stage not in stages:
        bad.append("%s: not a released stage" % t["name"])
        continue
    if stage not in full:
        if t["score"] != 0 or ("correctness" in t["name"] and "fill in the TODO" not in t["output"]):
            bad.append("%s: an unfilled stage got %s points (%s)" % (t["name"], t["score"], t["output"][:200]))
        continue
    no_gpu = "speedup" in t["name"] and "not measured (no GPU)" in t["output"]
    if t["status"] != "passed" and not no_gpu:
        bad.append("%s: %s (%s)" % (t["name"], t["status"], t["output"][:200]))
    if t["status"] == "passed" and t["score"] != t["max_score"]:
        bad.append("%s: %s of %s" % (t["name"], t["score"], t["max_score"]))
for b in bad:
    print("  " + b)
print("score %s: %s" % (results["score"], "full marks for stages %s, 0 for the rest" % ",".join(full)
                        if not bad else "NOT as expected"))
sys.exit(1 if bad else 0)
EOF
    echo "ok: full marks for stages ${graded}, the fill-in message for the rest of ${stages}"
    ;;
*)
    echo "usage: $0 EDITION COPY KIT STAGES unfilled|solutions" >&2
    exit 2
    ;;
esac

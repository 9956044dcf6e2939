#!/usr/bin/env bash
# Gradescope's autograder, tried as Gradescope runs it:
#   gradescope_autograder.sh EDITION SCRIPTS KIT WORK STAGES [hang]
# makes autograder.zip from EDITION (the student edition) with SCRIPTS/make_zip.cmake (the
# gradescope target's command) into WORK, unpacks it into WORK/root/source as Gradescope does,
# keeps only the released stages among STAGES (comma-separated; edition.cmake and labs/ cut
# down, to keep the test short), runs setup.sh there (everything is installed on this machine:
# it installs nothing, then configures and builds), copies run_autograder to WORK/root and runs
# it with AUTOGRADER_ROOT=WORK/root:
#   1. a reference solution (KIT/solutions), uploaded as a loose .cu file for the third kept
#      stage: full emulated marks (correctness and races; speed only where there is a GPU), and
#      the other stages 0 saying their file is missing; the leaderboard (runs 1 and 2) has each
#      kept stage's GB/s and % of reference: numbers for a correct stage on a GPU, and otherwise
#      words, never a number (on the CPU emulator: "no time", the emulator named);
#   2. a zip of a labs/ folder with one stage missing, one that does not compile, one unfilled
#      skeleton, the rest reference solutions, and a decoy copy of a stage file elsewhere: those
#      three stages 0 with the reason in their output (the compiler's message for the one that
#      does not compile), the rest full;
#      with "hang", also one stage whose kernel never ends (the grader's corpus's endless loop):
#      0, with the emulator's "still running" in its output. AUTOGRADER_TIME_LIMIT=240 then: the
#      emulator stops an endless loop after 10 s of CPU time, but its ThreadSanitizer build does
#      not always, and then the race check runs to the grader's 15-minute limit; the time limit
#      cuts it, and the rest must be reported all the same (4 minutes: not in CI by default);
#   3. the reference again with AUTOGRADER_TIME_LIMIT=40, too short to finish: results.json must
#      still come, every stage in it, saying that grading stopped;
#   4. the results folder not writable: run_autograder must exit non-zero at once and say so;
#   5. an image where setup.sh did not finish: every stage 0, the output says the autograder
#      failed, the leaderboard says not graded, exit 0 (results.json was written).
# Needs 4 kept stages (3 broken + 1 correct), 5 with hang.
set -uo pipefail
edition=$1 scripts=$2 kit=$3 work=$4 wanted=$5 hang=${6:-}
fail() { echo "FAILED: $*"; exit 1; }
seconds() { date +%s; }

[ -f "$edition/edition.cmake" ] || fail "$edition is not a student edition (no edition.cmake)"
rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
absolute() { (cd "$1" && pwd); }
edition=$(absolute "$edition") scripts=$(absolute "$scripts") kit=$(absolute "$kit") work=$(absolute "$work")
zip="$work/autograder.zip"

echo "== autograder.zip (make_zip.cmake, as the gradescope target runs it)"
cmake "-DEDITION=$edition" "-DSCRIPTS=$scripts" "-DZIP=$zip" -P "$scripts/make_zip.cmake" || fail "make_zip.cmake failed"
python3 - "$zip" <<'EOF' || fail "autograder.zip does not have Gradescope's layout"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in z.infolist()}
bad = []
for script in ("setup.sh", "run_autograder"):
    if script not in modes:
        bad.append(script + " is not at the zip's root")
    elif not modes[script] & 0o100:
        bad.append(script + " is not executable (mode %o)" % modes[script])
for needed in ("reduction-lab-kit/edition.cmake", "reduction-lab-kit/CMakeLists.txt", "reduction-lab-kit/common/stages.def",
               "reduction-lab-kit/kit.json"):
    if needed not in modes:
        bad.append(needed + " is missing")
if any(n.startswith("reduction-lab-kit/solutions/") for n in modes):
    bad.append("the zip has solutions/")
print("\n".join(bad) or "layout ok: %d entries" % len(modes))
sys.exit(1 if bad else 0)
EOF

root="$work/root"
mkdir -p "$root/source" "$root/submission" "$root/results"
(cd "$root/source" && cmake -E tar xf "$zip") || fail "cannot unpack $zip"
kit_edition="$root/source/reduction-lab-kit"
[ -x "$root/source/run_autograder" ] && [ -x "$root/source/setup.sh" ] || fail "the scripts lost their executable bit when unpacked"

# The stages kept: released and wanted, "K dir name" each (the edition's description, kit.json).
describe() { # FIELDS...: a line per stage of kit.json, its fields separated by spaces
    python3 - "$kit_edition/kit.json" "$@" <<'EOF'
import json, sys
for s in json.load(open(sys.argv[1]))["stages"]:
    print(" ".join(str(s[field]) for field in sys.argv[2:]))
EOF
}
released=$(describe number released | sed -n 's/ True$//p' | tr '\n' ' ')
released=${released% }
keep=""
for k in $released; do
    case ",$wanted," in *",$k,"*) keep="$keep $k" ;; esac
done
keep=${keep# }
[ -n "$keep" ] || fail "none of the stages $wanted is released by this edition (it has: $released)"
sed -i "s/^set(KIT_RELEASED_STAGES .*)$/set(KIT_RELEASED_STAGES $keep)/" "$kit_edition/edition.cmake"
# and its description (kit.json, which run_autograder reads where there is no build yet), by the
# edition's own generator
cmake "-DSOURCE=$kit_edition" "-DOUTPUT=$kit_edition/kit.json" -DEDITION=student "-DRELEASED=${keep// /,}" \
      -P "$kit_edition/common/kit_description.cmake" || fail "cannot describe the cut-down edition"
stage_lines=$(describe number dir name)
kept_lines=""
while read -r k dir name; do
    [ -n "$k" ] || continue
    case " $keep " in
    *" $k "*) kept_lines="$kept_lines$k $dir $name"$'\n' ;;
    *) rm -rf "${kit_edition:?}/labs/$dir" ;;
    esac
done <<< "$stage_lines"
count=$(printf '%s' "$kept_lines" | grep -c .)
echo "== the edition cut down to stages: $keep (released: $released)"

echo "== setup.sh (AUTOGRADER_ROOT=$root)"
start=$(seconds)
AUTOGRADER_ROOT="$root" "$root/source/setup.sh" > "$work/setup.log" 2>&1 || { tail -40 "$work/setup.log"; fail "setup.sh failed"; }
grep -q "setup.sh: installing" "$work/setup.log" && fail "setup.sh installed packages on a machine that has them all"
tail -2 "$work/setup.log"
echo "   ($(( $(seconds) - start )) s)"
cp "$root/source/run_autograder" "$root/run_autograder" # Gradescope's harness does this

# run_autograder with the files of SUBMISSION_DIR; RESULTS_CHECK is python reading results.json.
grade() { # NAME
    local name=$1 start rc
    start=$(seconds)
    (cd "$root" && AUTOGRADER_ROOT="$root" ./run_autograder) > "$work/$name.log" 2>&1
    rc=$?
    [ -f "$root/results/results.json" ] && cp "$root/results/results.json" "$work/$name-results.json"
    echo "   run_autograder exited $rc ($(( $(seconds) - start )) s); log: $work/$name.log"
    return $rc
}
# check_results EXPECTATIONS: "K full" or "K zero WORDS..." per line, for every kept stage; and
# the leaderboard: per stage with speed points, "stage K GB/s" and "stage K % of reference", a
# number only for a correct stage timed on a GPU, words otherwise (on the CPU emulator: no time)
check_results() {
    python3 - "$root/results/results.json" "$1" "$kit_edition/kit.json" <<'EOF'
import json, sys
try:
    results = json.load(open(sys.argv[1]))
except Exception as e:
    print("results.json is not valid JSON: %s" % e)
    sys.exit(1)
bad = []
tests = results.get("tests", [])
for t in tests:
    for key in ("name", "score", "max_score", "status", "output", "visibility"):
        if key not in t:
            bad.append("%s has no %s" % (t.get("name"), key))
    if t.get("status") not in ("passed", "failed"):
        bad.append("%s: status %r" % (t.get("name"), t.get("status")))
total = sum(t["score"] for t in tests)
if abs(results.get("score", -1) - total) > 1e-9:
    bad.append("top-level score %s is not the sum of the tests' %s" % (results.get("score"), total))
expected = {}
for line in sys.argv[2].strip().splitlines():
    k, verdict, *words = line.split(None, 2)
    expected[k] = (verdict, words[0] if words else "")
# each test named "stage K (problem): part" (run_autograder adds the problem from kit.json)
stages_seen = {t["name"].split()[1].rstrip(":") for t in tests}
if stages_seen != set(expected):
    bad.append("stages in results.json: %s, expected %s" % (sorted(stages_seen), sorted(expected)))
for k, (verdict, words) in sorted(expected.items()):
    mine = [t for t in tests if t["name"].split()[1].rstrip(":") == k]
    if len(mine) != 3:
        bad.append("stage %s has %d tests, not 3" % (k, len(mine)))
        continue
    score = sum(t["score"] for t in mine)
    line = "stage %s: %g of %g" % (k, score, sum(t["max_score"] for t in mine))
    if verdict == "full":
        for t in mine:
            no_gpu = "speedup" in t["name"] and "not measured (no GPU)" in t["output"]
            if no_gpu:
                continue
            if t["status"] != "passed" or t["score"] != t["max_score"]:
                bad.append("%s: %s, %g of %g: %s" % (t["name"], t["status"], t["score"], t["max_score"], t["output"][:300]))
    else:
        if score != 0 or any(t["status"] != "failed" for t in mine):
            bad.append("stage %s should score 0: %s" % (k, [(t["name"], t["score"], t["status"]) for t in mine]))
        if words.lower() not in mine[0]["output"].lower():
            bad.append("stage %s's output does not say %r: %s" % (k, words, mine[0]["output"][:600]))
        line += " (%s)" % mine[0]["output"].splitlines()[0][:110]
    print("   " + line)
print("   total %g of %g" % (total, sum(t["max_score"] for t in tests)))
board = results.get("leaderboard")
if not isinstance(board, list) or not all(isinstance(e, dict) and "name" in e and "value" in e for e in board):
    bad.append("leaderboard is not Gradescope's list of {name, value}: %r" % (board,))
    board = []
entries = {e["name"]: e for e in board}
on_gpu = not any("not measured (no GPU)" in t["output"] for t in tests)
gpu = str(entries.get("GPU", {}).get("value", ""))
if on_gpu == ("emulator" in gpu) or not gpu:
    bad.append("the leaderboard's GPU is %r, graded %s" % (gpu, "on a GPU" if on_gpu else "on the CPU emulator"))
speed_points = {str(s["number"]): float(s["points"]["speedup"]) for s in json.load(open(sys.argv[3]))["stages"]}
timed = []
for k, (verdict, _) in sorted(expected.items()):
    for name in ("stage %s GB/s" % k, "stage %s %% of reference" % k):
        entry = entries.get(name)
        if not speed_points.get(k):
            if entry:
                bad.append("%s is on the leaderboard, but stage %s earns no speed points" % (name, k))
            continue
        if not entry or entry.get("order") != "desc":
            bad.append("the leaderboard has no %r (order desc): %r" % (name, entry))
            continue
        value = entry["value"]
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if verdict == "full" and on_gpu:
            if not number or value <= 0:
                bad.append("%s: %r, not a measured number for a correct stage on a GPU" % (name, value))
        elif number or "no time" not in str(value):
            bad.append("%s: %r; without a time (%s) it must say so in words" % (
                name, value, "the CPU emulator" if verdict == "full" else "not correct or not graded"))
        elif verdict == "full" and "emulator" not in str(value):
            bad.append("%s: %r must say the CPU emulator times nothing" % (name, value))
        timed.append((verdict != "full", "%s = %s" % (name, value)))
timed.sort(key=lambda t: t[0])  # the correct stages' entries first: those that a GPU would fill
print("   leaderboard: GPU = %s; %s" % (gpu, "; ".join(t[1] for t in timed[:2]) +
                                       ("; %d more without a time" % (len(timed) - 2) if len(timed) > 2 else "")))
for b in bad:
    print("   WRONG: " + b)
sys.exit(1 if bad else 0)
EOF
}

echo "== 1. a reference solution, uploaded as a loose .cu file (the third kept stage; the others missing)"
# One correct stage graded in full here and one in the second run: each costs 10 to 30 s of
# emulated grading (stages 7 and 8 on 2 cores), and the upload's path is the same for every stage.
expect=""
i=0
while read -r k dir name; do
    [ -n "$k" ] || continue
    i=$((i + 1))
    if [ "$i" -eq 3 ]; then
        cp "$kit/solutions/$dir/$name.cu" "$root/submission/" || fail "no solution for stage $k"
        expect="$expect$k full"$'\n'
    else
        expect="$expect$k zero is missing"$'\n'
    fi
done <<< "$kept_lines"
grade reference || fail "run_autograder exited non-zero on the reference solution (log above)"
check_results "$expect" || { tail -30 "$work/reference.log"; fail "the reference did not get full emulated marks, or a missing stage not 0"; }

echo "== 2. a zip of labs/: missing, not compiling, unfilled${hang:+, endless loop}, the rest correct"
broken=3
[ "$hang" = hang ] && broken=4
[ "$count" -gt "$broken" ] || fail "the broken submission needs $((broken + 1)) stages, the edition kept $count ($keep)"
rm -rf "${root:?}/submission" "$work/labs" && mkdir -p "$root/submission" "$work/labs"
expect=""
i=0
while read -r k dir name; do
    [ -n "$k" ] || continue
    i=$((i + 1))
    file="$work/labs/$dir/$name.cu"
    mkdir -p "$work/labs/$dir"
    case $i in
    1) expect="$expect$k zero is missing"$'\n' ;; # no file at all
    2) # a reference solution with an undeclared name in it
        sed 's/^\(.*__syncthreads();\)/\1 undeclared_in_this_stage++;/' "$kit/solutions/$dir/$name.cu" > "$file"
        grep -q undeclared_in_this_stage "$file" || fail "could not break stage $k's solution"
        expect="$expect$k zero does not compile"$'\n'
        # a decoy with the same name elsewhere: the file under labs/<dir>/ is the one graded
        mkdir -p "$work/labs/old" && cp "$kit/solutions/$dir/$name.cu" "$work/labs/old/$name.cu" ;;
    3) cp "$kit_edition/labs/$dir/$name.cu" "$file"
        expect="$expect$k zero fill in the TODO"$'\n' ;;
    4) [ "$hang" = hang ] || { cp "$kit/solutions/$dir/$name.cu" "$file"; expect="$expect$k full"$'\n'; continue; }
        # the corpus's endless loop, registered as this stage
        sed "s/KIT_REGISTER_STAGE(endless_loop,/KIT_REGISTER_STAGE($name,/" "$kit/tests/wrong_kernels/endless_loop.cu" > "$file"
        expect="$expect$k zero still running"$'\n' ;;
    *) cp "$kit/solutions/$dir/$name.cu" "$file"
        expect="$expect$k full"$'\n' ;;
    esac
done <<< "$kept_lines"
(cd "$work" && cmake -E tar cf "$root/submission/my-labs.zip" --format=zip labs) || fail "cannot zip the labs"
AUTOGRADER_TIME_LIMIT=$([ "$hang" = hang ] && echo 240 || echo 1200) grade broken ||
    fail "run_autograder exited non-zero on a broken submission (it must report, not fail)"
check_results "$expect" || { tail -30 "$work/broken.log"; fail "the broken submission was not graded as expected"; }
grep -q "undeclared_in_this_stage" "$root/results/results.json" || fail "the compiler's message is not in results.json"

echo "== 3. the reference with a time limit too short to finish (40 s)"
rm -rf "${root:?}/submission" && mkdir -p "$root/submission"
while read -r k dir name; do
    [ -n "$k" ] || continue
    cp "$kit/solutions/$dir/$name.cu" "$root/submission/"
done <<< "$kept_lines"
AUTOGRADER_TIME_LIMIT=40 grade short || fail "run_autograder exited non-zero when its time ran out"
python3 - "$root/results/results.json" "$keep" <<'EOF' || fail "no complete results.json when the time ran out"
import json, sys
r = json.load(open(sys.argv[1]))
stages = sys.argv[2].split()
bad = []
for k in stages:
    n = len([t for t in r["tests"] if t["name"].split()[1].rstrip(":") == k])  # "stage K (problem): part"
    if n != 3:
        bad.append("stage %s has %d tests, not 3" % (k, n))
if "Grading stopped after" not in r["output"]:
    bad.append("the output does not say that grading stopped: %r" % r["output"][:300])
if abs(r["score"] - sum(t["score"] for t in r["tests"])) > 1e-9:
    bad.append("the score is not the sum of the tests'")
print("   %g of %g points; %s" % (r["score"], sum(t["max_score"] for t in r["tests"]), "; ".join(bad) or "every stage reported"))
sys.exit(1 if bad else 0)
EOF

# The partial report is the edition's: no row for a stage it does not hand out.
every_stage=$(python3 -c 'import json, sys; print(" ".join(str(s["number"]) for s in json.load(open(sys.argv[1]))["stages"]))' \
              "$edition/kit.json") || fail "cannot read $edition/kit.json"
for k in $every_stage; do
    case " $keep " in *" $k "*) continue ;; esac
    ! grep -Eq "^$k +not run" "$work/short.log" || fail "the partial report lists stage $k, which the edition does not have"
done

echo "== 4. results.json cannot be written"
rm -rf "$root/results" && echo "not a folder" > "$root/results"
rm -rf "${root:?}/submission" && mkdir -p "$root/submission"
start=$(seconds)
if grade unwritable; then
    fail "run_autograder exited 0 though it could not write results.json"
fi
[ $(( $(seconds) - start )) -lt 30 ] || fail "run_autograder graded before finding that it could not write results.json"
grep -q "cannot write" "$work/unwritable.log" || fail "run_autograder did not say it could not write results.json"
echo "== 5. an image where setup.sh did not finish"
bare="$work/bare"
mkdir -p "$bare/results" "$bare/submission" "$bare/source" && cp "$root/run_autograder" "$bare/" &&
    tar -C "$root/source" --exclude=./reduction-lab-kit/build -cf - . | tar -C "$bare/source" -xf - # the zip, no build
(cd "$bare" && AUTOGRADER_ROOT="$bare" ./run_autograder) > "$work/bare.log" 2>&1 ||
    fail "run_autograder exited non-zero though it could write results.json (log: $work/bare.log)"
python3 - "$bare/results/results.json" "$keep" <<'EOF' || fail "no results.json saying the autograder failed"
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
if sorted({t["name"].split()[1].rstrip(":") for t in r["tests"]}) != sorted(sys.argv[2].split()):
    bad.append("not every stage is in results.json")
if r["score"] != 0 or "tell your instructor" not in r["output"]:
    bad.append("score %s, output %r" % (r["score"], r["output"][:200]))
board = r.get("leaderboard") or []
if not board or board[0] != {"name": "GPU", "value": "none: not graded"} or \
        any(isinstance(e["value"], (int, float)) for e in board):
    bad.append("the leaderboard must say not graded, with no number: %r" % board[:3])
print("   %s" % ("; ".join(bad) or "every stage 0, the output says the autograder failed, the leaderboard not graded"))
sys.exit(1 if bad else 0)
EOF
echo "ok: full emulated marks for the reference, clear zeros for the broken stages, a report whatever happens, non-zero exit only without results.json"

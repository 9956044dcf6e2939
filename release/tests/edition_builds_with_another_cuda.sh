#!/bin/sh
# A student edition made with this build's CUDA builds, runs the ladder and grades with an nvcc of
# another CUDA major (release/CMakeLists.txt: KIT_RELEASE_EXTRA_NVCC; CUDA 12 for a CUDA 13 build),
# as a student with that toolkit does:
#   edition_builds_with_another_cuda.sh EDITION COPY KIT NVCC STAGE
# copies EDITION afresh to COPY, drops KIT's reference solution of STAGE into its lab, configures
# with -DCMAKE_CUDA_COMPILER=NVCC (building STAGE's grading only: KIT_GRADE_STAGES), builds, runs
# the ladder (every prebuilt reference stage) and `cmake --build build --target check-stageSTAGE`,
# which must give the stage every point it can get here: all of them on a GPU, correctness and the
# race check on the CPU emulator (speed needs a GPU). It also checks that the build took
# reference/gpu/cuda<NVCC's major>/ and links NVCC's own runtime, never the other major's.
# Writes COPY/{configure,build,ladder,check}.log. Exit 0 when all of that holds. JOBS: build jobs (2).
set -u
edition=$1 copy=$2 kit=$3 nvcc=$4 stage=$5
fail() { echo "FAILED: $*"; exit 1; }

if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
    fail "no CUDA 12 nvcc for the edition to build with${nvcc:+ ($nvcc is not there)}: release/cuda12_toolchain.sh installs one (./setup.sh runs it), then configure this build again"
fi
version=$("$nvcc" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')
major=${version%%.*}
[ -n "$major" ] || fail "$nvcc --version names no CUDA version"
[ -f "$edition/edition.cmake" ] || fail "$edition is not a student edition (no edition.cmake)"
[ -d "$edition/reference/gpu/cuda$major" ] ||
    fail "the edition has no reference stages for CUDA $major (reference/gpu/cuda$major): it was written without an nvcc of CUDA $major (KIT_RELEASE_EXTRA_NVCC)"
dir=$(python3 -c 'import json, sys
print(next("%s/%s" % (s["dir"], s["name"]) for s in json.load(open(sys.argv[1]))["stages"] if s["number"] == int(sys.argv[2])))' \
      "$edition/kit.json" "$stage") || fail "stage $stage is not in $edition/kit.json"

# A student with that toolkit alone: nothing of this machine's other CUDA from the environment (here
# CUDA_HOME and LIBRARY_PATH name CUDA 13's).
unset CUDA_HOME CUDA_PATH CUDACXX CUDAHOSTCXX CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH
rm -rf "$copy" && mkdir -p "$(dirname "$copy")" && cp -R "$edition" "$copy" || fail "cannot copy $edition"
cp "$kit/solutions/$dir.cu" "$copy/labs/$dir.cu" || fail "cannot copy the reference solution of stage $stage"
cd "$copy" || exit 1

echo "== cmake -S . -B build -DCMAKE_CUDA_COMPILER=$nvcc (CUDA $version), stage $stage's grading only"
cmake -S . -B build -DKIT_WERROR=ON "-DCMAKE_CUDA_COMPILER=$nvcc" "-DKIT_GRADE_STAGES=$stage" > configure.log 2>&1 ||
    { tail -30 configure.log; fail "configure failed with CUDA $version"; }
grep "Reference stages:" configure.log
grep -q "Reference stages: reference/gpu/cuda$major, built with CUDA" configure.log ||
    { tail -30 configure.log; fail "configure did not take reference/gpu/cuda$major"; }
echo "== cmake --build build -j${JOBS:-2}"
cmake --build build -j"${JOBS:-2}" > build.log 2>&1 || { tail -50 build.log; fail "the edition does not build with CUDA $version"; }
# What was linked: the prebuilt reference of this major, and this major's runtime library only.
grep -rqs "reference/gpu/cuda$major/libkit_reference_stage$stage.a" build --include=link.txt --include=linkLibs.rsp ||
    fail "no program links reference/gpu/cuda$major/libkit_reference_stage$stage.a"
needed=$(readelf -d build/reduce_ladder | sed -n 's/.*Shared library: \[\(libcudart[^]]*\)\].*/\1/p')
echo "reduce_ladder needs: ${needed:-no shared libcudart (the static one)}"
case $needed in *libcudart.so.$major* | "") ;; *) fail "reduce_ladder links $needed, not CUDA $major's runtime" ;; esac

# The programs load the toolkit's libcudart.so.N: a toolkit outside the loader's paths (NVIDIA's
# packages add theirs to /etc/ld.so.conf.d) needs LD_LIBRARY_PATH, as its install guide says.
LD_LIBRARY_PATH="$(dirname "$nvcc")/../lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
echo "== ./build/reduce_ladder --n 100000 --reps 20"
./build/reduce_ladder --n 100000 --reps 20 > ladder.log 2>&1 || { cat ladder.log; fail "reduce_ladder failed"; }
cat ladder.log

echo "== cmake --build build --target check-stage$stage (the reference solution in labs/$dir.cu)"
cmake --build build --target "check-stage$stage" > check.log 2>&1
code=$?
sed -n '/^stage  *correct/,/^total/p' check.log
[ $code -eq 0 ] || { tail -60 check.log; fail "check-stage$stage failed"; }
python3 - "build/grade/results-stage$stage.json" "$stage" << 'EOF' || fail "stage $stage did not get its points (above)"
import json, sys
results = json.load(open(sys.argv[1]))
bad = []
tests = [t for t in results["tests"] if t["name"].startswith("stage %s:" % sys.argv[2])]
if not tests:
    bad.append("no result for stage %s" % sys.argv[2])
for t in tests:
    no_gpu = "speedup" in t["name"] and "not measured (no GPU)" in t["output"]
    if no_gpu:
        continue
    if t["status"] != "passed" or t["score"] != t["max_score"]:
        bad.append("%s: %s, %s of %s (%s)" % (t["name"], t["status"], t["score"], t["max_score"], t["output"][:200]))
for b in bad:
    print("  " + b)
print("stage %s: %s of %s" % (sys.argv[2], sum(t["score"] for t in tests), sum(t["max_score"] for t in tests)))
sys.exit(1 if bad else 0)
EOF
echo "ok: the edition built with CUDA $version, ran the ladder and graded stage $stage"

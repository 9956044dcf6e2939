#!/usr/bin/env bash
# The GPU side of "any CUDA from 12 on": one student edition, made here with CUDA 13 and a CUDA 12
# nvcc beside it, built, its ladder run and a stage graded on a machine with a GPU, once with that
# machine's nvcc (CUDA 13) and once with the CUDA 12 toolkit carried along, by the same script as
# the kit's test (release/tests/edition_builds_with_another_cuda.sh), plus the full ladder.
#   release/tests/any_cuda_on_a_gpu.sh pack BUILD DIR        here: BUILD's autograder tests' edition
#        (written with a CUDA 12 nvcc: KIT_RELEASE_EXTRA_NVCC) to DIR/edition, and the CUDA 12 toolkit
#        of release/cuda12_toolchain.sh --where to DIR/cuda-12.tar.xz (about 35 MB: what building
#        needs, without libnvvm and the tools that read binaries; nvlink stays: CMake's compiler
#        check links device code, and would take the machine's CUDA 13 nvlink from PATH)
#   release/tests/any_cuda_on_a_gpu.sh run DIR OUT [STAGE]   there (no network needed): writes
#        OUT/summary.txt (the GPU, the driver, for each CUDA the result, the grade and the ladder)
#        and OUT/cuda<N>.log (each run's whole output); STAGE defaults to 7. Exit 0 when both pass.
#        Packages the machine lacks go in DIR/debs/ as .deb files (Check and subunit: apt-get download
#        check libsubunit-dev libsubunit0 here), unpacked over / there.
# With the device tool, from the kit's top (DIR inside it, ignored by git as build-*/ is):
#   make the edition:  cmake -S . -B build-any-cuda && cmake --build build-any-cuda --target autograder-test-edition
#                      (its configure must say "reference stages for CUDA 13 (...) and 12 (...)")
#   pack:              release/tests/any_cuda_on_a_gpu.sh pack build-any-cuda build-any-cuda/gpu-run
#                      mkdir -p build-any-cuda/gpu-run/debs && (cd build-any-cuda/gpu-run/debs &&
#                          apt-get download check libsubunit-dev libsubunit0)
#   run there:         bash release/tests/any_cuda_on_a_gpu.sh run build-any-cuda/gpu-run $OUT 7
#                      (carry: build-any-cuda/gpu-run)
set -uo pipefail
die() { printf 'any_cuda_on_a_gpu.sh: %s\n' "$*" >&2; exit 2; }
kit=$(cd "$(dirname "$0")/../.." && pwd)

case ${1:-} in
pack)
    [ $# -eq 3 ] || die "usage: $0 pack BUILD DIR"
    build=$2 dir=$3
    edition="$build/autograder-test/edition/reduction-lab-kit"
    [ -f "$edition/edition.cmake" ] ||
        die "$edition is missing: cmake --build $build --target autograder-test-edition first"
    ls -d "$edition"/reference/gpu/cuda12 > /dev/null 2>&1 ||
        die "$edition has no reference stages for CUDA 12: configure $build where release/cuda12_toolchain.sh --where finds one"
    nvcc=$(bash "$kit/release/cuda12_toolchain.sh" --where) || die "no CUDA 12 toolkit: bash release/cuda12_toolchain.sh installs one"
    top=$(cd "$(dirname "$nvcc")/.." && pwd)
    rm -rf "$dir/edition" "$dir/cuda-12.tar.xz" && mkdir -p "$dir" && cp -R "$edition" "$dir/edition" ||
        die "cannot write $dir" # DIR/debs stays
    tar -C "$(dirname "$top")" -cf - --exclude="$(basename "$top")/nvvm/lib64" --exclude="$(basename "$top")/bin/cuobjdump" \
        --exclude="$(basename "$top")/bin/nvprune" "$(basename "$top")" | xz -T0 -6 > "$dir/cuda-12.tar.xz" ||
        die "cannot pack $top"
    du -sh "$dir/edition" "$dir/cuda-12.tar.xz"
    ;;
run)
    [ $# -ge 3 ] && [ $# -le 4 ] || die "usage: $0 run DIR OUT [STAGE]"
    dir=$(cd "$2" && pwd) || die "no folder $2"
    out=$3 stage=${4:-7}
    mkdir -p "$out" || die "cannot write $out"
    summary="$out/summary.txt"
    # Packages the build needs that the machine may lack (Check and subunit for the grader), as
    # .deb files in DIR/debs: unpacked over / (the machine is a throwaway one).
    for deb in "$dir"/debs/*.deb; do
        [ -f "$deb" ] && { dpkg -x "$deb" / || die "cannot unpack $deb"; }
    done
    work=$(mktemp -d)
    chmod 755 "$work" # the grader's sandbox runs the stage as user nobody where bubblewrap is missing
    mkdir -p "$work/cuda12" && tar -C "$work/cuda12" -xJf "$dir/cuda-12.tar.xz" || die "cannot unpack $dir/cuda-12.tar.xz"
    nvcc12=$(ls "$work"/cuda12/*/bin/nvcc)
    nvcc13=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    {
        echo "Any CUDA from 12 on, on a GPU: $(date -u '+%Y-%m-%d %H:%M UTC'), kit $(git -C "$kit" rev-parse --short HEAD 2> /dev/null || echo '?')"
        nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>&1 | sed 's/^/GPU: /'
        echo "edition: $(grep -h '^set(KIT_REFERENCE_CUDA_VERSIONS' "$dir/edition/edition.cmake"), stages $(sed -n 's/^set(KIT_RELEASED_STAGES \(.*\))/\1/p' "$dir/edition/edition.cmake"); graded: stage $stage"
        echo "host compiler: $(c++ --version | head -n 1)"
    } > "$summary"
    status=0
    for nvcc in "$nvcc13" "$nvcc12"; do
        version=$("$nvcc" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')
        major=${version%%.*}
        copy="$work/edition-cuda$major"
        start=$(date +%s)
        JOBS=$(nproc) sh "$kit/release/tests/edition_builds_with_another_cuda.sh" "$dir/edition" "$copy" "$kit" "$nvcc" "$stage" \
            > "$out/cuda$major.log" 2>&1
        code=$?
        [ $code -eq 0 ] || status=1
        {
            echo
            echo "== nvcc $nvcc (CUDA $version): $([ $code -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
            grep -E '^(Reference stages|-- Reference stages|reduce_ladder needs|ok:|FAILED)' "$out/cuda$major.log"
            sed -n '/^stage  *correct/,/^total/p' "$out/cuda$major.log"
            if [ -x "$copy/build/reduce_ladder" ]; then
                echo "-- ./build/reduce_ladder (2^26 ints)"
                (cd "$copy" && LD_LIBRARY_PATH="$(dirname "$nvcc")/../lib64" ./build/reduce_ladder --no-host 2>&1) | tee -a "$out/cuda$major.log"
            fi
        } >> "$summary"
    done
    cat "$summary"
    rm -rf "$work"
    exit $status
    ;;
*)
    die "usage: $0 pack BUILD DIR | run DIR OUT [STAGE]"
    ;;
esac

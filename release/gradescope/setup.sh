#!/usr/bin/env bash
# Gradescope's set-up for the GPU reduction lab kit (autograder.zip, made by
# `cmake --build build --target gradescope`). Gradescope runs it once, as root, when it builds
# the autograder's image, with the zip unpacked in /autograder/source:
#   1. installs with apt-get what the image lacks: CMake, make, gcc/g++, pkg-config, Check and
#      subunit, Boost.Context (the CPU emulator), bubblewrap (the grader's sandbox), python3
#      (run_autograder); a CMake older than the kit needs is replaced by pip's;
#   2. where no nvcc is found (PATH, /usr/local/cuda/bin, /usr/local/cuda-*/bin), the CUDA
#      toolkit from NVIDIA's apt repository, the series the edition's reference stages were built
#      with (its description, kit.json: reference_cuda): cuda-nvcc, cuda-cudart-dev, cuda-cccl, cuda-cuobjdump and
#      cuda-sanitizer, e.g. cuda-nvcc-13-0;
#   3. configures the edition in its own build folder (source/reduction-lab-kit/build, laid out
#      as every copy of the kit is, so a compiler cache that has the kit's objects serves it),
#      grading a copy of its labs ($AUTOGRADER_ROOT/grading/labs, which run_autograder refills
#      for every submission), and builds what grading needs (grade-programs), so that a
#      submission only compiles its own stage files.
# AUTOGRADER_ROOT (default /autograder) moves everything, for testing; AUTOGRADER_CMAKE_ARGS adds
# CMake options (e.g. -DKIT_REQUIRE_GPU=ON where the grading machines have a GPU).
# Exits non-zero, saying why, when something is missing that it cannot install or the build fails.
set -euo pipefail

root=${AUTOGRADER_ROOT:-/autograder}
here=$(cd "$(dirname "$0")" && pwd)
edition="$here/reduction-lab-kit"
work="$root/grading"

say() { printf 'setup.sh: %s\n' "$*"; }
die() { printf 'setup.sh: %s\n' "$*" >&2; exit 1; }

[ $# -eq 0 ] || die "takes no arguments (AUTOGRADER_ROOT and AUTOGRADER_CMAKE_ARGS are read from the environment)"
[ -f "$edition/CMakeLists.txt" ] && [ -f "$edition/kit.json" ] && [ -d "$edition/labs" ] ||
    die "$edition is not the kit's student edition (no CMakeLists.txt, kit.json or labs/): was autograder.zip made by the gradescope target?"

# ---------------------------------------------------------------- 1. packages
as_root=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo > /dev/null && as_root=(sudo)
fi
apt_install() { # PACKAGE...: apt-get install, as root
    if [ "$(id -u)" -ne 0 ] && [ ${#as_root[@]} -eq 0 ]; then
        die "these packages are missing: $*; run this script as root (Gradescope does)"
    fi
    say "installing: $*"
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq ||
        die "apt-get update failed (its message is above)"
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" > /dev/null ||
        die "apt-get could not install $* (its message is above)"
}
installed() { dpkg-query -W -f='${Status}' "$1" 2> /dev/null | grep -q "install ok installed"; }

command -v apt-get > /dev/null && command -v dpkg-query > /dev/null ||
    die "this script installs with apt-get (Gradescope's images are Ubuntu)"
packages=(cmake make gcc g++ pkg-config check libsubunit-dev libboost-context-dev bubblewrap python3
          ca-certificates wget util-linux)
missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"

# CMake: the version the kit asks for (cmake_minimum_required); Ubuntu 22.04's is older.
need=$(sed -n 's/^cmake_minimum_required(VERSION \([0-9.]*\).*/\1/p' "$edition/CMakeLists.txt" | head -n 1)
cmake_ok() {
    local have
    have=$(cmake --version 2> /dev/null | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')
    [ -n "$have" ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1)" = "$need" ]
}
if [ -n "$need" ] && ! cmake_ok; then
    say "$(cmake --version | head -n 1) is older than the $need the kit needs: installing CMake with pip"
    installed python3-pip || apt_install python3-pip
    "${as_root[@]}" python3 -m pip install --quiet "cmake>=$need" ||
        "${as_root[@]}" python3 -m pip install --quiet --break-system-packages "cmake>=$need" ||
        die "pip could not install CMake $need or later"
    hash -r
    cmake_ok || die "CMake is still older than $need after pip installed it (is /usr/local/bin on PATH?)"
fi

# ---------------------------------------------------------------- 2. nvcc
find_nvcc() {
    command -v nvcc 2> /dev/null && return
    local candidate
    for candidate in /usr/local/cuda/bin/nvcc $(ls -d /usr/local/cuda-*/bin/nvcc 2> /dev/null | sort -V -r); do
        [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
    return 0
}
nvcc=$(find_nvcc)
# The toolkit series the reference stages were built with (kit.json's reference_cuda): "13.0.88" -> 13.0
reference_cuda=$(python3 -c 'import json, re, sys
m = re.match(r"^\d+\.\d+", str(json.load(open(sys.argv[1])).get("reference_cuda", "")))
print(m.group(0) if m else "")' "$edition/kit.json" 2> /dev/null || true)
if [ -z "$nvcc" ]; then
    [ -n "$reference_cuda" ] || die "no nvcc found, and $edition/kit.json names no CUDA version to install (reference_cuda)"
    # NVIDIA's apt repository (https://developer.nvidia.com/cuda-downloads, Linux, deb (network)).
    . /etc/os-release
    distro="${ID}${VERSION_ID//./}" # ubuntu2204, ubuntu2404, debian12
    case $(uname -m) in
    x86_64) arch=x86_64 ;;
    aarch64) arch=sbsa ;;
    *) die "no CUDA repository for the $(uname -m) processor" ;;
    esac
    series=${reference_cuda/./-} # 13-0
    repo="https://developer.download.nvidia.com/compute/cuda/repos/$distro/$arch"
    say "no nvcc found: installing CUDA $reference_cuda from $repo"
    keyring=$(mktemp -d)/cuda-keyring_1.1-1_all.deb
    wget -q -O "$keyring" "$repo/cuda-keyring_1.1-1_all.deb" ||
        die "cannot download $repo/cuda-keyring_1.1-1_all.deb (is $distro supported by CUDA $reference_cuda?)"
    "${as_root[@]}" dpkg -i "$keyring" > /dev/null || die "cannot install NVIDIA's repository key"
    apt_install "cuda-nvcc-$series" "cuda-cudart-dev-$series" "cuda-cccl-$series" "cuda-cuobjdump-$series" \
                "cuda-sanitizer-$series"
    nvcc="/usr/local/cuda-$reference_cuda/bin/nvcc"
    [ -x "$nvcc" ] || die "the CUDA packages are installed but $nvcc is not there"
fi
say "nvcc: $nvcc ($("$nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/CUDA \1/p'))"
# compute-sanitizer and cuobjdump beside it, where the toolkit has them (the GPU checks).
export PATH="$(dirname "$nvcc"):$PATH"

# ---------------------------------------------------------------- 3. configure and build
mkdir -p "$work"
rm -rf "$work/labs"
cp -R "$edition/labs" "$work/labs"
jobs=$(nproc 2> /dev/null || echo 2)
build="$edition/build"
# shellcheck disable=SC2086 # AUTOGRADER_CMAKE_ARGS is a list of options
cmake -S "$edition" -B "$build" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_COMPILER="$nvcc" -DKIT_LABS_DIR="$work/labs" ${AUTOGRADER_CMAKE_ARGS:-} ||
    die "cmake could not configure $edition (its message is above)"
cmake --build "$build" -j "$jobs" --target grade-programs || die "the kit does not build (the compiler's messages are above)"
ls "$build/runners/"run_labs_stage*_emu > /dev/null 2>&1 ||
    die "the CPU emulator was not built (Boost.Context missing?): without a GPU nothing could be graded"

# The grader runs student code as user nobody where bubblewrap cannot run (a container without
# user namespaces): nobody must be able to reach the runners.
if [ "$(id -u)" -eq 0 ]; then
    for dir in "$build" "$work"; do
        while [ "$dir" != "/" ]; do
            perms=$(stat -c %A "$dir")
            if [ "${perms:9:1}" != "x" ] && [ "${perms:9:1}" != "t" ]; then
                say "chmod o+x $dir (user nobody runs the graded programs below it)"
                chmod o+x "$dir"
            fi
            dir=$(dirname "$dir")
        done
    done
fi

date -u +"%Y-%m-%dT%H:%M:%SZ set up with $nvcc" > "$work/ready"
say "ready: $build grades $work/labs (run_autograder fills it from each submission)"

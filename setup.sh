#!/usr/bin/env bash
# The kit's first command, on Debian or Ubuntu with or without a GPU:
#   ./setup.sh [CMAKE_OPTION...]        e.g. ./setup.sh -DKIT_WERROR=ON
# 1. installs what the machine lacks (apt-get, as root or through sudo; otherwise it prints the
#    apt-get line to run as root and stops): CMake, make, a C and C++ compiler, pkg-config, Check
#    and subunit (the tests), Boost.Context (the CPU emulator), bubblewrap (the grader's
#    sandbox) and, where this tree builds its documentation (Doxyfile), doxygen, graphviz and
#    python3 (and python3-yaml, for the test of the GitHub Classroom workflow; python3-nbclient and
#    python3-ipykernel, for the test of the Colab notebook; ccache, through which every build of the
#    kit compiles (build-ref/ reuses build/'s objects, the kits the tests build reuse build-ref/'s,
#    a class's submissions each other's); pipx, and with it compare50
#    from PyPI, which tests/class/grade_class.py --similarity compares a class's files with);
# 2. finds nvcc, the CUDA toolkit's compiler: on PATH, else in /usr/local/cuda/bin; where it is
#    CUDA 13 or later and this tree is the instructor's kit, also a CUDA 12 toolkit beside it
#    (release/cuda12_toolchain.sh, which needs python3-pip and debian-archive-keyring: in
#    ~/.local/share/reduction-lab-kit/cuda-12.4, no root), with which student editions are built
#    for CUDA 12 too and the kit's test builds one;
# 3. configures build/ (cmake -S . -B build CMAKE_OPTION...), builds it and runs
#    ./build/reduce_ladder: on your GPU, or on the kit's CPU emulator where there is none.
# Running it again installs nothing new and rebuilds what changed. It exits non-zero, saying
# why, when something is missing that it cannot install, or when the build or the ladder fails.
set -euo pipefail
cd "$(dirname "$0")"

say() { printf 'setup.sh: %s\n' "$*"; }
die() { printf 'setup.sh: %s\n' "$*" >&2; exit 1; }

for arg in "$@"; do
    case $arg in
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) ;;
    *) printf 'setup.sh: %s is not a CMake option (-DNAME=VALUE)\nusage: ./setup.sh [CMAKE_OPTION...]\n' \
              "$arg" >&2; exit 2 ;;
    esac
done

# ---------------------------------------------------------------- 1. packages
packages=(cmake make gcc g++ pkg-config check libsubunit-dev libboost-context-dev bubblewrap
          python3 binutils)                                # reduce_ladder --picture: the drawing, addr2line
[ -f Doxyfile ] && packages+=(doxygen graphviz python3   # the documentation (make docs)
                               python3-yaml               # the kit's test of the Classroom workflow
                               python3-selenium chromium chromium-driver # the trace picture's browser test
                               python3-nbclient python3-ipykernel # the kit's test of the Colab notebook
                               ccache                     # every build of the kit: one compiler cache
                               ninja-build                # grade_class.py: each submission's build
                               pipx)                      # compare50 (below): grade_class.py --similarity
[ -f Doxyfile ] && packages+=(python3-pip debian-archive-keyring) # release/cuda12_toolchain.sh (step 2)
if ! command -v dpkg-query > /dev/null || ! command -v apt-get > /dev/null; then
    die "this script installs with apt-get (Debian, Ubuntu). Elsewhere install the equivalents of:
  ${packages[*]}
and the CUDA toolkit, then run: cmake -S . -B build && cmake --build build -j && ./build/reduce_ladder"
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        as_root=()
    elif command -v sudo > /dev/null; then
        as_root=(sudo)
    else
        die "these packages are missing: ${missing[*]}
You are not root and sudo is not installed. As root, run:
  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}
then run ./setup.sh again."
    fi
    say "installing: ${missing[*]}"
    if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq ||
       ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
           "${missing[@]}" > /dev/null; then
        die "apt-get could not install ${missing[*]} (its message is above)"
    fi
fi

# compare50 is on PyPI only; pipx keeps it in an environment of its own (Debian's Python refuses
# pip installs outside one) and puts the command in ~/.local/bin, where grade_class.py finds it.
if [ -f Doxyfile ] && ! command -v compare50 > /dev/null && [ ! -e "$HOME/.local/bin/compare50" ]; then
    say "installing compare50 (pipx install compare50), for tests/class/grade_class.py --similarity"
    if ! log=$(pipx install compare50 2>&1); then
        die "pipx could not install compare50:
$log
Install it by hand (pipx install compare50), then run ./setup.sh again."
    fi
fi

# CMake: the version the kit asks for (cmake_minimum_required in CMakeLists.txt).
need=$(sed -n 's/^cmake_minimum_required(VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt | head -n 1)
have=$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')
if [ -n "$need" ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1)" != "$need" ]; then
    die "CMake $have is older than the $need this kit needs. Get a newer one from Kitware's apt
repository (https://apt.kitware.com) or with pip (python3 -m pip install --user cmake), then run
./setup.sh again."
fi

# ---------------------------------------------------------------- 2. nvcc
nvcc=$(command -v nvcc || true)
off_path=""
if [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
    nvcc=/usr/local/cuda/bin/nvcc
    off_path=yes
    export PATH="/usr/local/cuda/bin:$PATH" # for this script's cmake; build/ then remembers it
fi
if [ -z "$nvcc" ]; then
    die "nvcc, the CUDA toolkit's compiler, is neither on PATH nor in /usr/local/cuda/bin.
Install the CUDA toolkit (12 or later; no GPU is needed for it): on Debian or Ubuntu, add NVIDIA's
repository as https://developer.nvidia.com/cuda-downloads shows (Linux, your distribution,
deb (network)), then: sudo apt-get install cuda-toolkit. If it is installed elsewhere, put
its bin folder on PATH. Then run ./setup.sh again."
fi
release=$("$nvcc" --version | sed -n 's/.*release \([0-9][0-9]*\)\..*/\1/p')
if [ -z "$release" ] || [ "$release" -lt 12 ]; then
    die "$nvcc is CUDA ${release:-of an unknown version}; the kit needs CUDA 12 or later
(https://developer.nvidia.com/cuda-downloads). Put the newer toolkit's bin folder first on PATH,
then run ./setup.sh again."
fi
say "nvcc: $nvcc (CUDA $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p'))"
# A student edition holds the reference stages built by each CUDA major it is given
# (release/CMakeLists.txt): with CUDA 12 beside this CUDA 13, students on CUDA 12 (Colab) can build it
# too, and the kit's test of that needs it. Not fatal: the build goes on, and that test says what to run.
if [ -f Doxyfile ] && [ -f release/cuda12_toolchain.sh ] && [ "$release" -ge 13 ]; then
    if cuda12=$(bash release/cuda12_toolchain.sh --where); then
        say "CUDA 12 beside it: $cuda12"
    else
        say "installing a CUDA 12 toolkit beside it (bash release/cuda12_toolchain.sh: about 1 GB downloaded, 2 minutes)"
        if cuda12=$(bash release/cuda12_toolchain.sh); then
            say "CUDA 12 beside it: $cuda12"
        else
            say "warning: no CUDA 12 toolkit (above): editions get CUDA $release's reference stages only, and the test
an_edition_made_with_cuda_${release}_builds_runs_the_ladder_and_grades_with_a_cuda_12_nvcc fails until
bash release/cuda12_toolchain.sh has installed one (then configure again)"
        fi
    fi
fi

# ---------------------------------------------------------------- 3. build, then the ladder
jobs=$(nproc 2> /dev/null || echo 2)
cmake -S . -B build "$@"
cmake --build build -j "$jobs"
if [ -n "$off_path" ]; then
    say "note: nvcc is not on your PATH. build/ remembers it; for another build folder, first run
  export PATH=/usr/local/cuda/bin:\$PATH   (add it to ~/.profile to keep it)"
fi
say "built; running ./build/reduce_ladder"
./build/reduce_ladder

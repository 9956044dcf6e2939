#!/usr/bin/env bash
# A CUDA 12 toolkit (nvcc 12.4.131) in a folder of its own, beside the machine's CUDA 13: with it
# the student edition's reference stages are also built for CUDA 12 (release/CMakeLists.txt,
# KIT_RELEASE_EXTRA_NVCC), so that students with a CUDA 12 toolkit (Colab, most laptops) can build
# the edition, and the kit's test builds and grades such an edition with it.
#   release/cuda12_toolchain.sh [PREFIX]           install into PREFIX (unless it is there), print its nvcc
#   release/cuda12_toolchain.sh --where [PREFIX]   print the nvcc of a CUDA 12 toolkit found, install nothing
# PREFIX: $KIT_CUDA12_HOME, else ~/.local/share/reduction-lab-kit/cuda-12.4 (no root needed).
# --where looks in PREFIX, then in /usr/local/cuda-12.*/bin (NVIDIA's packages, newest first) and
# exits 1, printing nothing, where there is none.
#
# Why two sources: PyPI's CUDA 12 wheels (nvidia-cuda-nvcc-cu12, -runtime-cu12, -cccl-cu12) hold
# the headers, ptxas, libdevice and the shared runtime library, but not nvcc itself, cicc,
# cudafe++, fatbinary or nvlink (every 12.x nvcc wheel has bin/ptxas alone), nor, before 12.9, the
# static runtime (libcudart_static.a, which CMake links by default) and libcudadevrt.a. Those come
# from Debian's non-free packages nvidia-cuda-toolkit and nvidia-cuda-dev of Debian 13 (trixie),
# the same release 12.4, unpacked with dpkg-deb (nothing is installed into the system; of
# nvidia-cuda-dev, 930 MB with every CUDA library, four files are kept). All are NVIDIA's own
# files, of one release. 12.4 also suits the students: its code runs on any driver of CUDA 12.4 or
# later (Colab's, in 2026), where code built by 12.9 would ask for a 12.9 driver.
# Needs: python3 with pip, apt-get and dpkg-deb, the Debian archive's key
# (/usr/share/keyrings/debian-archive-keyring.gpg; package debian-archive-keyring) and a Debian
# mirror: the machine's own (its apt sources), or KIT_DEBIAN_MIRROR=URL. About 1.1 GB are
# downloaded (and deleted; 2 GB of free space in TMPDIR), in about two minutes; the toolkit takes 180 MB.
# Programs built with it load its libcudart.so.12: run them with LD_LIBRARY_PATH=PREFIX/lib64 (NVIDIA's
# packages add their folder to the loader's paths instead).
# With NVIDIA's apt repository configured, its packages do the same in /usr/local/cuda-12.N
# (sudo apt-get install cuda-nvcc-12-4 cuda-cudart-dev-12-4 cuda-cccl-12-4), which --where finds.
set -euo pipefail

nvcc_version=12.4.131                        # nvcc, cicc, cudafe++ (Debian) and the crt headers (PyPI)
wheels=(nvidia-cuda-nvcc-cu12==12.4.131      # crt/ headers, ptxas, libnvvm, libdevice
        nvidia-cuda-runtime-cu12==12.4.127   # cuda_runtime.h, libcudart (12.4's runtime is 12.4.127)
        nvidia-cuda-cccl-cu12==12.4.127.post1) # CUB, Thrust, libcu++
deb_suite=trixie

say() { printf 'cuda12_toolchain.sh: %s\n' "$*" >&2; }
die() { printf 'cuda12_toolchain.sh: %s\n' "$*" >&2; exit 1; }

where=""
case ${1:-} in
--where) where=yes; shift ;;
-h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
-*) die "unknown option $1 (usage: release/cuda12_toolchain.sh [--where] [PREFIX])" ;;
esac
[ $# -le 1 ] || die "one PREFIX at most (usage: release/cuda12_toolchain.sh [--where] [PREFIX])"
prefix=${1:-${KIT_CUDA12_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/reduction-lab-kit/cuda-12.4}}

# is_cuda12 NVCC: NVCC runs and is CUDA 12.
is_cuda12() { [ -x "$1" ] && "$1" --version 2> /dev/null | grep -q 'release 12\.'; }

if [ -n "$where" ]; then
    for nvcc in "$prefix/bin/nvcc" $(ls -d /usr/local/cuda-12.*/bin/nvcc 2> /dev/null | sort -rV); do
        if is_cuda12 "$nvcc"; then
            echo "$nvcc"
            exit 0
        fi
    done
    exit 1
fi

if is_cuda12 "$prefix/bin/nvcc"; then
    echo "$prefix/bin/nvcc"
    exit 0
fi

# ---------------------------------------------------------------- what it needs
python3 -m pip --version > /dev/null 2>&1 ||
    die "python3's pip is missing (sudo apt-get install python3-pip), then run $0 again"
for tool in apt-get dpkg-deb; do
    command -v $tool > /dev/null || die "$tool is missing: this script takes nvcc from Debian's package (Debian or Ubuntu only)"
done
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f $keyring ] || die "$keyring is missing (sudo apt-get install debian-archive-keyring), then run $0 again"
mirror=${KIT_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then # the machine's own Debian mirror: the first URI of a Debian source of apt
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2> /dev/null |
             sed -n -e 's/^URIs: *\([^ ]*\/debian\/\{0,1\}\)$/\1/p' \
                    -e 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\/debian\/\{0,1\}\) .*/\2/p' | head -n 1 || true)
fi
[ -n "$mirror" ] || die "no Debian mirror in this machine's apt sources: set KIT_DEBIAN_MIRROR to one's URL (its /debian folder)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$prefix")"
build="$prefix.partial"
rm -rf "$build"

# ---------------------------------------------------------------- PyPI: headers, runtime, ptxas
say "downloading ${wheels[*]} (PyPI)"
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --no-compile --only-binary=:all: \
        --target "$work/pypi" "${wheels[@]}" ||
    die "pip could not install ${wheels[*]} (its message is above)"
pypi="$work/pypi/nvidia"

# ---------------------------------------------------------------- Debian: nvcc, cicc, cudafe++, static runtime
# A private apt (its own lists and cache): the machine's sources and packages are not touched.
say "downloading nvidia-cuda-toolkit and nvidia-cuda-dev of Debian $deb_suite (non-free) from $mirror"
apt="$work/apt"
mkdir -p "$apt/etc/apt.conf.d" "$apt/etc/preferences.d" "$apt/etc/sources.list.d" "$apt/lists/partial" \
         "$apt/cache/archives/partial"
echo "deb [signed-by=$keyring] $mirror $deb_suite non-free" > "$apt/etc/sources.list"
: > "$apt/status"
apt_options=(-o "Dir::Etc=$apt/etc" -o "Dir::State::Lists=$apt/lists" -o "Dir::State::status=$apt/status"
             -o "Dir::Cache=$apt/cache" -o APT::Architecture=amd64 -o APT::Sandbox::User=root -qq)
apt-get "${apt_options[@]}" update > "$work/apt.log" 2>&1 ||
    { cat "$work/apt.log" >&2; die "apt-get update failed on $mirror $deb_suite non-free (above)"; }
(cd "$work" && apt-get "${apt_options[@]}" download nvidia-cuda-toolkit nvidia-cuda-dev > "$work/apt.log" 2>&1) ||
    { cat "$work/apt.log" >&2; die "apt-get download nvidia-cuda-toolkit nvidia-cuda-dev failed (above)"; }
dpkg-deb -x "$work"/nvidia-cuda-toolkit_*.deb "$work/deb"
static=(libcudart_static.a libcudadevrt.a libculibos.a)
# cuda_profiler_api.h (the harness's cudaProfilerStart) is in no runtime wheel either.
dpkg-deb --fsys-tarfile "$work"/nvidia-cuda-dev_*.deb |
    tar -x -C "$work/deb" "${static[@]/#/./usr/lib/x86_64-linux-gnu/}" ./usr/include/cuda_profiler_api.h ||
    die "nvidia-cuda-dev has no ${static[*]} or cuda_profiler_api.h"
rm -f "$work"/*.deb
deb="$work/deb/usr"

# ---------------------------------------------------------------- the toolkit, laid out as NVIDIA's
# bin/ nvvm/ include/ lib64/ as in /usr/local/cuda, so that nvcc, CMake's CUDA language and
# find_package(CUDAToolkit) find everything from the nvcc's folder.
mkdir -p "$build/bin/crt" "$build/nvvm/bin" "$build/include" "$build/lib64"
cp "$deb/lib/nvidia-cuda-toolkit/bin/nvcc" "$build/bin/"      # /usr/bin/nvcc is Debian's wrapper script
cp "$deb/lib/nvidia-cuda-toolkit/bin/crt/"*.stub "$build/bin/crt/"
for tool in cudafe++ fatbinary nvlink bin2c nvprune cuobjdump; do
    cp "$deb/bin/$tool" "$build/bin/"
done
cp "$pypi/cuda_nvcc/bin/ptxas" "$build/bin/"
cp "$deb/lib/nvidia-cuda-toolkit/bin/cicc" "$build/nvvm/bin/"
cp -R "$pypi/cuda_nvcc/nvvm/lib64" "$pypi/cuda_nvcc/nvvm/libdevice" "$pypi/cuda_nvcc/nvvm/include" "$build/nvvm/"
for part in cuda_runtime cuda_nvcc cuda_cccl; do
    cp -R "$pypi/$part/include/." "$build/include/"
done
cp -R "$pypi/cuda_runtime/lib/." "$build/lib64/"
cp "${static[@]/#/$deb/lib/x86_64-linux-gnu/}" "$build/lib64/"
cp "$deb/include/cuda_profiler_api.h" "$build/include/"
find "$build/include" "$build/lib64" "$build/nvvm" \( -name '__init__.py' -o -name '__pycache__' \) -prune -exec rm -rf {} +
ln -s libcudart.so.12 "$build/lib64/libcudart.so"
ln -s lib64 "$build/lib"
cat > "$build/bin/nvcc.profile" << 'EOF'
# Written by the kit's release/cuda12_toolchain.sh: this toolkit's own folders, as in /usr/local/cuda.
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
chmod -R u+w,a+rX "$build"

# ---------------------------------------------------------------- it must compile and link
"$build/bin/nvcc" --version | grep -q "V$nvcc_version" ||
    die "Debian's nvidia-cuda-toolkit ($deb_suite) is no longer nvcc $nvcc_version: $("$build/bin/nvcc" --version | tail -n 2 | head -n 1); update the versions at the top of $0"
cat > "$work/probe.cu" << 'EOF'
#include <cstdio>
#include <cub/cub.cuh>
__global__ void probe(int *out) { *out = 12; }
int main() { int *d; cudaMalloc(&d, sizeof *d); probe<<<1, 1>>>(d); std::printf("%d\n", (int)cudaGetLastError()); return 0; }
EOF
# LIBRARY_PATH and CUDA_HOME may name the machine's other CUDA: nothing may come from there.
if ! env -u LIBRARY_PATH -u CUDA_HOME -u CUDA_PATH "$build/bin/nvcc" -arch=sm_70 --cudart static -o "$work/probe" \
         "$work/probe.cu" > "$work/probe.log" 2>&1; then
    cat "$work/probe.log" >&2
    die "nvcc $nvcc_version cannot build a CUDA program here (above). CUDA 12.4 supports gcc 6 to 13: where g++ is newer,
set CUDAHOSTCXX=g++-13 (sudo apt-get install g++-13) for the kit's builds."
fi
rm -rf "$prefix"
mv "$build" "$prefix"
say "CUDA $nvcc_version in $prefix"
echo "$prefix/bin/nvcc"

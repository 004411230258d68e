#!/usr/bin/env bash
# ensure-deps.sh: installs the Debian 12 packages shmemu needs, when any is missing.
#   scripts/ensure-deps.sh build    compiler and make: enough to build and run the main job
#   scripts/ensure-deps.sh test     plus cmocka, valgrind, clang with its sanitizer runtimes,
#                                   libgomp (GCC's OpenMP, for tests/threads/openmp.c),
#                                   Open MPI (mpicc, oshcc, mpirun, oshrun: `make bench`), and
#                                   libmetis-dev (shmemu-cg --partition metis; cg/cg.mk links
#                                   METIS when its header is there, test_cg_partition needs it)
#   scripts/ensure-deps.sh bench    plus linux-perf, and petsc-dev (PETSc's KSPCG: `make bench-cg`)
# Runs apt-get as root (or through sudo); prints what it installs and why.
set -euo pipefail
level="${1:-test}"
packages=(build-essential)
case "$level" in
    build) ;;
    test | bench) packages+=(libcmocka-dev valgrind clang libclang-rt-14-dev pkg-config python3-ase
                             libgomp1 libopenmpi-dev openmpi-bin libmetis-dev) ;;
    *) echo "ensure-deps.sh: unknown level '$level' (use build, test or bench)" >&2; exit 2 ;;
esac
[ "$level" != bench ] || packages+=(linux-perf petsc-dev)
missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "shmemu: installing missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
else
    echo "shmemu: need root to install ${missing[*]}; run as root or install them yourself" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"

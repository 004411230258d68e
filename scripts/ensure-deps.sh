#!/usr/bin/env bash
# ensure-deps.sh: installs the Debian 12 packages shmemu needs, when any is missing.
#   scripts/ensure-deps.sh build    compiler and make: enough to build and run the main job
#   scripts/ensure-deps.sh test     plus cmocka, valgrind, clang with its sanitizer runtimes,
#                                   libgomp (GCC's OpenMP, for tests/threads/openmp.c),
#                                   Open MPI (mpicc, oshcc, mpirun, oshrun: `make bench`), and
#                                   libmetis-dev (shmemu-cg --partition metis; cg/cg.mk links
#                                   METIS when its header is there, test_cg_partition needs it)
#   scripts/ensure-deps.sh bench    plus linux-perf, and petsc-dev (PETSc's KSPCG: `make bench-cg`)
#   scripts/ensure-deps.sh view     build-essential, Debian's chromium, Node.js and npm (Debian's
#                                   nodejs and npm only where no node is on the PATH), then
#                                   playwright-core as tests/browser/package-lock.json pins it
#                                   (npm ci, into tests/browser/node_modules): `make check-view`
# Runs apt-get as root (or through sudo); prints what it installs and why.
set -euo pipefail
level="${1:-test}"
packages=(build-essential)
case "$level" in
    build) ;;
    view) packages+=(chromium)
          command -v node >/dev/null 2>&1 || packages+=(nodejs npm) ;;
    test | bench) packages+=(libcmocka-dev valgrind clang libclang-rt-14-dev pkg-config python3-ase
                             libgomp1 libopenmpi-dev openmpi-bin libmetis-dev) ;;
    *) echo "ensure-deps.sh: unknown level '$level' (use build, test, bench or view)" >&2; exit 2 ;;
esac
[ "$level" != bench ] || packages+=(linux-perf petsc-dev)
missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$p")
done
# view: the browser tests' node package, pinned by its lockfile (npm ci installs exactly it)
npm_view() {
    [ "$level" = view ] || return 0
    local dir
    dir="$(dirname "$0")/../tests/browser"
    [ -e "$dir/node_modules/playwright-core/package.json" ] && return 0
    echo "shmemu: installing playwright-core into tests/browser/node_modules (npm ci)"
    (cd "$dir" && npm ci --no-audit --no-fund)
}
[ ${#missing[@]} -eq 0 ] && { npm_view; exit 0; }
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
npm_view

#!/usr/bin/env bash
# check-run-scripts.sh: the user-facing launch scripts behave as documented.
#   shmemu-run   oshrun/mpirun habits (-np, --np, -n, -ppn, -x, -genv), the default PE
#                count, a program found on PATH or in the current directory, and clear
#                errors (exit 2, the option or program named) for what cannot work;
#   make run     runs the main job (shmemu-md), builds nothing the main job does not run,
#                and the ring demo stays reachable as make run-demo;
#   run-main.sh  builds through `make run`, not `make all` (whose nvcc compiles belong to
#                the test suite).
# BUILD names the build folder whose libraries the test program links (default build).
# Ends with "N passed, N failed"; exit status 0 when none failed.
set -u
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD:-build}
unset SHMEMU_NPES
. tests/support/tally.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s BUILD="$build" libs >/dev/null || { echo "FAIL: make BUILD=$build libs"; exit 1; }
cat >"$tmp/pehello.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <nvshmem.h>
int main(int argc, char **argv)
{
    nvshmem_init();
    const char *v = getenv("RUN_TEST_VAR");
    printf("PE %d of %d var=%s args=%d\n", nvshmem_my_pe(), nvshmem_n_pes(), v ? v : "-", argc);
    nvshmem_finalize();
    return 0;
}
EOF
SHMEMU_BUILD="$root/$build" bin/shmemu-cc -O1 -o "$tmp/pehello" "$tmp/pehello.c" ||
    { echo "FAIL: shmemu-cc pehello.c"; exit 1; }

# expect NAME RC PATTERN COUNT ARGS...: shmemu-run ARGS (in $tmp) exits RC, and PATTERN
# (extended regex) matches COUNT lines of its output.
expect() {
    local name=$1 rc=$2 pat=$3 count=$4
    shift 4
    local out got n
    out=$(cd "$tmp" && "$root/bin/shmemu-run" "$@" 2>&1)
    got=$?
    n=$(grep -cE -- "$pat" <<<"$out")
    if [ "$got" = "$rc" ] && [ "$n" = "$count" ]; then ok "$name"; else
        bad "$name: exit $got (want $rc), $n lines match '$pat' (want $count)" "$out"; fi
}
expect "-np 4"                0 '^PE [0-3] of 4 '        4 -np 4 ./pehello
expect "--np 3"               0 '^PE [0-2] of 3 '        3 --np 3 ./pehello
expect "-n 2"                 0 '^PE [01] of 2 '         2 -n 2 ./pehello
expect "-n2"                  0 '^PE [01] of 2 '         2 -n2 ./pehello
expect "--npes=3"             0 '^PE [0-2] of 3 '        3 --npes=3 ./pehello
expect "-ppn equal to -np"    0 '^PE [0-3] of 4 '        4 -np 4 -ppn 4 ./pehello
expect "-ppn alone"           0 '^PE [01] of 2 '         2 -ppn 2 ./pehello
expect "-ppn unlike -np"      2 'one process .one node.' 1 -np 4 -ppn 2 ./pehello
expect "-x VAR=VALUE"         0 'of 2 var=hello args=3$' 2 -np 2 -x RUN_TEST_VAR=hello ./pehello a b
expect "-genv VAR VALUE"      0 'of 2 var=v2 '           2 -np 2 -genv RUN_TEST_VAR v2 ./pehello
RUN_TEST_VAR=passed expect "-x VAR" 0 'of 2 var=passed ' 2 -np 2 -x RUN_TEST_VAR ./pehello
expect "-x bad name"          2 "'1X' is not an environment variable name" 1 -x 1X=2 ./pehello
expect "default: 1 PE"        0 '^PE 0 of 1 '            1 ./pehello
SHMEMU_NPES=3 expect "default: SHMEMU_NPES" 0 '^PE [0-2] of 3 ' 3 ./pehello
expect "bare name, current directory" 0 '^PE [01] of 2 ' 2 -np 2 pehello
PATH="$tmp/onpath:$PATH"
mkdir -p "$tmp/onpath" "$tmp/elsewhere" && cp "$tmp/pehello" "$tmp/onpath/pehello_p"
expect "bare name, on PATH"   0 '^PE [01] of 2 '         2 -np 2 pehello_p
expect "not found"            2 'nope: no such program on PATH or in the current directory' 1 -np 2 nope
expect "not executable"       2 'is not executable'      1 -np 2 ./pehello.c
expect "a directory"          2 'is a directory'         1 -np 2 ./onpath
expect "-np 0"                2 "-np needs a positive PE count, got '0'" 1 -np 0 ./pehello
expect "-np abc"              2 "-np needs a positive PE count, got 'abc'" 1 -np abc ./pehello
expect "-np without a count"  2 '-np needs a PE count'   1 -np
expect "unknown option"       2 'unknown option --hostfile' 1 --hostfile h ./pehello
expect "no program"           2 'no program given'       1 -np 2

# make run: the main job, and only what it needs.
dry=$(make -n BUILD="$build" run 2>&1)
if grep -qE "shmemu-md --cells 20 --pes 8 --halo fused --steps 200$" <<<"$dry" &&
    ! grep -qE 'nvcc|shmemu-demo|dialect' <<<"$dry"; then
    ok "make run: the main job (shmemu-md), no nvcc, no demo"
else
    bad "make run" "$(tail -5 <<<"$dry")"
fi
dry=$(make -n BUILD="$build" run-demo 2>&1)
if grep -qE 'shmemu-run -n 8 .*shmemu-demo$' <<<"$dry"; then ok "make run-demo: the ring demo"; else
    bad "make run-demo" "$(tail -5 <<<"$dry")"; fi
# run-main.sh, with make and the package check replaced by stubs that log their arguments.
mkdir -p "$tmp/stub/scripts" "$tmp/stubbin"
cp scripts/run-main.sh "$tmp/stub/scripts/"
printf '#!/bin/sh\necho "ensure-deps $*" >>"%s/log"\n' "$tmp" >"$tmp/stub/scripts/ensure-deps.sh"
printf '#!/bin/sh\necho "make $*" >>"%s/log"\n' "$tmp" >"$tmp/stubbin/make"
chmod +x "$tmp/stub/scripts/ensure-deps.sh" "$tmp/stubbin/make"
PATH="$tmp/stubbin:$PATH" bash "$tmp/stub/scripts/run-main.sh" >/dev/null 2>&1
log=$(cat "$tmp/log" 2>/dev/null)
if [ "$log" = "$(printf 'ensure-deps build\nmake -j2 run')" ]; then
    ok "run-main.sh: ensure-deps build, then make run (not make all)"
else
    bad "run-main.sh runs" "$log"
fi

tally_end

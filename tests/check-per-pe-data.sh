#!/usr/bin/env bash
# check-per-pe-data.sh: programs built by shmemu-cc get one copy of their globals per PE, and
# those globals are symmetric (docs/pgas.md, "Per-PE data"; tests/perpe/):
#   - a ring through a global array and a static flag, per-PE state in globals, at 1, 2, 3,
#     8 and 64 PEs; the globals' addresses differ between PEs;
#   - --shmemu-globals=shared keeps the old layout (one copy: the addresses are equal);
#     --shmemu-globals=per-pe, the default, gives one address per PE;
#   - a C++ program's globals and static constructors are per PE (SHMEMU_CC=g++);
#   - misuse (a put past the end of the globals, to another PE's copy, to the stack) and
#     -static are refused with messages that say what is wrong;
#   - the copies' folder is gone after a run, and a folder left by a dead job is removed;
#   - helgrind, DRD and TSan (through shmemu-check) are clean on the correct static-data
#     program and name the racing read of the racy one.
# BUILD names the build folder (default build). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD:-build}
unset SHMEMU_NPES
. tests/support/tally.sh
TALLY_LINES=20

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The copies go to a private TMPDIR, so that leftovers are ours to count.
export TMPDIR="$tmp/tmpdir"
mkdir -p "$TMPDIR"
make -s BUILD="$build" libs >/dev/null || { echo "FAIL: make BUILD=$build libs"; exit 1; }
cc() { SHMEMU_BUILD="$root/$build" "$root/bin/shmemu-cc" "$@"; }
cc -g -O1 -o "$tmp/static_ring" tests/perpe/static_ring.c || { echo "FAIL: shmemu-cc static_ring.c"; exit 1; }

for n in 1 2 3 8 64; do
    out=$(SHMEMU_NPES=$n "$tmp/static_ring" 2>&1)
    rc=$?
    good=$(grep -c "values from PE [0-9]* ok" <<<"$out")
    addrs=$(grep -o "global address 0x[0-9a-f]*" <<<"$out" | sort -u | wc -l)
    if [ "$rc" = 0 ] && [ "$good" = "$n" ] && [ "$addrs" = "$n" ]; then
        ok "static_ring on $n PEs: every PE's values right, $n copies of the globals"
    else
        bad "static_ring on $n PEs: exit $rc, $good of $n right, $addrs distinct addresses" "$out"
    fi
done
left=$(find "$TMPDIR" -mindepth 1 | wc -l)
if [ "$left" = 0 ]; then ok "no copies left in TMPDIR after the runs"; else
    bad "$left files left in TMPDIR after the runs" "$(find "$TMPDIR")"; fi

# A folder of a job that died: a pid no process can have (pid_max is out of range).
dead=$(cat /proc/sys/kernel/pid_max)
mkdir -p "$TMPDIR/shmemu-image-$dead-AbCdEf" && touch "$TMPDIR/shmemu-image-$dead-AbCdEf/x.pe0.so"
SHMEMU_NPES=2 "$tmp/static_ring" >/dev/null 2>&1
if [ ! -e "$TMPDIR/shmemu-image-$dead-AbCdEf" ]; then ok "a dead job's folder of copies is removed"; else
    bad "a dead job's folder of copies is still there"; fi

for layout in per-pe shared; do
    cc -g -O1 --shmemu-globals=$layout -o "$tmp/addr_$layout" tests/perpe/global_address.c
    out=$(SHMEMU_NPES=3 "$tmp/addr_$layout" 2>&1)
    addrs=$(grep -o "global address 0x[0-9a-f]*" <<<"$out" | sort -u | wc -l)
    want=3
    [ "$layout" = per-pe ] || want=1
    if [ "$addrs" = "$want" ]; then ok "--shmemu-globals=$layout: $want copies of a global on 3 PEs"; else
        bad "--shmemu-globals=$layout: $addrs distinct addresses of a global (want $want)" "$out"; fi
done

if command -v g++ >/dev/null; then
    SHMEMU_CC=g++ cc -O1 -o "$tmp/globals_cpp" tests/perpe/globals.cpp
    out=$(SHMEMU_NPES=4 "$tmp/globals_cpp" 2>&1)
    if [ $? = 0 ] && [ "$(grep -c ': ok$' <<<"$out")" = 4 ]; then
        ok "C++: globals and static constructors per PE (4 PEs)"
    else bad "C++ globals" "$out"; fi
else
    bad "C++ globals: g++ not found (scripts/ensure-deps.sh installs it)"
fi

cc -g -O1 -o "$tmp/misuse" tests/perpe/misuse.c
# misuse NAME PATTERN: the run must fail and print PATTERN.
misuse() {
    local out rc
    out=$(SHMEMU_NPES=2 "$tmp/misuse" "$1" 2>&1)
    rc=$?
    if [ "$rc" != 0 ] && grep -qE "$2" <<<"$out"; then ok "misuse $1: exit $rc, reported"; else
        bad "misuse $1: exit $rc, want non-zero and /$2/" "$out"; fi
}
misuse past-end   "shmem_long_put: dest 0x[0-9a-f]+ plus [0-9]+ bytes runs [0-9]+ bytes past the end of the program's global variables"
misuse other-copy "shmem_long_p: dest 0x[0-9a-f]+ is PE 1's copy of a global variable"
misuse stack      "shmem_long_p: dest 0x[0-9a-f]+ is neither in the symmetric heap .* nor a global or static variable"
out=$(cc -static -o "$tmp/static_bin" tests/perpe/misuse.c 2>&1)
if [ $? = 2 ] && grep -q "needs dynamic linking" <<<"$out"; then ok "-static refused"; else
    bad "-static: want exit 2 and 'needs dynamic linking'" "$out"; fi
out=$(cc --shmemu-globals=some -o "$tmp/x" tests/perpe/misuse.c 2>&1)
if [ $? = 2 ] && grep -q "per-pe" <<<"$out"; then ok "--shmemu-globals=some refused"; else
    bad "--shmemu-globals=some: want exit 2 naming the choices" "$out"; fi

# The race checkers on static data (shmemu-check builds with shmemu-cc, so with copies).
if [ -d "$root/build-tsan/lib" ] && command -v valgrind >/dev/null; then
    out=$(SHMEMU_BUILD="$build" bin/shmemu-check -o "$tmp/chk" tests/perpe/static_race.c 2>&1)
    if [ $? = 0 ] && [ "$(grep -cE '^(helgrind|drd|tsan): clean' <<<"$out")" = 3 ]; then
        ok "shmemu-check static_race.c: three tools clean"
    else bad "shmemu-check static_race.c (correct)" "$out"; fi
    line=$(grep -n 'RACY READ' tests/perpe/static_race.c | cut -d: -f1)
    out=$(SHMEMU_BUILD="$build" bin/shmemu-check -o "$tmp/chk2" tests/perpe/static_race.c -- racy 2>&1)
    if [ $? = 1 ] && [ "$(grep -cE '^(helgrind|drd|tsan): [0-9]+ race' <<<"$out")" = 3 ] &&
        grep -qE "static_race\.c:$line in main\(\) by PE 1" <<<"$out"; then
        ok "shmemu-check static_race.c racy: three tools report the read at line $line"
    else bad "shmemu-check static_race.c racy" "$out"; fi
else
    bad "race checkers: build-tsan/ or valgrind missing (run make check-tsan first)"
fi

tally_end

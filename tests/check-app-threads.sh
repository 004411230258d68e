#!/usr/bin/env bash
# check-app-threads.sh: threads that a PE's code creates belong to that PE, in programs built
# by shmemu-cc as a user builds them (tests/threads/; docs/openshmem.md, "Threads"):
#   - pthread_create (with nested creation and pthread_exit), C11 thrd_create (with thrd_exit)
#     and one thread's shmem_barrier_all completing its PE's other threads' puts (also in the
#     checking mode, SHMEMU_CHECK_NBI=1),
#     and GCC's OpenMP regions (parallel, parallel for, sections, nested, many in a row) call
#     shmem_my_pe, put, get and atomics as their PE, at 1, 2, 3 and 8 PEs, with per-PE
#     globals (the default) and with --shmemu-globals=shared;
#   - under the deterministic scheduler (SHMEMU_SCHED=random) the pthread_create and
#     thrd_create programs run (their threads are scheduled, their joins do not deadlock);
#   - misuse stops with a message: a thread's call after its PE's shmem_finalize, and an
#     OpenMP thread's SHMEM call under the scheduler, which cannot see libgomp's waits;
#   - SHMEM_VERSION prints the version that the pkg-config modules give;
#   - helgrind, DRD and TSan (through shmemu-check) are clean on the correct programs and
#     name the racing read of the racy twin (two PEs' threads, no synchronization).
# BUILD names the build folder (default build), BUILD_TSAN the ThreadSanitizer one (default
# build-tsan). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD:-build}
build_tsan=${BUILD_TSAN:-build-tsan}
unset SHMEMU_NPES
. tests/support/tally.sh
TALLY_LINES=20

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s BUILD="$build" libs >/dev/null || { echo "FAIL: make BUILD=$build libs"; exit 1; }
cc() { SHMEMU_BUILD="$root/$build" "$root/bin/shmemu-cc" "$@"; }

# ring NAME FLAGS...: build tests/threads/NAME.c both ways (LAYOUTS: per-pe and shared
# globals) and run it at 1, 2, 3 and 8 PEs; every PE must print "PE p: ok".
ring() {
    local name=$1 layout bin n out rc good
    shift
    for layout in ${LAYOUTS:-per-pe shared}; do
        bin="$tmp/${name}_$layout"
        if ! out=$(cc --shmemu-globals=$layout -g -O1 "$@" -o "$bin" "tests/threads/$name.c" 2>&1); then
            bad "shmemu-cc $name.c ($layout)" "$out"
            continue
        fi
        for n in 1 2 3 8; do
            out=$(OMP_NUM_THREADS=4 SHMEMU_NPES=$n "$bin" 2>&1)
            rc=$?
            good=$(grep -c "^PE [0-9]*: ok$" <<<"$out")
            if [ "$rc" = 0 ] && [ "$good" = "$n" ]; then
                ok "$name ($layout globals) on $n PEs: every PE's threads acted as it"
            else
                bad "$name ($layout globals) on $n PEs: exit $rc, $good of $n PEs ok" "$out"
            fi
        done
    done
}
ring pthreads
ring c11_threads
LAYOUTS=per-pe ring barrier_by_one # its globals are symmetric: per-PE data only
# One thread's shmem_barrier_all completes every thread's puts (the PE's, in OpenSHMEM), in
# the checking mode too, whose queues are per thread (docs/openshmem.md, "Threads").
for seed in 1 2 3; do
    out=$(SHMEMU_CHECK_NBI=1 SHMEMU_CHECK_SEED=$seed SHMEMU_NPES=3 "$tmp/barrier_by_one_per-pe" 2>&1)
    rc=$?
    if [ "$rc" = 0 ] && [ "$(grep -c "^PE [0-9]*: ok$" <<<"$out")" = 3 ]; then
        ok "barrier_by_one under SHMEMU_CHECK_NBI=1 seed $seed: one thread's barrier completes all threads' puts"
    else bad "barrier_by_one under SHMEMU_CHECK_NBI=1 seed $seed: exit $rc (stale slots: a false report)" "$out"; fi
done
if echo 'int main(void){return 0;}' | gcc -fopenmp -x c - -o "$tmp/omp_probe" 2>/dev/null; then
    ring openmp -fopenmp
else
    bad "gcc -fopenmp does not link (libgomp missing: scripts/ensure-deps.sh installs it)"
fi

cc -g -o "$tmp/misuse" tests/threads/misuse.c
# misuse CASE PATTERN [ENV...]: the run must fail and print PATTERN.
misuse() {
    local what=$1 pattern=$2 out rc
    shift 2
    out=$(env "$@" SHMEMU_NPES=2 "$tmp/misuse" "$what" 2>&1)
    rc=$?
    if [ "$rc" != 0 ] && grep -qE "$pattern" <<<"$out"; then ok "misuse $what: exit $rc, reported"; else
        bad "misuse $what: exit $rc, want non-zero and /$pattern/" "$out"; fi
}
misuse after-finalize "PE [01]: shmem_long_p: called after shmem_finalize\(\)"

for name in pthreads c11_threads; do
    out=$(SHMEMU_SCHED=random SHMEMU_SEED=2 SHMEMU_NPES=3 "$tmp/${name}_per-pe" 2>&1)
    rc=$?
    if [ "$rc" = 0 ] && [ "$(grep -c "^PE [0-9]*: ok$" <<<"$out")" = 3 ]; then
        ok "$name under SHMEMU_SCHED=random on 3 PEs: threads scheduled, joins return"
    else bad "$name under SHMEMU_SCHED=random: exit $rc" "$out"; fi
done
if [ -x "$tmp/openmp_per-pe" ]; then
    out=$(SHMEMU_SCHED=random SHMEMU_NPES=2 "$tmp/openmp_per-pe" 2>&1)
    rc=$?
    if [ "$rc" != 0 ] && grep -q "created, an OpenMP thread, which belongs to no PE while the deterministic scheduler runs" <<<"$out"; then
        ok "openmp under SHMEMU_SCHED=random: an OpenMP thread's SHMEM call refused (exit $rc)"
    else bad "openmp under SHMEMU_SCHED=random: exit $rc, want the OpenMP message" "$out"; fi
fi

version=$(sed -n 's/^Version: //p' pgas/shmemu.pc.in)
out=$(SHMEM_VERSION=1 SHMEMU_NPES=3 "$tmp/pthreads_per-pe" 2>&1)
if [ "$(grep -c "^shmemu $version: OpenSHMEM 1.5" <<<"$out")" = 1 ]; then
    ok "SHMEM_VERSION prints version $version once on 3 PEs"
else bad "SHMEM_VERSION: want one line 'shmemu $version: OpenSHMEM 1.5'" "$out"; fi

# The race checkers on threads the PEs created (shmemu-check builds with shmemu-cc).
if [ -d "$root/$build_tsan/lib" ] && command -v valgrind >/dev/null; then
    check() { SHMEMU_BUILD="$build" SHMEMU_TSAN_BUILD="$build_tsan" bin/shmemu-check "$@" 2>&1; }
    for p in pthreads c11_threads thread_race; do
        out=$(check -n 2 -o "$tmp/chk-$p" "tests/threads/$p.c")
        if [ $? = 0 ] && [ "$(grep -cE '^(helgrind|drd|tsan): clean' <<<"$out")" = 3 ]; then
            ok "shmemu-check $p.c: three tools clean"
        else bad "shmemu-check $p.c (correct)" "$out"; fi
    done
    line=$(grep -n 'RACY READ' tests/threads/thread_race.c | cut -d: -f1)
    out=$(check -n 2 -o "$tmp/chk-racy" tests/threads/thread_race.c -- racy)
    # Each tool names the threads by their PEs; helgrind and TSan name the read (DRD may
    # name the write, and the reader as a thread that has ended).
    if [ $? = 1 ] && [ "$(grep -cE '^(helgrind|drd|tsan): [0-9]+ race' <<<"$out")" = 3 ] &&
        [ "$(grep -cE "thread_race\.c:$line in receiver\(\) by PE 1 pthread" <<<"$out")" -ge 2 ] &&
        grep -A4 '^drd:' <<<"$out" | grep -q 'PE 0 pthread' &&
        grep -A4 '^drd:' <<<"$out" | grep -q 'PE 1 pthread'; then
        ok "shmemu-check thread_race.c racy: three tools report the race between PE 0's and PE 1's threads (read at line $line)"
    else bad "shmemu-check thread_race.c racy" "$out"; fi
else
    bad "race checkers: $build_tsan/ or valgrind missing (run make check-tsan first)"
fi

tally_end

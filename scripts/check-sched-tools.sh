#!/usr/bin/env bash
# check-sched-tools.sh: the deterministic scheduler hides no race (docs/design.md D4,
# docs/sched.md).
#
# The scheduler passes the turn between threads with relaxed atomics and raw futex calls,
# which helgrind, DRD and ThreadSanitizer do not treat as synchronization. If it used a
# mutex or a condition variable instead, every run would be one long happens-before chain
# and no checker would report anything. This proves it on the planted races of tests/racy:
# with SHMEMU_SCHED set (random and round robin), each tool must still report the race of
# the racy mode at its line and stay silent on the correct twin, exactly as free-running.
#
#   scripts/check-sched-tools.sh        (BUILD, default build; TSAN_BUILD, default build-tsan)
#
# scripts/check-tools.sh runs it as one of its stages.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TSAN_BUILD=${TSAN_BUILD:-build-tsan}
out=$BUILD/tests/racy-sched
tout=$TSAN_BUILD/tests/racy-sched
mkdir -p "$out" "$tout"
make -s BUILD="$BUILD" libs >/dev/null || exit 1
make -s BUILD="$TSAN_BUILD" SANITIZE=thread CC=clang libs >/dev/null || exit 1
src=tests/racy/put_signal_race.c
racy_line=$(grep -n 'RACY READ:' "$src" | cut -d: -f1)
put_line=$(grep -n 'RACING PUT' "$src" | cut -d: -f1)
emu=tests/racy/emu_flag_race.c
emu_lines=$(grep -nE 'RACY (READ|WRITE)' "$emu" | cut -d: -f1 | paste -sd'|')
for prog in put_signal_race emu_flag_race; do
    SHMEMU_BUILD=$BUILD bin/shmemu-cc -g -O1 -o "$out/$prog" "tests/racy/$prog.c" || exit 1
    SHMEMU_BUILD=$TSAN_BUILD SHMEMU_CC=clang bin/shmemu-cc -g -O1 -fsanitize=thread \
        -o "$tout/$prog" "tests/racy/$prog.c" || exit 1
done

. scripts/race_check.sh
# The same check with the scheduler on: 2 PEs, SHMEMU_SCHED=strategy, seed 3.
sched_check() { # name expectation(race|clean) strategy lines-regex done-regex command...
    local name="$1" expect="$2" strategy="$3"
    shift 3
    check "$name ($strategy)" "$expect" 2 "$1" "$2" env SHMEMU_SCHED="$strategy" SHMEMU_SEED=3 "${@:3}"
}
# the put is one statement over two lines; a tool may name either
pair="put_signal_race\.c:(${racy_line}|$((put_line - 1))|${put_line})\b"
flag="emu_flag_race\.c:(${emu_lines})\b"
for tool in helgrind drd tsan; do
    if [ "$tool" = tsan ]; then
        run=(env TSAN_OPTIONS=halt_on_error=0); dir=$tout
    else
        run=(valgrind --error-exitcode=0 --tool=$tool); dir=$out
    fi
    for strategy in random rr; do
        sched_check "$tool put_signal racy"    race  $strategy "$pair" 'PE 1 read sum'     "${run[@]}" "$dir/put_signal_race" racy
        sched_check "$tool put_signal correct" clean $strategy "$pair" 'PE 1 read sum 828' "${run[@]}" "$dir/put_signal_race" correct
    done
    sched_check "$tool emu flag relaxed"  race  random "$flag" 'PE 1 saw'    "${run[@]}" "$dir/emu_flag_race" relaxed
    sched_check "$tool emu flag release"  clean random "$flag" 'PE 1 saw 42' "${run[@]}" "$dir/emu_flag_race" release
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# check-sched-tools.sh: the deterministic scheduler hides no race (DESIGN D4, docs/sched.md).
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

passed=0
failed=0
check() { # name expectation(race|clean) strategy lines-regex done-regex command...
    local name="$1" expect="$2" strategy="$3" lines="$4" done_re="$5"
    shift 5
    local log
    log=$(mktemp)
    SHMEMU_NPES=2 SHMEMU_SCHED=$strategy SHMEMU_SEED=3 SHMEMU_HANG_TIMEOUT=300 "$@" >"$log" 2>&1
    local races at_line=0 ok=0
    races=$(grep -cE 'Possible data race|Conflicting (load|store)|WARNING: ThreadSanitizer: data race' "$log")
    grep -qE "$lines" "$log" && at_line=1
    if [ "$expect" = race ] && [ "$races" -gt 0 ] && [ "$at_line" = 1 ] && grep -qE "$done_re" "$log"; then ok=1; fi
    if [ "$expect" = clean ] && [ "$races" -eq 0 ] && grep -qE "$done_re" "$log"; then ok=1; fi
    if [ "$ok" = 1 ]; then
        echo "PASS $name ($strategy): $races race report(s)$([ "$at_line" = 1 ] && echo ", naming the racing line")"
        passed=$((passed + 1))
    else
        echo "FAIL $name ($strategy): expected $expect, got $races race report(s), line match $at_line"
        sed 's/^/    /' "$log" | head -60
        failed=$((failed + 1))
    fi
    rm -f "$log"
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
        check "$tool put_signal racy"    race  $strategy "$pair" 'PE 1 read sum'     "${run[@]}" "$dir/put_signal_race" racy
        check "$tool put_signal correct" clean $strategy "$pair" 'PE 1 read sum 828' "${run[@]}" "$dir/put_signal_race" correct
    done
    check "$tool emu flag relaxed"  race  random "$flag" 'PE 1 saw'    "${run[@]}" "$dir/emu_flag_race" relaxed
    check "$tool emu flag release"  clean random "$flag" 'PE 1 saw 42' "${run[@]}" "$dir/emu_flag_race" release
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

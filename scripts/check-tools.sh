#!/usr/bin/env bash
# check-tools.sh: proves that each race checker sees the protocol (docs/design.md D4).
# tests/racy/put_signal_race.c is run in two modes under helgrind, DRD and ThreadSanitizer:
#   racy     each tool must report a data race that points at the RACY READ line;
#   correct  each tool must report nothing.
# tests/racy/emu_flag_race.c does the same for the emulator's memory orders and scopes: a
# kernel flag published with release at gpu scope is clean; relaxed, block scope across
# blocks, and gpu scope across PEs are races (TSan treats gpu scope as sys scope, so it is
# not asked about the last one).
# tests/racy/fiber_reuse_race.c (TSan only, under SHMEMU_SCHED=random seed 1): a kernel's read
# racing with another PE's put, the reading block ending before the writing block starts; TSan
# must not carry the ended block's clock into the next block's fibers (emu/src/fiber.c).
# A tool that stays silent on a racy program fails this check. The same holds in deterministic
# mode (SHMEMU_SCHED): scripts/check-sched-tools.sh, run at the end.
set -u
cd "$(dirname "$0")/.."
src=tests/racy/put_signal_race.c
racy_line=$(grep -n 'RACY READ:' "$src" | cut -d: -f1)
put_line=$(grep -n 'RACING PUT' "$src" | cut -d: -f1)
out=build/tests/racy
mkdir -p "$out" build-tsan/tests/racy
make -s BUILD=build libs >/dev/null || exit 1
make -s BUILD=build-tsan SANITIZE=thread CC=clang libs >/dev/null || exit 1
book=tests/racy/bookkeeping_race.c
book_line=$(grep -n 'RACY WRITE:' "$book" | cut -d: -f1)
emu=tests/racy/emu_flag_race.c
emu_lines=$(grep -nE 'RACY (READ|WRITE)' "$emu" | cut -d: -f1 | paste -sd'|')
reuse_lines=$(grep -nE 'RACY READ|RACING PUT' tests/racy/fiber_reuse_race.c | cut -d: -f1 | paste -sd'|')
for prog in put_signal_race bookkeeping_race emu_flag_race fiber_reuse_race; do
    bin/shmemu-cc -g -O1 -o "$out/$prog" "tests/racy/$prog.c" || exit 1
    SHMEMU_BUILD=build-tsan SHMEMU_CC=clang bin/shmemu-cc -g -O1 -fsanitize=thread \
        -o "build-tsan/tests/racy/$prog" "tests/racy/$prog.c" || exit 1
done

. scripts/race_check.sh
vg="valgrind --error-exitcode=0"
tsan="env TSAN_OPTIONS=halt_on_error=0"
pair="put_signal_race\.c:(${racy_line}|${put_line})\b"
tally="bookkeeping_race\.c:${book_line}\b"
for tool in helgrind drd tsan; do
    if [ "$tool" = tsan ]; then run=($tsan build-tsan/tests/racy); else run=($vg --tool=$tool "$out"); fi
    dir="${run[${#run[@]}-1]}"
    unset 'run[${#run[@]}-1]'
    sum='PE 1 read sum'
    check "$tool put_signal racy"       race  2 "$pair"  "$sum"      "${run[@]}" "$dir/put_signal_race" racy
    check "$tool put_signal correct"    clean 2 "$pair"  "$sum 828"  "${run[@]}" "$dir/put_signal_race" correct
    # (a lost update may leave tally at 1 or 2: that is the race)
    check "$tool bookkeeping race kept" race  3 "$tally" "tally [0-9]" "${run[@]}" "$dir/bookkeeping_race"
    flag="emu_flag_race\.c:(${emu_lines})\b"
    check "$tool emu flag release"      clean 2 "$flag"  "PE 1 saw 42" "${run[@]}" "$dir/emu_flag_race" release
    check "$tool emu flag relaxed"      race  2 "$flag"  "PE 1 saw"  "${run[@]}" "$dir/emu_flag_race" relaxed
    check "$tool emu flag block scope"  race  2 "$flag"  "PE 1 saw"  "${run[@]}" "$dir/emu_flag_race" block
    if [ "$tool" != tsan ]; then
        check "$tool emu flag gpu scope across PEs" race 2 "$flag" "PE 1 saw" "${run[@]}" "$dir/emu_flag_race" gpu
    else
        reuse="fiber_reuse_race\.c:(${reuse_lines})\b"
        rs=(env SHMEMU_SCHED=random SHMEMU_SEED=1 "${run[@]}")
        check "$tool fiber reuse racy (random 1)"    race  2 "$reuse" "PE 1 saw"    "${rs[@]}" "$dir/fiber_reuse_race" racy
        check "$tool fiber reuse correct (random 1)" clean 2 "$reuse" "PE 1 saw 33" "${rs[@]}" "$dir/fiber_reuse_race" correct
    fi
done
# bin/shmemu-check, the user's way to run all three on their own program: it must name the
# racing line and fail on the racy mode, and pass the correct one.
sc_out=$(mktemp -d)
sc_log=$(bin/shmemu-check -o "$sc_out" tests/racy/put_signal_race.c -- racy 2>&1)
sc_rc=$?
if [ "$sc_rc" = 1 ] && [ "$(grep -cE "^(helgrind|drd|tsan): [0-9]+ race report" <<<"$sc_log")" = 3 ] &&
    grep -qE "put_signal_race\.c:${racy_line} in main" <<<"$sc_log"; then
    echo "PASS shmemu-check racy: exit 1, three tools report, racing line named"
    passed=$((passed + 1))
else
    echo "FAIL shmemu-check racy: exit $sc_rc"; sed 's/^/    /' <<<"$sc_log"
    failed=$((failed + 1))
fi
sc_log=$(bin/shmemu-check -o "$sc_out" tests/racy/put_signal_race.c -- correct 2>&1)
sc_rc=$?
if [ "$sc_rc" = 0 ] && [ "$(grep -c ": clean" <<<"$sc_log")" = 3 ]; then
    echo "PASS shmemu-check correct: exit 0, three tools clean"
    passed=$((passed + 1))
else
    echo "FAIL shmemu-check correct: exit $sc_rc"; sed 's/^/    /' <<<"$sc_log"
    failed=$((failed + 1))
fi
rm -rf "$sc_out"

# The deterministic scheduler hides no race: the same planted races under SHMEMU_SCHED.
if sched_log=$(scripts/check-sched-tools.sh 2>&1); then
    echo "PASS deterministic mode: $(tail -1 <<<"$sched_log") (scripts/check-sched-tools.sh)"
    passed=$((passed + 1))
else
    echo "FAIL deterministic mode (scripts/check-sched-tools.sh):"; sed 's/^/    /' <<<"$sched_log"
    failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# check-process-backend.sh: the process backend (SHMEMU_BACKEND=process, shmemu-run --backend
# process; docs/pgas.md, "The process backend") as a user meets it:
#   - tests/process/symmetric.c at 2, 3, 4 and 8 PEs: every PE in its own process, globals,
#     statics and heap symmetric across them, atomics, waits, barriers, shmem_ptr;
#   - the MD app's whole output (thermo and checksums at every printed step) identical to the
#     threads backend's for fused, pulse, host and direct26, direct and put-signal, 1-D to
#     3-D decompositions, and `--check` (the serial reference at every step) clean;
#   - a PE process killed by SIGKILL at a random point (seeded: CHECK_SEED, default 1;
#     KILL_ROUNDS rounds, default 8), PE 0's included: the job ends within 2 s, a message
#     names the PE, no PE process is left running, nothing is left in /dev/shm or TMPDIR;
#   - a PE that exits with a status, calls exit(0) between init and finalize (PE 0's
#     included), or is stopped by the runtime ends the job with a message; exit(0) after
#     finalize is a normal end, with every PE's output;
#   - the checking mode (SHMEMU_CHECK_NBI=1) reorders delivery across PE processes: a put
#     not completed before the flag is read stale on the same seeds as on the threads
#     backend, and the corrected program never;
#   - the hang report on this backend lists every PE's wait;
#   - misuse: an unknown backend, and the deterministic scheduler, are refused with messages.
# BUILD names the build folder (default build). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD:-build}
md=${MD_BIN:-bin/shmemu-md}
[ "$build" = build ] || md=${MD_BIN:-$build/bin/shmemu-md}
unset SHMEMU_NPES SHMEMU_BACKEND
. tests/support/tally.sh
TALLY_LINES=20

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp/tmpdir"
mkdir -p "$TMPDIR"
make -s BUILD="$build" libs "$md" >/dev/null || { echo "FAIL: make BUILD=$build libs $md"; exit 1; }
cc() { SHMEMU_BUILD="$root/$build" "$root/bin/shmemu-cc" "$@"; }
for p in symmetric busy ending nbi_flag; do
    cc -g -O1 -o "$tmp/$p" "tests/process/$p.c" || { echo "FAIL: shmemu-cc $p.c"; exit 1; }
done
run() { "$root/bin/shmemu-run" --backend process "$@"; }

# ---- symmetric data across processes ---------------------------------------------------
for n in 2 3 4 8; do
    out=$(run -n "$n" "$tmp/symmetric" 2>&1)
    rc=$?
    good=$(grep -c "^PE [0-9]* ok" <<<"$out")
    if [ "$rc" = 0 ] && [ "$good" = "$n" ] && grep -q "distinct processes" <<<"$out"; then
        ok "symmetric.c on $n PE processes: globals, statics, heap, atomics, waits, shmem_ptr"
    else
        bad "symmetric.c on $n PE processes: exit $rc, $good of $n ok" "$out"
    fi
done

# ---- the MD app, bit for bit -----------------------------------------------------------
md_same() { # halo transport dd cells
    local args=(--cells "$4" --dd "$3" --halo "$1" --transport "$2" --steps 30 --thermo 1)
    local a b
    # one run per backend: stderr (less the timing line, which differs) then stdout
    "$md" "${args[@]}" >"$tmp/md.out" 2>"$tmp/md.err"
    a=$(grep -v "atom-steps/s" "$tmp/md.err"; cat "$tmp/md.out")
    SHMEMU_BACKEND=process "$md" "${args[@]}" >"$tmp/md.out" 2>"$tmp/md.err"
    b=$(grep -v "atom-steps/s" "$tmp/md.err"; cat "$tmp/md.out")
    # the one difference wanted: the header says what the PEs are
    b=${b//PE processes/PE threads}
    if [ "$a" = "$b" ] && grep -q "^checksum " <<<"$a"; then
        ok "shmemu-md --halo $1 --transport $2 --dd $3: every line equal on both backends"
    else
        bad "shmemu-md --halo $1 --transport $2 --dd $3: the backends differ" \
            "$(diff <(echo "$a") <(echo "$b") | head -20)"
    fi
}
for halo in fused pulse host; do
    for tr in direct signal; do
        for dd in 2x1x1 2x2x1 2x2x2; do md_same "$halo" "$tr" "$dd" 6; done
    done
done
for tr in direct signal; do md_same direct26 "$tr" 3x3x1 9; done
out=$(SHMEMU_BACKEND=process "$md" --cells 6 --dd 2x2x2 --halo fused --steps 20 --check 2>&1)
if [ $? = 0 ] && grep -q "parallel checksums identical at every step" <<<"$out"; then
    ok "shmemu-md --check on 8 PE processes: the serial reference at every step"
else
    bad "shmemu-md --check on 8 PE processes" "$out"
fi

# ---- the checking mode: delivery reordering across processes ---------------------------
# The same seed makes the same delivery decisions on both backends (they are per thread), so
# the missing quiet is caught on the same seeds, and the correct program on none.
stale_seeds() { # backend mode
    local seeds="" s out
    for s in 1 2 3 4 5 6 7 8; do
        out=$(SHMEMU_CHECK_NBI=1 SHMEMU_CHECK_SEED=$s "$root/bin/shmemu-run" --backend "$1" -n 2 \
              "$tmp/nbi_flag" "$2" 2>&1)
        grep -q "PE 1: stale" <<<"$out" && seeds="$seeds $s"
        grep -q "PE 1: \(stale\|fresh\)" <<<"$out" || seeds="$seeds error($s)"
    done
    echo "${seeds# }"
}
bug_threads=$(stale_seeds threads noquiet)
bug_process=$(stale_seeds process noquiet)
fixed_process=$(stale_seeds process quiet)
if [ -n "$bug_process" ] && [ "$bug_process" = "$bug_threads" ] && [ -z "$fixed_process" ]; then
    ok "SHMEMU_CHECK_NBI=1 on PE processes: the missing quiet reads stale data on seeds $bug_process (as on threads), the fixed program never"
else
    bad "SHMEMU_CHECK_NBI=1 on PE processes: stale seeds: process '$bug_process', threads '$bug_threads', fixed '$fixed_process'"
fi

# ---- SIGKILL at random points ----------------------------------------------------------
live_pes() { # live (not zombie) processes running $1
    local n=0 pid
    for pid in $(pgrep -f -x "$1" 2>/dev/null); do
        [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] || n=$((n + 1))
    done
    echo "$n"
}
shm_before=$(ls /dev/shm 2>/dev/null | sort)
RANDOM=${CHECK_SEED:-1}
rounds=${KILL_ROUNDS:-8}
for ((r = 0; r < rounds; r++)); do
    n=$((2 + RANDOM % 3))
    victim=$((RANDOM % n))
    delay_ms=$((RANDOM % 400))
    SHMEMU_NPES=$n SHMEMU_BACKEND=process "$tmp/busy" >"$tmp/out" 2>"$tmp/err" &
    job=$!
    sleep "$(printf '0.%03d' "$delay_ms")"
    if [ "$victim" = 0 ]; then
        pid=$job
    else
        pid=$(awk -v pe="$victim" '$2 == pe && $3 == "ready" {print $4}' "$tmp/out")
        [ -n "$pid" ] || pid=$(pgrep -P "$job" | sed -n "${victim}p") # still starting up
    fi
    if [ -z "$pid" ]; then
        wait "$job" 2>/dev/null
        bad "kill round $r: no process found for PE $victim of $n" "$(cat "$tmp/out" "$tmp/err")"
        continue
    fi
    t0=$(date +%s%N)
    kill -9 "$pid" 2>/dev/null
    wait "$job" 2>/dev/null
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    sleep 0.1
    left=$(live_pes "$tmp/busy")
    files=$(find "$TMPDIR" -mindepth 1 | wc -l)
    shm_after=$(ls /dev/shm 2>/dev/null | sort)
    named=yes
    [ "$victim" = 0 ] || grep -q "PE $victim (process $pid) was killed by signal 9" "$tmp/err" || named=no
    what="kill round $r: SIGKILL to PE $victim of $n after ${delay_ms} ms"
    if [ "$ms" -lt 2000 ] && [ "$rc" != 0 ] && [ "$left" = 0 ] && [ "$files" = 0 ] &&
        [ "$shm_after" = "$shm_before" ] && [ "$named" = yes ]; then
        ok "$what: the job ended in $ms ms (exit $rc), nothing left"
    else
        bad "$what: ended in $ms ms, exit $rc, $left PE processes left, $files files in TMPDIR, message naming it: $named" \
            "$(cat "$tmp/err"; ls /dev/shm)"
        pkill -9 -f -x "$tmp/busy" 2>/dev/null
    fi
done
# PE 0 killed under shmemu-run: the launcher says what happened.
SHMEMU_NPES=3 "$root/bin/shmemu-run" --backend process "$tmp/busy" >"$tmp/out" 2>"$tmp/err" &
job=$!
for _ in $(seq 100); do [ "$(grep -c ready "$tmp/out")" = 3 ] && break; sleep 0.05; done
kill -9 "$(awk '$2 == 0 {print $4}' "$tmp/out")" 2>/dev/null
wait "$job"
rc=$?
sleep 0.1
if [ "$rc" = 137 ] && grep -q "PE 0's process .* was killed by signal 9 (KILL)" "$tmp/err" &&
    [ "$(live_pes "$tmp/busy")" = 0 ]; then
    ok "PE 0 killed under shmemu-run: exit 137, the message names PE 0, no PE process left"
else
    bad "PE 0 killed under shmemu-run: exit $rc" "$(cat "$tmp/err")"
fi

# ---- PEs that end on their own ---------------------------------------------------------
ending() { # mode want_rc want_message
    local out rc
    out=$(run -n 4 "$tmp/ending" "$1" 2>&1)
    rc=$?
    if [ "$rc" = "$2" ] && grep -q -- "$3" <<<"$out" && [ "$(live_pes "$tmp/ending")" = 0 ]; then
        ok "ending $1: exit $rc, \"$3\""
    else
        bad "ending $1: exit $rc (want $2), want \"$3\"" "$out"
    fi
}
ending exit3 3 "PE 1 (process [0-9]*) exited with status 3 before its main function returned"
ending exit0 1 "PE 1 (process [0-9]*) called exit(0) between its initialization and its finalize"
ending bad-put 134 "shmemu: PE 1: shmem_long_p: PE 9 is out of range"
ending crash 139 "PE 2 (process [0-9]*) was killed by signal 11 (Segmentation fault)"
ending pe0-exit0 0 "PE 0 called exit(0) between its initialization and its finalize; the other PE processes were stopped"
ending late-exit0 0 "PE 3 done"
out=$(run -n 4 "$tmp/ending" late-exit0 2>&1)
if [ "$(grep -c done <<<"$out")" = 4 ] && ! grep -q "the job ends" <<<"$out"; then
    ok "exit(0) after shmem_finalize on every PE: all four finish, no message"
else
    bad "exit(0) after shmem_finalize on every PE" "$out"
fi

# ---- the hang report sees every PE process -----------------------------------------------
cat >"$tmp/hang.c" <<'EOF'
#include <shmem.h>
static long never;
int main(void)
{
    shmem_init();
    shmem_long_wait_until(&never, SHMEM_CMP_EQ, 1);
    shmem_finalize();
    return 0;
}
EOF
cc -o "$tmp/hang" "$tmp/hang.c"
out=$(SHMEMU_HANG_TIMEOUT=1 run -n 3 "$tmp/hang" 2>&1)
rc=$?
waits=$(grep -c "shmem_long_wait_until" <<<"$out")
if [ "$rc" != 0 ] && grep -q "shmemu: hang:" <<<"$out" && [ "$waits" -ge 3 ] &&
    [ "$(live_pes "$tmp/hang")" = 0 ]; then
    ok "a hang on 3 PE processes: one report lists all three waits, the job ends (exit $rc)"
else
    bad "a hang on 3 PE processes: exit $rc, $waits waits listed" "$out"
fi

# ---- misuse ------------------------------------------------------------------------------
out=$(SHMEMU_BACKEND=bogus SHMEMU_NPES=2 "$tmp/symmetric" 2>&1)
rc=$?
if [ "$rc" = 2 ] && grep -q "SHMEMU_BACKEND=bogus: no such backend; use threads (the default), process" <<<"$out"; then
    ok "SHMEMU_BACKEND=bogus: refused, naming the backends"
else
    bad "SHMEMU_BACKEND=bogus: exit $rc" "$out"
fi
out=$(SHMEMU_SCHED=random run -n 2 "$tmp/symmetric" 2>&1)
rc=$?
if [ "$rc" = 2 ] && grep -q "the deterministic scheduler .* runs every PE in one process" <<<"$out"; then
    ok "SHMEMU_SCHED on the process backend: refused, naming the threads backend"
else
    bad "SHMEMU_SCHED on the process backend: exit $rc" "$out"
fi
out=$(run -n 2 --backend nope "$tmp/symmetric" 2>&1)
rc=$?
if [ "$rc" = 2 ] && grep -q "no such backend" <<<"$out"; then
    ok "shmemu-run --backend nope: refused"
else
    bad "shmemu-run --backend nope: exit $rc" "$out"
fi

tally_end

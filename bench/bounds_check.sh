#!/usr/bin/env bash
# bench/bounds_check.sh: what the symmetric-object bounds check costs on the put path
# (`make bench-bounds`; docs/openshmem.md, "Checks and fixes").
#
# The check is on by default and SHMEMU_CHECK_BOUNDS=0 turns it off, so the same binaries run
# both ways: bench/pingpong_shmemu (the 8-byte put-with-signal round trip) and
# bench/put_bw_shmemu (putmem in a loop; its 8, 64 and 4096-byte rows, as ns per put). Each
# round runs every measurement with the check off and on, back to back, the order swapped
# every other round, so a noisy neighbour hits both alike; the on/off ratio is taken within
# the round, and the report gives the median over rounds of each time and of the ratio (with
# the ratio's range). Writes its own section of bench/RESULTS.md (written whole: a
# temporary file, then rename); the raw lines go to $BUILD/bench/bounds.log.
#
# Environment: BUILD (default build), BOUNDS_ROUNDS (default 11), BENCH_ITERS (ping-pong
# round trips per run, default 100000), BENCH_BW_TRIALS (put_bw trials per size, default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/results_section.sh

BUILD=${BUILD:-build}
ROUNDS=${BOUNDS_ROUNDS:-11}
export BENCH_ITERS=${BENCH_ITERS:-100000}
export BENCH_BW_TRIALS=${BENCH_BW_TRIALS:-5}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
BIN=$BUILD/bench
LOG=$BIN/bounds.log
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "bounds_check: BOUNDS_ROUNDS=$ROUNDS: need a whole number >= 1" >&2; exit 2 ;; esac
for p in pingpong_shmemu put_bw_shmemu; do
    [ -x "$BIN/$p" ] || { echo "bounds_check: $BIN/$p is missing: run make BUILD=$BUILD bench-bounds" >&2; exit 2; }
done
mkdir -p "$BIN"
: >"$LOG"

# One measurement with the check in state $1 (0 off, 1 on), appended to the log as
# "round=R check=C what=W ns=N".
measure() {
    local r=$1 c=$2 out
    out=$(SHMEMU_CHECK_BOUNDS=$c "$BIN/pingpong_shmemu")
    awk -v r="$r" -v c="$c" '$1 == "pingpong" { for (i = 1; i <= NF; i++) if ($i ~ /^median_ns=/) {
        split($i, v, "="); print "round=" r, "check=" c, "what=pingpong_rt", "ns=" v[2] } }' \
        <<<"$out" >>"$LOG"
    out=$(SHMEMU_CHECK_BOUNDS=$c "$BIN/put_bw_shmemu")
    awk -v r="$r" -v c="$c" '$1 == "put_bw" {
        for (i = 1; i <= NF; i++) { split($i, v, "="); f[v[1]] = v[2] }
        if (f["bytes"] == 8 || f["bytes"] == 64 || f["bytes"] == 4096)
            printf "round=%s check=%s what=putmem_%sB ns=%.2f\n", r, c, f["bytes"], f["bytes"] / f["putmem_gbs"] }' \
        <<<"$out" >>"$LOG"
}

for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then measure "$r" 0; measure "$r" 1; else measure "$r" 1; measure "$r" 0; fi
done

n=$(grep -c . "$LOG")
if [ "$n" != $((ROUNDS * 8)) ]; then
    echo "bounds_check: $n measurements in $LOG, want $((ROUNDS * 8)) (a program's output changed?)" >&2
    exit 1
fi

table=$(awk '
    { for (i = 1; i <= NF; i++) { split($i, v, "="); f[v[1]] = v[2] }
      ns[f["what"], f["check"], f["round"]] = f["ns"]; what[f["what"]] = 1; if (f["round"] > R) R = f["round"] }
    function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END {
        print "| measurement | check off (ns) | check on (ns) | on/off, median of rounds | range |"
        print "| --- | ---: | ---: | ---: | --- |"
        split("pingpong_rt putmem_8B putmem_64B putmem_4096B", order, " ")
        for (k = 1; k <= 4; k++) {
            w = order[k]
            for (r = 1; r <= R; r++) { off[r] = ns[w, 0, r]; on[r] = ns[w, 1, r]; q[r] = on[r] / off[r] }
            lo = q[1]; hi = q[1]; for (r = 2; r <= R; r++) { if (q[r] < lo) lo = q[r]; if (q[r] > hi) hi = q[r] }
            printf "| %s | %.1f | %.1f | %.3f | %.3f-%.3f |\n", w, median(off, R), median(on, R), median(q, R), lo, hi
        }
    }' "$LOG")

BEGIN='<!-- bench/bounds_check.sh begin -->'
END='<!-- bench/bounds_check.sh end -->'
{
    echo "## The bounds check on the put path"
    echo
    echo "\`make BUILD=$BUILD bench-bounds\` (bench/bounds_check.sh), $(date -u '+%Y-%m-%d %H:%M UTC'),"
    echo "at $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg):"
    echo "$ROUNDS rounds, each running every measurement with SHMEMU_CHECK_BOUNDS=0 and =1 back to"
    echo "back (order swapped every other round). pingpong_rt is the 8-byte put-with-signal round"
    echo "trip (median of $BENCH_ITERS); putmem_NB is ns per nvshmem_putmem of N bytes in put_bw's"
    echo "loop (median of $BENCH_BW_TRIALS trials). The ratio is taken within each round."
    echo
    echo "$table"
} | replace_results_section_log "$RESULTS" "$BEGIN" "$END" "$LOG"
echo "$table"
echo "bounds_check: section written to $RESULTS"

#!/usr/bin/env bash
# bench/run.sh: builds the benchmarks, runs them side by side, writes bench/RESULTS.md.
#
#   bench/run.sh                build (make bench-build), run, write the report
#   bench/run.sh --no-build     run and write the report (what `make bench` does)
#   bench/run.sh --report       only rewrite the report from the last run's log
#                               ($BUILD/bench/run.log and run.meta), e.g. after editing
#                               bench/NOTES.md
#
# Environment:
#   BUILD=dir          build folder, as for make (default build)
#   BENCH_ROUNDS=N     rounds (default 7); each round runs every program once, in the order
#                      raw, raw_2line, raw_1line, shmemu, mpi, oshmem, oshmem_noquiet,
#                      put_bw, so that a noisy neighbour on this shared machine hits all
#                      of them alike
#   BENCH_ITERS=N      timed round trips per ping-pong run (default 200000)
#   BENCH_BW_TRIALS=N  alternating memcpy/putmem trials per size per run (default 9)
#   BENCH_RESULTS=f    where the report goes (default bench/RESULTS.md; written to a
#                      temporary file and renamed, so a reader never sees half of it)
#
# Every number in the report is a median over rounds of a per-run median; a ratio is taken
# within a round first (both runs a few seconds apart), then the median over rounds.
# bench/NOTES.md, if present, is appended to the report (the hand-written analysis).
set -u
cd "$(dirname "$0")/.." || exit 2

BUILD=${BUILD:-build}
ROUNDS=${BENCH_ROUNDS:-7}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
BIN=$BUILD/bench
# The command as typed, with the BENCH_* settings that came from the environment.
CMD=${BENCH_CMD:-bench/run.sh $*}
for v in BENCH_ITERS BENCH_BW_TRIALS BENCH_ROUNDS; do
    if [ -n "${!v:-}" ]; then CMD="$v=${!v} $CMD"; fi
done

mode=run
case "${1:-}" in
"") make BUILD="$BUILD" bench-build || exit 2 ;;
--no-build) ;;
--report) mode=report ;;
*) echo "usage: bench/run.sh [--no-build | --report]" >&2; exit 2 ;;
esac
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "run.sh: BENCH_ROUNDS=$ROUNDS: need a positive integer" >&2; exit 2 ;; esac

# Open MPI refuses to run as root without these; they change nothing else.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The MPI baseline runs with Open MPI's defaults (pml ob1 over btl vader here: pml ucx finds
# no device on this machine and is skipped). OpenSHMEM needs spml ucx, the only spml built
# in Debian's Open MPI 4.1.4; `--mca osc ^rdma` works around a crash in shmem_finalize
# (osc rdma frees through a memory hook of an already unloaded UCX component: SIGSEGV in
# opal_mem_hooks_release_hook, even for a program that only calls init and finalize).
MPIRUN=(mpirun -np 2 --bind-to core)
OSHRUN=(oshrun -np 2 --bind-to core --mca osc '^rdma')

mkdir -p "$BIN"
LOG=$BIN/run.log
META=$BIN/run.meta
failures=0

# run_one ROUND LABEL COMMAND...: runs one program, keeps its result lines, prefixed.
run_one() {
    local round=$1 label=$2
    shift 2
    local err=$BIN/$label.stderr out rc
    out=$(timeout 600 "$@" 2>"$err")
    rc=$?
    out=$(printf '%s\n' "$out" | grep -E '^(pingpong|put_bw|emu) ')
    if [ "$rc" -ne 0 ] || [ -z "$out" ]; then
        echo "round=$round FAILED $label rc=$rc" >>"$LOG"
        echo "run.sh: round $round: $label failed (exit $rc): $*" >&2
        tail -n 5 "$err" >&2
        failures=$((failures + 1))
        return
    fi
    printf '%s\n' "$out" | sed "s/^/round=$round /" >>"$LOG"
    printf '%s\n' "$out" | grep '^pingpong' | sed "s/^/  round $round: /" >&2
}

if [ "$mode" = run ]; then
    : >"$LOG"
    start=$(date -u +%H:%M:%S)
    for r in $(seq 1 "$ROUNDS"); do
        echo "run.sh: round $r of $ROUNDS" >&2
        run_one "$r" raw "$BIN/pingpong_raw"
        run_one "$r" raw_2line "$BIN/pingpong_raw" twoline
        run_one "$r" raw_1line "$BIN/pingpong_raw" oneline
        run_one "$r" shmemu "$BIN/pingpong_shmemu"
        run_one "$r" mpi "${MPIRUN[@]}" "$BIN/pingpong_mpi"
        run_one "$r" oshmem "${OSHRUN[@]}" "$BIN/pingpong_oshmem"
        run_one "$r" oshmem_noquiet "${OSHRUN[@]}" "$BIN/pingpong_oshmem" noquiet
        run_one "$r" put_bw "$BIN/put_bw_shmemu"
        run_one "$r" emu "$BIN/emu_costs"
    done
    end=$(date -u +%H:%M:%S)
    day=$(date -u +%F)
    # What the report needs to be rewritten later with --report.
    {
        printf 'day=%q start=%q end=%q CMD=%q ROUNDS=%q failures=%q\n' "$day" "$start" "$end" "$CMD" \
            "$ROUNDS" "$failures"
        printf 'ITERS=%q TRIALS=%q\n' "${BENCH_ITERS:-200000}" "${BENCH_BW_TRIALS:-9}"
    } >"$META"
fi
if [ ! -f "$LOG" ] || [ ! -f "$META" ]; then
    echo "run.sh: no run to report ($LOG, $META)" >&2
    exit 2
fi
# shellcheck disable=SC1090
. "$META"

cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
[ -n "$cpu_model" ] || cpu_model=unknown
cpu_fms=$(awk -F': ' '/^cpu family/ {f=$2} /^model[[:space:]]*:/ {m=$2} /^stepping/ {s=$2; exit}
                      END {printf "family %s model %s stepping %s", f, m, s}' /proc/cpuinfo)

tmp=$RESULTS.tmp.$$
{
    echo "# Benchmark results"
    echo
    echo "Generated by \`bench/run.sh\` (do not edit by hand; the analysis comes from"
    echo "\`bench/NOTES.md\`)."
    echo
    echo "- Date: $day, $start to $end UTC"
    echo "- Command: \`$CMD\` (BUILD=$BUILD, BENCH_ROUNDS=$ROUNDS, BENCH_ITERS=$ITERS, BENCH_BW_TRIALS=$TRIALS)"
    echo "- Machine: $(nproc) CPUs (nproc), CPU \"$cpu_model\" ($cpu_fms), $(uname -sr), shared and noisy"
    echo "- Compilers: $(${CC:-cc} --version | head -n 1); Open MPI $(mpirun --version 2>/dev/null | sed -n 's/.*(Open MPI) //p' | head -n 1)"
    echo "- MPI: \`${MPIRUN[*]} $BIN/pingpong_mpi\`"
    echo "- OpenSHMEM: \`${OSHRUN[*]} $BIN/pingpong_oshmem [noquiet]\`"
    echo "- shmemu and raw: 2 pthreads pinned with pthread_setaffinity_np to cores 0 and 1"
    echo
    awk -v rounds="$ROUNDS" '
    function sortn(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) {
            t = a[i]
            for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
            a[j + 1] = t
        }
    }
    function median(a, n) {
        if (n == 0) return -1
        sortn(a, n)
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function val(field,   i, kv) {
        for (i = 1; i <= NF; i++) {
            split($i, kv, "=")
            if (kv[1] == field) return kv[2] + 0
        }
        return -1
    }
    function human(b) {
        if (b >= 1048576) return (b / 1048576) " MiB"
        if (b >= 1024) return (b / 1024) " KiB"
        return b " B"
    }
    # a ratio of one benchmark to another, median over the rounds that have both
    function ratio(x, y,   r, n, t) {
        n = 0
        for (r = 1; r <= rounds; r++)
            if ((x, r) in pp && (y, r) in pp) t[++n] = pp[x, r] / pp[y, r]
        return median(t, n)
    }
    # the lowest and highest per-round ratio, as "lo .. hi"
    function ratio_range(x, y,   r, lo, hi, q) {
        lo = -1; hi = -1
        for (r = 1; r <= rounds; r++)
            if ((x, r) in pp && (y, r) in pp) {
                q = pp[x, r] / pp[y, r]
                if (lo < 0 || q < lo) lo = q
                if (q > hi) hi = q
            }
        return sprintf("%.2f .. %.2f", lo, hi)
    }
    $2 == "FAILED" { failed[$3] = failed[$3] " " $1; next }
    $2 == "pingpong" {
        split($1, rr, "="); r = rr[2] + 0; name = $3
        pp[name, r] = val("median_ns"); ppmin[name, r] = val("min_ns"); iters[name] = val("iters")
        if (!(name in seen)) { seen[name] = 1; order[++nnames] = name }
        next
    }
    $2 == "emu" {
        split($1, rr, "="); r = rr[2] + 0; name = $3
        em[name, r] = val("median_ns"); emmin[name, r] = val("min_ns")
        if (!(name in eseen)) { eseen[name] = 1; eorder[++nenames] = name }
        next
    }
    $2 == "put_bw" {
        split($1, rr, "="); r = rr[2] + 0; b = val("bytes")
        if (!(b in bseen)) { bseen[b] = 1; sizes[++nsizes] = b }
        nb[b]++; mc[b, nb[b]] = val("memcpy_gbs"); pm[b, nb[b]] = val("putmem_gbs")
        rt[b, nb[b]] = val("ratio"); trials = val("trials")
        next
    }
    END {
        print "## Ping-pong: 8-byte round trip between cores 0 and 1"
        print ""
        print "Per run: the median (and the minimum) over 1000-round-trip batches of " \
              iters["raw"] " timed round trips."
        print "Here: the median over " rounds " rounds of the per-run"
        print "medians, the lowest per-run minimum, and each ratio taken within a round, then the"
        print "median over rounds."
        print ""
        print "| benchmark | median ns | min ns | / raw | / raw_2line | per-round medians (ns) |"
        print "|---|---:|---:|---:|---:|---|"
        for (k = 1; k <= nnames; k++) {
            name = order[k]; n = 0; mn = -1; list = ""
            for (r = 1; r <= rounds; r++) if ((name, r) in pp) {
                m[++n] = pp[name, r]; list = list (list == "" ? "" : ", ") sprintf("%.0f", pp[name, r])
                if (mn < 0 || ppmin[name, r] < mn) mn = ppmin[name, r]
            }
            printf "| %s | %.0f | %.0f | %.2f | %.2f | %s |\n", name, median(m, n), mn,
                   ratio(name, "raw"), ratio(name, "raw_2line"), list
        }
        print ""
        print "raw: one C11 atomic counter, release store and tight acquire spin (the floor the"
        print "target refers to). raw_2line: no runtime either, but the layout of a put-with-signal:"
        print "each side stores {data, signal} into the peer'"'"'s cache line and spins (acquire, one"
        print "pause per poll, as shmemu'"'"'s wait loop) on its own line. raw_1line: the protocol"
        print "of raw_2line with both {data, signal} boxes in one cache line."
        print "oshmem: shmem_long_p + shmem_quiet + shmem_long_wait_until; oshmem_noquiet: the"
        print "same without shmem_quiet."
        print ""
        print "## Put bandwidth: nvshmem_putmem PE 0 -> PE 1 against memcpy (same buffers)"
        print ""
        print "Per run and size: " trials " memcpy and " trials " putmem trials, alternating; GB/s = 1e9 B/s."
        print "Here: medians over the " rounds " rounds; ratio = putmem/memcpy taken within a run"
        print "(median of adjacent-trial ratios), then the median over rounds, with its range."
        print ""
        print "| size | memcpy GB/s | putmem GB/s | ratio | ratio range over rounds |"
        print "|---:|---:|---:|---:|---|"
        worst = -1
        for (k = 1; k <= nsizes; k++) {
            b = sizes[k]; n = nb[b]
            lo = -1; hi = -1
            for (i = 1; i <= n; i++) {
                a1[i] = mc[b, i]; a2[i] = pm[b, i]; a3[i] = rt[b, i]
                if (lo < 0 || rt[b, i] < lo) lo = rt[b, i]
                if (rt[b, i] > hi) hi = rt[b, i]
            }
            med = median(a3, n)
            if (b >= 1048576 && (worst < 0 || med < worst)) { worst = med; worst_b = b }
            printf "| %s | %.2f | %.2f | %.3f | %.3f .. %.3f |\n", human(b), median(a1, n),
                   median(a2, n), med, lo, hi
        }
        print ""
        print "## Emulator: launch, __syncthreads, block-to-block signal (bench/emu_costs.c)"
        print ""
        print "One PE, one stream. Per run: the median (and minimum) over 21 batches of the time per"
        print "operation; here the median over rounds of those medians, the lowest minimum, and"
        print "the ratio to the CPU floor beside it (taken within a round, median over rounds)."
        print ""
        print "| operation | median ns | min ns | floor | / floor |"
        print "|---|---:|---:|---|---:|"
        for (k = 1; k <= nenames; k++) {
            name = eorder[k]
            if (name ~ /^floor_/) continue
            fl = name ~ /^launch/ ? "floor_pthread" : (name ~ /_rt$/ ? "floor_atomic_rt" : "")
            n = 0; mn = -1; nq = 0
            for (r = 1; r <= rounds; r++) if ((name, r) in em) {
                m[++n] = em[name, r]
                if (mn < 0 || emmin[name, r] < mn) mn = emmin[name, r]
                if (fl != "" && (fl, r) in em) q[++nq] = em[name, r] / em[fl, r]
            }
            if (fl == "") printf "| %s | %.0f | %.0f | | |\n", name, median(m, n), mn
            else printf "| %s | %.0f | %.0f | %s | %.1f |\n", name, median(m, n), mn, fl, median(q, nq)
        }
        for (k = 1; k <= nenames; k++) {
            name = eorder[k]
            if (name !~ /^floor_/) continue
            n = 0; mn = -1
            for (r = 1; r <= rounds; r++) if ((name, r) in em) {
                m[++n] = em[name, r]
                if (mn < 0 || emmin[name, r] < mn) mn = emmin[name, r]
            }
            printf "| %s | %.0f | %.0f | | |\n", name, median(m, n), mn
        }
        print ""
        print "launch_async: empty 1x1 kernels launched back to back, one sync at the end;"
        print "launch_sync: launch + cudaStreamSynchronize each; floor_pthread: pthread_create +"
        print "join (every block is a pthread). syncthreads_T: one block-wide barrier of T threads"
        print "(T fiber switches). signal_rt: two blocks, st_release(SCOPE_SYS) + ld_acquire spin;"
        print "nvshmem_rt: nvshmemx_signal_op + nvshmem_signal_wait_until; floor_atomic_rt: the"
        print "same round trip between two unpinned pthreads with C11 atomics."
        print ""
        print "## Targets"
        print ""
        t1 = ratio("shmemu", "raw")
        if (t1 < 0) print "- Ping-pong within 1.3x of the raw floor: NO DATA"
        else printf "- Ping-pong within 1.3x of the raw floor: shmemu/raw = %.2f (per round %s): %s\n",
                    t1, ratio_range("shmemu", "raw"), (t1 <= 1.3 ? "MET" : "NOT MET")
        t1b = ratio("shmemu", "raw_2line")
        if (t1b >= 0) printf "  (shmemu/raw_2line = %.2f, per round %s; raw_2line/raw = %.2f, per round %s)\n",
                             t1b, ratio_range("shmemu", "raw_2line"), ratio("raw_2line", "raw"),
                             ratio_range("raw_2line", "raw")
        if (worst < 0) print "- Put bandwidth at least 90% of memcpy from 1 MiB up: NO DATA"
        else printf "- Put bandwidth at least 90%% of memcpy from 1 MiB up: lowest ratio %.3f (at %s): %s\n",
                    worst, human(worst_b), (worst >= 0.9 ? "MET" : "NOT MET")
        nf = 0
        for (f in failed) { if (!nf++) { print ""; print "## Failed runs"; print "" }
                            print "- " f ":" failed[f] }
    }' "$LOG"
    echo
    echo "## Raw output"
    echo
    echo "<details><summary>every result line of this run ($LOG)</summary>"
    echo
    echo '```'
    cat "$LOG"
    echo '```'
    echo
    echo "</details>"
    # Sections that other bench scripts wrote between "<!-- NAME begin -->" and
    # "<!-- NAME end -->" markers (e.g. bench/md_lammps.sh) are kept as they were.
    if [ -f "$RESULTS" ]; then
        awk '/^<!-- .* begin -->$/ { keep = 1; print "" } keep { print } /^<!-- .* end -->$/ { keep = 0 }' "$RESULTS"
    fi
    if [ -f bench/NOTES.md ]; then
        echo
        cat bench/NOTES.md
    fi
} >"$tmp"
if ! mv -f "$tmp" "$RESULTS"; then
    rm -f "$tmp"
    echo "run.sh: could not write $RESULTS" >&2
    exit 2
fi

echo "run.sh: wrote $RESULTS" >&2
[ "$failures" -eq 0 ] || { echo "run.sh: $failures run(s) failed (see $RESULTS)" >&2; exit 1; }
exit 0

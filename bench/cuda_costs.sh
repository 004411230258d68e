#!/usr/bin/env bash
# bench/cuda_costs.sh: the emulator's costs for blocks of 1024 threads, the same kernels
# written in the kernel dialect (bench/emu_costs.c) and as a .cu file built by
# bin/shmemu-nvcc (bench/cuda_costs.cu), side by side: the .cu path's slowdown against the
# dialect's, and what a 4-PE job of 8 blocks of 1024 threads with a block put and a barrier
# costs in time and memory.
#
#   bench/cuda_costs.sh           (what `make bench-cuda` runs, after building both programs)
#   bench/cuda_costs.sh --report  only rewrite the section from the last run's log and meta
#                                 ($BUILD/bench/cuda_costs.log, cuda_costs.meta)
#
# Rounds: each round runs, for both variants, `block1024` (1 PE: launch, __syncthreads,
# shuffles, fiber stacks, and the bare fiber switch in the dialect program only) and `job`
# (SHMEMU_NPES=4), each a process of its own under /usr/bin/time (wall time and peak
# resident memory of the job); the variant that goes first alternates from round to round,
# so a noisy neighbour hits both alike. A value in the table is the median over rounds of
# the per-run values (a run's best and median batch, see emu_costs.c); a ratio is .cu /
# dialect taken within a round, then the median over rounds, with its range.
#
# Every kernel checks its result (the put's data included) and a wrong one ends its program
# with status 1: then this script fails and writes no table.
#
# Environment: BUILD (default build), BENCH_CUDA_ROUNDS (default 9), BENCH_CUDA_NOTE (a
# paragraph added to the section: say what else ran on the machine), BENCH_RESULTS (default
# bench/RESULTS.md). The section lies between the markers below; bench/run.sh keeps it.
# bench/cuda_costs_notes.md, the hand-written reading of a run, is appended to the section
# (after a new run, update its numbers, then `bench/cuda_costs.sh --report`).
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
ROUNDS=${BENCH_CUDA_ROUNDS:-9}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
BIN=$BUILD/bench
LOG=$BIN/cuda_costs.log
META=$BIN/cuda_costs.meta
BEGIN='<!-- bench/cuda_costs.sh begin -->'
END='<!-- bench/cuda_costs.sh end -->'
# shellcheck source=bench/results_section.sh
. bench/results_section.sh

case "${1:-}" in
"") mode=run ;;
--report) mode=report ;;
*) echo "usage: bench/cuda_costs.sh [--report]" >&2; exit 2 ;;
esac
if [ "$mode" = run ]; then
    for p in emu_costs cuda_costs; do
        [ -x "$BIN/$p" ] || { echo "cuda_costs.sh: $BIN/$p is not built (make BUILD=$BUILD bench-cuda builds it)" >&2; exit 2; }
    done
    [ -x /usr/bin/time ] || { echo "cuda_costs.sh: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }
    case "$ROUNDS" in '' | *[!0-9]* | 0) echo "cuda_costs.sh: BENCH_CUDA_ROUNDS=$ROUNDS: need a positive integer" >&2; exit 2 ;; esac
    mkdir -p "$BIN"
fi

# run_one ROUND VARIANT SET NPES [VAR=VALUE]: one process (with that variable set in its
# environment); its result lines go to the log, a job's with the process's wall time and
# peak resident memory appended. Exits the script on a failure.
run_one() {
    local round=$1 variant=$2 set=$3 npes=$4
    local -a envs=(SHMEMU_NPES="$npes")
    [ -n "${5:-}" ] && envs+=("$5")
    local prog=$BIN/emu_costs prefix=emu
    [ "$variant" = cuda ] && { prog=$BIN/cuda_costs; prefix=cuda; }
    local out=$BIN/cuda_costs.$variant.$set.out tm=$BIN/cuda_costs.$variant.$set.time
    env "${envs[@]}" /usr/bin/time -f 'BENCH_TIME %e %M' -o "$tm" timeout 600 "$prog" "$set" \
        >"$out" 2>&1
    local rc=$?
    if [ "$rc" -ne 0 ] || ! grep -q "^$prefix " "$out"; then
        echo "cuda_costs.sh: round $round: $prog $set (SHMEMU_NPES=$npes) failed (exit $rc):" >&2
        tail -n 5 "$out" >&2
        echo "cuda_costs.sh: no table written" >&2
        exit 1
    fi
    local secs kb
    read -r _ secs kb < <(grep '^BENCH_TIME' "$tm")
    grep "^$prefix " "$out" | while read -r line; do
        case "$line" in
        "$prefix job "*) line="$line wall_s=$secs maxrss_kb=$kb" ;;
        esac
        echo "round=$round variant=$variant $line"
    done >>"$LOG"
}

if [ "$mode" = run ]; then
    : >"$LOG"
    rm -f "$META"
    load_start=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date -u '+%Y-%m-%d %H:%M')
    for r in $(seq 1 "$ROUNDS"); do
        if [ $((r % 2)) = 1 ]; then order="emu cuda"; else order="cuda emu"; fi
        echo "cuda_costs.sh: round $r of $ROUNDS ($order)" >&2
        for v in $order; do run_one "$r" "$v" block1024 1; done
        for v in $order; do run_one "$r" "$v" job 4; done
    done
    # glibc gives a new thread that allocates an arena of its own (64 MiB of address space,
    # little of it touched), and VmSize counts it; round 0, one block1024 run of each variant
    # with MALLOC_ARENA_MAX=1, shows the emulator's own share of the growth.
    for v in emu cuda; do run_one 0 "$v" block1024 1 MALLOC_ARENA_MAX=1; done
    end=$(date -u '+%H:%M')
    load_end=$(cut -d' ' -f1-3 /proc/loadavg)
    cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
    commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -c . || true)
    kernel=$(uname -sr)
    ncpu=$(nproc)
    # what --report needs to write the section again
    printf 'ROUNDS=%q start=%q end=%q load_start=%q load_end=%q cpu_model=%q commit=%q dirty=%q kernel=%q ncpu=%q\n' \
        "$ROUNDS" "$start" "$end" "$load_start" "$load_end" "$cpu_model" "$commit" "$dirty" "$kernel" \
        "$ncpu" >"$META"
fi
if [ ! -f "$LOG" ] || [ ! -f "$META" ]; then
    echo "cuda_costs.sh: no complete run to report ($LOG, $META)" >&2
    exit 2
fi
# shellcheck disable=SC1090
. "$META"

table=$(awk -v rounds="$ROUNDS" '
function median(a, n,   i, j, t) {
    if (n == 0) return -1
    for (i = 2; i <= n; i++) {
        t = a[i]
        for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    split($1, rr, "="); r = rr[2] + 0
    split($2, vv, "="); v = vv[2]
    name = $4
    for (i = 5; i <= NF; i++) {
        split($i, kv, "=")
        val[v, name "." kv[1], r] = kv[2] + 0
        have[v, name "." kv[1], r] = 1
    }
}
# the median over rounds r0..r1 of variant v'"'"'s KEY (NAME.FIELD) / div, printed with fmt
function cell(v, key, div, fmt, r0, r1,   r, n, a) {
    n = 0
    for (r = r0; r <= r1; r++) if ((v, key, r) in have) a[++n] = val[v, key, r] / div
    return n ? sprintf(fmt, median(a, n)) : "n/a"
}
# .cu / dialect of KEY taken within each round, the median over rounds and the range
function ratio(key,   r, n, q, x, lo, hi) {
    n = 0; lo = hi = -1
    for (r = 1; r <= rounds; r++)
        if (("emu", key, r) in have && ("cuda", key, r) in have && val["emu", key, r] > 0) {
            x = val["cuda", key, r] / val["emu", key, r]
            q[++n] = x
            if (lo < 0 || x < lo) lo = x
            if (x > hi) hi = x
        }
    return n ? sprintf("%.2f (%.2f .. %.2f)", median(q, n), lo, hi) : ""
}
function trow(label, name, div, fmt) {
    printf "| %s | %s | %s | %s | %s | %s | %s |\n", label,
           cell("emu", name ".min_ns", div, fmt, 1, rounds), cell("cuda", name ".min_ns", div, fmt, 1, rounds),
           ratio(name ".min_ns"),
           cell("emu", name ".median_ns", div, fmt, 1, rounds), cell("cuda", name ".median_ns", div, fmt, 1, rounds),
           ratio(name ".median_ns")
}
function row(label, key, div, fmt, r0, r1, with_ratio) {
    printf "| %s | %s | %s |%s\n", label, cell("emu", key, div, fmt, r0, r1),
           cell("cuda", key, div, fmt, r0, r1), with_ratio ? " " ratio(key) " |" : ""
}
END {
    print "Times: per run, the best and the median of its batches; here the median over the rounds"
    print "of each, and .cu / dialect taken within each round (median, and the range over rounds)."
    print ""
    print "| operation | dialect best | .cu best | .cu / dialect, best | dialect median | .cu median | .cu / dialect, median |"
    print "|---|---:|---:|---|---:|---:|---|"
    trow("launch + stream sync of 1 block of 1024 threads, empty kernel (µs)", "launch_sync_1024", 1000, "%.0f")
    trow("`__syncthreads` in a 1024-thread block (µs per barrier)", "syncthreads_1024", 1000, "%.1f")
    trow("`__shfl_sync` by all 1024 threads = 32 warps (µs)", "shfl_sync_1024", 1000, "%.1f")
    trow("`__shfl_down_sync` by all 1024 threads = 32 warps (µs)", "shfl_down_1024", 1000, "%.1f")
    trow("fiber switch, bare (ns; the same code under both)", "fiber_switch", 1, "%.1f")
    print ""
    print "Memory (the same under both: the layer launches through the emulator):"
    print ""
    print "| fiber stacks | dialect | .cu |"
    print "|---|---:|---:|"
    row("reserved per thread (KiB; smaps Size of its stack mapping)", "stack_1024.stack_size_kb", 1024, "%.1f", 1, rounds, 0)
    row("touched per thread (KiB; smaps Rss of its stack mapping)", "stack_1024.stack_rss_kb", 1024, "%.1f", 1, rounds, 0)
    row("first 1024-thread block: VmRSS growth (MiB)", "stack_1024.vmrss_delta_kb", 1024, "%.1f", 1, rounds, 0)
    row("first 1024-thread block: VmSize growth (MiB; glibc arenas of new threads included)", "stack_1024.vmsize_delta_kb", 1024, "%.1f", 1, rounds, 0)
    row("the same with MALLOC_ARENA_MAX=1 (MiB; one run each)", "stack_1024.vmsize_delta_kb", 1024, "%.1f", 0, 0, 0)
    print ""
    steps = val["emu", "job.steps", 1]
    print "The job, 4 PEs x 8 blocks x 1024 threads (" steps " steps per process; medians over the rounds):"
    print ""
    print "| job | dialect | .cu | .cu / dialect |"
    print "|---|---:|---:|---|"
    row("first step: block stacks mapped fresh (ms)", "job.first_ns", 1000000, "%.0f", 1, rounds, 1)
    row("later steps, stacks reused: best (ms)", "job.min_ns", 1000000, "%.1f", 1, rounds, 1)
    row("later steps, stacks reused: median of " steps - 1 " (ms)", "job.median_ns", 1000000, "%.1f", 1, rounds, 1)
    row("whole process: start, " steps " steps, exit (s)", "job.wall_s", 1, "%.2f", 1, rounds, 1)
    row("peak resident memory of the process (MiB)", "job.maxrss_kb", 1024, "%.0f", 1, rounds, 1)
    row("mappings after the steps (/proc/self/maps lines)", "job.maps", 1, "%.0f", 1, rounds, 0)
    row("vm.max_map_count", "job.max_map_count", 1, "%.0f", 1, rounds, 0)
}' "$LOG")

section=$(
    echo "## Emulator costs for 1024-thread blocks: the dialect against .cu (bench/cuda_costs.sh)"
    echo
    echo "- Command: \`BENCH_CUDA_ROUNDS=$ROUNDS make BUILD=$BUILD bench-cuda\`"
    echo "- Date: $start to $end UTC; commit $commit$([ "$dirty" -gt 0 ] && echo " with $dirty uncommitted file(s)")"
    echo "- Machine: $ncpu CPUs (nproc), \"$cpu_model\", $kernel, shared with other"
    echo "  sessions' builds and tests (load average $load_start at the start, $load_end at the end)"
    echo "- Programs: \`$BIN/emu_costs\` (the kernel dialect, bench/emu_costs.c) and"
    echo "  \`$BIN/cuda_costs\` (bench/cuda_costs.cu through bin/shmemu-nvcc -O2), the same kernels;"
    echo "  sets \`block1024\` (1 PE) and \`job\` (SHMEMU_NPES=4), one process each, both variants"
    echo "  in every round, the first variant alternating"
    echo "- The job: per step, on each of 4 PEs, a kernel of 8 blocks of 1024 threads (each block"
    echo "  fills its slice, \`__syncthreads\`, one \`nvshmemx_int_put_block\` to the next PE), then"
    echo "  \`nvshmemx_barrier_all_on_stream\` and a stream sync; every PE checks the data it received"
    echo
    echo "$table"
    echo
    echo "A run times 41 single launches, 31 kernels of each barrier or shuffle and 21 batches of"
    echo "fiber switches. Barriers and shuffles are timed inside the kernel by thread 0, between a"
    echo "first \`__syncthreads\` and one after the 100 rounds, so neither the launch nor the fibers'"
    echo "creation is in them (the shuffles carry that last barrier: 1/100 of one). On this shared"
    echo "machine the median batch often includes time the thread waited for a core; the best"
    echo "batch is the cost itself."
    echo "Stack sizes are read from \`/proc/self/smaps\` (the mappings that hold each thread's local"
    echo "variable) and \`/proc/self/status\` (before the process's first launch and after it); job"
    echo "step times from the PE 0 host thread, the process's wall time and peak memory from GNU"
    echo "time. Every kernel's result was checked."
    if [ -n "${BENCH_CUDA_NOTE:-}" ]; then
        echo
        echo "$BENCH_CUDA_NOTE"
    fi
    if [ -f bench/cuda_costs_notes.md ]; then
        echo
        cat bench/cuda_costs_notes.md
    fi
)
echo "$section"
echo "$section" | replace_results_section_log "$RESULTS" "$BEGIN" "$END" "$LOG" ||
    { echo "cuda_costs.sh: could not write $RESULTS" >&2; exit 2; }
echo "cuda_costs.sh: wrote $RESULTS" >&2

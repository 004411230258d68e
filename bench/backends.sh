#!/usr/bin/env bash
# bench/backends.sh: shmemu's PE backends side by side (`make bench-backends`): threads (every
# PE a thread of one process, the default) and process (PEs 1..N-1 processes forked from PE
# 0's, over shared memory: SHMEMU_BACKEND=process, docs/pgas.md) and MPI (every PE an MPI
# rank, the plugin $BUILD/lib/libshmemu_mpi.so: started by mpirun), against the raw floor, MPI
# and Open MPI's OpenSHMEM.
#
# The same binaries run on every backend; only SHMEMU_BACKEND differs, or mpirun starts them.
# The MPI backend runs in two variants: mpi (both ranks one node: peers reached by loads and
# stores in a shared window) and mpi_rma (SHMEMU_MPI_NODE_SIZE=1: each rank its own "node",
# every put an MPI_Put + flush, every signal an MPI atomic). Under mpirun only rank 0's output
# counts (--tag-output; the other rank prints an empty result):
#   ping-pong   bench/pingpong_shmemu (8-byte put-with-signal round trip, PE 0 and PE 1
#               pinned to cores 0 and 1) beside pingpong_raw (one atomic counter, and the
#               two-line layout of a put-with-signal), pingpong_mpi (MPI_Send/Recv) and
#               pingpong_oshmem (shmem_long_p + shmem_quiet + wait_until), launched as
#               bench/run.sh launches them; and pingpong_shmemu again with SHMEMU_SPIN=0
#               (rows *_park): every wait parks on a futex at once, a private one on the
#               threads backend and a process-shared one on the process backend, so a round
#               trip is two futex wake-ups (BACKENDS_PARK_ITERS round trips, default 20000);
#               on the MPI backend `mpirun --oversubscribe -np 2 pingpong_shmemu` (mpi_rma:
#               BACKENDS_RMA_ITERS round trips, at least 1000, default 2000: a round trip there
#               is about 1 ms);
#   bandwidth   bench/put_bw_shmemu (nvshmem_putmem PE 0 -> PE 1 against memcpy into the
#               same peer buffer, 8 B to 64 MiB); mpi_rma has no peer pointer, so putmem
#               alone (BENCH_BW_PUT_ONLY=1), BACKENDS_RMA_BW_TRIALS trials (default 1);
#   MD          shmemu-md --cells MD_CELLS --steps MD_STEPS --halo fused --pes P for each P
#               of MD_PES: the main job's system and halo (`make run`: 20 cells, 8 PEs,
#               200 steps); atom-steps/s of the step loop (setup excluded), its setup time,
#               the wall time of the whole program (fork, mappings and exit included) and,
#               where GNU time is installed, the job's minor page faults and context switches;
#               on the MPI backend `mpirun --oversubscribe -np P shmemu-md --pes P ...` (rank
#               0's lines: its rate and its checksum, which must be the threads backend's).
#
# Rounds: every round runs every measurement once, in an order that reverses every other
# round, so that a noisy neighbour on this shared machine hits all alike. A ratio (process /
# threads, shmemu / raw) is taken within a round first, then the median over rounds is
# reported with its range. Every MD run must print the same checksum (any backend, any
# --pes: the bits do not depend on them); a run that fails or differs fails the script and
# is named in the section.
#
# Environment: BUILD (default build), MD_BIN (default bin/shmemu-md in the plain build, else
# $BUILD/bin/shmemu-md), BACKENDS_ROUNDS (default 7), BENCH_ITERS (ping-pong round trips per
# run, default 200000), BENCH_BW_TRIALS (put_bw trials per size per run, default 5), MD_CELLS
# (default 20), MD_STEPS (default 200), MD_PES (default "2 4 8"), BACKENDS_RMA_ITERS,
# BACKENDS_RMA_BW_TRIALS (above), BACKENDS_NOTE (a paragraph
# added to the section), BENCH_RESULTS (default bench/RESULTS.md). Writes its own section of
# bench/RESULTS.md (between the markers below; bench/run.sh keeps it), and keeps the
# hand-written reading, between the "backends reading" markers, right after it (the reading
# names the run it was written for); the raw lines go to $BUILD/bench/backends.log.
set -u
cd "$(dirname "$0")/.." || exit 2
. bench/results_section.sh

BUILD=${BUILD:-build}
if [ "$BUILD" = build ]; then MD=${MD_BIN:-bin/shmemu-md}; else MD=${MD_BIN:-$BUILD/bin/shmemu-md}; fi
ROUNDS=${BACKENDS_ROUNDS:-7}
export BENCH_ITERS=${BENCH_ITERS:-200000}
PARK_ITERS=${BACKENDS_PARK_ITERS:-20000}
RMA_ITERS=${BACKENDS_RMA_ITERS:-2000}
RMA_BW_TRIALS=${BACKENDS_RMA_BW_TRIALS:-1}
export BENCH_BW_TRIALS=${BENCH_BW_TRIALS:-5}
CELLS=${MD_CELLS:-20}
STEPS=${MD_STEPS:-200}
PES_LIST=${MD_PES:-2 4 8}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
BIN=$BUILD/bench
LOG=$BIN/backends.log
BEGIN='<!-- bench/backends.sh begin -->'
END='<!-- bench/backends.sh end -->'
READING_BEGIN='<!-- backends reading begin -->'
READING_END='<!-- backends reading end -->'

for v in "$ROUNDS" "$CELLS" "$STEPS" "$PARK_ITERS" "$RMA_ITERS" "$RMA_BW_TRIALS"; do
    case "$v" in '' | *[!0-9]* | 0) echo "backends.sh: BACKENDS_ROUNDS, MD_CELLS, MD_STEPS, BACKENDS_PARK_ITERS, BACKENDS_RMA_ITERS, BACKENDS_RMA_BW_TRIALS: need positive integers" >&2; exit 2 ;; esac
done
[ "$RMA_ITERS" -ge 1000 ] || { echo "backends.sh: BACKENDS_RMA_ITERS=$RMA_ITERS: need at least 1000 (pingpong_shmemu times batches of 1000)" >&2; exit 2; }
for p in $PES_LIST; do
    case "$p" in '' | *[!0-9]* | 0) echo "backends.sh: MD_PES=$PES_LIST: need positive integers" >&2; exit 2 ;; esac
done
for p in pingpong_raw pingpong_shmemu put_bw_shmemu pingpong_mpi pingpong_oshmem; do
    [ -x "$BIN/$p" ] || { echo "backends.sh: $BIN/$p is missing: run make BUILD=$BUILD bench-backends" >&2; exit 2; }
done
[ -x "$MD" ] || { echo "backends.sh: $MD is missing: run make BUILD=$BUILD bench-backends" >&2; exit 2; }
command -v mpirun >/dev/null 2>&1 || { echo "backends.sh: no mpirun (Debian: apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 2; }
[ -f "$BUILD/lib/libshmemu_mpi.so" ] || { echo "backends.sh: $BUILD/lib/libshmemu_mpi.so (the MPI backend) is missing: run make BUILD=$BUILD libs where mpicc exists" >&2; exit 2; }

# Launched as bench/run.sh launches them (it says why each setting is there).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun -np 2 --bind-to core)
OSHRUN=(oshrun -np 2 --bind-to core --mca osc '^rdma')
# shmemu's programs on the MPI backend: each rank pins itself (bench_pin_self), as the PE
# threads do; --tag-output names each line's rank.
SHRUN=(mpirun --oversubscribe --bind-to none --tag-output)

mkdir -p "$BIN"
: >"$LOG"
failures=0

# fail ROUND WHAT: records a failed run (the script then fails).
fail() {
    echo "round=$1 FAILED $2" >>"$LOG"
    echo "backends.sh: round $1: $2 failed:" >&2
    tail -n 5 "$BIN/backends.stderr" >&2
    failures=$((failures + 1))
}

# rank0: passes untagged lines, and the lines mpirun --tag-output gave rank 0 ("[J,0]<stdout>:"),
# without the tag; drops the other ranks' lines.
rank0() {
    awk '{ if (match($0, /^\[[0-9]+,[0-9]+\]<[a-z]+>:/)) { t = substr($0, 1, RLENGTH); if (t !~ /,0\]</) next; $0 = substr($0, RLENGTH + 1) } print }'
}

# ping_run ROUND NAME COMMAND...: one ping-pong run; its result line, renamed NAME, to the log.
ping_run() {
    local r=$1 name=$2 out rc
    shift 2
    out=$(timeout 600 "$@" 2>"$BIN/backends.stderr")
    rc=$?
    out=$(rank0 <<<"$out" | awk -v n="$name" '$1 == "pingpong" { $2 = n; print }')
    if [ "$rc" != 0 ] || [ -z "$out" ]; then fail "$r" "$name (exit $rc)"; return; fi
    echo "round=$r $out" >>"$LOG"
    echo "  round $r: $out" >&2
}

# bw_run ROUND BACKEND COMMAND...: one put_bw run; its lines (24 sizes), tagged with the
# backend (a name), to the log.
bw_run() {
    local r=$1 b=$2 out rc
    shift 2
    out=$(timeout 600 "$@" 2>"$BIN/backends.stderr")
    rc=$?
    out=$(rank0 <<<"$out" | awk -v b="$b" '$1 == "put_bw" { $1 = "put_bw backend=" b; print }')
    if [ "$rc" != 0 ] || [ "$(grep -c . <<<"$out")" != 24 ]; then fail "$r" "put_bw $b (exit $rc)"; return; fi
    awk -v r="$r" '{ print "round=" r, $0 }' <<<"$out" >>"$LOG"
    echo "  round $r: put_bw $b" >&2
}

# md_run ROUND BACKEND PES: one shmemu-md run: atom-steps/s, setup and wall time, checksum,
# and (with GNU time) the whole job's minor page faults and context switches, PE processes
# included (they are the launching process's children, reaped by it; on the MPI backend the
# ranks are mpirun's). BACKEND mpi: `mpirun -np PES`, rank 0's lines (its stderr is tagged
# onto mpirun's); its checksum is the first "checksum" line of rank 0 that is not all zeros
# (ranks other than 0 may print a zero one).
md_run() {
    local r=$1 b=$2 p=$3 out rc t0 t1 rate setup sum ru=$BIN/backends.rusage timer=() launch=()
    rm -f "$ru"
    [ ! -x /usr/bin/time ] || timer=(/usr/bin/time -q -f 'minflt=%R vcsw=%w ivcsw=%c' -o "$ru")
    if [ "$b" = mpi ]; then launch=("${SHRUN[@]}" -np "$p"); else launch=(env SHMEMU_BACKEND="$b"); fi
    t0=$(date +%s%N)
    out=$(timeout 600 "${timer[@]}" "${launch[@]}" "$MD" --cells "$CELLS" --steps "$STEPS" --thermo 0 \
        --pes "$p" --halo fused 2>"$BIN/backends.stderr")
    rc=$?
    t1=$(date +%s%N)
    out=$(rank0 <<<"$out")
    rank0 <"$BIN/backends.stderr" >"$BIN/backends.stderr0"
    rate=$(sed -n 's/^shmemu-md: .*: \([0-9.e+]*\) atom-steps\/s .*/\1/p' "$BIN/backends.stderr0" | head -n 1)
    setup=$(sed -n 's/^shmemu-md: .*(setup \([0-9.]*\) s).*/\1/p' "$BIN/backends.stderr0" | head -n 1)
    sum=$(awk '$1 == "checksum" && $2 !~ /^0+$/ { print $2; exit }' <<<"$out")
    if [ "$rc" != 0 ] || [ -z "$rate" ] || [ -z "$setup" ] || [ -z "$sum" ]; then
        fail "$r" "md $b pes=$p (exit $rc)"
        return
    fi
    echo "round=$r md backend=$b pes=$p atom_steps_s=$rate setup_s=$setup wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') checksum=$sum $(cat "$ru" 2>/dev/null)" >>"$LOG"
    echo "  round $r: md $b $p PEs: $rate atom-steps/s" >&2
}

# One entry per measurement: a function above and its arguments after the round, plain words.
runs=("ping_run raw $BIN/pingpong_raw" "ping_run raw_2line $BIN/pingpong_raw twoline"
      "ping_run shmemu_threads env SHMEMU_BACKEND=threads $BIN/pingpong_shmemu"
      "ping_run shmemu_process env SHMEMU_BACKEND=process $BIN/pingpong_shmemu"
      "ping_run shmemu_threads_park env SHMEMU_SPIN=0 BENCH_ITERS=$PARK_ITERS SHMEMU_BACKEND=threads $BIN/pingpong_shmemu"
      "ping_run shmemu_process_park env SHMEMU_SPIN=0 BENCH_ITERS=$PARK_ITERS SHMEMU_BACKEND=process $BIN/pingpong_shmemu"
      "ping_run shmemu_mpi ${SHRUN[*]} -np 2 $BIN/pingpong_shmemu"
      "ping_run shmemu_mpi_rma ${SHRUN[*]} -np 2 -x SHMEMU_MPI_NODE_SIZE=1 -x BENCH_ITERS=$RMA_ITERS $BIN/pingpong_shmemu"
      "ping_run mpi ${MPIRUN[*]} $BIN/pingpong_mpi" "ping_run oshmem ${OSHRUN[*]} $BIN/pingpong_oshmem"
      "bw_run threads env SHMEMU_BACKEND=threads $BIN/put_bw_shmemu"
      "bw_run process env SHMEMU_BACKEND=process $BIN/put_bw_shmemu"
      "bw_run mpi ${SHRUN[*]} -np 2 $BIN/put_bw_shmemu"
      "bw_run mpi_rma ${SHRUN[*]} -np 2 -x SHMEMU_MPI_NODE_SIZE=1 -x BENCH_BW_PUT_ONLY=1 -x BENCH_BW_TRIALS=$RMA_BW_TRIALS $BIN/put_bw_shmemu")
for p in $PES_LIST; do runs+=("md_run threads $p" "md_run process $p" "md_run mpi $p"); done

start=$(date -u '+%F %H:%M')
load0=$(cut -d ' ' -f 1-3 /proc/loadavg)
t_start=$(date +%s)
for r in $(seq 1 "$ROUNDS"); do
    echo "backends.sh: round $r of $ROUNDS" >&2
    if [ $((r % 2)) = 1 ]; then order=$(seq 0 $((${#runs[@]} - 1))); else order=$(seq $((${#runs[@]} - 1)) -1 0); fi
    for i in $order; do
        # shellcheck disable=SC2086 # each entry is a command line of plain words
        set -- ${runs[$i]}
        cmd=$1
        shift
        "$cmd" "$r" "$@"
    done
done
end=$(date -u '+%H:%M')
load1=$(cut -d ' ' -f 1-3 /proc/loadavg)
wall=$(($(date +%s) - t_start))

nsum=$(awk '$2 == "md" { for (i = 1; i <= NF; i++) if ($i ~ /^checksum=/) print $i }' "$LOG" | sort -u | wc -l)
if [ "$nsum" -gt 1 ]; then
    echo "backends.sh: the MD runs printed $nsum different checksums (one system: one checksum)" >&2
    failures=$((failures + 1))
fi
checksum=$(awk '$2 == "md" { for (i = 1; i <= NF; i++) if ($i ~ /^checksum=/) { print substr($i, 10); exit } }' "$LOG")

section=$(awk -v rounds="$ROUNDS" -v start="$start" -v end="$end" -v build="$BUILD" -v nproc="$(nproc)" \
    -v cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" -v kernel="$(uname -sr)" \
    -v load0="$load0" -v load1="$load1" -v wall="$wall" -v iters="$BENCH_ITERS" -v trials="$BENCH_BW_TRIALS" \
    -v md="$MD" -v cells="$CELLS" -v steps="$STEPS" -v atoms="$((4 * CELLS * CELLS * CELLS))" -v sum="$checksum" \
    -v mpirun="${MPIRUN[*]}" -v oshrun="${OSHRUN[*]}" -v park="$PARK_ITERS" -v shrun="${SHRUN[*]}" \
    -v rma_iters="$RMA_ITERS" -v rma_trials="$RMA_BW_TRIALS" \
    "$(cat bench/stats.awk)"'
function human(b) { return b >= 1048576 ? b / 1048576 " MiB" : b >= 1024 ? b / 1024 " KiB" : b " B" }
$2 == "FAILED" { failed = failed " " $0; next }
{ r = substr($1, 7) + 0 }
$2 == "pingpong" {
    n = $3; pp[n, r] = val("median_ns") + 0; m = val("min_ns") + 0
    if (!(n in ppmin) || m < ppmin[n]) ppmin[n] = m
    if (!(n in pseen)) { pseen[n] = 1; pnames[++np] = n }
}
$2 == "put_bw" {
    b = val("backend"); s = val("bytes")
    mc[b "," s, r] = val("memcpy_gbs") + 0; pm[b "," s, r] = val("putmem_gbs") + 0; rt[b "," s, r] = val("ratio") + 0
    if (!(s in sseen)) { sseen[s] = 1; sizes[++ns] = s }
}
$2 == "md" {
    b = val("backend"); p = val("pes")
    as[b "," p, r] = val("atom_steps_s") + 0; su[b "," p, r] = val("setup_s") + 0; wl[b "," p, r] = val("wall_s") + 0
    if (val("minflt") != "") { nmf++; mf[b "," p, r] = val("minflt") + 0; vc[b "," p, r] = val("vcsw") + 0; ic[b "," p, r] = val("ivcsw") + 0 }
    if (!(p in mseen)) { mseen[p] = 1; pes[++nm] = p }
}
END {
    print "## PE backends: threads, process and MPI, beside the raw floor, MPI and OpenSHMEM (bench/backends.sh)"
    print ""
    print "- Date: " start " to " end " UTC (" wall " s); command: `make BUILD=" build " bench-backends` (" rounds " rounds, BENCH_ITERS=" iters ", BENCH_BW_TRIALS=" trials ")"
    print "- Machine: " nproc " CPUs (\"" cpu "\", " kernel "), shared with other work; load average (1, 5, 15 min) " load0 " before, " load1 " after."
    print "  With " nproc " CPUs, every MD run above " nproc " PEs oversubscribes them (PEs wait by spinning, then parking on a futex)."
    print "- threads: `SHMEMU_BACKEND=threads` (every PE a thread of one process); process: `SHMEMU_BACKEND=process` (PEs 1..N-1"
    print "  forked processes; heaps, records and wake-ups in one MAP_SHARED mapping; process-shared futexes); mpi: every PE an"
    print "  MPI rank (`" shrun " -np P prog`), one node: the heaps of its peers in a shared window, reached by loads and stores;"
    print "  mpi_rma: the same with SHMEMU_MPI_NODE_SIZE=1 (each rank its own \"node\": every put MPI_Put + MPI_Win_flush, every"
    print "  signal and atomic an MPI atomic). Same binaries; under mpirun only the lines of rank 0 count."
    print "- Every round runs every measurement once, the order reversed every other round; ratios are taken within a round,"
    print "  then the median (and range) over rounds."
    print ""
    print "### Ping-pong: 8-byte round trip between cores 0 and 1"
    print ""
    print "Per run: median (and minimum) over 1000-round-trip batches of " iters " round trips. MPI: `" mpirun " pingpong_mpi`;"
    print "OpenSHMEM: `" oshrun " pingpong_oshmem`; shmemu and raw pin two threads (process: PE 1 is a process) to cores 0 and 1."
    print ""
    print "| benchmark | median ns | min ns | / raw | / raw_2line | / shmemu_threads | process / threads | per-round medians (ns) |"
    print "|---|---:|---:|---|---|---|---|---|"
    for (k = 1; k <= np; k++) {
        n = pnames[k]; list = ""
        for (rr = 1; rr <= rounds; rr++) if ((n, rr) in pp) list = list (list == "" ? "" : ", ") sprintf("%.0f", pp[n, rr])
        col(pp, n, x); col(pp, "raw", y1); col(pp, "raw_2line", y2); col(pp, "shmemu_threads", y3)
        pair = ""
        if (n ~ /^shmemu_process/) { partner = n; sub(/process/, "threads", partner); col(pp, partner, y4); pair = ratio_cols(x, y4) }
        printf "| %s | %.0f | %.0f | %s | %s | %s | %s | %s |\n", n, med_rounds(pp, n), ppmin[n], ratio_cols(x, y1), ratio_cols(x, y2), ratio_cols(x, y3), pair, list
    }
    print ""
    print "`*_park`: SHMEMU_SPIN=0, " park " round trips per run: every wait parks on a futex at once (threads: a private"
    print "futex; process: a process-shared one), so each round trip is two futex waits and two wake-ups."
    print "`shmemu_mpi_rma`: " rma_iters " round trips per run (the waiter polls, with short sleeps, and drives the progress of MPI)."
    print ""
    print "### Put bandwidth: nvshmem_putmem PE 0 -> PE 1, and memcpy into the same peer buffer"
    print ""
    print "GB/s = 1e9 B/s, medians over rounds of the per-run medians (" trials " trials per size and run). put/memcpy: within"
    print "a run (adjacent trials); process/threads: putmem GB/s of the two runs of a round."
    print ""
    print "| size | threads memcpy | threads putmem | threads put/memcpy | process memcpy | process putmem | process put/memcpy | putmem process/threads |"
    print "|---:|---:|---:|---:|---:|---:|---:|---|"
    for (k = 1; k <= ns; k++) {
        s = sizes[k]; col(pm, "process," s, x); col(pm, "threads," s, y1)
        printf "| %s | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %s |\n", human(s), med_rounds(mc, "threads," s), med_rounds(pm, "threads," s),
               med_rounds(rt, "threads," s), med_rounds(mc, "process," s), med_rounds(pm, "process," s), med_rounds(rt, "process," s), ratio_cols(x, y1)
    }
    print ""
    print "MPI backend, the same program under mpirun: mpi (one node: putmem is a copy into the shared window, memcpy writes"
    print "the same peer buffer through nvshmem_ptr) and mpi_rma (SHMEMU_MPI_NODE_SIZE=1: putmem is MPI_Put + flush; no"
    print "peer pointer, so no memcpy: BENCH_BW_PUT_ONLY=1, " rma_trials " trial(s) per size and run). GB/s as above; X/threads:"
    print "putmem GB/s against the threads run of the same round."
    print ""
    print "| size | mpi memcpy | mpi putmem | mpi put/memcpy | putmem mpi/threads | mpi_rma putmem | putmem mpi_rma/threads |"
    print "|---:|---:|---:|---:|---|---:|---|"
    for (k = 1; k <= ns; k++) {
        s = sizes[k]; col(pm, "mpi," s, x); col(pm, "threads," s, y1); col(pm, "mpi_rma," s, x2)
        printf "| %s | %.2f | %.2f | %.3f | %s | %.4f | %s |\n", human(s), med_rounds(mc, "mpi," s), med_rounds(pm, "mpi," s),
               med_rounds(rt, "mpi," s), ratio_cols(x, y1), med_rounds(pm, "mpi_rma," s), ratio_cols(x2, y1)
    }
    print ""
    print "### MD: atom-steps/s of the main job'"'"'s system on each backend"
    print ""
    print "`" md " --cells " cells " --steps " steps " --thermo 0 --pes P --halo fused` (" atoms " atoms; P = 8 is `make run`'"'"'s"
    print "job), with SHMEMU_BACKEND=threads or process, and on the MPI backend as `" shrun " -np P` (one node)."
    print "atom-steps/s: of the step loop (searches included, setup"
    print "excluded), as shmemu-md prints it; setup: shmemu-md'"'"'s setup time; wall: the whole program (start, fork,"
    print "mappings, exit). Every run printed checksum `" sum "`."
    print ""
    print "| PEs | threads 1e6 atom-steps/s | process 1e6 atom-steps/s | process/threads | threads setup s | process setup s | threads wall s | process wall s | wall process/threads |"
    print "|---:|---:|---:|---|---:|---:|---:|---:|---|"
    for (k = 1; k <= nm; k++) {
        p = pes[k]; col(as, "process," p, x); col(as, "threads," p, y1); col(wl, "process," p, x2); col(wl, "threads," p, y2)
        printf "| %d | %.3f | %.3f | %s | %.3f | %.3f | %.2f | %.2f | %s |\n", p, med_rounds(as, "threads," p) / 1e6, med_rounds(as, "process," p) / 1e6,
               ratio_cols(x, y1), med_rounds(su, "threads," p), med_rounds(su, "process," p), med_rounds(wl, "threads," p), med_rounds(wl, "process," p), ratio_cols(x2, y2)
    }
    print ""
    print "| PEs | mpi 1e6 atom-steps/s | mpi/threads | mpi/process | mpi setup s | mpi wall s | wall mpi/threads |"
    print "|---:|---:|---|---|---:|---:|---|"
    for (k = 1; k <= nm; k++) {
        p = pes[k]; col(as, "mpi," p, x); col(as, "threads," p, y1); col(as, "process," p, y3); col(wl, "mpi," p, x2); col(wl, "threads," p, y2)
        printf "| %d | %.3f | %s | %s | %.3f | %.2f | %s |\n", p, med_rounds(as, "mpi," p) / 1e6, ratio_cols(x, y1), ratio_cols(x, y3),
               med_rounds(su, "mpi," p), med_rounds(wl, "mpi," p), ratio_cols(x2, y2)
    }
    if (nmf > 0) {
        print ""
        print "The same runs, whole job (PE processes included; GNU time; mpi: mpirun and the ranks it reaped): medians over rounds."
        print ""
        print "| PEs | threads minor faults | process minor faults | mpi minor faults | threads voluntary ctx sw | process voluntary ctx sw | mpi voluntary ctx sw | threads involuntary ctx sw | process involuntary ctx sw | mpi involuntary ctx sw |"
        print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        for (k = 1; k <= nm; k++) {
            p = pes[k]
            printf "| %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", p, med_rounds(mf, "threads," p), med_rounds(mf, "process," p), med_rounds(mf, "mpi," p),
                   med_rounds(vc, "threads," p), med_rounds(vc, "process," p), med_rounds(vc, "mpi," p), med_rounds(ic, "threads," p), med_rounds(ic, "process," p), med_rounds(ic, "mpi," p)
        }
    }
    if (failed != "") { print ""; print "**Failed runs:**" failed }
}' "$LOG")

echo "$section" | finish_results_section backends.sh "${BACKENDS_NOTE:-}" "$failures" "failed runs or differing checksums" "$wall"

#!/usr/bin/env bash
# bench/halo_mpi.sh: the CPU-initiated halo through MPI (--halo mpi, md/src/par_mpi.c: per
# pulse a pack kernel, the host waits, persistent MPI requests started, MPI_Waitall, an
# unpack kernel; paper 000 Fig. 1) against the fused GPU-initiated halo (--halo fused), both
# on the MPI backend (every PE an MPI rank), at 2, 4 and 8 ranks: atom-steps/s of the step
# loop.
#
#   bench/halo_mpi.sh        (what `make bench-halo-mpi` runs, after building shmemu-md)
#
# System: the fcc LJ benchmark lattice (density 0.8442, T 1.44, rc 2.5, skin 0.3, nstlist 20,
# dt 0.005), --cells HALO_MPI_CELLS (default 12: 6 912 atoms), HALO_MPI_STEPS steps (default
# 100, searches included; set-up excluded: the rate is the program's "atom-steps/s", PE 0's
# step loop). Each run: `mpirun --oversubscribe -np P shmemu-md --pes P --halo fused|mpi`;
# the decomposition is the program's choice for P (the same for both variants).
#
# Rounds: every round runs every (P, variant) once, in an order that reverses every other
# round, so a noisy neighbour hits all alike. The section gives per P the median rate of each
# variant over the rounds and the mpi/fused ratio taken within each round (median and range).
# Every run must print the same checksum (any P, either variant: the bits do not depend on
# them); a run that fails or differs fails the script and is named in the section.
#
# Environment: BUILD (default build), MD_BIN (default bin/shmemu-md in the plain build, else
# $BUILD/bin/shmemu-md), HALO_MPI_ROUNDS (default 5), HALO_MPI_CELLS, HALO_MPI_STEPS,
# HALO_MPI_PES (default "2 4 8"), HALO_MPI_NOTE (a paragraph added to the section: the
# machine's load), BENCH_RESULTS (default bench/RESULTS.md). Writes its section of
# bench/RESULTS.md between the markers below (bench/run.sh keeps it), and keeps the
# hand-written reading between the "halo-mpi reading" markers right after it; the raw lines
# go to $BUILD/bench/halo_mpi.log.
set -u
cd "$(dirname "$0")/.." || exit 2
. bench/results_section.sh

BUILD=${BUILD:-build}
if [ "$BUILD" = build ]; then MD=${MD_BIN:-bin/shmemu-md}; else MD=${MD_BIN:-$BUILD/bin/shmemu-md}; fi
ROUNDS=${HALO_MPI_ROUNDS:-5}
CELLS=${HALO_MPI_CELLS:-12}
STEPS=${HALO_MPI_STEPS:-100}
PES_LIST=${HALO_MPI_PES:-2 4 8}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
OUTDIR=$BUILD/bench/halo_mpi
LOG=$BUILD/bench/halo_mpi.log
BEGIN='<!-- bench/halo_mpi.sh begin -->'
END='<!-- bench/halo_mpi.sh end -->'
READING_BEGIN='<!-- halo-mpi reading begin -->'
READING_END='<!-- halo-mpi reading end -->'

[ -x "$MD" ] || { echo "halo_mpi.sh: $MD not built (make BUILD=$BUILD bench-halo-mpi builds it)" >&2; exit 2; }
for v in "$ROUNDS" "$CELLS" "$STEPS" $PES_LIST; do
    case "$v" in '' | *[!0-9]* | 0) echo "halo_mpi.sh: HALO_MPI_ROUNDS, HALO_MPI_CELLS, HALO_MPI_STEPS, HALO_MPI_PES: need positive integers" >&2; exit 2 ;; esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v mpirun >/dev/null 2>&1 || { echo "halo_mpi.sh: no mpirun (Debian: apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 2; }
mkdir -p "$OUTDIR"
: >"$LOG"
failures=0

# fail ROUND WHAT: records a failed run (the script then fails).
fail() {
    echo "round=$1 FAILED $2" >>"$LOG"
    echo "halo_mpi.sh: round $1: $2 failed:" >&2
    tail -n 5 "$OUTDIR"/err.* >&2
    failures=$((failures + 1))
}

# md_run ROUND PES HALO: one run on PES MPI ranks, each rank's output in OUTDIR/{out,err}.R;
# rank 0 (PE 0) prints the rate and the checksum.
md_run() {
    local r=$1 p=$2 h=$3 rc rate sum grid
    rm -f "$OUTDIR"/out.* "$OUTDIR"/err.*
    # shellcheck disable=SC2016 # expanded by each rank's shell
    timeout 600 mpirun --oversubscribe -np "$p" bash -c \
        'r=${OMPI_COMM_WORLD_RANK:-0}; exec "$0" "$@" >"'"$OUTDIR"'/out.$r" 2>"'"$OUTDIR"'/err.$r"' \
        "$MD" --cells "$CELLS" --steps "$STEPS" --thermo 0 --pes "$p" --halo "$h"
    rc=$?
    rate=$(sed -n 's/^shmemu-md: .*: \([0-9.e+]*\) atom-steps\/s .*/\1/p' "$OUTDIR/err.0" 2>/dev/null)
    sum=$(awk '$1 == "checksum" { print $2 }' "$OUTDIR/out.0" 2>/dev/null)
    grid=$(sed -n 's/^# decomposition \([0-9x]*\) .*/\1/p' "$OUTDIR/out.0" 2>/dev/null)
    if [ "$rc" != 0 ] || [ -z "$rate" ] || [ -z "$sum" ]; then
        fail "$r" "pes=$p halo=$h (exit $rc)"
        return
    fi
    echo "round=$r pes=$p grid=$grid halo=$h atom_steps_s=$rate checksum=$sum" >>"$LOG"
    echo "  round $r: $p ranks $h: $rate atom-steps/s" >&2
}

runs=()
for p in $PES_LIST; do runs+=("$p fused" "$p mpi"); done

start=$(date -u '+%F %H:%M')
load0=$(cut -d ' ' -f 1-3 /proc/loadavg)
t_start=$(date +%s)
for r in $(seq 1 "$ROUNDS"); do
    echo "halo_mpi.sh: round $r of $ROUNDS" >&2
    if [ $((r % 2)) = 1 ]; then order=$(seq 0 $((${#runs[@]} - 1))); else order=$(seq $((${#runs[@]} - 1)) -1 0); fi
    for i in $order; do
        # shellcheck disable=SC2086 # each entry is plain words
        md_run "$r" ${runs[$i]}
    done
done
end=$(date -u '+%H:%M')
load1=$(cut -d ' ' -f 1-3 /proc/loadavg)
wall=$(($(date +%s) - t_start))

nsum=$(awk '$2 ~ /^pes=/ { for (i = 1; i <= NF; i++) if ($i ~ /^checksum=/) print $i }' "$LOG" | sort -u | wc -l)
if [ "$nsum" -gt 1 ]; then
    echo "halo_mpi.sh: the runs printed $nsum different checksums (one system: one checksum)" >&2
    echo "checksums DIFFER: $nsum different values" >>"$LOG"
    failures=$((failures + 1))
fi
checksum=$(awk '$2 ~ /^pes=/ { for (i = 1; i <= NF; i++) if ($i ~ /^checksum=/) { split($i, c, "="); print c[2]; exit } }' "$LOG")

awk -v rounds="$ROUNDS" -v start="$start" -v end="$end" -v md="$MD" -v cells="$CELLS" \
    -v steps="$STEPS" -v atoms="$((4 * CELLS * CELLS * CELLS))" -v sum="$checksum" -v build="$BUILD" \
    -v nproc="$(nproc)" -v load0="$load0" -v load1="$load1" -v pes_list="$PES_LIST" \
    -v mpi_version="$(mpirun --version 2>/dev/null | head -n 1)" \
    "$(cat bench/stats.awk)"'
$2 ~ /^pes=/ {
    r = substr($1, 7) + 0; p = val("pes"); h = val("halo")
    rate[p "," h, r] = val("atom_steps_s") / 1e6; grid[p] = val("grid")
}
END {
    print "## MD: the CPU-initiated halo through MPI against the fused halo, on the MPI backend (bench/halo_mpi.sh)"
    print ""
    print "- Date: " start " to " end " UTC; command: `make BUILD=" build " bench-halo-mpi` (" rounds " rounds)"
    print "- Machine: " nproc " CPUs, shared; load average (1, 5, 15 min) " load0 " before, " load1 " after; " mpi_version
    print "- Runs: `mpirun --oversubscribe -np P " md " --cells " cells " --steps " steps " --thermo 0 --pes P --halo fused|mpi`"
    print "  (" atoms " atoms, nstlist 20: searches included, set-up excluded; every run printed checksum `" sum "`)"
    print ""
    print "Rates: million atom-steps/s of the step loop (PE 0), median (range) over rounds; ratio:"
    print "mpi/fused within each round, median (range). mpi: per pulse a pack kernel, the host waits,"
    print "MPI_Startall of the pulse'\''s persistent requests, MPI_Waitall, then (forces) an unpack kernel."
    print "fused: one kernel per exchange, every pulse at once, signals between PEs (paper 000 Alg. 3-6)."
    print ""
    print "| ranks | grid | fused M atom-steps/s | mpi M atom-steps/s | mpi/fused |"
    print "|---:|---|---:|---:|---|"
    n = split(pes_list, ps, " ")
    for (k = 1; k <= n; k++) {
        p = ps[k]
        col(rate, p ",fused", f); col(rate, p ",mpi", m)
        printf "| %d | %s | %s | %s | %s |\n", p, grid[p], med_spread(rate, p ",fused", "%.3f"),
            med_spread(rate, p ",mpi", "%.3f"), ratio_cols(m, f)
    }
}' "$LOG" | finish_results_section halo_mpi.sh "${HALO_MPI_NOTE:-}" "$failures" \
    "failed runs or differing checksums" "$wall"

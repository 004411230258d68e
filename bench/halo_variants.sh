#!/usr/bin/env bash
# bench/halo_variants.sh: the staged halo exchange (--halo fused: GROMACS-style pulses per
# dimension, forwarding, force return) against direct26 (HOOMD-style: ghosts straight to up
# to 26 neighbours, no force return, an acknowledgement instead), both transports, on the CPU
# emulator: messages, bytes and time per step.
#
#   bench/halo_variants.sh        (what `make bench-halo-variants` runs, after building
#                                  shmemu-md)
#
# System: fcc LJ benchmark lattice (density 0.8442, T 1.44, rc 2.5, skin 0.3, nstlist 20,
# dt 0.005), --cells HALO_CELLS (default 12: 6 912 atoms, 20.2 σ edges, so that every grid
# below has domains at least the halo deep, which direct26 requires), HALO_STEPS steps
# (default 100, searches included). Grids (HALO_GRIDS): 2x1x1 3x1x1 4x1x1 6x1x1 (1D),
# 2x2x1 3x2x1 4x2x1 (2D), 2x2x2 (3D): 2 to 8 PEs.
#
# Per run: shmemu-md --halo-stats, so each run prints its traffic (par_stats.h: the mean per
# step, over all PEs, of the coordinate exchange and of the force return or the
# acknowledgements; what counts as a message on each transport is said there), and its
# step-loop time ("N steps in T s" on standard error: searches included, set-up excluded;
# the traffic gather comes after the clock stops).
#
# Rounds: every round runs every grid's four runs (fused and direct26, direct and signal)
# side by side, in an order that reverses every other round, so a noisy neighbour hits all
# alike. The report gives per configuration the median time over rounds and the
# direct26/fused ratio taken within each round (its median and range). Every run of the
# system must print the same final checksum (any grid, variant or transport: the bits do
# not depend on them) and the same traffic in every round; the script fails otherwise.
#
# Environment: BUILD (default build), MD_BIN (default bin/shmemu-md in the plain build, else
# $BUILD/bin/shmemu-md), HALO_ROUNDS (default 5), HALO_CELLS, HALO_STEPS, HALO_GRIDS,
# HALO_NOTE (a paragraph added to the section: the machine's load), BENCH_RESULTS (default
# bench/RESULTS.md). The section it writes lies between the markers below; bench/run.sh
# keeps it.
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
if [ "$BUILD" = build ]; then MD=${MD_BIN:-bin/shmemu-md}; else MD=${MD_BIN:-$BUILD/bin/shmemu-md}; fi
ROUNDS=${HALO_ROUNDS:-5}
CELLS=${HALO_CELLS:-12}
STEPS=${HALO_STEPS:-100}
GRIDS=${HALO_GRIDS:-2x1x1 3x1x1 4x1x1 6x1x1 2x2x1 3x2x1 4x2x1 2x2x2}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
OUTDIR=$BUILD/bench/halo
LOG=$OUTDIR/halo.log
BEGIN='<!-- bench/halo_variants.sh begin -->'
END='<!-- bench/halo_variants.sh end -->'
. bench/results_section.sh

[ -x "$MD" ] || { echo "halo_variants.sh: $MD not built (make BUILD=$BUILD bench-halo-variants builds it)" >&2; exit 2; }
for v in "$ROUNDS" "$CELLS" "$STEPS"; do
    case "$v" in '' | *[!0-9]* | 0) echo "halo_variants.sh: HALO_ROUNDS, HALO_CELLS, HALO_STEPS: need positive integers" >&2; exit 2 ;; esac
done
mkdir -p "$OUTDIR"
: >"$LOG"

runs=()
for g in $GRIDS; do
    for h in fused direct26; do
        for t in direct signal; do runs+=("$g $h $t"); done
    done
done

failures=0
# one run: round grid halo transport
run_one() {
    local r=$1 g=$2 h=$3 t=$4 pes out err secs sum tr
    pes=$(awk -F x '{ print $1 * $2 * $3 }' <<<"$g")
    err=$OUTDIR/run.stderr
    out=$(timeout 600 "$MD" --cells "$CELLS" --steps "$STEPS" --thermo 0 --pes "$pes" --dd "$g" \
        --halo "$h" --transport "$t" --halo-stats 2>"$err")
    secs=$(sed -n 's/^shmemu-md: [0-9]* steps in \([0-9.]*\) s .*/\1/p' "$err")
    sum=$(awk '$1 == "checksum" { print $2 }' <<<"$out")
    tr=$(awk '$2 == "traffic" && $3 == "all" { print "x_msgs=" $4, "x_bytes=" $5, "x_sig=" $6,
              "f_msgs=" $7, "f_bytes=" $8, "f_sig=" $9, "msgs=" $10, "bytes=" $11, "sig=" $12 }' <<<"$out")
    if [ -z "$secs" ] || [ -z "$sum" ] || [ -z "$tr" ]; then
        echo "round=$r FAILED grid=$g halo=$h transport=$t" >>"$LOG"
        echo "halo_variants.sh: round $r $g $h $t failed:" >&2
        tail -5 "$err" >&2
        failures=$((failures + 1))
        return
    fi
    echo "round=$r grid=$g pes=$pes halo=$h transport=$t us_per_step=$(awk -v s="$secs" -v n="$STEPS" 'BEGIN { printf "%.1f", 1e6 * s / n }') checksum=$sum $tr" >>"$LOG"
    echo "  round $r: $g $h $t: $secs s" >&2
}

start=$(date -u '+%F %H:%M')
load0=$(cut -d ' ' -f 1-3 /proc/loadavg)
for r in $(seq 1 "$ROUNDS"); do
    echo "halo_variants.sh: round $r of $ROUNDS" >&2
    if [ $((r % 2)) = 1 ]; then order=$(seq 0 $((${#runs[@]} - 1))); else order=$(seq $((${#runs[@]} - 1)) -1 0); fi
    for i in $order; do
        # shellcheck disable=SC2086
        run_one "$r" ${runs[$i]}
    done
done
end=$(date -u '+%H:%M')
load1=$(cut -d ' ' -f 1-3 /proc/loadavg)

# Checks: one checksum for every run; one traffic per configuration over the rounds.
nsum=$(awk '$2 ~ /^grid=/ { for (i = 1; i <= NF; i++) if ($i ~ /^checksum=/) print $i }' "$LOG" | sort -u | wc -l)
if [ "$nsum" != 1 ]; then
    echo "halo_variants.sh: the runs printed $nsum different checksums (one system: one checksum)" >&2
    failures=$((failures + 1))
fi
ntr=$(awk '$2 ~ /^grid=/ { k = $2 " " $4 " " $5; t = ""; for (i = 8; i <= NF; i++) t = t " " $i; print k t }' "$LOG" | sort -u |
      awk '{ print $1, $2, $3 }' | uniq -d | wc -l)
if [ "$ntr" != 0 ]; then
    echo "halo_variants.sh: $ntr configuration(s) reported different traffic in different rounds" >&2
    failures=$((failures + 1))
fi
checksum=$(awk '$2 ~ /^grid=/ { for (i = 1; i <= NF; i++) if ($i ~ /^checksum=/) { split($i, c, "="); print c[2]; exit } }' "$LOG")
atoms=$((4 * CELLS * CELLS * CELLS))

section=$(awk -v rounds="$ROUNDS" -v start="$start" -v end="$end" -v md="$MD" -v cells="$CELLS" \
    -v steps="$STEPS" -v atoms="$atoms" -v sum="$checksum" -v build="$BUILD" -v nproc="$(nproc)" \
    -v load0="$load0" -v load1="$load1" '
function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n == 0 ? -1 : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
}
function val(f,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) return kv[2] } return "" }
$2 ~ /^grid=/ {
    r = substr($1, 7) + 0; g = val("grid"); h = val("halo"); t = val("transport")
    us[g, h, t, r] = val("us_per_step") + 0
    msgs[g, h, t] = val("msgs"); bytes[g, h, t] = val("bytes"); sig[g, h, t] = val("sig")
    xb[g, h, t] = val("x_bytes"); fb[g, h, t] = val("f_bytes")
    pes[g] = val("pes")
    if (!(g in seen)) { seen[g] = 1; grids[++ng] = g }
}
function dims(g,   n, p) { split(g, p, "x"); n = (p[1] > 1) + (p[2] > 1) + (p[3] > 1); return n "D" }
END {
    print "## MD on the CPU emulator: staged (fused) against direct26, messages, bytes and time (bench/halo_variants.sh)"
    print ""
    print "- Date: " start " to " end " UTC; command: `make BUILD=" build " bench-halo-variants` (" rounds " rounds)"
    print "- Machine: " nproc " CPUs, shared; load average (1, 5, 15 min) " load0 " before, " load1 " after"
    print "- Runs: `" md " --cells " cells " --steps " steps " --thermo 0 --pes P --dd GRID --halo fused|direct26 --transport direct|signal --halo-stats`"
    print "  (" atoms " atoms, nstlist 20: searches included in the time, set-up excluded; every run printed checksum `" sum "`)"
    print ""
    print "Per step = one coordinate exchange and one force exchange (the force return for fused, the"
    print "acknowledgements for direct26), summed over all PEs, mean over the run (exact counts from the"
    print "tables the kernels use: md/src/par_stats.h). msgs: on put-with-signal routes, NVSHMEM calls"
    print "that reach a peer (two puts and a put-with-signal per send, or a signal op alone); on direct"
    print "routes, peer ranges of a component stored or loaded (three per send) and signal-word stores."
    print "KB: payload (coordinates and returned forces, 1 KB = 1000 B); sig B: signal words, 8 B each."
    print "Time: median over rounds of the step loop per step; ratio: direct26/fused within each round,"
    print "median (range) over rounds."
    print ""
    print "| PEs | grid | transport | fused msgs | direct26 msgs | fused KB (x + f) | direct26 KB (x) | fused sig B | direct26 sig B | fused µs/step | direct26 µs/step | direct26/fused time |"
    print "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for (k = 1; k <= ng; k++) {
        g = grids[k]
        for (tt = 1; tt <= 2; tt++) {
            t = tt == 1 ? "direct" : "signal"
            n1 = n2 = nq = 0; lo = 1e9; hi = 0
            for (r = 1; r <= rounds; r++) {
                if ((g, "fused", t, r) in us) a1[++n1] = us[g, "fused", t, r]
                if ((g, "direct26", t, r) in us) a2[++n2] = us[g, "direct26", t, r]
                if ((g, "fused", t, r) in us && (g, "direct26", t, r) in us && us[g, "fused", t, r] > 0) {
                    q = us[g, "direct26", t, r] / us[g, "fused", t, r]; aq[++nq] = q
                    lo = q < lo ? q : lo; hi = q > hi ? q : hi
                }
            }
            m1 = median(a1, n1); m2 = median(a2, n2); mq = median(aq, nq)
            printf "| %d | %s (%s) | %s | %.1f | %.1f | %.1f + %.1f | %.1f | %.0f | %.0f | %.0f | %.0f | %.2f (%.2f-%.2f) |\n",
                pes[g], g, dims(g), t, msgs[g, "fused", t], msgs[g, "direct26", t],
                xb[g, "fused", t] / 1000, fb[g, "fused", t] / 1000, bytes[g, "direct26", t] / 1000,
                sig[g, "fused", t], sig[g, "direct26", t], m1, m2, mq, lo, hi
        }
    }
}' "$LOG")

if [ -n "${HALO_NOTE:-}" ]; then
    section="$section

$HALO_NOTE"
fi
if [ "$failures" != 0 ]; then
    section="$section

**$failures failure(s) in this run (failed runs, differing checksums or traffic): see the raw log.**"
fi
echo "$section"
echo "$section" | replace_results_section_log "$RESULTS" "$BEGIN" "$END" "$LOG" ||
    { echo "halo_variants.sh: could not write $RESULTS" >&2; exit 2; }
echo "halo_variants.sh: wrote $RESULTS" >&2
[ "$failures" -eq 0 ]

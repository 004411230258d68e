#!/usr/bin/env bash
# bench/md_lammps.sh: the standard LJ benchmark, shmemu-md beside LAMMPS, in one run.
#
#   bench/md_lammps.sh            (what `make bench-md` runs, after building bin/shmemu-md)
#
# System: fcc at density 0.8442, rc 2.5, skin 0.3, neighbour list every 20 steps (LAMMPS:
# neigh_modify every 20 check no), dt 0.005, T 1.44; 32 000 atoms (20^3 cells, 200 steps)
# and 256 000 atoms (40^3 cells, 50 steps); 1 and 2 PEs (LAMMPS: mpirun -np 1 / 2).
# shmemu-md runs two paths that give the same bits:
#   serial   the host path: every PE's work done by one thread with the native force loop
#   fused    the kernel path: PE threads, emulated GPU streams, fused halo kernels
# Each round runs every program once, alternating, so a noisy neighbour hits all alike;
# the report gives per-configuration medians over rounds and the ratios to LAMMPS at the
# same PE count taken within each round. Rates exclude set-up: LAMMPS's "Loop time", and
# shmemu-md's timed steps (its stderr line).
#
# Environment: BUILD (default build), MD_ROUNDS (default 3), MD_SIZES (default "20 40"),
# MD_BIN (default bin/shmemu-md), BENCH_RESULTS (default bench/RESULTS.md). The section it
# writes into BENCH_RESULTS lies between the markers below; bench/run.sh keeps it when it
# rewrites the rest of the file.
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
ROUNDS=${MD_ROUNDS:-3}
SIZES=${MD_SIZES:-20 40}
MD=${MD_BIN:-bin/shmemu-md}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
OUTDIR=$BUILD/bench/md
LOG=$OUTDIR/md.log
BEGIN='<!-- bench/md_lammps.sh begin -->'
END='<!-- bench/md_lammps.sh end -->'
. bench/results_section.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

command -v lmp >/dev/null || { echo "md_lammps.sh: lmp not found (apt-get install lammps)" >&2; exit 2; }
[ -x "$MD" ] || { echo "md_lammps.sh: $MD not built (run make)" >&2; exit 2; }
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "md_lammps.sh: MD_ROUNDS=$ROUNDS: need a positive integer" >&2; exit 2 ;; esac
mkdir -p "$OUTDIR"
: >"$LOG"

steps_for() { if [ "$1" -ge 40 ]; then echo 50; else echo 200; fi; }

lammps_input() { # cells steps
    cat <<EOF
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 $1 0 $1 0 $1
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
timestep 0.005
thermo $2
run $2
EOF
}

failures=0
record() { # round name cells pes rate
    echo "round=$1 md $2 cells=$3 pes=$4 atom_steps_per_s=$5" >>"$LOG"
    echo "  round $1: $2 cells=$3 pes=$4: $5 atom-steps/s" >&2
}
fail() { echo "round=$1 FAILED $2 cells=$3 pes=$4" >>"$LOG"; failures=$((failures + 1)); }

run_lammps() { # round cells pes
    local steps atoms in out t
    steps=$(steps_for "$2"); atoms=$((4 * $2 * $2 * $2))
    in=$OUTDIR/in.lj.$2
    lammps_input "$2" "$steps" >"$in"
    out=$(cd "$OUTDIR" && timeout 900 mpirun -np "$3" --bind-to core lmp -in "in.lj.$2" -log none 2>&1)
    t=$(sed -n 's/^Loop time of \([0-9.e+-]*\) on .*/\1/p' <<<"$out" | tail -n 1)
    if [ -z "$t" ]; then fail "$1" lammps "$2" "$3"; echo "$out" | tail -5 >&2; return; fi
    record "$1" lammps "$2" "$3" "$(awk -v a="$atoms" -v s="$steps" -v t="$t" 'BEGIN { printf "%.0f", a * s / t }')"
}

run_md() { # round variant cells pes
    local steps err out rate
    steps=$(steps_for "$3")
    err=$OUTDIR/md.stderr
    out=$(timeout 900 "$MD" --cells "$3" --pes "$4" --halo "$2" --steps "$steps" --thermo 0 2>"$err")
    rate=$(sed -n 's/.*: \([0-9.e+]*\) atom-steps\/s.*/\1/p' "$err" | tail -n 1)
    if [ -z "$rate" ] || ! tail -n 1 <<<"$out" | grep -qE '^checksum [0-9a-f]{16}$'; then
        fail "$1" "md_$2" "$3" "$4"; tail -5 "$err" >&2; return
    fi
    echo "round=$1 checksum md_$2 cells=$3 pes=$4 $(tail -n 1 <<<"$out")" >>"$LOG"
    record "$1" "md_$2" "$3" "$4" "$(awk -v r="$rate" 'BEGIN { printf "%.0f", r }')"
}

start=$(date -u '+%F %H:%M')
for r in $(seq 1 "$ROUNDS"); do
    echo "md_lammps.sh: round $r of $ROUNDS" >&2
    for c in $SIZES; do
        for p in 1 2; do
            run_lammps "$r" "$c" "$p"
            run_md "$r" serial "$c" "$p"
            run_md "$r" fused "$c" "$p"
        done
    done
done
end=$(date -u '+%H:%M')

section=$(awk -v rounds="$ROUNDS" -v start="$start" -v end="$end" -v md="$MD" '
function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n == 0 ? -1 : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
}
function val(f,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) return kv[2] } return "" }
$2 == "md" {
    split($1, rr, "="); r = rr[2] + 0; c = val("cells"); p = val("pes")
    rate[$3, c, p, r] = val("atom_steps_per_s") + 0
    if (!((c, p) in cseen)) { cseen[c, p] = 1; confs[++nc] = c SUBSEP p }
    next
}
END {
    print "## MD: standard LJ benchmark against LAMMPS (bench/md_lammps.sh)"
    print ""
    print "- Date: " start " to " end " UTC; command: `make bench-md` (" rounds " rounds)"
    print "- LAMMPS: Debian 12 `lammps` 20220106, `mpirun -np P --bind-to core lmp`; rate = atoms x steps / Loop time"
    print "- shmemu-md: `" md " --cells N --pes P --halo serial|fused --steps S --thermo 0`; rate from its timed steps"
    print ""
    print "| atoms | PEs | LAMMPS atom-steps/s | serial path | / LAMMPS | serial per core / LAMMPS per core | fused kernels | / LAMMPS |"
    print "|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (k = 1; k <= nc; k++) {
        split(confs[k], cp, SUBSEP); c = cp[1]; p = cp[2]
        for (v = 1; v <= 3; v++) {
            name = v == 1 ? "lammps" : (v == 2 ? "md_serial" : "md_fused"); n = 0; nq = 0
            for (r = 1; r <= rounds; r++) if ((name, c, p, r) in rate) {
                m[++n] = rate[name, c, p, r]
                if (v > 1 && ("lammps", c, p, r) in rate) q[++nq] = rate[name, c, p, r] / rate["lammps", c, p, r]
            }
            med[v] = median(m, n); rq[v] = median(q, nq)
        }
        printf "| %d | %d | %.3g M | %.3g M | %.2f | %.2f | %.3g M | %.2f |\n", 4 * c * c * c, p,
               med[1] / 1e6, med[2] / 1e6, rq[2], rq[2] * p, med[3] / 1e6, rq[3]
    }
    print ""
    print "Cores: LAMMPS runs P processes on P cores. The serial path runs every PE\x27s work on one"
    print "thread, so one core whatever --pes (its per-core ratio is its rate against LAMMPS\x27s rate"
    print "divided by P). The fused path runs PE threads and the emulated blocks on every core of the"
    print "machine (2 here), at --pes 1 too; its ratio is against LAMMPS on P cores. Every shmemu-md"
    print "run of one size printed the same final checksum, whatever the path or PE count (raw log)."
}' "$LOG")

# Check: every shmemu-md run of one size printed one checksum, whatever the path or PEs.
bad=$(awk '$2 == "checksum" { split($4, c, "="); k = c[2]; if ((k in s) && s[k] != $NF) print k; s[k] = $NF }' "$LOG" | sort -u)
if [ -n "$bad" ]; then
    echo "md_lammps.sh: checksums differ between runs for cells $bad" >&2
    section="$section

**Checksum mismatch between shmemu-md runs of one size (cells $bad): a bug.**"
    failures=$((failures + 1))
fi

echo "$section" | replace_results_section_log "$RESULTS" "$BEGIN" "$END" "$LOG" ||
    { echo "md_lammps.sh: could not write $RESULTS" >&2; exit 2; }
echo "md_lammps.sh: wrote $RESULTS" >&2
[ "$failures" -eq 0 ]

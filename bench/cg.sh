#!/usr/bin/env bash
# bench/cg.sh: the cg app's CPU benchmark (`make bench-cg`; docs/cg.md, issue 20): time per
# iteration of shmemu-cg's serial solver against PETSc's KSPCG on the same matrix and core,
# and of the emulated solvers against the serial one.
#
# Part 1, serial against PETSc (one core each: every program here is single-threaded), on
# each matrix of CG_PETSC_SIZES, all run by bench/cg_petsc and timed by the same clocks (wall
# and the solving thread's CPU time: on this shared, often oversubscribed machine the CPU
# time is the steadier measure of a single-threaded solve):
#   serial        cg_solve_serial, the cg library's serial solver (exact dot products:
#                 cg/src/xsum.c), the very function `$CG --solver serial` runs; the program
#                 itself runs once per matrix before the rounds (round 0), and must print
#                 the same iterations and checksum
#   petsc         bench/cg_petsc --method petsc: KSPCG, PCNONE, natural norm (= sqrt(r.r)
#                 with no preconditioner: two reductions per iteration, as serial)
#   petsc-unprec  the same with KSP_NORM_UNPRECONDITIONED (||r|| by VecNorm: a third one)
#   plain         serial's loop with plain double dot products (in bench/cg_petsc.c, not
#                 in the shipped solver: not bit-reproducible)
#   dots          two exact dot products of the matrix's length against two plain ones:
#                 the exact reductions' share of an iteration
# Part 2, the emulated solvers against serial, on each matrix of CG_EMU_SIZES at each PE
# count of CG_EMU_PES: cg-mono, cg-host --reduce sync, cg-host --reduce stream, and, when
# the program has it (`--solver pcg-mono` runs), pcg-mono beside its own reference
# pcg-serial (pipelined CG is another recurrence: it matches pcg-serial, not serial).
#
# Checked, or the script fails (and the section says so): every run exits 0; every CG
# solver of part 2 prints serial's iteration count and checksum, pcg-mono pcg-serial's;
# serial prints the same iterations and checksum in every round, and so does the program's
# serial run of part 1. PETSc's and plain's iteration counts are reported beside serial's,
# not asserted (other roundings may stop an iteration apart).
#
# Rounds: every round runs every measurement once, the order reversed every other round,
# so that a noisy neighbour on this shared machine hits all alike; a ratio is taken within
# a round first, then the median (and range) over rounds.
#
# Environment: BUILD (default build), CG_BIN (default bin/shmemu-cg in the plain build, else
# $BUILD/bin/shmemu-cg), CG_ROUNDS (default 3), CG_PETSC_SIZES (default "poisson3d:30
# poisson3d:50 poisson3d:64 poisson2d:300 poisson2d:500"; poisson2d:1000, 1603 iterations,
# takes over a minute per serial run), CG_EMU_SIZES (default "poisson3d:20 poisson2d:64"),
# CG_EMU_PES (default "1 2 4"), CG_NOTE (a paragraph added to the section), BENCH_RESULTS
# (default bench/RESULTS.md). Writes its own section of bench/RESULTS.md between the markers
# below and keeps the hand-written reading between the "cg reading" markers right after it;
# the raw lines go to $BUILD/bench/cg.log.
set -u
cd "$(dirname "$0")/.." || exit 2
. bench/results_section.sh

BUILD=${BUILD:-build}
if [ "$BUILD" = build ]; then CG=${CG_BIN:-bin/shmemu-cg}; else CG=${CG_BIN:-$BUILD/bin/shmemu-cg}; fi
ROUNDS=${CG_ROUNDS:-3}
PETSC_SIZES=${CG_PETSC_SIZES:-poisson3d:30 poisson3d:50 poisson3d:64 poisson2d:300 poisson2d:500}
EMU_SIZES=${CG_EMU_SIZES:-poisson3d:20 poisson2d:64}
EMU_PES=${CG_EMU_PES:-1 2 4}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
BIN=$BUILD/bench
PETSC=$BIN/cg_petsc
LOG=$BIN/cg.log
ERR=$BIN/cg.stderr
BEGIN='<!-- bench/cg.sh begin -->'
END='<!-- bench/cg.sh end -->'
READING_BEGIN='<!-- cg reading begin -->'
READING_END='<!-- cg reading end -->'

case "$ROUNDS" in '' | *[!0-9]* | 0) echo "cg.sh: CG_ROUNDS=$ROUNDS: need a positive integer" >&2; exit 2 ;; esac
for m in $PETSC_SIZES $EMU_SIZES; do
    case "$m" in poisson[123]d:[1-9]*) ;; *) echo "cg.sh: size '$m': need poisson1d:N, poisson2d:N or poisson3d:N" >&2; exit 2 ;; esac
    case "${m#*:}" in *[!0-9]*) echo "cg.sh: size '$m': N must be a positive integer" >&2; exit 2 ;; esac
done
for p in $EMU_PES; do
    case "$p" in '' | *[!0-9]* | 0) echo "cg.sh: CG_EMU_PES=$EMU_PES: need positive integers" >&2; exit 2 ;; esac
done
[ -x "$CG" ] || { echo "cg.sh: $CG is missing: run make BUILD=$BUILD bench-cg" >&2; exit 2; }
[ -x "$PETSC" ] || { echo "cg.sh: $PETSC is missing: run make BUILD=$BUILD bench-cg (needs petsc-dev: scripts/ensure-deps.sh bench)" >&2; exit 2; }

# PETSc is built with Open MPI; its singleton MPI_Init refuses root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# pcg-mono and its reference, when this build of the program has them.
have_pcg=0
if "$CG" --poisson1d 8 --solver pcg-mono --pes 2 2>/dev/null | grep -q '^checksum ' &&
    "$CG" --poisson1d 8 --solver pcg-serial 2>/dev/null | grep -q '^checksum '; then
    have_pcg=1
fi

mkdir -p "$BIN"
: >"$LOG"
failures=0

# fail ROUND WHAT: records a failed run (the script then fails).
fail() {
    echo "round=$1 FAILED $2" >>"$LOG"
    echo "cg.sh: round $1: $2 failed:" >&2
    tail -n 5 "$ERR" >&2
    failures=$((failures + 1))
}

# cg_run ROUND PART MATRIX SOLVER PES [REDUCE]: one shmemu-cg run; iterations, time per
# iteration and checksum to the log.
cg_run() {
    local r=$1 part=$2 m=$3 solver=$4 pes=$5 reduce=${6:-} out rc ms it sum name args rows
    args=(--"${m%%:*}" "${m#*:}" --solver "$solver")
    name=$solver
    [ "$part" = 2 ] || name=program-$solver
    [ "$solver" = serial ] || [ "$solver" = pcg-serial ] || args+=(--pes "$pes")
    if [ -n "$reduce" ]; then args+=(--reduce "$reduce"); name=$solver-$reduce; fi
    out=$(timeout 600 "$CG" "${args[@]}" 2>"$ERR")
    rc=$?
    ms=$(sed -n 's/^shmemu-cg: [0-9]* iterations in .* s: \([0-9.e+-]*\) ms per iteration$/\1/p' "$ERR")
    it=$(awk '$1 == "iterations" { print $2 }' <<<"$out")
    sum=$(awk '$1 == "checksum" { print $2 }' <<<"$out")
    rows=$(sed -n 's/^# shmemu-cg: matrix .*: \([0-9]*\) rows, \([0-9]*\) entries$/rows=\1 nnz=\2/p' <<<"$out")
    if [ "$rc" != 0 ] || [ -z "$ms" ] || [ -z "$it" ] || [ -z "$sum" ]; then
        fail "$r" "$CG ${args[*]} (exit $rc)"
        return
    fi
    echo "round=$r part=$part matrix=$m run=$name pes=$pes $rows iterations=$it ms_per_iter=$ms checksum=$sum" >>"$LOG"
    echo "  round $r: $m $name $pes PEs: $it iterations, $ms ms per iteration" >&2
}

# petsc_run ROUND MATRIX METHOD: one bench/cg_petsc run; its key=value line to the log.
petsc_run() {
    local r=$1 m=$2 method=$3 out rc
    out=$(timeout 600 "$PETSC" --"${m%%:*}" "${m#*:}" --method "$method" 2>"$ERR")
    rc=$?
    out=$(awk '$1 == "cg_petsc" { $1 = ""; print }' <<<"$out")
    if [ "$rc" != 0 ] || [ -z "$out" ]; then
        fail "$r" "$PETSC --${m%%:*} ${m#*:} --method $method (exit $rc)"
        return
    fi
    echo "round=$r part=1 matrix=$m run=$method pes=1$out" | sed 's/method=[^ ]* //' >>"$LOG"
    echo "  round $r: $m $method:$out" >&2
}

# One entry per measurement: a function and its arguments after the round, plain words.
runs=()
for m in $PETSC_SIZES; do
    runs+=("petsc_run $m serial" "petsc_run $m petsc" "petsc_run $m petsc-unprec"
           "petsc_run $m plain" "petsc_run $m dots")
done
for m in $EMU_SIZES; do
    runs+=("cg_run 2 $m serial 1")
    [ "$have_pcg" = 0 ] || runs+=("cg_run 2 $m pcg-serial 1")
    for p in $EMU_PES; do
        runs+=("cg_run 2 $m cg-mono $p" "cg_run 2 $m cg-host $p sync" "cg_run 2 $m cg-host $p stream")
        [ "$have_pcg" = 0 ] || runs+=("cg_run 2 $m pcg-mono $p")
    done
done

start=$(date -u '+%F %H:%M')
load0=$(cut -d ' ' -f 1-3 /proc/loadavg)
t_start=$(date +%s)
echo "cg.sh: round 0: the program's serial solver on part 1's matrices" >&2
for m in $PETSC_SIZES; do cg_run 0 1 "$m" serial 1; done
for r in $(seq 1 "$ROUNDS"); do
    echo "cg.sh: round $r of $ROUNDS" >&2
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

# The bits: every CG solver of a matrix prints serial's iterations and checksum (pcg-mono:
# pcg-serial's), in every round; serial's checksum is the same in every round.
mismatch=$(awk '
function val(f,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) return kv[2] } return "" }
$2 == "FAILED" { next }
{ run = val("run"); m = val("matrix"); part = val("part") }
run == "serial" || run == "pcg-serial" { ref[part, m, run] = val("iterations") " " val("checksum") }
{ line[NR] = $0; p[NR] = part; mm[NR] = m; rr[NR] = run; got[NR] = val("iterations") " " val("checksum") }
END {
    for (k in line) {
        if (p[k] == 1 && rr[k] != "serial" && rr[k] != "program-serial") continue
        want = rr[k] ~ /^pcg-/ ? ref[p[k], mm[k], "pcg-serial"] : ref[p[k], mm[k], "serial"]
        if (want != got[k]) print "  " line[k] " (want iterations and checksum " want ")"
    }
}' "$LOG")
if [ -n "$mismatch" ]; then
    echo "cg.sh: runs that differ from their reference's iterations or checksum:" >&2
    echo "$mismatch" >&2
    failures=$((failures + 1))
fi

section=$(awk -v rounds="$ROUNDS" -v start="$start" -v end="$end" -v build="$BUILD" -v nproc="$(nproc)" \
    -v cpu_name="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" -v kernel="$(uname -sr)" \
    -v load0="$load0" -v load1="$load1" -v wall="$wall" -v cg="$CG" -v have_pcg="$have_pcg" \
    -v petsc_ver="$(pkg-config --modversion petsc 2>/dev/null || echo '?')" \
    -v blas="$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || echo '?')" \
    -v psizes="$PETSC_SIZES" -v esizes="$EMU_SIZES" -v epes="$EMU_PES" -v mismatch="$mismatch" \
    "$(cat bench/stats.awk)"'
$2 == "FAILED" { failed = failed "\n- " $0; next }
{
    r = substr($1, 7) + 0; m = val("matrix"); run = val("run"); pes = val("pes")
    if (val("part") == 2) m = "2:" m  # part 2 apart from part 1, should a matrix be in both
    k = m SUBSEP run SUBSEP pes
    if (run == "dots") {
        ms[m SUBSEP "dots-exact" SUBSEP 1, r] = val("exact_ms_per_iter") + 0
        ms[m SUBSEP "dots-plain" SUBSEP 1, r] = val("plain_ms_per_iter") + 0
        cpu[m SUBSEP "dots-exact" SUBSEP 1, r] = val("exact_cpu_ms_per_iter") + 0
        cpu[m SUBSEP "dots-plain" SUBSEP 1, r] = val("plain_cpu_ms_per_iter") + 0
        nsx[m, r] = val("exact_ns_per_term") + 0; nsp[m, r] = val("plain_ns_per_term") + 0
    } else {
        ms[k, r] = val("ms_per_iter") + 0; iters[k] = val("iterations"); sums[k] = val("checksum")
        if (val("cpu_ms_per_iter") != "") cpu[k, r] = val("cpu_ms_per_iter") + 0
    }
    if (val("rows") != "") rows[m] = val("rows")
    if (val("nnz") != "") nnz[m] = val("nnz")
}
END {
    np = split(psizes, P, " "); ne = split(esizes, E, " "); npe = split(epes, PE, " ")
    print "## cg: serial against PETSc KSPCG, and the emulated solvers against serial (bench/cg.sh)"
    print ""
    print "- Date: " start " to " end " UTC (" wall " s); command: `make BUILD=" build " bench-cg` (" rounds " rounds)"
    print "- Machine: " nproc " CPUs (\"" cpu_name "\", " kernel "), shared with other work; load average (1, 5, 15 min) " load0 " before, " load1 " after."
    print "- PETSc " petsc_ver " (Debian petsc-dev, optimized build, real double, 32-bit PetscInt), BLAS " blas "; bench/cg_petsc"
    print "  built with mpicc and the project'"'"'s CFLAGS (-O2 -ffp-contract=off), run as one process (singleton MPI)."
    print "- Every round runs every measurement once, the order reversed every other round; ratios are taken within a"
    print "  round, then the median (and range) over rounds. Time per iteration: the solve alone divided by its iterations."
    print ""
    print "### Serial (exact dot products) against PETSc KSPCG and a plain-double CG, one core"
    print ""
    print "Same matrix, x*, b, x0 = 0 and stop test ||r_k|| <= 1e-8 ||r_0|| (all from the cg library: generator, x*,"
    print "b = A x*), every solver single-threaded, run by bench/cg_petsc: serial: cg_solve_serial (what `shmemu-cg"
    print "--solver serial` runs); petsc: KSPCG + PCNONE + KSP_NORM_NATURAL (sqrt(r.r): two reductions per iteration"
    print "like serial); petsc-unprec: KSP_NORM_UNPRECONDITIONED (||r|| by VecNorm, a third reduction); plain: serial'"'"'s"
    print "loop with plain double dot products (bench only). PETSc is timed around KSPSolve (after KSPSetUp), the"
    print "others around the solver call (its vectors'"'"' allocation and the SpMV of x0 included). Milliseconds per"
    print "iteration in CPU time of the solving thread, median (range); the ratios in CPU time, and serial / petsc"
    print "also in wall time."
    print ""
    print "| matrix | rows | iterations serial / petsc / petsc-unprec / plain | serial | petsc | petsc-unprec | plain | serial / petsc | serial / petsc (wall) | serial / plain | plain / petsc |"
    print "|---|---:|---|---:|---:|---:|---:|---|---|---|---|"
    for (i = 1; i <= np; i++) {
        m = P[i]; s = m SUBSEP "serial" SUBSEP 1; pt = m SUBSEP "petsc" SUBSEP 1; pu = m SUBSEP "petsc-unprec" SUBSEP 1; pl = m SUBSEP "plain" SUBSEP 1
        printf "| %s | %s | %s / %s / %s / %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m, rows[m],
            iters[s], iters[pt], iters[pu], iters[pl], med_spread(cpu, s, "%.3g"), med_spread(cpu, pt, "%.3g"), med_spread(cpu, pu, "%.3g"),
            med_spread(cpu, pl, "%.3g"), ratio_keys(cpu, s, pt), ratio_keys(ms, s, pt), ratio_keys(cpu, s, pl), ratio_keys(cpu, pl, pt)
    }
    print ""
    print "Where serial'"'"'s time goes: two exact dot products of the matrix'"'"'s length (cg_dot on b and x*: what serial"
    print "computes per iteration) against two plain ones, timed alone (bench/cg_petsc --method dots), and serial minus"
    print "plain (the same loop; only the dot products differ), each as a share of serial'"'"'s iteration (CPU time). The"
    print "last columns: shmemu-cg --solver serial itself (round 0, wall time, one run), and the checksums of x."
    print ""
    print "| matrix | exact ns/term | plain ns/term | 2 exact dots ms | 2 plain dots ms | (2 exact dots) / serial | (serial - plain) / serial | shmemu-cg serial ms (wall) | checksums: serial = shmemu-cg, petsc, plain |"
    print "|---|---:|---:|---:|---:|---|---|---:|---|"
    for (i = 1; i <= np; i++) {
        m = P[i]; s = m SUBSEP "serial" SUBSEP 1; pl = m SUBSEP "plain" SUBSEP 1; delete d
        for (r = 1; r <= rounds; r++) if (((s, r) in cpu) && ((pl, r) in cpu) && cpu[s, r] > 0) {
            d[m SUBSEP "x", r] = (cpu[s, r] - cpu[pl, r]) / cpu[s, r]; d[m SUBSEP "one", r] = 1
        }
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s, %s, %s |\n", m, med_spread(nsx, m, "%.3g"), med_spread(nsp, m, "%.3g"),
            med_spread(cpu, m SUBSEP "dots-exact" SUBSEP 1, "%.3g"), med_spread(cpu, m SUBSEP "dots-plain" SUBSEP 1, "%.3g"),
            ratio_keys(cpu, m SUBSEP "dots-exact" SUBSEP 1, s), ratio_keys(d, m SUBSEP "x", m SUBSEP "one"),
            ((m SUBSEP "program-serial" SUBSEP 1, 0) in ms) ? sprintf("%.3g", ms[m, "program-serial", 1, 0]) : "failed",
            sums[s], sums[m SUBSEP "petsc" SUBSEP 1], sums[pl]
    }
    print ""
    print "### The emulated solvers against serial (" cg ")"
    print ""
    print "Each at --pes P (threads of one job, default grid: 2 blocks of 64 threads per PE), run by the program; wall-clock"
    print "ms per iteration as the program prints it (for the emulated solvers that includes starting the PEs and their"
    print "kernels), median (range), and the ratio to serial'"'"'s within each round. Every run printed serial'"'"'s iteration"
    print "count and checksum" (have_pcg ? "" : ".")
    if (have_pcg)
        print "(pcg-mono: pcg-serial'"'"'s; pipelined CG is another recurrence)."
    else
        print "pcg-mono was not in this build of the program (`--solver pcg-mono` did not run), so it is not measured."
    print ""
    print "| matrix | rows | iterations | solver | PEs | ms per iteration | / serial |"
    print "|---|---:|---:|---|---:|---:|---|"
    for (i = 1; i <= ne; i++) {
        m = "2:" E[i]; s = m SUBSEP "serial" SUBSEP 1
        printf "| %s | %s | %s | serial | 1 | %s | 1 |\n", E[i], rows[m] == "" ? "" : rows[m], iters[s], med_spread(ms, s, "%.3g")
        if (have_pcg) { q = m SUBSEP "pcg-serial" SUBSEP 1
            printf "| %s | | %s | pcg-serial | 1 | %s | %s |\n", E[i], iters[q], med_spread(ms, q, "%.3g"), ratio_keys(ms, q, s) }
        nsol = split("cg-mono cg-host-sync cg-host-stream" (have_pcg ? " pcg-mono" : ""), S, " ")
        for (j = 1; j <= nsol; j++) for (pi = 1; pi <= npe; pi++) {
            k = m SUBSEP S[j] SUBSEP PE[pi]
            printf "| %s | | %s | %s | %s | %s | %s |\n", E[i], iters[k], S[j], PE[pi], med_spread(ms, k, "%.3g"), ratio_keys(ms, k, s)
        }
    }
    if (mismatch != "") { print ""; print "**Runs that differ from their reference (iterations or checksum):**"; print "```"; print mismatch; print "```" }
    if (failed != "") { print ""; print "**Failed runs:**" failed }
}' "$LOG")

echo "$section" | finish_results_section cg.sh "${CG_NOTE:-}" "$failures" "failed runs or differing bits" "$wall"

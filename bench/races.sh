#!/usr/bin/env bash
# bench/races.sh: what each race checker costs on one fixed MD configuration, against the
# native run of the same binary: wall time (slowdown) and peak resident memory.
#
#   bench/races.sh            (what `make bench-races` runs, after building both programs)
#
# Configuration: bin shmemu-md --cells 10 (4 000 atoms) --pes 8 --dd 4x2x1 (2D) --halo fused
# --steps 10 (transport auto: direct). Runs: native (the -O2 -g build), helgrind
# (--history-level=approx, as check-races), DRD, and the ThreadSanitizer build (clang -O2 -g
# -fsanitize=thread). Each configuration runs BENCH_RACES_ROUNDS times (default 3),
# alternating; the report gives the median time and the largest peak memory (GNU time's
# %M, the maximum resident set of the process; valgrind's is the tool's whole process).
# Every run must print the 1-PE reference checksum and no race report, or the script fails.
#
# A run stopped by BENCH_RACES_TIMEOUT (or by hand) is reported as "did not finish" with the
# time it had run. BENCH_RACES_RESUME=1 keeps the runs already in $OUTDIR (a stopped one too)
# and runs only the missing ones.
# Environment: RACES_BUILD (default build-races), RACES_TSAN_BUILD (default
# build-races-tsan), BENCH_RACES_ROUNDS, BENCH_RACES_NOTE (a paragraph added to the
# section: say what else ran on the machine), BENCH_RACES_TIMEOUT (seconds per run, default
# 3600), BENCH_RESULTS (default bench/RESULTS.md). The
# section it writes lies between the markers below; bench/run.sh keeps it.
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${RACES_BUILD:-build-races}
TSAN_BUILD=${RACES_TSAN_BUILD:-build-races-tsan}
ROUNDS=${BENCH_RACES_ROUNDS:-3}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
MD=$BUILD/bin/shmemu-md
MD_TSAN=$TSAN_BUILD/bin/shmemu-md
OUTDIR=$BUILD/bench/races
BEGIN='<!-- bench/races.sh begin -->'
END='<!-- bench/races.sh end -->'
. bench/results_section.sh
ARGS=(--cells 10 --pes 8 --dd 4x2x1 --halo fused --steps 10)
for b in "$MD" "$MD_TSAN"; do
    [ -x "$b" ] || { echo "races.sh: $b is not built (make bench-races builds it)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "races.sh: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "races.sh: BENCH_RACES_ROUNDS=$ROUNDS: need a positive integer" >&2; exit 2 ;; esac
mkdir -p "$OUTDIR"
export TSAN_OPTIONS="halt_on_error=0 exitcode=66"

ref=$("$MD" --cells 10 --steps 10 --pes 1 --halo serial 2>/dev/null | awk '$1 == "checksum" { print $2 }')
[ -n "$ref" ] || { echo "races.sh: the 1-PE reference run failed" >&2; exit 2; }

tools=(native helgrind drd tsan)
declare -A times mems dnf
bad=0
for r in $(seq 1 "$ROUNDS"); do
    for tool in "${tools[@]}"; do
        log=$OUTDIR/$tool.$r.log
        if [ -n "${BENCH_RACES_RESUME:-}" ] && grep -q '^BENCH_TIME' "$OUTDIR/$tool.$r.time" 2>/dev/null; then
            : # BENCH_RACES_RESUME=1: this run is done (or was stopped): keep its result
        else
            case "$tool" in
            native) cmd=("$MD") ;;
            helgrind) cmd=(valgrind --tool=helgrind --history-level=approx --fair-sched=yes "$MD") ;;
            drd) cmd=(valgrind --tool=drd --fair-sched=yes "$MD") ;;
            tsan) cmd=("$MD_TSAN") ;;
            esac
            # No hang timeout: under DRD a step of this size takes minutes, and a wait longer
            # than SHMEMU_HANG_TIMEOUT would be reported as a hang. BENCH_RACES_TIMEOUT caps a run.
            SHMEMU_HANG_TIMEOUT=0 /usr/bin/time -f 'BENCH_TIME %e %M' -o "$OUTDIR/$tool.$r.time" \
                timeout "${BENCH_RACES_TIMEOUT:-3600}" "${cmd[@]}" "${ARGS[@]}" >"$log" 2>&1
        fi
        rc=$(awk '/exited with non-zero status/ { print $NF; f = 1 } /terminated by signal/ { print 128 + $NF; f = 1 } END { if (!f) print 0 }' "$OUTDIR/$tool.$r.time")
        read -r _ secs kb < <(grep '^BENCH_TIME' "$OUTDIR/$tool.$r.time")
        if [ "$rc" = 124 ] || [ "$rc" = 137 ] || [ "$rc" = 143 ]; then
            # stopped (BENCH_RACES_TIMEOUT, or by hand): did not finish in that time
            dnf[$tool]=1
            times[$tool]="${times[$tool]:-} $secs"
            mems[$tool]="${mems[$tool]:-} $kb"
            echo "$tool round $r: did not finish in $secs s ($kb KB); log $log" >&2
            continue
        fi
        sum=$(awk '$1 == "checksum" { s = $2 } END { print s }' "$log")
        n=0
        case "$tool" in
        helgrind | drd) n=$(awk '/ERROR SUMMARY: [0-9]+ errors/ { n = $4 } END { print n + 0 }' "$log") ;;
        tsan) n=$(grep -c 'WARNING: ThreadSanitizer:' "$log") ;;
        esac
        if [ "$rc" != 0 ] || [ "$sum" != "$ref" ] || [ "$n" != 0 ]; then
            echo "races.sh: $tool round $r: exit $rc, checksum ${sum:-none} (want $ref), $n report(s); log $log" >&2
            bad=1
        fi
        times[$tool]="${times[$tool]:-} $secs"
        mems[$tool]="${mems[$tool]:-} $kb"
        echo "$tool round $r: $secs s, $kb KB" >&2
    done
done
[ "$bad" = 0 ] || exit 1

median() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maxof() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | tail -1; }
t_nat=$(median "${times[native]}")
m_nat=$(maxof "${mems[native]}")

section=$(
    echo "## Race checkers: slowdown and memory"
    echo
    echo "\`bench/races.sh\` (\`make bench-races\`), $(date -u '+%Y-%m-%d'), $(nproc) cores:"
    echo "\`shmemu-md ${ARGS[*]}\` (4 000 atoms, 2D, fused halo, direct transport),"
    echo "median of $ROUNDS run(s) each, peak resident memory (largest of the runs). Every run printed the"
    echo "1-PE reference checksum \`$ref\` and no race report, except runs marked \"did not"
    echo "finish\" (stopped before their end: no checksum to compare)."
    echo
    echo "| run | time (s) | slowdown | peak memory (MiB) | memory ratio |"
    echo "|---|---|---|---|---|"
    for tool in "${tools[@]}"; do
        t=$(median "${times[$tool]}")
        m=$(maxof "${mems[$tool]}")
        if [ -n "${dnf[$tool]:-}" ]; then
            awk -v tool="$tool" -v t="$t" -v m="$m" -v tn="$t_nat" -v mn="$m_nat" 'BEGIN {
                printf "| %s | did not finish: stopped after %.0f | > %.0fx | %.0f (when stopped) | %.1fx |\n", tool, t, t / tn, m / 1024, m / mn }'
        else
            awk -v tool="$tool" -v t="$t" -v m="$m" -v tn="$t_nat" -v mn="$m_nat" 'BEGIN {
                printf "| %s | %.2f | %.1fx | %.0f | %.1fx |\n", tool, t, t / tn, m / 1024, m / mn }'
        fi
    done
    echo
    echo "Target: the helgrind run of this configuration under 60 s on this machine."
    if [ -n "${BENCH_RACES_NOTE:-}" ]; then
        echo
        echo "$BENCH_RACES_NOTE"
    fi
)
echo "$section"

echo "$section" | replace_results_section "$RESULTS" "$BEGIN" "$END" ||
    { echo "races.sh: could not write $RESULTS" >&2; exit 2; }

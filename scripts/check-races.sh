#!/usr/bin/env bash
# check-races.sh: correct code must give zero race reports (docs/design.md D4), over a matrix.
#
#   scripts/check-races.sh [BUILD [TSAN_BUILD]]        (what `make check-races` runs)
#
# BUILD (default build-races): plain build of bin shmemu-md and the cmocka suites;
# TSAN_BUILD (default build-races-tsan): the same with ThreadSanitizer. `make check-races`
# builds both first.
#
# 1. bin/shmemu-md, every halo variant over a matrix of small configurations:
#      decompositions 2x1x1 (2 PEs), 3x1x1 (3 PEs, two pulses along x: forwarding in 1D),
#      2x2x1 (4), 3x2x1 (6), 4x2x1 (8), 2x2x2 (8 PEs, 3D)
#    x halo fused | pulse  x transport direct | signal | signal with delayed, reordered
#    delivery (SHMEMU_CHECK_NBI=1); and on 3x1x1, 2x2x1, 2x2x2 the direct transport with bulk
#    copies (--bulk-copy on, fused and pulse) and the CPU-initiated baseline (--halo host,
#    direct and signal); each run under helgrind, DRD and the TSan build. Then the direct
#    exchange (--halo direct26: ghosts to every neighbour, acknowledgements back), which
#    needs domains at least the halo deep and home atoms and ghosts within the per-PE
#    arrays, in the smallest box that fits each grid (--cells X,Y,Z, not CELLS): 2x1x1 (one
#    neighbour PE through two directions) and 3x1x1 with each transport and delivery under
#    the three tools; 2x2x1 (edges) likewise, but put-with-signal under helgrind and TSan
#    only (DRD's runs of it took 1-6 minutes); 2x2x2 (corners: 26 directions) direct under
#    helgrind and TSan, put-with-signal under TSan (DRD took more than 10 minutes).
#    A run passes when the tool reports nothing and the checksum is the 1-PE serial run's
#    of the same system.
# 2. bin/shmemu-cg (docs/cg.md) on small matrices: cg-mono, cg-host --reduce sync and
#    stream, and the halo-only loop (--solver halo-loop), at 2, 4 and 8 PEs (2-D Poisson
#    N = 6 and N = 8, 36 and 64 rows), cg-mono and the loop also in checking mode
#    (SHMEMU_CHECK_NBI=1) at 4 PEs; each under helgrind, DRD and the TSan build (but
#    cg-host --reduce stream at 8 PEs not under DRD: 12 minutes). A run
#    passes when the tool reports nothing, it exits 0 and prints the serial solver's
#    checksum (--solver serial; halo-serial for the loop).
# 3. the pgas and emu cmocka suites (tests/test_*.c but test_md_*) under helgrind and DRD
#    (scripts/run-suites.sh, which fails a suite on any report) and the TSan build.
#
# Suppressions: none of the project's own. valgrind applies its default suppression file
# (glibc and the dynamic loader, shipped with valgrind); TSan's runtime has its own for
# libc. A report in shmemu's code, or in a user's, is never suppressed.
#
# Environment: STEPS (default 3), NSTLIST (default 2: a search inside the run, so the
# set-up exchange and redistribution are checked too, and halo steps before and after it),
# CELLS (default 4: 256 atoms), RUN_TIMEOUT (seconds per run, default 900),
# RACES_HANG_TIMEOUT (SHMEMU_HANG_TIMEOUT of each run, default 600), RACES_JOBS (runs at
# once, default 2),
# RACES_SUITES=0 (skip part 3; the summary then says NOT RUN), RACES_LOGS (default
# $BUILD/check-races), RACES_MATCH (an extended regular expression: only the MD and cg runs
# whose configuration matches, e.g. RACES_MATCH=direct26, or RACES_MATCH=solver for cg's
# alone).
set -u
cd "$(dirname "$0")/.." || exit 2
. scripts/job_slots.sh
BUILD=${1:-build-races}
TSAN_BUILD=${2:-build-races-tsan}
STEPS=${STEPS:-3}
NSTLIST=${NSTLIST:-2}
CELLS=${CELLS:-4}
RUN_TIMEOUT=${RUN_TIMEOUT:-900}
JOBS=${RACES_JOBS:-2}
LOGS=${RACES_LOGS:-$BUILD/check-races}
MD=$BUILD/bin/shmemu-md
MD_TSAN=$TSAN_BUILD/bin/shmemu-md
CG=$BUILD/bin/shmemu-cg
CG_TSAN=$TSAN_BUILD/bin/shmemu-cg
for b in "$MD" "$MD_TSAN" "$CG" "$CG_TSAN"; do
    [ -x "$b" ] || { echo "check-races: $b is not built (make check-races builds it)" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "check-races: valgrind is not installed" >&2; exit 2; }
rm -rf "$LOGS"
mkdir -p "$LOGS"
export TSAN_OPTIONS="halt_on_error=0 exitcode=66"
start=$(date +%s)

# The 1-PE reference checksum of a system (--cells N or X,Y,Z), once each.
declare -A refs
reference() { # cells
    [ -n "${refs[$1]:-}" ] && return
    refs[$1]=$("$MD" --cells "$1" --steps "$STEPS" --nstlist "$NSTLIST" --pes 1 --halo serial \
               2>/dev/null | awk '$1 == "checksum" { print $2 }')
    [ -n "${refs[$1]}" ] || { echo "check-races: the 1-PE reference run of --cells $1 failed" >&2; exit 2; }
}
reference "$CELLS"

# CMD: program $2 (its TSan build: $3) under tool $1.
tool_cmd() { # tool prog prog_tsan
    case "$1" in
    helgrind) CMD=(valgrind --tool=helgrind --history-level=approx --fair-sched=yes "$2") ;;
    drd) CMD=(valgrind --tool=drd --fair-sched=yes "$2") ;;
    tsan) CMD=("$3") ;;
    esac
}

# A finished run's line: PASS when it exited 0, the tool reported nothing and its last
# checksum is ref; else FAIL with what went wrong.
verdict() { # tool rc log ref what t0
    local tool=$1 rc=$2 log=$3 ref=$4 what=$5 t0=$6 n sum
    case "$tool" in
    tsan) n=$(grep -c 'WARNING: ThreadSanitizer:' "$log") ;;
    *) n=$(awk '/ERROR SUMMARY: [0-9]+ errors/ { n = $4 } END { print (NR ? n + 0 : -1) }' "$log") ;;
    esac
    sum=$(awk '$1 == "checksum" { s = $2 } END { print s }' "$log")
    if [ "$rc" = 0 ] && [ "$n" = 0 ] && [ -n "$ref" ] && [ "$sum" = "$ref" ]; then
        echo "PASS $tool $what ($((SECONDS - t0)) s)"
    else
        echo "FAIL $tool $what: exit $rc, $n report(s), checksum ${sum:-none} (want ${ref:-none}); log $log"
    fi
}

# One configuration under one tool: prints "PASS|FAIL tool config: detail".
run_md() { # tool id env-words... -- md-args...
    local tool=$1 id=$2
    shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    # A configuration's own --cells comes after CELLS on the command line, and wins.
    local cells=$CELLS a prev=""
    for a in "$@"; do [ "$prev" = --cells ] && cells=$a; prev=$a; done
    local ref=${refs[$cells]}
    local log=$LOGS/md.$id.$tool.log
    tool_cmd "$tool" "$MD" "$MD_TSAN"
    local t0=$SECONDS
    # DRD is slow enough with 8 PEs that an honest wait can pass minutes: the hang timeout
    # is generous, and RUN_TIMEOUT bounds a run.
    env "${envs[@]}" SHMEMU_HANG_TIMEOUT="${RACES_HANG_TIMEOUT:-600}" timeout -k 10 "$RUN_TIMEOUT" "${CMD[@]}" \
        --cells "$CELLS" --steps "$STEPS" --nstlist "$NSTLIST" "$@" >"$log" 2>&1
    verdict "$tool" $? "$log" "$ref" "${envs[*]:+${envs[*]} }$*" "$t0"
}

# configs[k] runs under the tools of tools[k].
configs=() tools=()
add() { # "tools" "env-words... -- md-args"
    tools+=("$1")
    configs+=("$2")
}
ALL="helgrind drd tsan"
pes_of() { echo $(( ${1%%x*} * $(cut -dx -f2 <<<"$1") * ${1##*x} )); }
for dd in 2x1x1 3x1x1 2x2x1 3x2x1 4x2x1 2x2x2; do
    pes=$(pes_of "$dd")
    for halo in fused pulse; do
        add "$ALL" "-- --pes $pes --dd $dd --halo $halo --transport direct"
        add "$ALL" "-- --pes $pes --dd $dd --halo $halo --transport signal"
        add "$ALL" "SHMEMU_CHECK_NBI=1 -- --pes $pes --dd $dd --halo $halo --transport signal"
    done
done
# The direct path with bulk copies (TMA on a GPU) and the CPU-initiated baseline, on a 1D
# grid with two pulses, a 2D and a 3D one.
for dd in 3x1x1 2x2x1 2x2x2; do
    pes=$(pes_of "$dd")
    add "$ALL" "-- --pes $pes --dd $dd --halo fused --transport direct --bulk-copy on"
    add "$ALL" "-- --pes $pes --dd $dd --halo pulse --transport direct --bulk-copy on"
    add "$ALL" "-- --pes $pes --dd $dd --halo host --transport direct"
    add "$ALL" "-- --pes $pes --dd $dd --halo host --transport signal"
done
# The direct exchange, each grid in the smallest box it takes (see above).
for g in 2x1x1:7,4,4 3x1x1:6,4,4 2x2x1:7,7,4 2x2x2:7,7,7; do
    dd=${g%%:*} cells=${g##*:}
    pes=$(pes_of "$dd")
    reference "$cells"
    d26="--cells $cells --pes $pes --dd $dd --halo direct26"
    case $dd in
    2x2x2) # DRD: more than 10 minutes
        add "helgrind tsan" "-- $d26 --transport direct"
        add "tsan" "-- $d26 --transport signal" ;;
    2x2x1) # DRD's put-with-signal runs: 1D's
        add "$ALL" "-- $d26 --transport direct"
        add "helgrind tsan" "-- $d26 --transport signal"
        add "helgrind tsan" "SHMEMU_CHECK_NBI=1 -- $d26 --transport signal" ;;
    *)
        add "$ALL" "-- $d26 --transport direct"
        add "$ALL" "-- $d26 --transport signal"
        add "$ALL" "SHMEMU_CHECK_NBI=1 -- $d26 --transport signal" ;;
    esac
done

# cg: one configuration under one tool (as run_md): prints "PASS|FAIL tool config: detail".
declare -A cg_refs
run_cg() { # tool id env-words... -- cg-args...
    local tool=$1 id=$2
    shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local log=$LOGS/cg.$id.$tool.log
    tool_cmd "$tool" "$CG" "$CG_TSAN"
    local t0=$SECONDS
    env "${envs[@]}" SHMEMU_HANG_TIMEOUT="${RACES_HANG_TIMEOUT:-600}" timeout -k 10 "$RUN_TIMEOUT" \
        "${CMD[@]}" "$@" >"$log" 2>&1
    verdict "$tool" $? "$log" "${cg_refs[$*]}" "${envs[*]:+${envs[*]} }$*" "$t0"
}
# The serial reference of each cg configuration (its matrix and iterations), once each.
cg_configs=() cg_tools=()
add_cg() { # "tools" "env-words... -- cg-args"
    cg_tools+=("$1")
    cg_configs+=("$2")
    local args=${2#*-- } serial
    [ -n "${cg_refs[$args]:-}" ] && return
    case "$args" in
    *halo-loop*) serial=$(sed -E 's/--solver halo-loop/--solver halo-serial/; s/--pes [0-9]+//' <<<"$args") ;;
    *) serial=$(sed -E 's/--solver [a-z-]+/--solver serial/; s/--pes [0-9]+//; s/--reduce [a-z]+//' <<<"$args") ;;
    esac
    # shellcheck disable=SC2086
    cg_refs[$args]=$("$CG" $serial 2>/dev/null | awk '$1 == "checksum" { print $2 }')
    [ -n "${cg_refs[$args]}" ] || { echo "check-races: the serial run of shmemu-cg $serial failed" >&2; exit 2; }
}
for pes in 2 4 8; do
    mat="--poisson2d 6"
    [ "$pes" = 8 ] && mat="--poisson2d 8"
    add_cg "$ALL" "-- $mat --solver cg-mono --pes $pes"
    add_cg "$ALL" "-- $mat --solver cg-host --reduce sync --pes $pes"
    if [ "$pes" = 8 ]; then # DRD: 12 minutes (cg-host's 8 stream threads' launches)
        add_cg "helgrind tsan" "-- $mat --solver cg-host --reduce stream --pes $pes"
    else
        add_cg "$ALL" "-- $mat --solver cg-host --reduce stream --pes $pes"
    fi
    add_cg "$ALL" "-- $mat --solver halo-loop --iters 12 --pes $pes"
done
add_cg "$ALL" "SHMEMU_CHECK_NBI=1 -- --poisson2d 6 --solver cg-mono --pes 4"
add_cg "$ALL" "SHMEMU_CHECK_NBI=1 -- --poisson2d 6 --solver halo-loop --iters 12 --pes 4"

# Runs every configuration of the arrays named CONFIGS and TOOLS (tools per configuration)
# that RACES_MATCH selects, under each of its tools, with RUNNER (run_md or run_cg), JOBS at
# once; prints and keeps the results, in order, in $LOGS/NAME.results.
run_matrix() {
    local name=$1 runner=$2 n=0 k c tool
    local -n cfgs=$3 tls=$4
    for k in "${!cfgs[@]}"; do
        c=${cfgs[$k]}
        [ -z "${RACES_MATCH:-}" ] || [[ "$c" =~ $RACES_MATCH ]] || continue
        for tool in ${tls[$k]}; do
            n=$((n + 1))
            # shellcheck disable=SC2086
            ("$runner" "$tool" "$n" $c >"$LOGS/$name.$n.result") &
            wait_for_slot "$JOBS"
        done
    done
    wait
    for k in $(seq 1 "$n"); do cat "$LOGS/$name.$k.result"; done | tee "$LOGS/$name.results"
}

run_matrix md run_md configs tools
md_pass=$(grep -c '^PASS' "$LOGS/md.results")
md_fail=$(grep -c '^FAIL' "$LOGS/md.results")
md_end=$(date +%s)

run_matrix cg run_cg cg_configs cg_tools
cg_pass=$(grep -c '^PASS' "$LOGS/cg.results")
cg_fail=$(grep -c '^FAIL' "$LOGS/cg.results")
cg_end=$(date +%s)

suite_note="NOT RUN (RACES_SUITES=0)"
suite_fail=0
if [ "${RACES_SUITES:-1}" != 0 ]; then
    mapfile -t suites < <(ls tests/test_*.c | grep -v '/test_md_' | sed 's|^tests/||; s|\.c$||')
    plain=() tsan=()
    for s in "${suites[@]}"; do
        plain+=("$BUILD/tests/$s")
        tsan+=("$TSAN_BUILD/tests/$s")
    done
    for b in "${plain[@]}" "${tsan[@]}"; do
        [ -x "$b" ] || { echo "check-races: $b is not built" >&2; exit 2; }
    done
    suite_note=""
    for tool in helgrind drd tsan; do
        t0=$SECONDS
        if [ "$tool" = tsan ]; then
            scripts/run-suites.sh "" "${tsan[@]}" >"$LOGS/suites.$tool.log" 2>&1
        else
            scripts/run-suites.sh "$tool" "${plain[@]}" >"$LOGS/suites.$tool.log" 2>&1
        fi
        rc=$?
        line=$(tail -1 "$LOGS/suites.$tool.log")
        # TSan's reports fail a suite through its exit status (66).
        if [ "$rc" = 0 ]; then st=PASS; else st=FAIL; suite_fail=$((suite_fail + 1)); fi
        echo "$st suites under $tool: $line ($((SECONDS - t0)) s; log $LOGS/suites.$tool.log)"
        suite_note="$suite_note $tool: $st;"
    done
fi
end=$(date +%s)
echo "check-races: MD matrix $md_pass passed, $md_fail failed ($((md_end - start)) s);" \
     "cg matrix $cg_pass passed, $cg_fail failed ($((cg_end - md_end)) s);" \
     "pgas/emu suites:${suite_note} total $((end - start)) s"
[ "$md_fail" = 0 ] && [ "$cg_fail" = 0 ] && [ "$suite_fail" = 0 ] && [ $((md_pass + cg_pass)) -gt 0 ]

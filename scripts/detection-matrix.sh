#!/usr/bin/env bash
# detection-matrix.sh: runs every planted bug (shmemu/bugs.h, md/src/md_bugs.h, cg/src/cg_bugs.h) under every checker and
# writes the result, whole, to docs/detection-matrix.md (through a temporary file).
#
#   scripts/detection-matrix.sh [BUILD [TSAN_BUILD]]     (what `make detection-matrix` runs)
#
# BUILD (default build-races) holds a plain build of shmemu-md and shmemu-cg, TSAN_BUILD
# (default build-races-tsan) a ThreadSanitizer build; `make detection-matrix` builds both first.
# For each bug, with its catalogue configuration (shmemu-md --list-bugs and --steps $STEPS;
# cg's bugs, shmemu-cg --list-bugs' cg- names, with theirs: a configuration with --solver
# runs shmemu-cg, whose reference is the serial solver of the same matrix, scripts/plant_config.sh):
#   checksum  a native run; detected when the last line's checksum differs from the 1-PE
#             serial run of the same system, or the run ends in a hang report or an error
#             from one of shmemu's own checks ("shmemu: PE p: call: ...");
#   helgrind, drd   valgrind --tool=...; detected when valgrind counts errors;
#   tsan      the TSan build; detected when it prints a ThreadSanitizer warning;
#   sched     the deterministic scheduler (docs/sched.md), when this build knows SHMEMU_SCHED:
#             native runs under SHMEMU_SCHED=random and pct, SHMEMU_SEED 1..SCHED_SEEDS
#             (default 4); detected when a schedule's checksum differs or it ends in a
#             hang or deadlock report; else "not yet".
# For a report it records the first frame in the project's sources of the first report,
# and whether any frame of any report lies at the plant (the lines of the plant's file
# that name the bug, up to 3 lines after them).
# Correct code (no bug) is run first, the same way, in every configuration that the
# catalogue uses: a report there is a false positive, and the script fails.
#
# Environment: STEPS (default 3), RUN_TIMEOUT (seconds per run, default 600),
# HANG_TIMEOUT_NATIVE / HANG_TIMEOUT_VALGRIND (SHMEMU_HANG_TIMEOUT of a run: default 30 s
# natively and under TSan, 300 s under valgrind: DRD with 6-8 PEs can take minutes for an
# honest wait),
# MATRIX_JOBS (bugs run at once, default 2: valgrind runs one thread at a time),
# ONLY="name ..." (a subset; the document then says which ran), MATRIX_OUT (default
# docs/detection-matrix.md), MATRIX_LOGS (default $BUILD/detection-matrix), MATRIX_REUSE=1
# (run nothing: rewrite the document from the rows and logs of the last run; a file
# $MATRIX_LOGS/note.md, written by hand after looking at the logs, is added as "Notes").
set -u
cd "$(dirname "$0")/.." || exit 2
. scripts/job_slots.sh
root=$(pwd)
BUILD=${1:-build-races}
TSAN_BUILD=${2:-build-races-tsan}
STEPS=${STEPS:-3}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
HANG_NATIVE=${HANG_TIMEOUT_NATIVE:-30}
HANG_VG=${HANG_TIMEOUT_VALGRIND:-300}
JOBS=${MATRIX_JOBS:-2}
OUT=${MATRIX_OUT:-docs/detection-matrix.md}
LOGS=${MATRIX_LOGS:-$BUILD/detection-matrix}
MD=$BUILD/bin/shmemu-md
MD_TSAN=$TSAN_BUILD/bin/shmemu-md
CG=$BUILD/bin/shmemu-cg
CG_TSAN=$TSAN_BUILD/bin/shmemu-cg
for b in "$MD" "$MD_TSAN" "$CG" "$CG_TSAN"; do
    [ -x "$b" ] || { echo "detection-matrix: $b is not built (make detection-matrix builds it)" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "detection-matrix: valgrind is not installed" >&2; exit 2; }
[ -n "${MATRIX_REUSE:-}" ] || rm -rf "$LOGS"
mkdir -p "$LOGS"

VG_COMMON=(--fair-sched=yes --error-exitcode=0)
HG=(valgrind --tool=helgrind --history-level=approx "${VG_COMMON[@]}")
DRD=(valgrind --tool=drd "${VG_COMMON[@]}")
export TSAN_OPTIONS="halt_on_error=0 exitcode=66"

# An error from one of shmemu's own checks: "shmemu: PE p: <call>: ..." (pgas) or
# "shmemu: PE p: kernel K block (x,y,z) thread (x,y,z): ..." (the emulator).
OWN_ERROR='^shmemu: PE [0-9]+: ([a-z_0-9]+|kernel [a-z_0-9]+ block \([0-9,]+\)( thread \([0-9,]+\))?): '

# Project source basenames: a frame in one of them is "in the project's sources".
proj_files=$(find md/src pgas/src emu/src pgas/include emu/include md/include cg/src cg/include -name '*.[ch]' \
             -printf '%f\n' | sort -u | paste -sd'|')

# The deterministic scheduler (docs/sched.md): used when this build knows SHMEMU_SCHED (it
# rejects a bad value by name).
SCHED=no
if SHMEMU_SCHED=no-such-mode "$MD" --cells 4 --pes 1 --steps 0 2>&1 | grep -q 'SHMEMU_SCHED'; then
    SCHED=yes
fi
SCHED_SEEDS=${SCHED_SEEDS:-4}

# The catalogue: name<TAB>file<TAB>config.
list_bugs() { # program [prefix]: name<TAB>file<TAB>config (the names starting with prefix)
    "$1" --list-bugs | awk -v pre="${2:-}" '
        NR % 2 == 1 { name = $1; file = $2 }
        NR % 2 == 0 && index(name, pre) == 1 { sub(/^ *config: /, ""); print name "\t" file "\t" $0 }'
}
catalogue=$(list_bugs "$MD")
[ -n "$catalogue" ] || { echo "detection-matrix: $MD --list-bugs printed nothing" >&2; exit 2; }
cg_catalogue=$(list_bugs "$CG" cg-)
[ -n "$cg_catalogue" ] || { echo "detection-matrix: $CG --list-bugs printed no cg- bug" >&2; exit 2; }
catalogue=$catalogue$'\n'$cg_catalogue
if [ -n "${ONLY:-}" ]; then
    catalogue=$(awk -F'\t' -v only=" $ONLY " 'index(only, " " $1 " ")' <<<"$catalogue")
fi

# split_config, reference (the configurations of the catalogue)
. scripts/plant_config.sh

# Runs one checker; prints "status|reports|first-frame|at-plant|seconds".
# status: reported, clean, hang, timeout, failed (the run failed without a report).
run_one() { # tool bug file config log
    local tool=$1 bug=$2 file=$3 cfg=$4 log=$5
    split_config "$cfg"
    local cmd=() prog=$MD prog_tsan=$MD_TSAN
    [ "$PROG" = cg ] && prog=$CG prog_tsan=$CG_TSAN
    case "$tool" in
    native) cmd=("$prog") ;;
    helgrind) cmd=("${HG[@]}" "$prog") ;;
    drd) cmd=("${DRD[@]}" "$prog") ;;
    tsan) cmd=("$prog_tsan") ;;
    sched) cmd=("$prog") ;;
    esac
    local hang=$HANG_NATIVE
    [ "$tool" = helgrind ] || [ "$tool" = drd ] && hang=$HANG_VG
    local t0 t1 rc
    t0=$(date +%s.%N)
    env "${ENVS[@]}" ${bug:+SHMEMU_BUG=$bug} SHMEMU_HANG_TIMEOUT=$hang \
        timeout -k 10 "$RUN_TIMEOUT" "${cmd[@]}" "${ARGS[@]}" >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    local secs
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    local n=0
    case "$tool" in
    helgrind | drd) n=$(awk '/ERROR SUMMARY: [0-9]+ errors/ { n = $4 } END { print n + 0 }' "$log") ;;
    tsan) n=$(grep -c 'WARNING: ThreadSanitizer:' "$log") ;;
    esac
    # Frames: valgrind "at/by 0x..: fn (file.c:12)", TSan "#0 fn /path/file.c:12:3".
    # Frames of the reports only: not helgrind's thread announcements (creation stacks), nor
    # TSan's "created by" stacks.
    local frames
    frames=$(awk '/Thread-Announcement/ { skip = 1; next }
                  /^==[0-9]+== --------------------/ { skip = 0; next }
                  /created by (main )?thread/ { skip = 2; next }
                  skip == 2 && /^ *$/ { skip = 0; next }
                  !skip' "$log" |
             grep -oE "(\((${proj_files}):[0-9]+\))|(/(${proj_files}):[0-9]+)" |
             sed -E 's/^[(\/]//; s/\)$//')
    local first="" at_plant=no
    if [ "$n" -gt 0 ]; then
        first=$(head -1 <<<"$frames")
        local base plant_lines
        base=$(basename "$file")
        local enum # MD_BUG_<NAME> (md's plants), SHMEMU_BUG_<NAME> (the runtime's, the
        # driver's) or CG_BUG_<NAME> (cg's: cg-<name>)
        enum=_BUG_$(tr 'a-z-' 'A-Z_' <<<"$bug")
        [[ "$bug" == cg-* ]] && enum=CG_BUG_$(tr 'a-z-' 'A-Z_' <<<"${bug#cg-}")
        plant_lines=$(grep -n "$enum\b" "$file" | cut -d: -f1)
        for pl in $plant_lines; do
            if awk -F: -v f="$base" -v lo="$pl" -v hi="$((pl + 3))" \
                   '$1 == f && $2 >= lo && $2 <= hi { found = 1 } END { exit !found }' <<<"$frames"; then
                at_plant=yes
            fi
        done
    fi
    local status
    if grep -q 'shmemu: hang' "$log"; then status=hang
    elif [ "$n" = 0 ] && grep -qE "$OWN_ERROR" "$log"; then status=shmemu-error
    elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then status=timeout
    elif [ "$n" -gt 0 ]; then status=reported
    elif [ "$PROG" = cg ] && [ "$rc" = 1 ] && grep -q '^checksum ' "$log"; then
        status=clean # shmemu-cg's "not converged" (a planted bug's wrong numbers): no report
    elif [ "$rc" != 0 ]; then status=failed
    else status=clean
    fi
    [ "$n" -gt 0 ] && [ "$status" != reported ] && status="$status+reported"
    echo "$status|$n|$first|$at_plant|$secs|$rc"
}

# The deterministic scheduler: SHMEMU_SCHED=random and pct, seeds 1..SCHED_SEEDS, natively;
# stops at the first schedule whose checksum differs from ref or that ends in a hang or
# deadlock report. Prints "status|schedule|runs|seconds" (status: differs, hang, failed,
# same; "-" when the scheduler is not available).
run_sched() { # bug config ref log-prefix
    local bug=$1 cfg=$2 ref=$3 pre=$4
    [ "$SCHED" = yes ] || { echo "-|||"; return; }
    split_config "$cfg"
    local prog=$MD
    [ "$PROG" = cg ] && prog=$CG
    local t0 runs=0 st=same where="" mode seed log sum rc
    t0=$(date +%s.%N)
    for mode in random pct; do
        for seed in $(seq 1 "$SCHED_SEEDS"); do
            runs=$((runs + 1))
            log=$pre.$mode.$seed.log
            env "${ENVS[@]}" ${bug:+SHMEMU_BUG=$bug} SHMEMU_SCHED=$mode SHMEMU_SEED=$seed \
                SHMEMU_HANG_TIMEOUT=$HANG_NATIVE timeout -k 10 "$RUN_TIMEOUT" "$prog" "${ARGS[@]}" \
                >"$log" 2>&1
            rc=$?
            sum=$(awk '$1 == "checksum" { s = $2 } END { print s }' "$log")
            if grep -qE 'shmemu: (hang|deadlock)' "$log"; then st=hang
            elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then st=timeout
            elif [ -z "$sum" ]; then st=failed
            elif [ "$sum" != "$ref" ]; then st=differs
            fi
            if [ "$st" != same ]; then where="SHMEMU_SCHED=$mode SHMEMU_SEED=$seed"; break 2; fi
        done
    done
    echo "$st|$where|$runs|$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
}

# One bug (or "" for correct code) in one configuration: one result line.
run_bug() { # name ("none": correct code) file config id
    local bug=$1 file=$2 cfg=$3
    [ "$bug" = none ] && bug=""
    local tag=${bug:-none} lt=$4-${bug:-none}
    local ref
    ref=$(reference "$cfg")
    local nat sum
    nat=$(run_one native "$bug" "$file" "$cfg" "$LOGS/$lt.native.log")
    sum=$(awk '$1 == "checksum" { s = $2 } END { print s }' "$LOGS/$lt.native.log")
    local csum
    if [ -z "$ref" ]; then csum="no reference"
    elif [ "${nat%%|*}" = hang ]; then csum="hang report"
    elif [ "${nat%%|*}" = timeout ]; then csum="timeout"
    elif grep -qE "$OWN_ERROR" "$LOGS/$lt.native.log"; then
        # One of shmemu's own checks stopped the run (checking mode: a put's source reused
        # before quiet; the emulator: a shared-memory race within a block, ...): a
        # detection, with the call or kernel that found it.
        csum="shmemu error in $(grep -m1 -oE "$OWN_ERROR" "$LOGS/$lt.native.log" |
                                 sed -E 's/^shmemu: //; s/: $//')"
    elif [ -z "$sum" ]; then csum="run failed (rc ${nat##*|})"
    elif [ "$sum" = "$ref" ]; then csum="same"
    else csum="differs"
    fi
    local hg drd ts
    hg=$(run_one helgrind "$bug" "$file" "$cfg" "$LOGS/$lt.helgrind.log")
    drd=$(run_one drd "$bug" "$file" "$cfg" "$LOGS/$lt.drd.log")
    ts=$(run_one tsan "$bug" "$file" "$cfg" "$LOGS/$lt.tsan.log")
    local sc
    sc=$(run_sched "$bug" "$cfg" "$ref" "$LOGS/$lt.sched")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$file" "$cfg" "$csum|$sum|$ref" "$hg" "$drd" "$ts" \
        "${nat}" "$sc"
}
start=$(date +%s)
results=$LOGS/results.tsv
# Jobs: correct code (no bug) in every configuration the catalogue uses, then the bugs;
# MATRIX_JOBS at a time, each writing its own row file.
jobs=$(cut -f3 <<<"$catalogue" | sort -u | awk '{ print "none\t-\t" $0 }')
jobs=$jobs$'\n'$catalogue
i=0
[ -n "${MATRIX_REUSE:-}" ] && jobs="" # MATRIX_REUSE=1: only rewrite the document from the rows
while IFS=$'\t' read -r name file cfg; do
    [ -n "$name" ] || continue
    i=$((i + 1))
    echo "run $i: ${name:-correct code} ($cfg)" >&2
    (run_bug "$name" "$file" "$cfg" "$(printf %03d $i)" | sed "s/^none\t/none#$i\t/" >"$LOGS/row.$(printf %03d $i)") &
    wait_for_slot "$JOBS"
done <<<"$jobs"
wait
cat "$LOGS"/row.* >"$results"
end=$(date +%s)
if [ -n "${MATRIX_REUSE:-}" ]; then
    read -r start end ran_at <"$LOGS/elapsed"
    . "$LOGS/settings" # the limits that run used
else
    echo "$start $end $(date -u '+%Y-%m-%d_%H:%M_UTC')" >"$LOGS/elapsed"
    echo "STEPS=$STEPS RUN_TIMEOUT=$RUN_TIMEOUT HANG_NATIVE=$HANG_NATIVE HANG_VG=$HANG_VG" >"$LOGS/settings"
fi
read -r _ _ ran_at <"$LOGS/elapsed"

# The document.
cell() { # status|n|first|at_plant|secs|rc
    IFS='|' read -r st n first at secs _ <<<"$1"
    case "$st" in
    reported) printf 'yes: %s at %s%s (%ss)' "$n" "${first:-?}" "$([ "$at" = yes ] && echo ', plant in stack')" "$secs" ;;
    clean) printf 'no (%ss)' "$secs" ;;
    hang) printf 'hang report (%ss)' "$secs" ;;
    hang+reported) printf 'yes: %s at %s, then hang (%ss)' "$n" "${first:-?}" "$secs" ;;
    timeout*) printf 'timeout (%ss)' "$secs" ;;
    failed*) printf 'run failed (%ss)' "$secs" ;;
    shmemu-error) printf 'no report: shmemu'"'"'s own error stops the run, as natively (%ss)' "$secs" ;;
    *) printf '%s' "$st" ;;
    esac
}
detected() { [[ "$1" == reported* || "$1" == hang* ]]; }
sched_cell() { # status|schedule|runs|secs
    IFS='|' read -r st where runs secs <<<"$1"
    case "$st" in
    - | "") printf 'not yet' ;;
    same) printf 'no: %s schedules (%ss)' "$runs" "$secs" ;;
    differs) printf 'yes: checksum differs at schedule %s, `%s` (%ss)' "$runs" "$where" "$secs" ;;
    hang) printf 'yes: hang/deadlock report at schedule %s, `%s` (%ss)' "$runs" "$where" "$secs" ;;
    *) printf '%s at `%s` (%ss)' "$st" "$where" "$secs" ;;
    esac
}
tmp=$OUT.tmp.$$
{
    echo "# Detection matrix: planted protocol bugs against each checker"
    echo
    echo "Written by \`scripts/detection-matrix.sh\` (\`make detection-matrix\`); runs of ${ran_at//_/ },"
    echo "in $((end - start)) s on $(nproc) cores. Do not edit: run it again."
    echo
    echo "Each bug of the catalogue (\`shmemu-md --list-bugs\`: md's, md/src/md_bugs.c, and the runtime's,"
    echo "pgas/src/bugs.c) runs with \`SHMEMU_BUG=<name>\` in its configuration, \`--steps $STEPS\`, under each"
    echo "checker; so does each of cg's (\`shmemu-cg --list-bugs\`, cg/src/cg_bugs.c: the configurations"
    echo "with \`--solver\`), whose reference is the serial solver of the same matrix (\`--solver serial\`,"
    echo "or \`halo-serial\` for the halo-only loop; docs/cg.md):"
    echo
    echo "- **checksum**: a native run; its last checksum against the 1-PE \`--halo serial\` run"
    echo "  of the same system (\"differs\" is a detection; a hang report too, and an error from"
    echo "  one of shmemu's own checks, such as checking mode's \"source of an earlier non-blocking"
    echo "  put ... overwritten before that put was complete\": the cell names the PE and call)."
    echo "- **helgrind**, **DRD**: \`${HG[*]:0:3} ...\`, \`${DRD[*]:0:2} ...\`; the number of errors"
    echo "  valgrind counted, the first frame in shmemu's sources of the first report, and"
    echo "  \"plant in stack\" when a frame of some report is the plant's line (or up to 3 after)."
    echo "- **TSan**: the ThreadSanitizer build (\`SANITIZE=thread CC=clang\`); the same fields."
    if [ "$SCHED" = yes ]; then
        echo "- **sched**: the deterministic scheduler (docs/sched.md, \`SHMEMU_SCHED\`): native runs under"
        echo "  \`SHMEMU_SCHED=random\` then \`pct\`, \`SHMEMU_SEED\` 1 to $SCHED_SEEDS each, stopping at the"
        echo "  first schedule whose checksum differs or that ends in a hang or deadlock report; the"
        echo "  cell gives that schedule: \`SHMEMU_BUG=... SHMEMU_SCHED=... SHMEMU_SEED=...\` and the"
        echo "  configuration reproduce it."
    else
        echo "- **sched**: the deterministic scheduler (docs/sched.md): not yet (\`SHMEMU_SCHED\` was not"
        echo "  known to this build)."
    fi
    echo
    echo "A hang report is shmemu's own (docs/pgas.md): a wait that nothing will satisfy,"
    echo "printed after \`SHMEMU_HANG_TIMEOUT\` seconds ($HANG_NATIVE natively and under TSan, $HANG_VG under valgrind)."
    echo "Per-run limit: $RUN_TIMEOUT s."
    echo
    echo "The fast subset, \`make check-plants\` (scripts/detection-fast.sh, part of the README's test"
    echo "command), runs every bug under its cheapest checker of this table only, under a fixed"
    echo "schedule (\`SHMEMU_SCHED\`, so a catch repeats on every run), and correct code once under"
    echo "each checker it uses; it fails when a plant escapes or correct code is reported. Its"
    echo "plan (bug, checker, schedule, and the system where it is not the catalogue's) is the"
    echo "table at the top of the script; a bug added to the catalogue without a row fails it."
    if [ -n "${ONLY:-}" ]; then
        echo
        echo "**Partial run**: only these bugs ran (ONLY=...): ${ONLY}."
    fi
    echo
    echo "## Correct code (false positives)"
    echo
    echo "| configuration | checksum | helgrind | DRD | TSan | sched |"
    echo "|---|---|---|---|---|---|"
    fp=0 fails=0
    while IFS=$'\t' read -r tag _ cfg cs hg dr ts _ sc; do
        [[ "$tag" == none* ]] || continue
        IFS='|' read -r cst _ _ <<<"$cs"
        case "$cst" in same) ;; differs) fp=$((fp + 1)) ;; *) fails=$((fails + 1)) ;; esac
        case "${sc%%|*}" in same | - | "") ;; differs) fp=$((fp + 1)) ;; *) fails=$((fails + 1)) ;; esac
        for r in "$hg" "$dr" "$ts"; do
            case "${r%%|*}" in clean) ;; reported | *+reported) fp=$((fp + 1)) ;; *) fails=$((fails + 1)) ;; esac
        done
        echo "| \`$cfg\` | $cst | $(cell "$hg") | $(cell "$dr") | $(cell "$ts") | $(sched_cell "$sc") |"
    done <"$results"
    echo
    echo "False positives (a report, or a wrong checksum, on correct code): **$fp**."
    echo "Failed runs of correct code (hang report, timeout, crash; no report): **$fails**."
    echo
    echo "## Planted bugs"
    echo
    echo "| bug | plant | configuration | checksum | helgrind | DRD | TSan | sched |"
    echo "|---|---|---|---|---|---|---|---|"
    nb=0 caught=0 escaped=""
    while IFS=$'\t' read -r tag file cfg cs hg dr ts _ sc; do
        [[ "$tag" == none* ]] && continue
        nb=$((nb + 1))
        IFS='|' read -r cst _ _ <<<"$cs"
        any=0
        case "$cst" in differs | "hang report" | "shmemu error"*) any=1 ;; esac
        for r in "$hg" "$dr" "$ts"; do detected "${r%%|*}" && any=1; done
        case "${sc%%|*}" in differs | hang) any=1 ;; esac
        if [ "$any" = 1 ]; then caught=$((caught + 1)); else escaped="$escaped $tag"; fi
        echo "| \`$tag\` | $file | \`$cfg\` | $cst | $(cell "$hg") | $(cell "$dr") | $(cell "$ts") | $(sched_cell "$sc") |"
    done <"$results"
    echo
    echo "Caught by at least one checker: **$caught of $nb**."
    if [ -n "$escaped" ]; then
        echo "Escaped every checker:$(for e in $escaped; do printf ' `%s`' "$e"; done)."
        echo "docs/checking.md (\"Bugs that escape\") says why and what would catch them."
    fi
    echo
    echo "Logs of this run: \`$LOGS/\` (one per bug and checker)."
    if [ -f "$LOGS/note.md" ]; then
        echo
        echo "## Notes on this run"
        echo
        cat "$LOGS/note.md"
    fi
} >"$tmp" && mv -f "$tmp" "$OUT" || { rm -f "$tmp"; echo "detection-matrix: could not write $OUT" >&2; exit 2; }
echo "detection-matrix: wrote $OUT ($((end - start)) s)" >&2
grep -E '^(False positives|Failed runs|Caught by|Escaped)' "$OUT" >&2
grep -q '^False positives.*\*\*0\*\*' "$OUT" && grep -q '^Failed runs.*\*\*0\*\*' "$OUT"

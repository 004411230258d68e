#!/usr/bin/env bash
# detection-fast.sh: every planted bug under its cheapest detecting checker: the fast subset
# of the detection matrix (scripts/detection-matrix.sh, docs/detection-matrix.md) that the
# default test suite runs (`make check-plants`). Fails when a plant goes undetected, or when
# correct code is reported (a false positive) by a checker the subset uses.
#
#   scripts/detection-fast.sh [MD [MD_TSAN [CG]]]
#
# MD (default bin/shmemu-md) is a plain build of shmemu-md, MD_TSAN (default
# build-tsan/bin/shmemu-md) the ThreadSanitizer build, CG (default bin/shmemu-cg) a plain
# build of shmemu-cg (docs/cg.md; a configuration with --solver is its). Every bug of
# `MD --list-bugs` and every cg- bug of `CG --list-bugs` must have a row in the table below;
# each runs in its catalogue configuration (md's with --steps $STEPS), under the
# deterministic scheduler (docs/sched.md: SHMEMU_SCHED, SHMEMU_SEED), so that a catch is
# the same on every run:
#   sum       natively; detected when the last checksum differs from the 1-PE serial run
#             of the system (cg: the serial solver's), or the run ends in a hang or deadlock report, or in an error
#             from one of shmemu's own checks ("shmemu: PE p: ...") or from the id-coded
#             halo test of a row that runs with --check ("shmemu-md: ... halo slot" or
#             "ghost slot ...");
#   tsan      the TSan build; detected when it prints a ThreadSanitizer warning;
#   helgrind  valgrind --tool=helgrind (only where nothing cheaper catches the plant);
#             detected when valgrind counts errors.
# Correct code runs first, once under each checker in each configuration the table gives
# it, and must be clean. Environment: STEPS (default 2), FAST_JOBS (runs at once, default
# 2), FAST_LOGS (default /tmp/detection-fast.$$; kept when something fails).
set -u
cd "$(dirname "$0")/.." || exit 2
. scripts/job_slots.sh
MD=${1:-bin/shmemu-md}
MD_TSAN=${2:-build-tsan/bin/shmemu-md}
CG=${3:-bin/shmemu-cg}
STEPS=${STEPS:-2}
JOBS=${FAST_JOBS:-2}
LOGS=${FAST_LOGS:-/tmp/detection-fast.$$}

# bug  checker  schedule (SHMEMU_SCHED:SHMEMU_SEED)  [configuration, when not the
# catalogue's]. The cheapest checker that catches the plant on every run
# (docs/detection-matrix.md): the checksum where the plant changes the data or trips one
# of shmemu's own checks, TSan where it only races, helgrind where only valgrind sees it
# (the barrier's happens-before: TSan sees the counter's atomics), on the smallest system
# that shows it. x-recv-wait-missing: in the catalogue's 1D system TSan catches it only
# free-running (17 of 20 runs), and no schedule changes the checksum; in 2D the first
# schedule does. direct26's acknowledgement plants need one PE a step ahead of a neighbour:
# PCT's schedules (random ones keep the PEs in step: 0 of 4 caught). d26-stale-send-list
# shows in the checksum at the first exchange after a second search, step 3 with
# --nstlist 2; in --steps 2 that search's --check halo test (the kernels' update of
# id-coded ghosts) finds it. cg's plants (docs/cg.md, "Planted bugs") all show in the
# checksum or one of shmemu's own reports under the first random schedule: the credit
# wait in the halo-only loop, the quiet and the relaxed signal in checking mode there
# (catalogue configurations), the credit return as a deadlock report, the rest in cg-mono.
C2D="--cells 4 --pes 4 --dd 2x2x1 --halo fused --transport direct"
C2PE="--cells 4 --pes 2 --dd 2x1x1 --halo fused --transport direct"
D26CHECK="--cells 6,4,4 --pes 3 --dd 3x1x1 --halo direct26 --transport direct --nstlist 2 --check"
PLAN="
x-dep-wait-missing             sum       random:1
x-dep-wait-relaxed             tsan      random:1
x-dep-wait-last-only           sum       random:1
x-sync-after-dep-wait-missing  sum       random:1
x-elect-barrier-missing        sum       pct:1
x-recv-wait-missing            sum       random:1  $C2D
x-notify-relaxed               tsan      random:1
f-notify-relaxed               tsan      random:1
x-signal-before-data           sum       pct:1
x-fence-missing                sum       random:1
x-quiet-missing                sum       random:1
x-put-wrong-pe                 sum       random:1
elect-relaxed                  tsan      random:1
f-unpack-plain-add             tsan      random:1
f-unpack-negated               sum       random:1
bulk-sync-missing              sum       random:1
f-depmgmt-wait-missing         sum       random:1
f-unpack-sync-missing          sum       random:1
x-dep-offset-off-by-one        sum       random:1
coord-shift-sign               sum       random:1
x-seq-not-incremented          sum       random:1
f-sent-before-nonlocal         sum       random:1
update-no-wait-nonlocal        sum       random:1
nonlocal-no-wait-update        sum       random:1
rt-signal-no-release           tsan      random:1
rt-wait-no-acquire             tsan      random:1
rt-put-signal-order            sum       random:1
rt-quiet-noop                  sum       random:1
rt-fence-noop                  sum       random:1
rt-barrier-no-hb               helgrind  random:1  $C2PE
d26-ack-wait-missing           sum       pct:1
d26-ack-relaxed                tsan      pct:1
d26-ack-before-reads           sum       pct:1
d26-ghost-wait-relaxed         tsan      pct:1
d26-ghost-seq-behind           sum       pct:1
d26-stale-send-list            sum       pct:1     $D26CHECK
cg-credit-wait-missing         sum       random:1
cg-quiet-missing               sum       random:1
cg-recv-wait-missing           sum       random:1
cg-credit-missing              sum       random:1
cg-signal-before-data          sum       random:1
cg-signal-relaxed              sum       random:1
cg-disp-off-by-one             sum       random:1
cg-reduce-sync-missing         sum       random:1
"

for b in "$MD" "$MD_TSAN" "$CG"; do
    [ -x "$b" ] || { echo "detection-fast: $b is not built (make check-plants builds it)" >&2; exit 2; }
done
mkdir -p "$LOGS"
export TSAN_OPTIONS="halt_on_error=0 exitcode=66"
OWN_ERROR='^shmemu: PE [0-9]+: ([a-z_0-9]+|kernel [a-z_0-9]+ block \([0-9,]+\)( thread \([0-9,]+\))?): '
# --check's id-coded halo test: a slot that does not hold its atom's code (par_setup.c,
# par_direct26.c); the run stops there.
HALO_TEST='^shmemu-md: (PE [0-9]+: )?(direct26 ghost|halo) slot [0-9]+ '

# The catalogue: name<TAB>config.
list_bugs() { # program [prefix]: name<TAB>config of its catalogue (names starting with prefix)
    "$1" --list-bugs | awk -v pre="${2:-}" 'NR % 2 == 1 { name = $1 }
        NR % 2 == 0 && index(name, pre) == 1 { sub(/^ *config: /, ""); print name "\t" $0 }'
}
catalogue=$(list_bugs "$MD")
[ -n "$catalogue" ] || { echo "detection-fast: $MD --list-bugs printed nothing" >&2; exit 2; }
cg_catalogue=$(list_bugs "$CG" cg-)
[ -n "$cg_catalogue" ] || { echo "detection-fast: $CG --list-bugs printed no cg- bug" >&2; exit 2; }
catalogue=$catalogue$'\n'$cg_catalogue
missing=$(cut -f1 <<<"$catalogue" | while read -r n; do
    grep -q "^$n " <<<"$PLAN" || echo "$n"; done)
if [ -n "$missing" ]; then
    echo "detection-fast: no checker chosen for:" $missing "(add a row to PLAN)" >&2
    exit 1
fi

# split_config, reference (the configurations of the catalogue)
. scripts/plant_config.sh

# One run; prints "detected <how>" or "clean" (or "failed <why>") and its seconds.
run_one() { # bug ("" = correct code) checker schedule config log
    local bug=$1 checker=$2 sched=$3 cfg=$4 log=$5
    split_config "$cfg"
    local prog=$MD hang=30
    [ "$PROG" = cg ] && prog=$CG
    local cmd=("$prog")
    case "$checker" in
    tsan) [ "$PROG" = md ] || { echo "failed (no TSan build of $prog here)|0"; return; }
          cmd=("$MD_TSAN") ;;
    helgrind) cmd=(valgrind --tool=helgrind --history-level=approx --fair-sched=yes
                   --error-exitcode=0 "$prog"); hang=300 ;;
    esac
    local t0 rc
    t0=$(date +%s.%N)
    env "${ENVS[@]}" ${bug:+SHMEMU_BUG=$bug} SHMEMU_SCHED="${sched%%:*}" SHMEMU_SEED="${sched##*:}" \
        SHMEMU_HANG_TIMEOUT=$hang timeout -k 10 600 "${cmd[@]}" "${ARGS[@]}" >"$log" 2>&1
    rc=$?
    local secs verdict
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    local sum
    sum=$(awk '$1 == "checksum" { s = $2 } END { print s }' "$log")
    case "$checker" in
    sum)
        local ref
        ref=$(reference "$cfg")
        if grep -qE 'shmemu: (hang|deadlock)' "$log"; then verdict="detected (hang/deadlock report)"
        elif grep -qE "$OWN_ERROR" "$log"; then
            verdict="detected (shmemu's own check: $(grep -m1 -oE "$OWN_ERROR" "$log" | sed 's/: $//'))"
        elif grep -qE "$HALO_TEST" "$log"; then
            verdict="detected (--check's halo test: $(grep -m1 -oE "$HALO_TEST" "$log" | sed -E 's/^shmemu-md: //; s/ $//'))"
        elif [ -n "$sum" ] && [ -n "$ref" ] && [ "$sum" != "$ref" ]; then
            verdict="detected (checksum $sum, reference $ref)" # (cg: exit 1 if not converged)
        elif [ "$rc" != 0 ] || [ -z "$sum" ] || [ -z "$ref" ]; then verdict="failed (rc $rc, no checksum)"
        else verdict=clean
        fi ;;
    tsan)
        local n
        n=$(grep -c 'WARNING: ThreadSanitizer:' "$log")
        if [ "$n" -gt 0 ]; then verdict="detected ($n TSan warnings)"
        elif [ "$rc" != 0 ] || [ -z "$sum" ]; then verdict="failed (rc $rc)"
        else verdict=clean
        fi ;;
    helgrind)
        local n
        n=$(awk '/ERROR SUMMARY: [0-9]+ errors/ { n = $4 } END { print n + 0 }' "$log")
        if [ "$n" -gt 0 ]; then verdict="detected ($n helgrind errors)"
        elif [ "$rc" != 0 ] || [ -z "$sum" ]; then verdict="failed (rc $rc)"
        else verdict=clean
        fi ;;
    esac
    echo "$verdict|$secs"
}

start=$(date +%s)
# Jobs: correct code under each (checker, configuration) the plan uses, then the bugs.
jobs=""
while read -r name checker sched cfg; do
    [ -n "$name" ] || continue
    [ -n "$cfg" ] || cfg=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' <<<"$catalogue")
    jobs+="$name"$'\t'"$checker"$'\t'"$sched"$'\t'"$cfg"$'\n'
done <<<"$PLAN"
controls=$(awk -F'\t' 'NF { print "none\t" $2 "\t" $3 "\t" $4 }' <<<"$jobs" | sort -u)
i=0
while IFS=$'\t' read -r name checker sched cfg; do
    [ -n "$name" ] || continue
    i=$((i + 1))
    id=$(printf %03d $i)
    (
        bug=$name
        [ "$name" = none ] && bug=""
        r=$(run_one "$bug" "$checker" "$sched" "$cfg" "$LOGS/$id-$name.$checker.log")
        printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$checker" "$sched" "$cfg" "$r" >"$LOGS/row.$id"
    ) &
    wait_for_slot "$JOBS"
done <<<"$controls"$'\n'"$jobs"
wait

bad=0
printf '%-30s %-8s %-8s %7s  %s\n' bug checker schedule seconds result
for f in "$LOGS"/row.*; do
    IFS=$'\t' read -r name checker sched cfg r <"$f"
    verdict=${r%|*}
    secs=${r##*|}
    ok=no
    if [ "$name" = none ]; then
        [ "$verdict" = clean ] && ok=yes
        label="correct code: $cfg"
    else
        [[ "$verdict" == detected* ]] && ok=yes
        label=$verdict
    fi
    [ "$ok" = yes ] || { bad=$((bad + 1)); label="FAIL: $label (log: $LOGS/$(basename "$f" | sed 's/^row\.//')-$name.$checker.log)"; }
    printf '%-30s %-8s %-8s %7s  %s\n' "$name" "$checker" "$sched" "$secs" "$label"
done
n_bugs=$(grep -c . <<<"$(cut -f1 <<<"$catalogue")")
echo "detection-fast: $n_bugs plants, $(grep -c . <<<"$controls") correct-code runs, $((
    $(date +%s) - start)) s; $bad failed" >&2
if [ "$bad" -ne 0 ]; then
    echo "detection-fast: FAILED: a plant escaped its checker, or correct code was reported" \
         "(logs in $LOGS)" >&2
    exit 1
fi
rm -rf "$LOGS"

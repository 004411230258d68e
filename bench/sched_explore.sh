#!/usr/bin/env bash
# sched_explore.sh: the deterministic scheduler's benchmark (docs/sched.md); `make bench-sched`.
#
#   1. schedules explored per second for one fused halo step on 4 PEs in 2D (2x2x1):
#      in one process ($BUILD/bench/sched_explore: whole jobs, and the marginal step), and
#      with bin/shmemu-explore (a process per schedule) on shmemu-md, on 4 PEs 2x2x1 and on
#      8 PEs 4x2x1, with --jobs 1 and with the default (one run per CPU), and with an
#      earlier build's explorer and shmemu-md (BASE_EXPLORE_BIN, BASE_MD_BIN) when given;
#   2. the planted-bug catalogue (shmemu/bugs.h, `shmemu-md --list-bugs`): for each bug, how
#      many seeds shmemu-explore needs before it finds it (a checksum that differs from the
#      correct program's, a deadlock, a crash), the median over TRIALS explorations of at
#      most SEEDS seeds each (first seeds 1, 1001, 2001, ...).
# It writes its section of bench/RESULTS.md between the markers below (bench/run.sh keeps it).
#
# Environment: BUILD (default build), EXPLORE_BIN, MD_BIN (default $BUILD's programs; bin/ for
# the plain build), BASE_EXPLORE_BIN and BASE_MD_BIN (an earlier build's programs to compare
# with, e.g. HEAD's built from `git archive HEAD` in /tmp; default none; BASE_LABEL names it
# in the table, default its path), EX_SEEDS (seeds per
# explorer rate, default 100), RATES_ONLY=1 (part 1 only, printed, RESULTS.md left as it
# is), TRIALS (default 3), SEEDS (default 20),
# BENCH_SECONDS (default 10), BENCH_RESULTS (default bench/RESULTS.md), BUGS (names to run;
# default every bug of the catalogue).
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
if [ "$BUILD" = build ]; then prog=bin; else prog=$BUILD/bin; fi
EXPLORE=${EXPLORE_BIN:-$prog/shmemu-explore}
MD=${MD_BIN:-$prog/shmemu-md}
BENCH=$BUILD/bench/sched_explore
TRIALS=${TRIALS:-3}
SEEDS=${SEEDS:-20}
SECONDS_EACH=${BENCH_SECONDS:-10}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
BEGIN='<!-- bench/sched_explore.sh begin -->'
END='<!-- bench/sched_explore.sh end -->'
. bench/results_section.sh
for f in "$EXPLORE" "$MD" "$BENCH"; do
    [ -x "$f" ] || { echo "sched_explore.sh: $f is missing (make BUILD=$BUILD bench-sched)" >&2; exit 2; }
done
start=$(date -u '+%Y-%m-%d %H:%M')
log=$(mktemp)

# ---- 1. rates ------------------------------------------------------------------------------
rates=""
for s in random pct; do
    out=$("$BENCH" "$SECONDS_EACH" "$s") || { echo "sched_explore.sh: $BENCH failed" >&2; echo "$out" >&2; exit 1; }
    echo "$out" | tee -a "$log" >&2
    jobs=$(sed -n 's/.*: \([0-9.]*\) schedules\/s (\([0-9]*\) decisions, \([0-9]*\) switches.*/\1 \2 \3/p' <<<"$out")
    step=$(sed -n 's/.*scheduler: \([0-9.]*\) ms (\([0-9]*\) step schedules\/s.*/\1 \2/p' <<<"$out")
    free=$(sed -n 's/.*same job: \([0-9.]*\) ms.*/\1/p' <<<"$out")
    read -r jrate jdec jsw <<<"$jobs"
    read -r sms srate <<<"$step"
    rates+="| $s | $srate | $sms | $jrate | $jdec | $jsw | $free |"$'\n'
done
md_args="--cells 4 --pes 4 --dd 2x2x1 --halo fused --steps 1 --thermo 0"
md8_args="--cells 4 --pes 8 --dd 4x2x1 --halo fused --steps 1 --thermo 0"
EX_SEEDS=${EX_SEEDS:-100}
cpus=$(nproc)
# explore_rate EXPLORE MD JOBS ARGS...: schedules/s of EX_SEEDS seeds (JOBS "" = the default)
explore_rate() {
    local ex=$1 md=$2 jobs=$3
    shift 3
    local out
    out=$("$ex" --quiet ${jobs:+--jobs "$jobs"} "$EX_SEEDS" -- "$md" "$@" 2>&1)
    echo "explore ${jobs:+--jobs $jobs }$md $*: $out" >>"$log"
    sed -n 's/.*passed in .*(\([0-9.]*\) schedules\/s).*/\1/p' <<<"$out"
}
ex_table="| configuration (shmemu-md) | explorer | runs at once | schedules/s |"$'\n'"|---|---|---:|---:|"$'\n'
ex_rate=""
for cfg in "$md_args" "$md8_args"; do
    if [ -n "${BASE_EXPLORE_BIN:-}" ] && [ -n "${BASE_MD_BIN:-}" ]; then
        r=$(explore_rate "$BASE_EXPLORE_BIN" "$BASE_MD_BIN" "" $cfg)
        ex_table+="| \`$cfg\` | earlier build (${BASE_LABEL:-\`$BASE_EXPLORE_BIN\`}) | 1 | ${r:-?} |"$'\n'
        echo "explorer, earlier build, $cfg: ${r:-?} schedules/s" >&2
    fi
    r1=$(explore_rate "$EXPLORE" "$MD" 1 $cfg)
    rj=$(explore_rate "$EXPLORE" "$MD" "" $cfg)
    ex_table+="| \`$cfg\` | this build, \`--jobs 1\` | 1 | ${r1:-?} |"$'\n'
    ex_table+="| \`$cfg\` | this build, default \`--jobs\` | $cpus | **${rj:-?}** |"$'\n'
    echo "explorer, $cfg: --jobs 1 ${r1:-?}, --jobs $cpus ${rj:-?} schedules/s" >&2
    [ -n "$ex_rate" ] || ex_rate=$rj
done
if [ "${RATES_ONLY:-0}" = 1 ]; then
    echo "$ex_table"
    echo "sched_explore.sh: RATES_ONLY=1: $RESULTS not written (raw log: $log)" >&2
    exit 0
fi

# ---- 1b. the cost of the weak-memory mode per step -----------------------------------------
# ms per fused halo step = (time of an 11-step job - time of a 1-step job) / 10, same seed,
# deterministic (random) against deterministic with SHMEMU_MEMORY=weak, with and without its
# watch for reads of old values, median over seeds.
step_ms() { # mode seed -> ms per step
    local env=(SHMEMU_SCHED=random SHMEMU_SEED="$2")
    [ "$1" = weak ] && env+=(SHMEMU_MEMORY=weak)
    [ "$1" = weak-noreads ] && env+=(SHMEMU_MEMORY=weak SHMEMU_WEAK_READS=0)
    local t0 t1 t2
    t0=$(date +%s%N); env "${env[@]}" "$MD" $md_args >/dev/null 2>&1
    t1=$(date +%s%N); env "${env[@]}" "$MD" ${md_args/--steps 1/--steps 11} >/dev/null 2>&1
    t2=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.2f", ((c - b) - (b - a)) / 10 / 1e6 }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { printf "%.2f", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
plain_ms=(); weak_ms=(); noreads_ms=()
for seed in 1 2 3 4 5 6 7; do
    plain_ms+=("$(step_ms plain "$seed")")
    weak_ms+=("$(step_ms weak "$seed")")
    noreads_ms+=("$(step_ms weak-noreads "$seed")")
done
pm=$(printf '%s\n' "${plain_ms[@]}" | median)
wm=$(printf '%s\n' "${weak_ms[@]}" | median)
nm=$(printf '%s\n' "${noreads_ms[@]}" | median)
ratio=$(awk -v a="$pm" -v b="$wm" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
nratio=$(awk -v a="$pm" -v b="$nm" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
echo "weak cost: plain ${plain_ms[*]} ms/step; weak ${weak_ms[*]} ms/step;" \
    "weak without the read watch ${noreads_ms[*]} ms/step" | tee -a "$log" >&2
weak_cost="### The cost of the weak-memory mode

One more fused halo step of \`shmemu-md $md_args\` ((11-step job - 1-step job) / 10, same
seed, random strategy, median of seeds 1 to 7, one process each, side by side):
deterministic **$pm ms** per step, deterministic with \`SHMEMU_MEMORY=weak\` **$wm ms**
(**${ratio}x**), and **$nm ms** (${nratio}x) without its watch for reads of old values
(\`SHMEMU_WEAK_READS=0\`). The weak mode's work per hand-off: a fault and a page copy for each
page stored to in the turn, the comparison of those pages, \`mprotect\` of the pages touched,
and the store buffers' and stale views' bookkeeping (every buffered word drawn for publication
at every hand-off; each synchronizing write looked up in every stale view); the watch adds an
\`mprotect\` of each page of the entity's stale view at the start of its turn and a fault at
the first access to each."

# ---- 2. the planted bugs ---------------------------------------------------------------------
catalogue=$("$MD" --list-bugs 2>&1)
if [ -z "$catalogue" ] || ! grep -q 'config:' <<<"$catalogue"; then
    bugs_table="The planted-bug catalogue is not available in this build (\`shmemu-md --list-bugs\` printed nothing)."
else
    bugs_table="| bug | configuration (shmemu-md) | free-running run fails | random: found | seeds | s | pct: found | seeds | s | weak random: found | seeds | s | weak pct: found | seeds | s |"$'\n'"|---|---|:-:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"$'\n'
    names=$(awk 'NF && $1 != "config:" { print $1 }' <<<"$catalogue")
    found_all=0; found_any=0; n_bugs=0; free_fails=0; weak_any=0; weak_only=0
    for name in $names; do
        if [ -n "${BUGS:-}" ] && ! grep -qw "$name" <<<"$BUGS"; then continue; fi
        cfg=$(awk -v n="$name" '$1 == n { want = 1; next } want && $1 == "config:" { $1 = ""; print; exit }' <<<"$catalogue")
        envs=(); args=()
        for w in $cfg; do
            if [[ "$w" == *=* && "$w" != -* ]]; then envs+=("$w"); else args+=("$w"); fi
        done
        # one free-running run with the bug against the correct program
        good=$(env "${envs[@]}" "$MD" "${args[@]}" --steps 3 --thermo 0 2>/dev/null | grep checksum | tail -1)
        bad=$(env SHMEMU_BUG="$name" SHMEMU_HANG_TIMEOUT=20 "${envs[@]}" "$MD" "${args[@]}" --steps 3 --thermo 0 2>/dev/null | grep checksum | tail -1)
        if [ "$good" != "$bad" ]; then freecol=yes; free_fails=$((free_fails + 1)); else freecol=no; fi
        row="| \`$name\` | \`${cfg# }\` | $freecol |"
        all_trials=1; any=0; wany=0
        for mode in plain weak; do
        for strat in random pct; do
            ks=(); ts=(); found=0
            memory=(); [ "$mode" = weak ] && memory=(--memory weak)
            for ((t = 0; t < TRIALS; t++)); do
                first=$((1 + 1000 * t))
                out=$(env SHMEMU_BUG="$name" "${envs[@]}" "$EXPLORE" --quiet --no-shrink --strategy "$strat" \
                      "${memory[@]}" --first-seed "$first" --timeout 60 --ref-unset SHMEMU_BUG \
                      --trace "$log.trace" "$SEEDS" -- "$MD" "${args[@]}" --steps 3 --thermo 0 2>&1)
                k=$(sed -n 's/.*failed after \([0-9]*\) run(s).*/\1/p' <<<"$out" | head -1)
                secs=$(sed -n 's/.*failed after [0-9]* run(s) in \([0-9.]*\) s.*/\1/p' <<<"$out" | head -1)
                why=$(sed -n 's/.*failed after [0-9]* run(s) in [0-9.]* s: \(.*\)$/\1/p' <<<"$out" | head -1)
                echo "bug $name $mode $strat trial $t: ${k:-not found} ${secs:+in $secs s} ${why}" >>"$log"
                if [ -n "$k" ]; then ks+=("$k"); ts+=("$secs"); found=$((found + 1)); fi
            done
            med="--"; tmed="--"
            if [ "${#ks[@]}" -gt 0 ]; then
                med=$(printf '%s\n' "${ks[@]}" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }')
                tmed=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{ a[NR] = $1 } END { printf "%.2f", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }')
                if [ "$mode" = plain ]; then any=1; else wany=1; fi
            fi
            [ "$mode" = weak ] || [ "$found" = "$TRIALS" ] || all_trials=0
            row+=" $found/$TRIALS | $med | $tmed |"
            echo "bug $name ($mode $strat): found $found/$TRIALS, median $med seeds, $tmed s" >&2
        done
        done
        weak_any=$((weak_any + wany))
        [ "$any" = 0 ] && [ "$wany" = 1 ] && weak_only=$((weak_only + 1))
        n_bugs=$((n_bugs + 1))
        found_any=$((found_any + any))
        [ "$any" = 1 ] && [ "$all_trials" = 1 ] && found_all=$((found_all + 1))
        bugs_table+="$row"$'\n'
    done
    bugs_table+=$'\n'"$found_any of $n_bugs bugs found by exploration (random or PCT, depth 3); $found_all by both strategies in every trial; $free_fails of $n_bugs already change the checksum of a single free-running run. With the weak-memory mode (\`--memory weak\`): $weak_any of $n_bugs found, $weak_only of them only with it."

fi
end=$(date -u '+%H:%M')

section="## Deterministic scheduler: exploration rate and planted bugs (bench/sched_explore.sh)

- Date: $start to $end UTC; command: \`${BASE_EXPLORE_BIN:+BASE_EXPLORE_BIN=… BASE_MD_BIN=… BASE_LABEL=${BASE_LABEL:-} }make BUILD=$BUILD bench-sched\` ($(nproc) cores${BASE_EXPLORE_BIN:+; the earlier programs built in a git worktree of that commit}).
- A *schedule* is one run under \`SHMEMU_SCHED\` with its own seed. Jobs: \`$BENCH\`, in one
  process, 256 atoms (4^3 fcc cells) on 4 PEs 2x2x1, fused halo: set-up at step 0 plus one step,
  checksum compared with the free-running run's. The step rate is that of one more fused halo
  step once set up: (time of 11-step jobs - time of 1-step jobs) / 10, same seeds.

| strategy | one fused halo step: schedules/s | ms per step | whole jobs: schedules/s | decisions per job | switches per job | free-running job, ms |
|---|---:|---:|---:|---:|---:|---:|
${rates}
- \`bin/shmemu-explore\` (a process per schedule, the free-running reference run included,
  $EX_SEEDS seeds of random) on whole jobs of \`shmemu-md\`; \`--jobs\` runs that many schedules
  at once, each on a CPU of its own:

${ex_table}
- Target: 100 whole-job schedules/s for \`shmemu-md $md_args\` on this
  machine (now **${ex_rate:-?}**). What a job still costs, under the scheduler, is mostly the
  kernel's: the futex hand-offs between threads (about 2100 context switches a job), creating
  about 90 threads and the first touch of their and the fibers' stacks (docs/sched.md,
  \"Explore\").

### Seeds exploration needs to find each planted bug

\`SHMEMU_BUG=<bug> shmemu-explore --strategy random|pct [--memory weak] --no-shrink --ref-unset SHMEMU_BUG --first-seed S $SEEDS -- shmemu-md <configuration> --steps 3 --thermo 0\`,
S = 1, 1001, ... ($TRIALS trials per strategy and memory mode, at most $SEEDS seeds each); \"seeds\" is the
median, over the trials that found the bug, of the seeds run until the first failure, and \"s\"
the median time the explorer took to find it (reference run included, $(nproc) runs at once). \"weak\": the schedules
run in the weak-memory mode (docs/sched.md, \"Weak memory\"). A failure is what the explorer
counts: a final checksum unlike the correct program's, a deadlock, a crash or an abort (no race
checker runs here: memory-order bugs that do not change values on this x86 machine are the race
checkers' to find, docs/detection-matrix.md). \"1\" means the first seed already fails.

${bugs_table}

Reading: without the weak mode, exploration finds a bug here when some interleaving of the
sync points changes a value (or deadlocks); a missing release/acquire does not, on x86 and with
one entity running at a time. The weak mode lets stores be seen late and old values be read, as
a GPU allows, and then most of those bugs change the checksum too. The ones it still does not
find, and why no allowed execution changes a value in their configuration, are in
docs/sched.md (\"Weak memory\", \"What it finds\"); they stay the race checkers' (which see
them in deterministic mode too: scripts/check-sched-tools.sh). A bug that a single free-running
run already exposes is found by the first seed.

${weak_cost}"

echo "$section" | replace_results_section "$RESULTS" "$BEGIN" "$END" ||
    { echo "sched_explore.sh: could not write $RESULTS" >&2; exit 2; }
echo "sched_explore.sh: wrote $RESULTS (raw log: $log)" >&2

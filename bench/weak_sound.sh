#!/usr/bin/env bash
# weak_sound.sh: the weak-memory mode is sound on correct programs (docs/sched.md, "Weak
# memory"); `make bench-weak-sound`. Runs, under SHMEMU_MEMORY=weak with random and pct seeds
# 1..SEEDS (default 10), every configuration of shmemu-md's planted-bug catalogue and the other
# halo variants WITHOUT a bug (the checksum must equal the free-running run's), the pgas,
# emu and OpenSHMEM suites that run under the deterministic scheduler (they must pass), and
# the course's correct programs and the .cu corpus (their own checks must pass). Writes
# its section of bench/RESULTS.md; exits 1 when any run differs or fails.
#
# Environment: BUILD (default build), SEEDS, SUITE_SEEDS (default 3), BENCH_RESULTS.
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
if [ "$BUILD" = build ]; then prog=bin; else prog=$BUILD/bin; fi
MD=$prog/shmemu-md
SEEDS=${SEEDS:-10}
SUITE_SEEDS=${SUITE_SEEDS:-3}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
BEGIN='<!-- bench/weak_sound.sh begin -->'
END='<!-- bench/weak_sound.sh end -->'
. bench/results_section.sh
[ -x "$MD" ] || { echo "weak_sound.sh: $MD is missing (make BUILD=$BUILD all)" >&2; exit 2; }
start=$(date -u '+%Y-%m-%d %H:%M')
cfgs=$("$MD" --list-bugs 2>&1 | sed -n 's/^ *config: //p' | sort -u)
cfgs+=$'\n'"--cells 4 --pes 4 --dd 2x2x1 --halo host"
cfgs+=$'\n'"--cells 4 --pes 4 --dd 2x2x1 --halo fused --force-kernel threads"
cfgs+=$'\n'"--cells 4 --pes 4 --dd 2x2x1 --halo fused --dim-order xyz --nstlist 2"
table="| configuration (shmemu-md, --steps 3) | runs | differ |"$'\n'"|---|---:|---:|"$'\n'
total=0; bad=0
while IFS= read -r cfg; do
    [ -z "$cfg" ] && continue
    envs=(); args=()
    for w in $cfg; do
        if [[ "$w" == *=* && "$w" != -* ]]; then envs+=("$w"); else args+=("$w"); fi
    done
    ref=$(env "${envs[@]}" "$MD" "${args[@]}" --steps 3 --thermo 0 2>/dev/null | grep '^checksum' | tail -1)
    if [ -z "$ref" ]; then
        echo "weak_sound.sh: no free-running checksum for $cfg" >&2; bad=$((bad + 1)); continue
    fi
    n=0; nb=0
    for strat in random pct; do
        for ((s = 1; s <= SEEDS; s++)); do
            out=$(env "${envs[@]}" SHMEMU_SCHED=$strat SHMEMU_SEED=$s SHMEMU_MEMORY=weak \
                  timeout 300 "$MD" "${args[@]}" --steps 3 --thermo 0 2>&1)
            rc=$?
            got=$(grep '^checksum' <<<"$out" | tail -1)
            n=$((n + 1))
            if [ $rc -ne 0 ] || [ "$got" != "$ref" ]; then
                nb=$((nb + 1))
                echo "DIFFERS: SHMEMU_SCHED=$strat SHMEMU_SEED=$s SHMEMU_MEMORY=weak $MD $cfg --steps 3 (exit $rc, $got; free-running $ref)" >&2
            fi
        done
    done
    total=$((total + n)); bad=$((bad + nb))
    table+="| \`$cfg\` | $n | $nb |"$'\n'
    echo "weak_sound.sh: $cfg: $nb of $n differ" >&2
done <<<"$cfgs"
suites="test_amo test_coll test_emu_api_forms test_emu_dialect test_emu_graph test_emu_group_coll test_emu_primitives test_emu_streams test_shmem test_shmem_types test_shmemx test_signal test_team test_heap"
sbad=0; sn=0
for t in $suites; do
    bin=$BUILD/tests/$t
    [ -x "$bin" ] || { echo "weak_sound.sh: $bin is missing (make BUILD=$BUILD test)" >&2; exit 2; }
    for strat in random pct; do
        for ((s = 1; s <= SUITE_SEEDS; s++)); do
            sn=$((sn + 1))
            if ! SHMEMU_SCHED=$strat SHMEMU_SEED=$s SHMEMU_MEMORY=weak timeout 600 "$bin" >/dev/null 2>&1; then
                sbad=$((sbad + 1)); echo "FAILS: SHMEMU_SCHED=$strat SHMEMU_SEED=$s SHMEMU_MEMORY=weak $bin" >&2
            fi
        done
    done
done
# The course's correct programs (docs/course/; their output must equal the lesson's .expected)
# and the .cu corpus's programs (tests/cuda_corpus/; each PE prints "NAME: PE p ok"), built as
# a user builds them (bin/shmemu-cc, bin/shmemu-nvcc). The corpus's volatile_flag and
# fence_put_flag spin on a volatile word, which yields to the scheduler only in a TSan build
# (docs/checking.md, "volatile flags and fences"): the weak mode refuses TSan, so they are out.
export SHMEMU_BUILD=$PWD/$BUILD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
course="01-pes-heap/ring.c:3 02-completion/get_nbi.c:2 03-ordering/fence_flag.c:2 04-flags/flag.c:2
05-put-signal/chunks.c:2 06-memory-model/direct.cu:3 06-memory-model/direct_fence.cu:3
06-memory-model/staged.cu:3 07-flow-control/credits.c:2 09-debugging/ring_signal.c:3"
corpus=""
for f in tests/cuda_corpus/*.cu; do
    n=$(basename "$f" .cu)
    [ "$n" = volatile_flag ] || [ "$n" = fence_put_flag ] && continue
    corpus+="${corpus:+ }$n"
done
pbad=0; pn=0
# prog_runs LABEL BIN NPES CHECK: random and PCT seeds 1..SUITE_SEEDS in weak mode; CHECK is a
# command given the output file that succeeds when the output is right
prog_runs() {
    local label=$1 bin=$2 npes=$3 check=$4 strat s
    for strat in random pct; do
        for ((s = 1; s <= SUITE_SEEDS; s++)); do
            pn=$((pn + 1))
            (cd "$work" && SHMEMU_NPES=$npes SHMEMU_SCHED=$strat SHMEMU_SEED=$s SHMEMU_MEMORY=weak \
                timeout 300 "$bin") >"$work/out" 2>"$work/err"
            local rc=$?
            if [ $rc -ne 0 ] || ! $check "$work/out"; then
                pbad=$((pbad + 1))
                echo "FAILS: SHMEMU_NPES=$npes SHMEMU_SCHED=$strat SHMEMU_SEED=$s SHMEMU_MEMORY=weak $label (exit $rc)" >&2
                sed -n '1,10p' "$work/err" >&2
            fi
        done
    done
}
for entry in $course; do
    src=course/lessons/${entry%:*}; npes=${entry##*:}
    name=$(basename "${src%.*}"); bin=$work/$name
    case "$src" in *.cu) cc=bin/shmemu-nvcc ;; *) cc=bin/shmemu-cc ;; esac
    $cc -g -o "$bin" "$src" >"$work/build.txt" 2>&1 ||
        { echo "weak_sound.sh: cannot build $src:" >&2; cat "$work/build.txt" >&2; exit 2; }
    expected=${src%.*}.expected
    same_as_expected() { diff -q <(sort "$expected") <(sort "$1") >/dev/null; }
    prog_runs "$src" "$bin" "$npes" same_as_expected
done
for name in $corpus; do
    bin=$work/$name
    bin/shmemu-nvcc -g -O1 -std=c++17 -arch=sm_90 -o "$bin" "tests/cuda_corpus/$name.cu" \
        >"$work/build.txt" 2>&1 ||
        { echo "weak_sound.sh: cannot build $name.cu:" >&2; cat "$work/build.txt" >&2; exit 2; }
    four_ok() { [ "$(grep -c "^$name: PE [0-9]* ok$" "$1")" = 4 ]; }
    prog_runs "tests/cuda_corpus/$name.cu" "$bin" 4 four_ok
done
echo "weak_sound.sh: course and corpus: $pbad of $pn runs fail" >&2
end=$(date -u '+%H:%M')
section="## The weak-memory mode on correct programs (bench/weak_sound.sh)

- Date: $start to $end UTC; command: \`make BUILD=$BUILD bench-weak-sound\` ($(nproc) cores).
- Every configuration of the planted-bug catalogue, and more halo variants, without a bug,
  under \`SHMEMU_MEMORY=weak\` with random and PCT seeds 1 to $SEEDS: the final checksum against
  the free-running run's.

${table}
**$bad of $total runs differ.**

- The suites that run under the deterministic scheduler ($suites), each under random and
  PCT seeds 1 to $SUITE_SEEDS with \`SHMEMU_MEMORY=weak\`: **$sbad of $sn runs fail**. (The
  other suites check free-running behaviour, time out under the scheduler's one-at-a-time turns,
  or start jobs without it; the weak mode needs the scheduler.)
- The course's correct programs ($(for e in $course; do printf '%s ' "${e%:*}"; done| sed 's/ $//'); output
  against the lesson's \`.expected\`) and the \`.cu\` corpus's programs on 4 PEs ($corpus; every PE's
  \"ok\" line), built with \`bin/shmemu-cc\` and \`bin/shmemu-nvcc\`, under random and PCT seeds
  1 to $SUITE_SEEDS with \`SHMEMU_MEMORY=weak\`: **$pbad of $pn runs fail**. (\`volatile_flag\` and
  \`fence_put_flag\` spin on a volatile word, which yields to the scheduler only in a TSan build,
  and the weak mode refuses TSan.)"
echo "$section" | replace_results_section "$RESULTS" "$BEGIN" "$END" ||
    { echo "weak_sound.sh: could not write $RESULTS" >&2; exit 2; }
echo "weak_sound.sh: wrote $RESULTS" >&2
[ "$bad" = 0 ] && [ "$sbad" = 0 ] && [ "$pbad" = 0 ]

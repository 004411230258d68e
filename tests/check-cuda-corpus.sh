#!/usr/bin/env bash
# tests/check-cuda-corpus.sh: the .cu corpus (tests/cuda_corpus/, docs/cuda-corpus.md).
# Programs written as NVSHMEM's documentation and examples write them, built unchanged with
# bin/shmemu-nvcc and run on the CPU:
#   1. every working program is built and run on 2 and 4 PEs; each PE must print "NAME: PE p
#      ok" (the program checks its own output) and the job must exit 0; it is also run once
#      under the deterministic scheduler (SHMEMU_SCHED=random SHMEMU_SEED=1, 4 PEs);
#   2. every broken twin (the same file with -DBROKEN_...) is built and run under the checker
#      that must report it:
#        sched    SHMEMU_SCHED=random, seeds 1..SEEDS: some seed gives a FAIL line or a
#                 deadlock report
#        pct      the same with SHMEMU_SCHED=pct
#        hang     SHMEMU_SCHED=random, seeds 1..SEEDS: some seed gives the deadlock report,
#                 and it names the waiting kernel thread's line in the .cu file ("called at")
#        checknbi SHMEMU_CHECK_NBI=1 under SHMEMU_SCHED=random SHMEMU_SEED=1: the
#                 overwritten-source report or FAIL; the correct program must run clean
#                 under the same (a wait delivers its thread's queued puts before it blocks)
#        helgrind valgrind --tool=helgrind under SHMEMU_SCHED=random SHMEMU_SEED=1 (free-
#                 running, an execution in which the release happened to come first has
#                 no race to report): "Possible data race" with a frame in the .cu file; the
#                 correct program must be clean under helgrind (same seed) too
#        tsan     program and twin built with -fsanitize=thread against BUILD_TSAN (default
#                 $BUILD-tsan; make BUILD=... SANITIZE=thread CC=clang), run under
#                 SHMEMU_SCHED=random seeds 1..3: the correct program clean at every seed,
#                 the twin "ThreadSanitizer: data race" with a frame in the .cu file at one
#                 seed or more
#        tsannbi  the same with SHMEMU_CHECK_NBI=1 (puts delivered late and reordered)
#      A program may have several twins: one row each (the correct runs are done once).
#      Programs in VOLATILE_SPIN spin on a volatile word: the plain build's scheduler run is
#      left out (printed as NOT RUN), since only the TSan build makes such a spin yield
#      (docs/checking.md, "volatile flags and fences"); their tsan rows run the scheduler.
#   3. programs the layer cannot build or run yet are printed as NOT RUN with the reason
#      (docs/cuda-corpus.md "Gaps").
#   The same programs with the real nvcc and NVSHMEM: scripts/gpu-corpus.sh (make cuda-compile,
#   make gpu-corpus).
#
#   make -s BUILD=build-corpus libs build-corpus/lib/libshmemu_cuda.a build-corpus/bin/shmemu-cudafe
#   make -s BUILD=build-corpus-tsan SANITIZE=thread CC=clang libs build-corpus-tsan/bin/shmemu-cudafe  # tsan rows
#   BUILD=build-corpus tests/check-cuda-corpus.sh [NAME...]
# Ends with "N passed, N failed"; exits 1 if any failed.
set -u
cd "$(dirname "$0")/.."
root=$PWD
BUILD=${BUILD:-build-corpus}
case "$BUILD" in /*) ;; *) BUILD=$root/$BUILD ;; esac
export SHMEMU_BUILD=$BUILD
SEEDS=${SEEDS:-8}
C=tests/cuda_corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "check-cuda-corpus: ok: $*"; }
fail() { failed=$((failed + 1)); echo "check-cuda-corpus: FAIL: $*" >&2; }
show() { sed -n '1,12p' "$1" | sed 's/^/    /' >&2; }

# name | twin define | checkers (comma-separated) | PEs for the twin
PROGRAMS="
ring_p         BROKEN_NO_BARRIER    sched    2
onstream_put   BROKEN_STREAM_ORDER  sched    2
block_put      BROKEN_NO_BARRIER    pct      2
ring_bcast     BROKEN_COMPARE       sched,helgrind 2
ring_allreduce BROKEN_NO_QUIET      checknbi 2
coop_grid      BROKEN_NO_GRID_SYNC  sched    2
group_coll     BROKEN_WARP_BARRIER  sched    2
registered_buf BROKEN_NO_EVENT_WAIT sched    2
moe_dispatch   BROKEN_SIGNAL_RESET  hang     4
credit_pipe    BROKEN_PHASE         sched    2
atomic_flag    BROKEN_RELAXED       helgrind 2
block_reduce   BROKEN_EARLY_READ    sched    2
atomic_fence_flag BROKEN_NO_WRITER_FENCE helgrind,tsan 2
atomic_fence_flag BROKEN_NO_READER_FENCE helgrind,tsan 2
volatile_flag  BROKEN_NO_WRITER_FENCE tsan 2
volatile_flag  BROKEN_NO_READER_FENCE tsan 2
fence_put_flag BROKEN_NO_READER_FENCE tsan 2
fence_put_flag BROKEN_NO_FENCE      tsannbi 2
graph_step     BROKEN_NO_BARRIER    sched    2
"
# Programs the layer cannot build or run yet, as NAME|reason lines (none today).
VOLATILE_SPIN="volatile_flag fence_put_flag"
NOT_RUN="
"

selected() { [ ${#SELECT[@]} -eq 0 ] && return 0; local n; for n in "${SELECT[@]}"; do [ "$n" = "$1" ] && return 0; done; return 1; }
SELECT=("$@")

[ -f "$BUILD/lib/libshmemu_cuda.a" ] || {
    echo "check-cuda-corpus: $BUILD/lib/libshmemu_cuda.a is missing; run:" >&2
    echo "  make -s BUILD=${BUILD#$root/} libs ${BUILD#$root/}/lib/libshmemu_cuda.a ${BUILD#$root/}/bin/shmemu-cudafe" >&2
    exit 2
}

build() { # NAME OUT [DEFINE]
    bin/shmemu-nvcc -g -O1 -std=c++17 -arch=sm_90 ${3:+-D$3} -o "$2" "$C/$1.cu" > "$tmp/build.txt" 2>&1
}
BUILD_TSAN=${BUILD_TSAN:-$BUILD-tsan}
case "$BUILD_TSAN" in /*) ;; *) BUILD_TSAN=$root/$BUILD_TSAN ;; esac
build_tsan() { # NAME OUT [DEFINE]
    SHMEMU_BUILD=$BUILD_TSAN SHMEMU_CXX=clang++ SHMEMU_CC=clang bin/shmemu-nvcc -g -O1 -std=c++17 \
        -arch=sm_90 -Xcompiler -fsanitize=thread ${3:+-D$3} -o "$2" "$C/$1.cu" > "$tmp/build.txt" 2>&1
}
# tsan_run BIN NPES SEED [env...]: log in $tmp/tsan.txt, prints the number of TSan reports
tsan_run() {
    local bin=$1 n=$2 s=$3
    shift 3
    env "$@" SHMEMU_SCHED=random SHMEMU_SEED=$s SHMEMU_NPES=$n SHMEMU_HANG_TIMEOUT=60 timeout 300 "$bin" \
        > "$tmp/tsan.txt" 2>&1
    grep -c 'WARNING: ThreadSanitizer' "$tmp/tsan.txt"
}
in_list() { local w; for w in $2; do [ "$w" = "$1" ] && return 0; done; return 1; }

# run_ok NAME BIN NPES [env...]: exit 0 and NPES "ok" lines; where the GPU's output of the same
# program on NPES PEs is recorded (GPU_RESULTS/NAME.pNPES.out, scripts/gpu-corpus.sh), the
# sorted standard output must equal it.
GPU_RESULTS=$C/gpu/results
run_ok() {
    local name=$1 bin=$2 n=$3
    shift 3
    env "$@" SHMEMU_NPES="$n" SHMEMU_HANG_TIMEOUT=60 timeout 300 "$bin" > "$tmp/run.out" 2> "$tmp/run.err"
    local rc=$? oks gpu=$GPU_RESULTS/$name.p$n.out
    cat "$tmp/run.out" "$tmp/run.err" > "$tmp/run.txt"
    oks=$(grep -c "^$name: PE [0-9]* ok$" "$tmp/run.out")
    if [ $rc -ne 0 ] || [ "$oks" -ne "$n" ]; then
        fail "$name on $n PEs${1:+ ($*)}: exit $rc, $oks of $n ok lines:"; show "$tmp/run.txt"
    elif [ -f "$gpu" ] && ! diff <(sort "$tmp/run.out") <(sort "$gpu") > "$tmp/gpu.diff"; then
        fail "$name on $n PEs${1:+ ($*)}: output differs from the GPU's ($gpu; < CPU, > GPU):"
        show "$tmp/gpu.diff"
    else
        pass "$name on $n PEs${1:+ ($*)}${gpu:+$([ -f "$gpu" ] && echo ", output equal to the GPU's")}"
    fi
}

helgrind() { # BIN NPES: log in $tmp/hg.txt, prints the race count
    SHMEMU_SCHED=random SHMEMU_SEED=1 SHMEMU_NPES=$2 SHMEMU_THREAD_MAP=1 SHMEMU_HANG_TIMEOUT=120 timeout 600 \
        valgrind --tool=helgrind "$1" > "$tmp/hg.txt" 2>&1
    grep -c 'Possible data race' "$tmp/hg.txt"
}

# seeds STRATEGY BIN NPES PATTERN [env...]: the first seed whose output matches PATTERN
seeds() {
    local strat=$1 bin=$2 n=$3 pat=$4 s
    shift 4
    for s in $(seq 1 "$SEEDS"); do
        env "$@" SHMEMU_SCHED="$strat" SHMEMU_SEED="$s" SHMEMU_NPES="$n" SHMEMU_HANG_TIMEOUT=60 \
            timeout 300 "$bin" > "$tmp/seed.txt" 2>&1
        if grep -qE "$pat" "$tmp/seed.txt"; then echo "$s"; return 0; fi
    done
    return 1
}

ran_ok="" tsan_ok=""
while read -r name twin checker tn; do
    [ -n "$name" ] || continue
    selected "$name" || continue
    bin=$tmp/$name
    if ! in_list "$name" "$ran_ok"; then
        if ! build "$name" "$bin"; then
            fail "$name: does not build:"; show "$tmp/build.txt"; continue
        fi
        run_ok "$name" "$bin" 2
        run_ok "$name" "$bin" 4
        if in_list "$name" "$VOLATILE_SPIN"; then
            echo "check-cuda-corpus: NOT RUN: $name under SHMEMU_SCHED in the plain build: a volatile spin yields only in the TSan build (its tsan rows run the scheduler)"
        else
            run_ok "$name" "$bin" 4 SHMEMU_SCHED=random SHMEMU_SEED=1
        fi
        ran_ok="$ran_ok $name"
    fi

    tbin=$tmp/${name}_$twin
    if ! build "$name" "$tbin" "$twin"; then
        fail "$name -D$twin: does not build:"; show "$tmp/build.txt"; continue
    fi
    for ck in ${checker//,/ }; do
    what="$name -D$twin ($ck, $tn PEs)"
    case $ck in
    sched|pct)
        if s=$(seeds "${ck/sched/random}" "$tbin" "$tn" "FAIL|shmemu: deadlock"); then
            pass "$what: seed $s: $(grep -m1 -E 'FAIL|shmemu: deadlock' "$tmp/seed.txt")"
        else
            fail "$what: no seed of 1..$SEEDS reported it"
        fi ;;
    hang)
        if ! s=$(seeds random "$tbin" "$tn" "shmemu: deadlock"); then
            fail "$what: no seed of 1..$SEEDS gave a deadlock report"
        elif ! site=$(grep -A1 '(kernel .*) waits in' "$tmp/seed.txt" |
                      grep -m1 -o "called at .*$name\.cu:[0-9]*"); then
            fail "$what: seed $s: the waiting kernel thread's line in $name.cu is not named:"
            show "$tmp/seed.txt"
        else
            pass "$what: seed $s: $(grep -m1 '(kernel .*) waits in' "$tmp/seed.txt" | sed 's/^ *//; s/: word .*//'), ${site##*/}"
        fi ;;
    checknbi)
        run_ok "$name" "$bin" "$tn" SHMEMU_CHECK_NBI=1 SHMEMU_SCHED=random SHMEMU_SEED=1
        SHMEMU_CHECK_NBI=1 SHMEMU_SCHED=random SHMEMU_SEED=1 SHMEMU_NPES="$tn" SHMEMU_HANG_TIMEOUT=60 \
            timeout 300 "$tbin" > "$tmp/nbi.txt" 2>&1
        if grep -qE "was overwritten before that put was complete|FAIL" "$tmp/nbi.txt"; then
            pass "$what: $(grep -m1 -oE 'the source of an earlier non-blocking put|.*FAIL.*' "$tmp/nbi.txt")"
        else
            fail "$what: SHMEMU_CHECK_NBI=1 reported nothing:"; show "$tmp/nbi.txt"
        fi ;;
    helgrind)
        if ! command -v valgrind > /dev/null; then
            fail "$what: valgrind is not installed"; continue
        fi
        races=$(helgrind "$bin" "$tn")
        if [ "$races" -eq 0 ]; then pass "$name clean under helgrind"; else
            fail "$name: $races helgrind report(s) on the correct program:"; show "$tmp/hg.txt"; fi
        races=$(helgrind "$tbin" "$tn")
        if [ "$races" -gt 0 ] && grep -q "($name\.cu:[0-9]*)" "$tmp/hg.txt"; then
            pass "$what: $races report(s), at $(grep -m1 -o "$name\.cu:[0-9]*" "$tmp/hg.txt")"
        else
            fail "$what: helgrind did not report it at a line of $name.cu:"; show "$tmp/hg.txt"
        fi ;;
    tsan|tsannbi)
        tenv=()
        [ "$ck" = tsannbi ] && tenv=(SHMEMU_CHECK_NBI=1)
        if ! command -v clang++ > /dev/null || [ ! -f "$BUILD_TSAN/lib/libshmemu_cuda.a" ]; then
            fail "$what: needs clang++ and $BUILD_TSAN/lib/libshmemu_cuda.a; run: make BUILD=${BUILD_TSAN#$root/} SANITIZE=thread CC=clang libs ${BUILD_TSAN#$root/}/bin/shmemu-cudafe"
            continue
        fi
        if ! in_list "$name:$ck" "$tsan_ok"; then
            if ! build_tsan "$name" "$tmp/${name}_tsan"; then
                fail "$name: does not build with -fsanitize=thread:"; show "$tmp/build.txt"; continue
            fi
            for s in 1 2 3; do
                reports=$(tsan_run "$tmp/${name}_tsan" "$tn" "$s" "${tenv[@]}")
                oks=$(grep -c "^$name: PE [0-9]* ok$" "$tmp/tsan.txt")
                if [ "$reports" -eq 0 ] && [ "$oks" -eq "$tn" ]; then pass "$name clean under $ck (seed $s)"; else
                    fail "$name under $ck (seed $s): $reports report(s), $oks of $tn ok lines:"; show "$tmp/tsan.txt"; fi
            done
            tsan_ok="$tsan_ok $name:$ck"
        fi
        if ! build_tsan "$name" "$tmp/${name}_${twin}_tsan" "$twin"; then
            fail "$name -D$twin: does not build with -fsanitize=thread:"; show "$tmp/build.txt"; continue
        fi
        found=""
        for s in 1 2 3; do
            reports=$(tsan_run "$tmp/${name}_${twin}_tsan" "$tn" "$s" "${tenv[@]}")
            if [ "$reports" -gt 0 ] && grep -q "/$name\.cu:[0-9]*" "$tmp/tsan.txt"; then
                found=$s; break
            fi
        done
        if [ -n "$found" ]; then
            pass "$what: seed $found: $reports report(s), at $(grep -m1 -o "$name\.cu:[0-9]*" "$tmp/tsan.txt")"
        else
            fail "$what: TSan did not report it at a line of $name.cu (seeds 1-3):"; show "$tmp/tsan.txt"
        fi ;;
    *) fail "$name: unknown checker $ck" ;;
    esac
    done
done <<< "$PROGRAMS"

while IFS='|' read -r name why; do
    [ -n "$name" ] || continue
    selected "$name" || continue
    echo "check-cuda-corpus: NOT RUN: $name: $why"
done <<< "$NOT_RUN"

echo "check-cuda-corpus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# fuzz/run.sh: runs the libFuzzer harnesses built by fuzz/fuzz.mk (docs/fuzzing.md).
#
#   fuzz/run.sh replay  BUILD HARNESS...  each harness over fuzz/corpus/HARNESS once (-runs=0);
#                                         exit 1 if any input crashes, leaks or trips a sanitizer
#   fuzz/run.sh fuzz    BUILD HARNESS...  each for $FUZZ_SECONDS (default 60) CPU s, one process:
#                                         new inputs into BUILD/corpus/HARNESS (the checked-in
#                                         corpus is read, never written), crashes into
#                                         BUILD/crashes/HARNESS; CPU seconds, executions and
#                                         corpus sizes into BUILD/fuzz-summary.txt
#   fuzz/run.sh crashes BUILD HARNESS...  the recorded reproducers fuzz/crashes/HARNESS/*:
#                                         which still crash (informational; exit 0)
#
# Per-harness options: fuzz/HARNESS.dict, when present, is the mutation dictionary.
# Logs of each run are kept in BUILD/logs/HARNESS.MODE.log.
set -u
mode=${1:?mode}; build=${2:?build dir}; shift 2
seconds=${FUZZ_SECONDS:-60}
mkdir -p "$build/logs"
# halt_on_error: UBSan stops like ASan; the harnesses free what they allocate (leaks on).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
failed=()

dict_of() { [ -f "fuzz/$1.dict" ] && echo "-dict=fuzz/$1.dict"; }

# The canary (fuzz/canary.c): each planted bug must fail its replay, a clean input must
# pass; otherwise the replays below could pass without checking anything.
canary() {
    local dir ok=0
    dir=$(mktemp -d)
    for kind in overflow leak ub clean; do
        mkdir -p "$dir/$kind"
        printf '%s-input' "$kind" > "$dir/$kind/input"
        "$build/canary" -runs=0 -artifact_prefix="$dir/" "$dir/$kind" > "$dir/$kind.log" 2>&1
        local rc=$?
        if [ $kind = clean ] && [ $rc -ne 0 ]; then
            echo "fuzz-replay: canary: a clean input failed (exit $rc):" >&2
            tail -5 "$dir/$kind.log" >&2
            ok=1
        elif [ $kind != clean ] && [ $rc -eq 0 ]; then
            echo "fuzz-replay: canary: the planted $kind was not caught: the harnesses are" \
                 "not built or run with the sanitizers (ASAN_OPTIONS, UBSAN_OPTIONS?)" >&2
            ok=1
        fi
    done
    rm -rf "$dir"
    [ $ok -eq 0 ] && echo "fuzz-replay: canary: planted overflow, leak and UB caught"
    return $ok
}

if [ "$mode" = replay ] && ! canary; then
    exit 1
fi

for h in "$@"; do
    bin=$build/$h
    corpus=fuzz/corpus/$h
    log=$build/logs/$h.$mode.log
    case $mode in
    replay)
        n=$(find "$corpus" -type f 2>/dev/null | wc -l)
        if [ "$n" -eq 0 ]; then
            echo "fuzz-replay: $h: no corpus in $corpus" >&2
            failed+=("$h")
            continue
        fi
        mkdir -p "$build/crashes/$h"
        if "$bin" -runs=0 -artifact_prefix="$build/crashes/$h/" "$corpus" > "$log" 2>&1; then
            echo "fuzz-replay: $h: $n inputs, no crash"
        else
            echo "fuzz-replay: $h: FAILED over $corpus (log: $log):" >&2
            grep -E "ERROR|SUMMARY|runtime error|Test unit written|deadly" "$log" | head -8 >&2
            failed+=("$h")
        fi
        ;;
    fuzz)
        work=$build/corpus/$h
        crashes=$build/crashes/$h
        mkdir -p "$work" "$crashes"
        start=$(date +%s)
        # $seconds of CPU time, not of wall time: on a busy machine a wall-clock budget
        # would measure the load. libFuzzer has no CPU limit: the loop below watches the
        # process and interrupts it (SIGINT: it prints its final stats and exits 0);
        # -max_total_time caps the wall time at 20 times the budget.
        "$bin" -max_total_time=$((seconds * 20)) -max_len=4096 -print_final_stats=1 \
            -artifact_prefix="$crashes/" $(dict_of "$h") "$work" "$corpus" > "$log" 2>&1 &
        pid=$!
        ticks=$(getconf CLK_TCK)
        cpu_ticks=0
        while kill -0 "$pid" 2> /dev/null; do
            # utime + stime of the fuzzer (fields 14 and 15 of /proc/PID/stat)
            t=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2> /dev/null) || break
            [ -n "$t" ] && cpu_ticks=$t
            if [ "$cpu_ticks" -ge $((seconds * ticks)) ]; then
                kill -INT "$pid"
                break
            fi
            sleep 1
        done
        wait "$pid"
        rc=$?
        cpu=$(awk -v a="$cpu_ticks" -v t="$ticks" 'BEGIN { printf "%.1f", a / t }')
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        size=$(find "$work" "$corpus" -type f | wc -l)
        line="$h: ${cpu} CPU s ($(( $(date +%s) - start )) s wall), ${execs:-?} executions,"
        line+=" corpus $size files (work $(find "$work" -type f | wc -l)), exit $rc"
        # an interrupted run exits 0 (or 72 on libFuzzer's own interrupt path): not a crash
        if [ $rc -ne 0 ] && [ $rc -ne 72 ] && [ $rc -ne 130 ]; then
            line+=", CRASH: $(ls -t "$crashes" | head -1)"
            failed+=("$h")
        fi
        echo "$line" | tee -a "$build/fuzz-summary.txt"
        ;;
    crashes)
        [ -d "fuzz/crashes/$h" ] || echo "fuzz-crashes: $h: no recorded reproducers"
        for f in fuzz/crashes/"$h"/*; do
            [ -f "$f" ] || continue
            if "$bin" "$f" > "$log" 2>&1; then
                echo "fuzz-crashes: $f: no longer crashes (move it into fuzz/corpus/$h/)"
            else
                echo "fuzz-crashes: $f: still crashes: $(grep -m1 -E "SUMMARY|runtime error|ERROR" "$log")"
            fi
        done
        ;;
    *)
        echo "fuzz/run.sh: unknown mode $mode" >&2
        exit 2
        ;;
    esac
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz/run.sh $mode: failed: ${failed[*]}" >&2
    [ "$mode" = crashes ] || exit 1
fi
exit 0

#!/usr/bin/env bash
# run-suites.sh: runs the cmocka suites, natively or under a valgrind tool.
#
#   scripts/run-suites.sh TOOL BIN...
#
# TOOL is "" (run each BIN as it is), "helgrind" or "drd" (run each BIN under
# `valgrind --tool=TOOL --error-exitcode=1`, with tests/valgrind.supp when that file exists,
# so that a race report fails the suite). Each suite's output is kept in a log and printed
# only when the suite fails (VERBOSE=1 prints every log). Prints one PASS/FAIL line per suite
# with its time, then exactly one line "N passed, N failed" (suites), and exits non-zero if
# any suite failed.
#
# A failed suite's log is also kept in SUITE_LOG_DIR (default: ${TMPDIR:-/tmp}/shmemu-suite-logs),
# as NAME.TIMESTAMP.log, so that a failure seen once under load can be read afterwards.
#
# Suites run SUITE_JOBS at a time (default: the CPUs this process may use, at most 4), the
# long ones first, so that a 2-core CI machine keeps both cores busy: a valgrind tool runs
# a suite's threads one at a time, on one core. Each suite's line is printed as it ends.
#
# Environment: SUITE_RUNNER (a launcher command, native runs only), SUITE_TIMEOUT (seconds per suite; default 300 natively, 1800 under valgrind),
# SHMEMU_HANG_TIMEOUT (default 60 natively, 900 under valgrind), VALGRIND_FLAGS (extra
# valgrind options), SUITE_JOBS, VERBOSE=1.
set -u

if [ $# -lt 1 ]; then
    echo "usage: $0 TOOL BIN...   (TOOL: \"\" for native, helgrind or drd)" >&2
    exit 2
fi
tool=$1
shift

here=$(cd "$(dirname "$0")/.." && pwd)
supp="$here/tests/valgrind.supp"

runner=()
case "$tool" in
"")
    : "${SUITE_TIMEOUT:=300}"
    # SUITE_RUNNER: a launcher for every suite (make test-mpi: mpirun -np 4 ...).
    [ -z "${SUITE_RUNNER:-}" ] || read -r -a runner <<<"$SUITE_RUNNER"
    # A wait that hangs fails its suite within a minute rather than two.
    : "${SHMEMU_HANG_TIMEOUT:=60}"
    export SHMEMU_HANG_TIMEOUT
    ;;
helgrind | drd)
    if ! command -v valgrind >/dev/null 2>&1; then
        echo "run-suites: valgrind is not installed (Debian: apt-get install valgrind)" >&2
        exit 2
    fi
    : "${SUITE_TIMEOUT:=1800}"
    # A wait under valgrind is many times slower: a hang report must mean a hang.
    : "${SHMEMU_HANG_TIMEOUT:=900}"
    export SHMEMU_HANG_TIMEOUT
    runner=(valgrind "--tool=$tool" --error-exitcode=1 --quiet
            # the misuse and hang tests fork children that are expected to die:
            # their reports are not the suite's
            --child-silent-after-fork=yes
            # threads that park and wake each other make progress in turn
            --fair-sched=yes)
    if [ "$tool" = helgrind ]; then
        # Both stacks of a race, at a lower cost than "full" history.
        runner+=(--history-level=approx)
    fi
    if [ -f "$supp" ]; then
        runner+=("--suppressions=$supp")
    fi
    # shellcheck disable=SC2206
    runner+=(${VALGRIND_FLAGS:-})
    ;;
*)
    echo "run-suites: unknown tool \"$tool\"; use \"\", helgrind or drd" >&2
    exit 2
    ;;
esac

# The misuse tests abort on purpose: no core files.
ulimit -c 0 2>/dev/null || true

logs=$(mktemp -d "${TMPDIR:-/tmp}/run-suites.XXXXXX")
trap 'rm -rf "$logs"' EXIT

# run_one BIN: runs one suite into its log; its last line is "rc seconds".
run_one() {
    local bin=$1 name log start end rc
    name=$(basename "$bin")
    log="$logs/$name.log"
    start=$(date +%s.%N)
    timeout -k 10 "$SUITE_TIMEOUT" "${runner[@]}" "$bin" >"$log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" -v rc="$rc" 'BEGIN { printf "%d %.1f\n", rc, b - a }' \
        >"$logs/$name.status"
}

# report BIN: prints the PASS/FAIL line of a suite that has ended, and counts it.
report() {
    local bin=$1 name log rc secs note keep_dir
    name=$(basename "$bin")
    log="$logs/$name.log"
    read -r rc secs <"$logs/$name.status"
    note=""
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        note=" (killed after ${SUITE_TIMEOUT} s)"
    elif [ "$rc" -ne 0 ]; then
        note=" (exit status $rc)"
    fi
    if [ "$rc" -eq 0 ]; then
        printf 'PASS  %-14s %7s s\n' "$name" "$secs"
        passed=$((passed + 1))
        if [ "${VERBOSE:-0}" = 1 ]; then
            sed 's/^/    /' "$log"
        fi
    else
        printf 'FAIL  %-14s %7s s%s\n' "$name" "$secs" "$note"
        sed 's/^/    /' "$log"
        keep_dir=${SUITE_LOG_DIR:-${TMPDIR:-/tmp}/shmemu-suite-logs}
        if mkdir -p "$keep_dir" 2>/dev/null &&
           cp "$log" "$keep_dir/$name.${tool:-native}.$(date +%Y%m%d-%H%M%S).$$.log" 2>/dev/null; then
            echo "    (log kept in $keep_dir)"
        fi
        failed=$((failed + 1))
        failed_names+=("$name")
    fi
}

if [ -z "${SUITE_JOBS:-}" ]; then
    SUITE_JOBS=$(nproc 2>/dev/null || echo 1)
    [ "$SUITE_JOBS" -le 4 ] || SUITE_JOBS=4
fi
case "$SUITE_JOBS" in '' | *[!0-9]* | 0)
    echo "run-suites: SUITE_JOBS=$SUITE_JOBS: need a positive number" >&2; exit 2 ;;
esac

# The suites that take longest (minutes under DRD) start first; the order of the rest is
# kept. Only the wall time depends on this list.
long_first=" test_md_par test_md_io test_sched_md test_order test_shmem test_shmem_ctx "
long_first+="test_shmem_coll15 test_shmem_fixes test_sched test_emu_launch test_cg_par "
ordered=()
for bin in "$@"; do
    case "$long_first" in *" $(basename "$bin") "*) ordered+=("$bin") ;; esac
done
for bin in "$@"; do
    case "$long_first" in *" $(basename "$bin") "*) ;; *) ordered+=("$bin") ;; esac
done

passed=0
failed=0
failed_names=()
declare -A running=() # pid -> suite
for bin in "${ordered[@]}"; do
    if [ ! -x "$bin" ]; then
        printf 'FAIL  %-14s (not built: %s)\n' "$(basename "$bin")" "$bin"
        failed=$((failed + 1))
        failed_names+=("$(basename "$bin")")
        continue
    fi
    while [ "${#running[@]}" -ge "$SUITE_JOBS" ]; do
        wait -n -p done_pid
        report "${running[$done_pid]}"
        unset "running[$done_pid]"
    done
    run_one "$bin" &
    running[$!]=$bin
done
while [ "${#running[@]}" -gt 0 ]; do
    wait -n -p done_pid
    report "${running[$done_pid]}"
    unset "running[$done_pid]"
done

if [ $failed -gt 0 ]; then
    echo "failed: ${failed_names[*]}" >&2
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

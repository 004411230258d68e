#!/usr/bin/env bash
# test-under-load.sh: runs the native cmocka suites again and again beside CPU load, to find
# tests that assume a quiet machine (a fixed sleep, a tight timeout). `make test-under-load`.
#
#   scripts/test-under-load.sh [RUNS] [BUSY]
#
# RUNS (default 5) runs of `make test`, each beside BUSY (default 3) busy loops and one
# valgrind --tool=drd run of a pgas suite in a loop (valgrind serializes its threads and
# takes a core, as a checker run beside the suite does in practice). Every failed suite's log
# is kept in SUITE_LOG_DIR (default build/under-load-logs). Ends with "N passed, N failed"
# over the runs and exits non-zero if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
busy=${2:-3}
case "$runs$busy" in *[!0-9]*|"")
    echo "usage: $0 [RUNS] [BUSY]   (whole numbers: runs of make test, busy loops beside it)" >&2
    exit 2 ;;
esac
export SUITE_LOG_DIR=${SUITE_LOG_DIR:-$PWD/build/under-load-logs}
mkdir -p "$SUITE_LOG_DIR"
make -s libs build/tests/test_signal >/dev/null || exit 1
make -s test >/dev/null 2>&1 || true   # build the suites once, before the load starts

load_pids=()
stop_load() { [ ${#load_pids[@]} -eq 0 ] || kill "${load_pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap stop_load EXIT
for _ in $(seq "$busy"); do
    ( while :; do :; done ) &
    load_pids+=($!)
done
if command -v valgrind >/dev/null 2>&1; then
    ( while :; do SHMEMU_NPES=2 valgrind --tool=drd --quiet build/tests/test_signal \
          >/dev/null 2>&1; done ) &
    load_pids+=($!)
fi

passed=0
failed=0
for r in $(seq "$runs"); do
    log="$SUITE_LOG_DIR/run$r.log"
    if make test >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "run $r: PASS"
    else
        failed=$((failed + 1))
        echo "run $r: FAIL (whole output: $log; failed suites' logs in $SUITE_LOG_DIR)"
        grep -E '^FAIL' "$log" | sed 's/^/    /'
    fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

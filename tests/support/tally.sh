# tests/support/tally.sh: PASS/FAIL lines and their count, for the check scripts in tests/.
# Source it; then `ok NAME` or `bad NAME [OUTPUT]` per check, and `tally_end` last: it prints
# "N passed, N failed" and returns non-zero when any failed.
passed=0
failed=0
ok() { echo "PASS $1"; passed=$((passed + 1)); }
# OUTPUT (what the failing command printed) is shown indented, at most TALLY_LINES lines.
bad() {
    echo "FAIL $1"
    [ -z "${2:-}" ] || sed 's/^/    /' <<<"$2" | head -n "${TALLY_LINES:-200}"
    failed=$((failed + 1))
}
tally_end() {
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
}

# scripts/race_check.sh: sourced by check-tools.sh and check-sched-tools.sh, which run planted
# races and their correct twins under helgrind, DRD and ThreadSanitizer.
#
#   check NAME race|clean NPES LINE-REGEX DONE-REGEX COMMAND...
#
# Runs COMMAND on NPES PEs (SHMEMU_NPES, with a generous hang timeout for valgrind) and counts
# the tool's race reports. "race" passes when there is at least one report, one names a line
# matching LINE-REGEX, and the program ran to its end (DONE-REGEX in its output: a racy run
# that aborted before it does not count). "clean" passes with no report and DONE-REGEX.
# Prints PASS or FAIL (with the first 60 lines of the log) and counts them in passed/failed.
passed=0
failed=0
check() {
    local name="$1" expect="$2" npes="$3" lines="$4" done_re="$5"
    shift 5
    local log
    log=$(mktemp)
    SHMEMU_NPES=$npes SHMEMU_HANG_TIMEOUT=300 "$@" >"$log" 2>&1
    local races=0 at_line=0 ok=0
    races=$(grep -cE 'Possible data race|Conflicting (load|store)|WARNING: ThreadSanitizer: data race' "$log")
    grep -qE "$lines" "$log" && at_line=1
    if [ "$expect" = race ] && [ "$races" -gt 0 ] && [ "$at_line" = 1 ] && grep -qE "$done_re" "$log"; then ok=1; fi
    if [ "$expect" = clean ] && [ "$races" -eq 0 ] && grep -qE "$done_re" "$log"; then ok=1; fi
    if [ "$ok" = 1 ]; then
        echo "PASS $name: $races race report(s)$([ "$at_line" = 1 ] && echo ", naming the racing line")"
        passed=$((passed + 1))
    else
        echo "FAIL $name: expected $expect, got $races race report(s), line match $at_line"
        sed 's/^/    /' "$log" | head -60
        failed=$((failed + 1))
    fi
    rm -f "$log"
}

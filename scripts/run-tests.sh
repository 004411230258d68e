#!/usr/bin/env bash
# run-tests.sh: the README's second command, and what CI runs. Installs what is missing,
# builds with -Werror, and runs the whole default suite: the cmocka suites natively, under
# ASan+UBSan, under ThreadSanitizer, under helgrind and DRD, the check that each race
# checker reports a planted race, every planted protocol bug caught by its cheapest checker
# (check-plants), a user's view (shmemu-run, race summaries, installed use), the graded
# exercises (check-lab), the course's programs and twins (check-course), the viewer's pages
# in headless Chromium (check-view), every figure made again from a real run and checked not
# blank (check-course-figures),
# every fuzz corpus replayed under ASan+UBSan, and every command README.md and docs/ show.
# Ends with one line "N passed, N failed" over the stages.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh test || exit 1
scripts/ensure-deps.sh view || exit 1 # Chromium and playwright-core for check-view
# check-user needs build-tsan (check-tsan); check-docs runs commands that need the programs.
stages=(all test test-process test-mpi check-asan check-tsan check-helgrind check-drd check-tools check-plants check-user
        check-lab check-course check-view check-course-figures fuzz-replay check-docs)
passed=0
failed=0
failed_names=()
for stage in "${stages[@]}"; do
    echo "=== make $stage"
    start=$(date +%s)
    if make -j2 "$stage"; then
        passed=$((passed + 1))
        echo "=== make $stage: PASS ($(( $(date +%s) - start )) s)"
    else
        failed=$((failed + 1))
        failed_names+=("$stage")
        echo "=== make $stage: FAIL ($(( $(date +%s) - start )) s)"
    fi
done
[ $failed -eq 0 ] || echo "failed stages: ${failed_names[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

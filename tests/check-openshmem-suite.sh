#!/usr/bin/env bash
# check-openshmem-suite.sh: scripts/openshmem-suite.sh classifies and counts as documented,
# on a miniature suite of our own programs laid out as Sandia OpenSHMEM's test/ folder is
# (one folder per group, one .c per test, helper headers in include/):
#   good/ok          exits 0                                   -> pass
#   good/helper      includes "helper.h" from SUITE/include    -> pass (include path)
#   good/npes        exits 0 only on 4 PEs (checks its count)  -> pass (default 4 PEs)
#   bad/wrong        a wrong result: shmem_global_exit(3)      -> fail
#   bad/abort        abort() on one PE                         -> crash
#   bad/hang         waits for a flag nobody sets              -> timeout
#   bad/broken       a syntax error                            -> build-fail
# It checks each test's line in the results file, the per-folder and total counts, the exit
# status (1 when any test did not pass, 0 when all passed, 2 on a missing suite), the
# reasons listed for the failures, and that naming tests runs just those.
# BUILD names the build folder (default build). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
build=${BUILD:-build}
. tests/support/tally.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s BUILD="$build" libs >/dev/null || { echo "FAIL: make BUILD=$build libs"; exit 1; }
suite=$tmp/suite
mkdir -p "$suite/good" "$suite/bad" "$suite/include"

cat >"$suite/good/ok.c" <<'EOF'
#include <shmem.h>
int main(void) { shmem_init(); shmem_barrier_all(); shmem_finalize(); return 0; }
EOF
cat >"$suite/include/helper.h" <<'EOF'
#define HELPER_VALUE 7
EOF
cat >"$suite/good/helper.c" <<'EOF'
#include <shmem.h>
#include "helper.h"
int main(void) { shmem_init(); shmem_finalize(); return HELPER_VALUE - 7; }
EOF
cat >"$suite/good/npes.c" <<'EOF'
#include <shmem.h>
int main(void) { shmem_init(); int n = shmem_n_pes(); shmem_finalize(); return n == 4 ? 0 : 1; }
EOF
cat >"$suite/bad/wrong.c" <<'EOF'
#include <stdio.h>
#include <shmem.h>
int main(void)
{
    shmem_init();
    if (shmem_my_pe() == 0) {
        printf("wrong: expected 1, got 2\n");
        shmem_global_exit(3);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
EOF
cat >"$suite/bad/abort.c" <<'EOF'
#include <stdlib.h>
#include <shmem.h>
int main(void) { shmem_init(); if (shmem_my_pe() == 1) abort(); shmem_barrier_all(); return 0; }
EOF
cat >"$suite/bad/hang.c" <<'EOF'
#include <shmem.h>
static int flag;
int main(void) { shmem_init(); shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1); return 0; }
EOF
cat >"$suite/bad/broken.c" <<'EOF'
#include <shmem.h>
int main(void) { shmem_init() return 0; }
EOF

logs=$tmp/logs
out=$(BUILD="$build" OSS_LOGS="$logs" OSS_TIMEOUT=10 SHMEMU_HANG_TIMEOUT=0 \
      scripts/openshmem-suite.sh "$suite" 2>&1)
rc=$?
[ "$rc" = 1 ] && ok "a suite with failures exits 1" || bad "a suite with failures exits 1 (rc $rc)" "$out"

expect_status() {   # DIR NAME STATUS
    if grep -qx "$1 $2 $3 4" "$logs/results"; then
        ok "$1/$2 is $3"
    else
        bad "$1/$2 is $3" "$(grep "^$1 $2 " "$logs/results")"
    fi
}
expect_status good ok pass
expect_status good helper pass
expect_status good npes pass
expect_status bad wrong fail
expect_status bad abort crash
expect_status bad hang timeout
expect_status bad broken build-fail

# folder  pass fail crash timeout build-fail total
row() { awk -v d="$1" '$1 == d && $2 ~ /^[0-9]+$/ { print $2, $3, $4, $5, $6, $7 }' <<<"$out"; }
[ "$(row good)" = "3 0 0 0 0 3" ] && ok "counts of good/" || bad "counts of good/" "$out"
[ "$(row bad)" = "0 1 1 1 1 4" ] && ok "counts of bad/" || bad "counts of bad/" "$out"
[ "$(row total)" = "3 1 1 1 1 7" ] && ok "total counts" || bad "total counts" "$out"
grep -q "bad/broken: build-fail (4 PEs): .*error:" <<<"$out" &&
    ok "a build failure names the compiler error" || bad "a build failure names the compiler error" "$out"
grep -q "bad/wrong: fail (4 PEs): wrong: expected 1, got 2" <<<"$out" &&
    ok "a failure names the test's message" || bad "a failure names the test's message" "$out"
grep -q "bad/abort: crash (4 PEs): .*signal 6 (SIGABRT)" <<<"$out" &&
    ok "a crash names the signal" || bad "a crash names the signal" "$out"
grep -q "bad/hang: timeout (4 PEs): .*after 10s" <<<"$out" &&
    ok "a timeout says so" || bad "a timeout says so" "$out"
[ -s "$logs/bad/wrong.run.log" ] && [ -s "$logs/bad/broken.build.log" ] &&
    ok "per-test logs are kept" || bad "per-test logs are kept" "$(ls -R "$logs")"

out=$(BUILD="$build" OSS_LOGS="$logs" scripts/openshmem-suite.sh "$suite" good/ok good/helper 2>&1)
rc=$?
if [ "$rc" = 0 ] && [ "$(wc -l <"$logs/results")" = 2 ] && [ "$(row total)" = "2 0 0 0 0 2" ]; then
    ok "named tests run alone and all passing exits 0"
else
    bad "named tests run alone and all passing exits 0 (rc $rc)" "$out"
fi

out=$(BUILD="$build" OSS_NPES=2 OSS_LOGS="$logs" scripts/openshmem-suite.sh "$suite" good/npes 2>&1)
grep -qx "good npes fail 2" "$logs/results" && ok "OSS_NPES sets the PE count" ||
    bad "OSS_NPES sets the PE count" "$out"

out=$(BUILD="$build" scripts/openshmem-suite.sh "$tmp/no-such-suite" 2>&1)
rc=$?
[ "$rc" = 2 ] && grep -q "no such folder" <<<"$out" && ok "a missing suite is a clear error" ||
    bad "a missing suite is a clear error (rc $rc)" "$out"
out=$(BUILD="$build" scripts/openshmem-suite.sh "$suite" good/nothere 2>&1)
rc=$?
[ "$rc" = 2 ] && grep -q "no such test" <<<"$out" && ok "a missing test is a clear error" ||
    bad "a missing test is a clear error (rc $rc)" "$out"

tally_end

#!/usr/bin/env bash
# openshmem-suite.sh: run a public OpenSHMEM test suite (Sandia OpenSHMEM's test/ folders:
# unit, spec-example, shmemx, apps) against shmemu the way an outside user would: each test's
# unmodified .c compiled with bin/shmemu-cc and run with bin/shmemu-run. The sources are not
# part of this repository (docs/openshmem.md, "Public test suite", says where they come from),
# so this is not part of the default test suite: `make openshmem-suite OSS_SUITE=DIR`.
#
#   scripts/openshmem-suite.sh [SUITE [TEST...]]
#
# SUITE (default /work/oss/SOS/test) holds one folder per group of tests; every .c directly in
# a folder is one test program (a folder's helper headers are found with -I on the folder and
# on SUITE/include, as SOS's Makefile.am files give them). TEST names (e.g. unit/hello) pick
# single tests. A test passes when it builds and its run exits 0 within the timeout: SOS tests
# return non-zero, call shmem_global_exit(nonzero) or abort when they find a wrong result.
# Results: pass; fail (non-zero exit); crash (killed by a signal: abort, SEGV); timeout;
# build-fail (shmemu-cc failed: a missing declaration, a header mistake).
#
# Each test runs on OSS_NPES PEs (default 4), except those the table below gives their own
# count. SOS runs its tests on 2 PEs (NPROCS ?= 2 in every Makefile.am); 4 exercises more.
# A source with `#pragma omp` is compiled with -fopenmp, as SOS's Makefile.am does for them.
#
# Environment:
#   BUILD         shmemu build folder whose lib/ the tests link (default build; passed to
#                 shmemu-cc as SHMEMU_BUILD). Build it first: make BUILD=... libs
#   OSS_NPES      PE count (default 4)          OSS_TIMEOUT  seconds a run may take (60)
#   OSS_JOBS      tests at once (default 2)     OSS_CFLAGS   compiler options (-O2)
#   OSS_LOGS      per-test logs and programs (default $BUILD/openshmem-suite): NAME.build.log,
#                 NAME.run.log and a results file, one line per test
#   SHMEMU_HANG_TIMEOUT  shmemu's hang report (default here: OSS_TIMEOUT - 15 s, so a hang
#                 prints who waits on what before the run is killed)
# Exit status: 0 when every test passed, 1 otherwise, 2 on bad usage.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/job_slots.sh"
suite="${1:-/work/oss/SOS/test}"
[ $# -gt 0 ] && shift
build="${BUILD:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
npes_default="${OSS_NPES:-4}"
limit="${OSS_TIMEOUT:-60}"
jobs_max="${OSS_JOBS:-2}"
cflags="${OSS_CFLAGS:--O2}"
logs="${OSS_LOGS:-$build/openshmem-suite}"
export SHMEMU_HANG_TIMEOUT="${SHMEMU_HANG_TIMEOUT:-$((limit > 30 ? limit - 15 : limit / 2))}"
export SHMEMU_BUILD="$build"

if [ ! -d "$suite" ]; then
    echo "openshmem-suite: $suite: no such folder; unpack Sandia OpenSHMEM's test/ folder there" \
         "(docs/openshmem.md, \"Public test suite\") or give its path: make openshmem-suite" \
         "OSS_SUITE=/path/to/SOS/test" >&2
    exit 2
fi
if [ ! -f "$build/lib/libshmemu.a" ]; then
    echo "openshmem-suite: $build/lib/libshmemu.a is missing: run make BUILD=$build libs" >&2
    exit 2
fi
for n in "$npes_default" "$limit" "$jobs_max"; do
    case "$n" in '' | *[!0-9]* | 0)
        echo "openshmem-suite: OSS_NPES, OSS_TIMEOUT and OSS_JOBS take positive integers" \
             "(got '$npes_default', '$limit', '$jobs_max')" >&2
        exit 2 ;;
    esac
done

# Tests whose checks need a particular PE count, which they would otherwise skip with a
# notice and exit 0 (DIR/NAME: count).
declare -A npes_of=(
    [unit/micro_unit_shmem]=2   # "only intended to run on exactly two processes"
)

mkdir -p "$logs"
results="$logs/results"
: >"$results"
: >"$logs/shell.log"

# run_one DIR NAME: build and run SUITE/DIR/NAME.c; appends "DIR NAME STATUS NPES" to results.
run_one() {
    local dir="$1" name="$2"
    local src="$suite/$dir/$name.c" exe="$logs/$dir/$name" status
    local npes="${npes_of[$dir/$name]:-$npes_default}"
    local extra=()
    grep -q '^[[:space:]]*#[[:space:]]*pragma[[:space:]]\+omp' "$src" && extra+=(-fopenmp)
    mkdir -p "$logs/$dir"
    if ! "$root/bin/shmemu-cc" $cflags ${extra[@]+"${extra[@]}"} -I"$suite/$dir" \
            -I"$suite/include" -o "$exe" "$src" -lm >"$exe.build.log" 2>&1; then
        status=build-fail
    else
        (cd "$logs/$dir" && timeout -k 5 "$limit" "$root/bin/shmemu-run" -n "$npes" "./$name") \
            >"$exe.run.log" 2>&1
        local rc=$?
        case $rc in
            0) status=pass ;;
            124 | 137) status=timeout
                echo "openshmem-suite: still running after ${limit}s (OSS_TIMEOUT); killed" \
                    >>"$exe.run.log" ;;
            13[0-9] | 14[0-9] | 15[0-9]) status=crash   # killed by a signal (abort, SEGV)
                echo "openshmem-suite: killed by signal $((rc - 128))" \
                     "(SIG$(kill -l $((rc - 128)) 2>/dev/null || echo '?'))" >>"$exe.run.log" ;;
            *) status=fail ;;
        esac
    fi
    echo "$dir $name $status $npes" >>"$results"
    printf '%-14s %-40s %s\n' "$dir" "$name" "$status"
}

# first_reason LOG: the line of LOG that best says why a test did not pass (a compiler
# error, a missing symbol, shmemu's own report, the test's message), cut to 160 characters.
first_reason() {
    { grep -m1 -E 'error:|undefined (symbol|reference)' "$1" ||
      grep -m1 -E '^shmemu' "$1" || grep -m1 -iE 'fail|error|abort' "$1" || tail -n1 "$1"; } |
        sed "s|$suite/||g; s|$root/||g; s|^shmemu: .*\(undefined symbol: \)|\1|" | cut -c1-160
}

tests=()
if [ $# -gt 0 ]; then
    for t in "$@"; do
        [ -f "$suite/${t%.c}.c" ] || { echo "openshmem-suite: $suite/${t%.c}.c: no such test" >&2; exit 2; }
        tests+=("${t%.c}")
    done
else
    for f in "$suite"/*/*.c; do
        [ -f "$f" ] || continue
        rel="${f#"$suite"/}"
        tests+=("${rel%.c}")
    done
fi
[ ${#tests[@]} -gt 0 ] || { echo "openshmem-suite: no .c tests under $suite/*/" >&2; exit 2; }

echo "openshmem-suite: ${#tests[@]} tests from $suite, $npes_default PEs, ${limit}s each," \
     "logs in $logs"
for t in "${tests[@]}"; do
    wait_for_slot "$jobs_max"
    run_one "${t%/*}" "${t##*/}" 2>>"$logs/shell.log" &   # bash's "Aborted" notes
done
wait

echo
printf '%-14s %6s %6s %6s %6s %10s %8s\n' folder pass fail crash timeout build-fail total
sort "$results" | awk '
    { n[$1]++; c[$1, $3]++; t[$3]++; all++ }
    END {
        for (d in n) dirs[++k] = d
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
            if (dirs[j] < dirs[i]) { s = dirs[i]; dirs[i] = dirs[j]; dirs[j] = s }
        for (i = 1; i <= k; i++) {
            d = dirs[i]
            printf "%-14s %6d %6d %6d %6d %10d %8d\n", d, c[d, "pass"], c[d, "fail"],
                   c[d, "crash"], c[d, "timeout"], c[d, "build-fail"], n[d]
        }
        printf "%-14s %6d %6d %6d %6d %10d %8d\n", "total", t["pass"], t["fail"], t["crash"],
               t["timeout"], t["build-fail"], all
    }'
if grep -qv ' pass ' "$results"; then
    echo
    echo "not passed (logs: $logs/DIR/NAME.build.log, .run.log):"
    grep -v ' pass ' "$results" | sort | while read -r dir name status npes; do
        log="$logs/$dir/$name.run.log"
        [ "$status" = build-fail ] && log="$logs/$dir/$name.build.log"
        printf '  %s/%s: %s (%s PEs): %s\n' "$dir" "$name" "$status" "$npes" "$(first_reason "$log")"
    done
    exit 1
fi
exit 0

#!/usr/bin/env bash
# tests/check-course.sh: the course's programs (course/lessons/, docs/course/) do what their
# lessons say, and the reports the lessons quote are the reports shmemu gives today.
#   every correct program: its expected output (NAME.expected, lines compared sorted, as PEs
#     print in any order), and the checker its lesson is about: bin/shmemu-check -t tsan clean
#     (lessons 1, 4, 6), the checking mode clean (SHMEMU_CHECK_NBI=1; lessons 2, 3, 5, 7), a few
#     seeds of bin/shmemu-explore (lessons 4-8);
#   every broken twin: caught by the checker its lesson names, and each essential line that
#     the lesson quotes from the report (the race's two source lines, the wrong value, the
#     replay command) is found both in this run's report and, verbatim, in the lesson's
#     docs/course/NN-*.md. Move a line of a program or change a report, and this fails until
#     the lesson is updated.
# TSan is the only race tool run (the cheapest, docs/checking.md "Cost"), except on lesson 9's
# one racy program, which runs under helgrind, DRD and TSan (the lesson reads each one's
# report); seeds are few, PE counts 2 or 3.
#
#   make check-course                      (builds what it needs in BUILD and BUILD-tsan)
#   BUILD=build-course tests/check-course.sh [LESSON...]   (e.g. 4 6: those lessons only)
# Ends with "N passed, N failed" and the time taken; exits 1 if any check failed.
set -u
cd "$(dirname "$0")/.." || exit 2
root=$PWD
BUILD=${BUILD:-build}
TSAN_BUILD=${TSAN_BUILD:-$BUILD-tsan}
# Programs of the plain build are in bin/, of any other in BUILD/bin (the top Makefile).
if [ "$BUILD" = build ]; then progs=$root/bin; else progs=$root/$BUILD/bin; fi
L=course/lessons
D=docs/course
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s.%N)
passed=0
failed=0
# Each line ends with the time since the start, to see where the time goes.
at() { awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "at %.1f s", b - a }'; }
pass() { passed=$((passed + 1)); echo "check-course: ok: $* ($(at))"; }
fail() { failed=$((failed + 1)); echo "check-course: FAIL: $* ($(at))" >&2; }
show() { sed -n '1,20p' "$1" | sed 's/^/    /' >&2; }
# Run without the caller's SHMEMU_* settings, so that replay lines print as the lessons show.
clean_env() { env -u SHMEMU_BUILD -u SHMEMU_TSAN_BUILD -u SHMEMU_SCHED -u SHMEMU_SEED \
    -u SHMEMU_CHECK_NBI -u SHMEMU_CHECK_SEED -u SHMEMU_BUG -u SHMEMU_NPES "$@"; }

# build SRC: compiles course/lessons/SRC into $tmp/<basename without suffix>.
build() {
    local src=$L/$1 out
    out=$tmp/$(basename "${1%.*}")
    case "$src" in
    *.cu) SHMEMU_BUILD=$root/$BUILD bin/shmemu-nvcc -g -o "$out" "$src" ;;
    *) SHMEMU_BUILD=$root/$BUILD bin/shmemu-cc -g -o "$out" "$src" ;;
    esac >"$tmp/build.log" 2>&1 || { fail "build $src"; show "$tmp/build.log"; return 1; }
}
# expect_output LESSON NAME NPES [ENV...]: runs $tmp/NAME on NPES PEs with ENV, compares its
# standard output (sorted) with course/lessons/LESSON/NAME.expected.
expect_output() {
    local lesson=$1 name=$2 npes=$3
    shift 3
    (cd "$tmp" && clean_env SHMEMU_NPES="$npes" "$@" "./$name") >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc = 0 ] && diff <(sort "$L/$lesson/$name.expected") <(sort "$tmp/out") >"$tmp/diff"; then
        pass "$lesson/$name on $npes PEs ${*:-}"
    else
        fail "$lesson/$name on $npes PEs ${*:-}: exit $rc, output differs from $name.expected"
        show "$tmp/diff"; show "$tmp/err"
    fi
}
# quoted DOC FILE FRAGMENT...: every FRAGMENT is in FILE (this run's report) and in DOC.
quoted() {
    local doc=$1 file=$2 f ok=1
    shift 2
    for f in "$@"; do
        if ! grep -qF -- "$f" "$file"; then
            echo "    not in the report: $f" >&2; ok=0
        fi
        if ! grep -qF -- "$f" "$doc"; then
            echo "    not quoted in $doc: $f" >&2; ok=0
        fi
    done
    [ $ok = 1 ]
}
doc_of() { echo $D/"$1".md; }
# tsan LESSON FILE NPES clean|FRAGMENT...: bin/shmemu-check -t tsan (with the VAR=VALUE words
# of TSAN_ENV in its environment); clean, or reported with every FRAGMENT.
tsan() {
    local lesson=$1 file=$2 npes=$3
    shift 3
    # shellcheck disable=SC2086
    (cd "$L/$lesson" && clean_env SHMEMU_BUILD="$BUILD" SHMEMU_TSAN_BUILD="$TSAN_BUILD" ${TSAN_ENV:-} \
        "$root/bin/shmemu-check" -t tsan -n "$npes" -o "$tmp/check" "$file") >"$tmp/rep" 2>&1
    local rc=$?
    if [ "$1" = clean ]; then
        if [ $rc = 0 ] && grep -q '^tsan: clean' "$tmp/rep"; then pass "$lesson/$file: TSan clean"
        else fail "$lesson/$file: TSan not clean (exit $rc)"; show "$tmp/rep"; fi
    elif [ $rc = 1 ] && quoted "$(doc_of "$lesson")" "$tmp/rep" "$@"; then
        pass "$lesson/$file: TSan reports it as the lesson quotes"
    else
        fail "$lesson/$file: TSan (exit $rc) does not give the report the lesson quotes"; show "$tmp/rep"
    fi
}
# caught LESSON NAME NPES "ENV..." FRAGMENT...: runs $tmp/NAME with ENV (a string of
# VAR=VALUE words); the output must hold every FRAGMENT, also quoted in the lesson.
caught() {
    local lesson=$1 name=$2 npes=$3 envs=$4
    shift 4
    # shellcheck disable=SC2086
    { (cd "$tmp" && timeout 120 env -u SHMEMU_BUILD -u SHMEMU_TSAN_BUILD -u SHMEMU_SCHED \
        -u SHMEMU_SEED -u SHMEMU_CHECK_NBI -u SHMEMU_CHECK_SEED -u SHMEMU_BUG \
        SHMEMU_NPES="$npes" $envs "./$name") >"$tmp/rep" 2>&1; } 2>/dev/null
    if quoted "$(doc_of "$lesson")" "$tmp/rep" "$@"; then pass "$lesson/$name ($envs): caught as the lesson says"
    else fail "$lesson/$name ($envs): not caught as the lesson says"; show "$tmp/rep"; fi
}
# explore NAME NPES SEEDS PATTERN [ENV...]: SEEDS random schedules of $tmp/NAME all pass: exit
# 0, no report, and (PATTERN not "") the last output line matching PATTERN as free-running.
explore() {
    local name=$1 npes=$2 seeds=$3 pat=$4
    shift 4
    local popt=()
    [ -z "$pat" ] || popt=(--result-pattern "$pat")
    if (cd "$tmp" && clean_env SHMEMU_NPES="$npes" "$@" "$progs/shmemu-explore" --quiet \
        "${popt[@]}" "$seeds" -- "./$name") >"$tmp/rep" 2>&1; then pass "$name: $seeds explorer seeds ${*:-}"
    else fail "$name: explorer ${*:-}"; show "$tmp/rep"; fi
}
nbi_clean() { # LESSON NAME NPES SEED...: the checking mode under SHMEMU_SCHED=random seeds
    local lesson=$1 name=$2 npes=$3 s
    shift 3
    for s in "$@"; do
        expect_output "$lesson" "$name" "$npes" SHMEMU_CHECK_NBI=1 SHMEMU_SCHED=random SHMEMU_SEED="$s"
    done
}

# 1. PEs and the symmetric heap
lesson_01() {
    l=01-pes-heap
    if build $l/ring.c && build $l/ring_private.c; then
        expect_output $l ring 3
        caught $l ring_private 2 "" "nvshmem_int_put: dest" \
            "is neither in the symmetric heap" "use memory from nvshmem_malloc or a global"
    fi
    tsan $l ring.c 2 clean
    tsan $l ring_early.c 2 "read of size 4 at ring_early.c:26 in main() by PE 1 host" \
        "races with write of size 8 at ring_early.c:24 in main() by PE 0 host"
}

# 2. Completion
lesson_02() {
    l=02-completion
    if build $l/get_nbi.c && build $l/get_nbi_early.c; then
        expect_output $l get_nbi 2
        nbi_clean $l get_nbi 2 1 2
        caught $l get_nbi_early 2 "SHMEMU_CHECK_NBI=1" "PE 0: sum of next's values = 0" \
            "PE 1: sum of next's values = 0"
    fi
}

# 3. Ordering
lesson_03() {
    l=03-ordering
    if build $l/fence_flag.c && build $l/fence_flag_nofence.c && build $l/fence_two_pes.c; then
        expect_output $l fence_flag 2
        for s in 1 2 3; do
            expect_output $l fence_flag 2 SHMEMU_CHECK_NBI=1 SHMEMU_SCHED=pct SHMEMU_SEED=$s
        done
        caught $l fence_flag_nofence 2 "SHMEMU_CHECK_NBI=1 SHMEMU_SCHED=pct SHMEMU_SEED=2" \
            "PE 1: got 0 0 0 0 (sum 0)"
        caught $l fence_two_pes 3 "SHMEMU_CHECK_NBI=1 SHMEMU_SCHED=pct SHMEMU_SEED=2" \
            "PE 1: got 0 0 0 0 from PE 2 (sum 0)"
    fi
}

# 4. Point-to-point synchronisation
lesson_04() {
    l=04-flags
    if build $l/flag.c; then
        expect_output $l flag 2
        explore flag 2 3 "sum"
    fi
    tsan $l flag.c 2 clean
    tsan $l flag_plain_store.c 2 \
        "atomic read of size 4 at flag_plain_store.c:28 in main() by PE 1 host" \
        "races with write of size 4 at flag_plain_store.c:26 in main() by PE 0 host" \
        "read of size 4 at flag_plain_store.c:29 in main() by PE 1 host" \
        "races with write of size 8 at flag_plain_store.c:23 in main() by PE 0 host"
    tsan $l flag_no_acquire.c 2 \
        "read of size 4 at flag_no_acquire.c:30 in main() by PE 1 host" \
        "races with atomic write of size 4 at flag_no_acquire.c:27 in main() by PE 0 host" \
        "read of size 4 at flag_no_acquire.c:32 in main() by PE 1 host" \
        "races with write of size 8 at flag_no_acquire.c:25 in main() by PE 0 host"
}

# 5. Put-with-signal
lesson_05() {
    l=05-put-signal
    if build $l/chunks.c && build $l/chunks_ge.c; then
        expect_output $l chunks 2
        nbi_clean $l chunks 2 1 2 3
        explore chunks 2 3 "total" SHMEMU_CHECK_NBI=1
        # As a learner types it, through bash: bash passes its prefix assignments on in its
        # own order, which the printed replay line keeps.
        (cd "$tmp" && clean_env EXPLORE="$progs/shmemu-explore" bash -c \
            "SHMEMU_CHECK_NBI=1 SHMEMU_NPES=2 \"\$EXPLORE\" --result-pattern 'total [0-9]+' 10 -- ./chunks_ge") \
            >"$tmp/explore" 2>&1
        if quoted $D/$l.md "$tmp/explore" \
            "explore: seed 2 (random) failed" '"PE 1: chunk sums 0 26 42 58 (total 126)"' \
            "SHMEMU_REPLAY=shmemu-fail.trace SHMEMU_NPES=2 SHMEMU_CHECK_NBI=1 ./chunks_ge"; then
            pass "$l/chunks_ge: the explorer finds it as the lesson says"
        else
            fail "$l/chunks_ge: the explorer does not report what the lesson quotes"; show "$tmp/explore"
        fi
        # The replay line, run as printed, gives the same wrong value.
        caught $l chunks_ge 2 "SHMEMU_REPLAY=shmemu-fail.trace SHMEMU_CHECK_NBI=1" \
            "PE 1: chunk sums 0 26 42 58 (total 126)"
    fi

    TSAN_ENV="SHMEMU_CHECK_NBI=1 SHMEMU_SEED=2" tsan $l chunks_ge.c 2 \
        "read of size 4 at chunks_ge.c:40 in main() by PE 1 host" \
        "races with write of size 8 at chunks_ge.c:32 in main() by PE 0 host"
}

# 6. The GPU memory model
lesson_06() {
    l=06-memory-model
    if build $l/direct.cu && build $l/direct_fence.cu && build $l/staged.cu; then
        expect_output $l direct 3
        expect_output $l direct_fence 3
        expect_output $l staged 3
        explore direct 2 2 ""
        explore staged 2 2 ""
    fi
    tsan $l direct.cu 2 clean
    tsan $l direct_fence.cu 2 clean
    tsan $l staged.cu 2 clean
    tsan $l direct_relaxed.cu 2 \
        "read of size 4 at direct_relaxed.cu:37 in exchange(int*, int*, int*)() by PE 0 kernel exchange block 0" \
        "races with write of size 4 at direct_relaxed.cu:26 in exchange(int*, int*, int*)() by PE 1 kernel exchange block 0"
    tsan $l direct_block_scope.cu 2 \
        "read of size 4 at direct_block_scope.cu:37 in exchange(int*, int*, int*)() by PE 0 kernel exchange block 0" \
        "races with write of size 4 at direct_block_scope.cu:26 in exchange(int*, int*, int*)() by PE 1 kernel exchange block 0"
    # the weak-memory mode shows the twins' wrong values; the correct programs keep theirs
    local weak="SHMEMU_SCHED=pct SHMEMU_SEED=1 SHMEMU_MEMORY=weak"
    if build $l/direct_relaxed.cu && build $l/direct_block_scope.cu; then
        caught $l direct_relaxed 2 "$weak" \
            "written by PE 1 (kernel exchange block 0) in st_relaxed at decision 56; 93 store(s)" \
            "direct_relaxed.cu:26 (in exchange(int*, int*, int*))" \
            "SHMEMU_NPES=2 SHMEMU_MEMORY=weak ./direct_relaxed" \
            "direct_relaxed: PE 0 FAIL: 186 wrong values"
        caught $l direct_block_scope 2 "$weak" \
            "in st_release" "direct_block_scope: PE 0 FAIL: 186 wrong values"
    fi
    # shellcheck disable=SC2086
    expect_output $l direct 3 $weak
    # shellcheck disable=SC2086
    expect_output $l direct_fence 3 $weak
    # shellcheck disable=SC2086
    expect_output $l staged 3 $weak
}

# 7. Flow control
lesson_07() {
    l=07-flow-control
    if build $l/credits.c && build $l/credits_noquiet.c; then
        expect_output $l credits 2
        nbi_clean $l credits 2 1 2 3
        explore credits 2 3 "sum" SHMEMU_CHECK_NBI=1
        caught $l credits_noquiet 2 "SHMEMU_CHECK_NBI=1 SHMEMU_SCHED=random SHMEMU_SEED=1" \
            "shmemu: PE 0: nvshmem_putmem_signal_nbi: the source of an earlier non-blocking put (nvshmem_putmem_signal_nbi of 32 bytes from" \
            "was overwritten before that put was complete"
    fi
}

# 8. The MD app's staged halo exchange (course/lessons/08-md-halo/run.sh runs md/'s program)
lesson_08() {
    l=08-md-halo
    md=$progs/shmemu-md
    run8() { clean_env MD="$md" $L/$l/run.sh "$@" >"$tmp/rep" 2>&1; sed -n 's/^checksum //p' "$tmp/rep" | tail -1; }
    ref=$(run8 serial)
    got=$(run8 fused)
    if [ -n "$ref" ] && [ "$ref" = "$got" ] && quoted $D/$l.md "$tmp/rep" "checksum $ref"; then
        pass "$l: the fused halo on 2x2x1 gives the 1-PE checksum $ref, as the lesson quotes"
    else
        fail "$l: fused checksum '$got' against the 1-PE '$ref' (or not quoted)"; show "$tmp/rep"
    fi
    if (cd "$tmp" && clean_env "$progs/shmemu-explore" --quiet 2 -- "$md" --cells 4 --pes 4 \
        --dd 2x2x1 --halo fused --transport direct --steps 2) >"$tmp/rep" 2>&1; then
        pass "$l: 2 explorer seeds of the fused halo"
    else
        fail "$l: explorer on the fused halo"; show "$tmp/rep"
    fi
    for bug in x-dep-offset-off-by-one x-dep-wait-missing; do
        got=$(run8 $bug)
        if [ -n "$got" ] && [ "$got" != "$ref" ] && quoted $D/$l.md "$tmp/rep" "checksum $got"; then
            pass "$l: SHMEMU_BUG=$bug changes the checksum to the one the lesson quotes"
        else
            fail "$l: SHMEMU_BUG=$bug: checksum '$got' (reference $ref), or not quoted"; show "$tmp/rep"
        fi
    done
}

# 9. Debugging
lesson_09() {
    l=09-debugging
    if build $l/ring_signal.c && build $l/ring_signal_hang.c; then
        expect_output $l ring_signal 3
        caught $l ring_signal_hang 2 "SHMEMU_SCHED=random SHMEMU_SEED=1" \
            "shmemu: deadlock (deterministic scheduler, random seed 1" \
            "PE 0 (host) waits in nvshmem_signal_wait_until" "== 1, current value 0" \
            "ring_signal_hang.c:25 (in main)" \
            "last writer: none: no runtime write ever reached this word, so this is a signal that nobody sent" \
            "shmemu: replay: SHMEMU_SCHED=random SHMEMU_SEED=1 SHMEMU_NPES=2 ./ring_signal_hang"
        caught $l ring_signal_hang 2 "SHMEMU_HANG_TIMEOUT=1" \
            "ring_signal_hang.c:25 (in main)" "== 1, current value 0"
    fi

    # Lesson 9 reads one report of each race checker: the one program run under all three.
    (cd $L/$l && clean_env SHMEMU_BUILD="$BUILD" SHMEMU_TSAN_BUILD="$TSAN_BUILD" \
        "$root/bin/shmemu-check" -n 2 -o "$tmp/check" ring_signal_early.c) >"$tmp/rep" 2>&1
    rc=$?
    if [ $rc = 1 ] && quoted $D/$l.md "$tmp/rep" \
        "helgrind: 2 race report(s)" "drd: 2 race report(s)" "tsan: 2 race report(s)" \
        "read of size 8 at ring_signal_early.c:24 in main() by PE 0 host" \
        "races with write of size 8 at ring_signal_early.c:23 in main() by PE 1 host (1 report)" \
        "within ring_signal_early.c:23 in main() (DRD shows the segment of that thread, not its access)"; then
        pass "$l/ring_signal_early.c: helgrind, DRD and TSan report it as the lesson quotes"
    else
        fail "$l/ring_signal_early.c: shmemu-check (exit $rc) does not give the reports the lesson quotes"
        show "$tmp/rep"
    fi
}

# Every `bin/shmemu-lab start NAME` of a lesson names an exercise of course/exercises/, and
# every exercise is named by the lesson its task.md gives ("Lesson: N").
links() {
    local ex n name doc ok=1 f
    local linked=()
    for f in "$D"/0*.md; do
        while read -r name; do linked+=("$name"); done \
            < <(grep -o 'shmemu-lab start [a-z0-9-]*' "$f" | awk '{print $3}')
    done
    for name in "${linked[@]}"; do
        ex=(course/exercises/[0-9]*-"$name")
        if [ ! -f "${ex[0]}/check.conf" ]; then
            echo "    a lesson links exercise '$name', which course/exercises/ lacks" >&2; ok=0
        fi
    done
    for ex in course/exercises/[0-9]*-*/; do
        if [ ! -f "$ex/check.conf" ] || [ ! -f "$ex/task.md" ]; then continue; fi
        name=$(basename "$ex"); name=${name#*-}
        n=$(sed -n 's/^Lesson: *\([0-9]*\).*/\1/p' "$ex/task.md" | head -1)
        doc=("$D"/0"${n:-x}"-*.md)
        if [ ! -f "${doc[0]}" ] || ! grep -q "shmemu-lab start $name\b" "${doc[0]}"; then
            echo "    exercise '$name' (lesson ${n:-?}) is not linked from its lesson" >&2; ok=0
        fi
    done
    if [ $ok = 1 ]; then pass "every exercise link resolves, and every exercise is linked"
    else fail "exercise links"; fi
}

# The lessons to check: all, or those named on the command line (1 to 9, or 01-pes-heap...).
lessons=("$@")
[ ${#lessons[@]} -gt 0 ] || { lessons=(1 2 3 4 5 6 7 8 9); links; }
for n in "${lessons[@]}"; do
    n=${n%%-*}
    n=${n#0}
    case "$n" in
    [1-9]) "lesson_0$n" ;;
    *) echo "check-course: no lesson '$n' (1 to 9)" >&2; exit 2 ;;
    esac
done

end=$(date +%s.%N)
echo "check-course: $passed passed, $failed failed ($(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s)"
[ $failed = 0 ]

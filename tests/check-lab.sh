#!/usr/bin/env bash
# tests/check-lab.sh: bin/shmemu-lab and every graded exercise of course/exercises/
# (docs/course/exercises.md).
#   for EVERY exercise folder: `shmemu-lab check --solution NAME` passes (exit 0, "pass"),
#     and `check --start NAME` fails (exit 1) at the checker its check.conf names
#     (start_fails): a start that fails for another reason (a build error, an earlier
#     checker) or passes is an error, and so is a check.conf without start_fails;
#   a failure at the explorer (replay-a-failure without its nbi checker): its printed
#     replay command reproduces the wrong output;
#   the learner's path: `start` copies the program and the task, `check FILE` finds the
#     exercise from the marker comment and fails the copy as the start fails; `--exercise`
#     judges a file without a marker; `list` names every exercise with its lesson;
#   usage errors exit 2 with a message: an unknown exercise, a missing file, a file with no
#     marker, `start` over a learner's existing file (left unchanged), an unknown command,
#     a check.conf with an unknown key.
# Seeds: LAB_SEEDS (default 4) caps every checker's seed count through SHMEMU_LAB_SEEDS (a
# learner's check uses each exercise's full count); LAB_JOBS checks run at once (default 2).
#
#   make check-lab                         (builds what it needs in BUILD and BUILD-tsan)
#   BUILD=build-lab tests/check-lab.sh [NAME...]
#   LAB_EXERCISES=DIR tests/check-lab.sh   (the exercises of DIR instead of course/exercises)
# Ends with "N passed, N failed" and the time taken; exits 1 if any check failed.
set -u
cd "$(dirname "$0")/.." || exit 2
root=$PWD
BUILD=${BUILD:-build}
TSAN_BUILD=${TSAN_BUILD:-$BUILD-tsan}
export SHMEMU_BUILD=$BUILD SHMEMU_TSAN_BUILD=$TSAN_BUILD SHMEMU_NO_MAKE=1
export SHMEMU_LAB_SEEDS=${LAB_SEEDS:-4}
jobs=${LAB_JOBS:-2}
lab=$root/bin/shmemu-lab
# LAB_EXERCISES: another exercise folder (to plant broken exercises in a copy)
E=${LAB_EXERCISES:-course/exercises}
case "$E" in /*) ;; *) E=$root/$E ;; esac
export SHMEMU_LAB_EXERCISES=$E
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s.%N)
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "check-lab: ok: $*"; }
fail() { failed=$((failed + 1)); echo "check-lab: FAIL: $*" >&2; }
show() { sed -n "1,${2:-30}p" "$1" | sed 's/^/    /' >&2; }

for f in "$BUILD/lib/libshmemu.a" "$BUILD/lib/libshmemu_cuda.a" "$TSAN_BUILD/lib/libshmemu.a" \
    "$TSAN_BUILD/lib/libshmemu_cuda.a"; do
    [ -f "$f" ] || { echo "check-lab: $f is missing: run make check-lab BUILD=$BUILD" >&2; exit 2; }
done

# The exercises: all, or those named.
names=()
for d in "$E"/[0-9]*-*/; do
    d=${d%/}; n=$(basename "$d"); n=${n#*-}
    if [ $# -gt 0 ]; then
        for want in "$@"; do [ "$want" = "$n" ] && names+=("$n"); done
    else
        names+=("$n")
    fi
done
[ ${#names[@]} -gt 0 ] || { echo "check-lab: no exercise selected" >&2; exit 2; }

# 1. every solution passes and every start fails at its checker (LAB_JOBS at once: each
#    job writes NAME.ROLE.out and .rc).
judge() { # NAME ROLE
    local t
    t=$(date +%s.%N)
    "$lab" check --"$2" "$1" >"$tmp/$1.$2.out" 2>&1
    echo $? >"$tmp/$1.$2.rc"
    awk -v a="$t" -v b="$(date +%s.%N)" -v n="$1 $2" 'BEGIN { printf "%.1f s %s\n", b - a, n }' >"$tmp/$1.$2.time"
}
export -f judge
export lab tmp
for n in "${names[@]}"; do printf '%s solution\n%s start\n' "$n" "$n"; done |
    xargs -P "$jobs" -L 1 bash -c 'judge "$0" "$1"'
for n in "${names[@]}"; do
    d=$(ls -d "$E"/[0-9]*-"$n")
    expected=$(sed -n 's/^start_fails=//p' "$d/check.conf")
    rc=$(cat "$tmp/$n.solution.rc")
    if [ "$rc" = 0 ] && tail -1 "$tmp/$n.solution.out" | grep -qx pass; then
        pass "$n: the solution passes"
    else
        fail "$n: the solution does not pass (exit $rc):"; show "$tmp/$n.solution.out" 40
    fi
    rc=$(cat "$tmp/$n.start.rc")
    got=$(sed -n 's/^fail: \([a-z]*\).*/\1/p' "$tmp/$n.start.out" | head -1)
    if [ -z "$expected" ]; then
        fail "$n: check.conf names no start_fails (the checker that must catch the start)"
    elif [ "$rc" = 1 ] && [ "$got" = "$expected" ]; then
        pass "$n: the start fails at $expected"
    else
        fail "$n: the start should fail at $expected; it gave exit $rc, checker '${got:-none}':"
        show "$tmp/$n.start.out" 40
    fi
done

# 2. the learner's path, on the first selected exercise.
n=${names[0]}
d=$(ls -d "$E"/[0-9]*-"$n")
src=$(ls "$d"/start.c "$d"/start.cu 2>/dev/null | head -1)
ext=${src##*.}
w=$tmp/learner
if "$lab" start "$n" "$w" >"$tmp/o" 2>&1 && cmp -s "$src" "$w/$n.$ext" && cmp -s "$d/task.md" "$w/$n.md"; then
    pass "start $n copies the program and the task"
else
    fail "start $n did not copy $n.$ext and $n.md:"; show "$tmp/o"
fi
echo "/* my own work */" >>"$w/$n.$ext"
cp "$w/$n.$ext" "$tmp/mine"
"$lab" start "$n" "$w" >"$tmp/o" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q "already exists: not overwritten" "$tmp/o" && cmp -s "$tmp/mine" "$w/$n.$ext"; then
    pass "start over an existing file refuses (exit 2) and leaves it unchanged"
else
    fail "start over an existing file: exit $rc, or the file changed:"; show "$tmp/o"
fi
expected=$(sed -n 's/^start_fails=//p' "$d/check.conf")
(cd "$w" && "$lab" check "$n.$ext") >"$tmp/o" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "^fail: $expected" "$tmp/o"; then
    pass "check FILE finds the exercise by its marker and fails the learner's copy at $expected"
else
    fail "check of the learner's copy: exit $rc (want 1, fail: $expected):"; show "$tmp/o"
fi
sed 's/shmemu-lab: *[A-Za-z0-9_-]*/an exercise/' "$w/$n.$ext" >"$w/nomarker.$ext"
"$lab" check "$w/nomarker.$ext" >"$tmp/o" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q "names no exercise" "$tmp/o"; then
    pass "check of a file without a marker: exit 2, asks for --exercise"
else
    fail "check of a file without a marker: exit $rc:"; show "$tmp/o"
fi
"$lab" check --exercise "$n" "$w/nomarker.$ext" >"$tmp/o" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "^fail: $expected" "$tmp/o"; then
    pass "check --exercise $n judges a file without a marker"
else
    fail "check --exercise $n: exit $rc:"; show "$tmp/o"
fi
"$lab" list >"$tmp/o" 2>&1
rc=$?
missing=""
for dd in "$E"/[0-9]*-*/; do
    nn=$(basename "$dd"); nn=${nn#*-}
    ll=$(sed -n 's/^Lesson: *//p' "$dd/task.md")
    grep -qE "^$nn +$ll +[^ ]" "$tmp/o" || missing="$missing $nn"
done
if [ "$rc" = 0 ] && [ -z "$missing" ]; then
    pass "list names every exercise with its lesson and task"
else
    fail "list: exit $rc, missing:$missing"; show "$tmp/o"
fi

# The explorer's failure (no start stops there: an earlier checker catches each): the
# replay-a-failure start with the nbi checker left out fails at explore, and the replay
# command it prints, run as printed, gives the same wrong output again.
rd=$(ls -d "$E"/[0-9]*-replay-a-failure 2>/dev/null | head -1)
if [ -n "$rd" ]; then
    mkdir -p "$tmp/ex3"
    cp -r "$rd" "$tmp/ex3/"
    sed -i 's/^checkers=.*/checkers=output race explore/' "$tmp/ex3/$(basename "$rd")/check.conf"
    SHMEMU_LAB_EXERCISES=$tmp/ex3 "$lab" check -o "$tmp/ex3/out" --start replay-a-failure >"$tmp/o" 2>&1
    rc=$?
    replay=$(grep -A1 'replay with:' "$tmp/o" | tail -1)
    wrong=$(grep -m1 '^ *> PE 0:' "$tmp/o" | sed 's/^ *> //')
    if [ "$rc" = 1 ] && grep -q '^fail: explore' "$tmp/o" && [ -n "$wrong" ] &&
        [ "$(bash -c "$replay" 2>/dev/null)" = "$wrong" ]; then
        pass "a start caught by the explorer: fail: explore, and its replay command prints '$wrong' again"
    else
        fail "the explorer's failure and replay: exit $rc, replay '$replay', want '$wrong':"; show "$tmp/o"
    fi
fi

# 3. usage errors: exit 2 and a message naming the problem.
usage_case() { # WHAT PATTERN ARGS...
    local what=$1 pat=$2
    shift 2
    "$@" >"$tmp/o" 2>&1
    local rc=$?
    if [ "$rc" = 2 ] && grep -q "$pat" "$tmp/o"; then
        pass "usage error: $what (exit 2)"
    else
        fail "usage error: $what: exit $rc, want 2 and '$pat':"; show "$tmp/o"
    fi
}
usage_case "unknown exercise (check --solution)" "no exercise named 'no-such'" "$lab" check --solution no-such
usage_case "unknown exercise (start)" "no exercise named 'no-such'" "$lab" start no-such "$tmp/x"
usage_case "missing file" "no such file" "$lab" check "$tmp/absent.c"
usage_case "not a .c or .cu file" "give a .c or .cu file" "$lab" check "$d/task.md"
usage_case "unknown command" "unknown command 'grade'" "$lab" grade
cp "$w/nomarker.$ext" "$tmp/other.$([ "$ext" = c ] && echo cu || echo c)"
usage_case "a .c file for a .cu exercise or the reverse" "is a .$ext program" \
    "$lab" check --exercise "$n" "$tmp/other.$([ "$ext" = c ] && echo cu || echo c)"
usage_case "no command" "usage\|shmemu-lab list" "$lab"
mkdir -p "$tmp/ex"
cp -r "$d" "$tmp/ex/01-$n"
echo "seeds=3" >>"$tmp/ex/01-$n/check.conf"
usage_case "check.conf with an unknown key" "unknown key 'seeds'" \
    env SHMEMU_LAB_EXERCISES="$tmp/ex" "$lab" check --solution "$n"

echo "check-lab: the slowest checks: $(cat "$tmp"/*.time | sort -rn | head -4 | paste -sd, | sed 's/,/, /g')"
t1=$(date +%s.%N)
echo "check-lab: $passed passed, $failed failed ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, ${#names[@]} exercises, seeds capped at $SHMEMU_LAB_SEEDS, $jobs jobs)"
[ "$failed" -eq 0 ]

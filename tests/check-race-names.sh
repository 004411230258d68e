#!/usr/bin/env bash
# check-race-names.sh: shmemu-check's race summary shows both accesses of each race, each
# with its source line and its thread named as a PE, block or thread, under helgrind, DRD
# and ThreadSanitizer alike (docs/checking.md, "Reading the summary").
#   tests/racy/put_signal_race.c racy: the read (RACY READ) by "PE 1 host" against the
#       put (RACING PUT) by "PE 0 host";
#   tests/racy/emu_flag_race.c block: the kernel's read (RACY READ) by one block against
#       the write (RACY WRITE) by the other, "PE p kernel publish block b" (TSan, which sees
#       each CUDA thread as a fiber, adds "thread t");
#   tests/racy/same_instant_race.c: TSan reports a put and a read that can happen at the
#       same instant in each of five runs;
#   tests/cuda_corpus/atomic_flag.cu -DBROKEN_RELAXED (a .cu program, built by shmemu-check
#       through shmemu-nvcc): helgrind and TSan name the kernel's read and the other block's
#       write at their .cu lines, by "PE p kernel handoff block b" (C++ frames included).
# SHMEMU_BUILD and SHMEMU_TSAN_BUILD name the build folders (default build, build-tsan).
# Ends with "N passed, N failed"; exit status 0 when none failed.
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=tests/racy/put_signal_race.c
read_line=$(grep -n 'RACY READ:' "$src" | cut -d: -f1)
put_line=$(grep -n 'RACING PUT' "$src" | cut -d: -f1)
put_re="put_signal_race\.c:($put_line|$((put_line - 1))) in main\(\)"
emu=tests/racy/emu_flag_race.c
emu_read=$(grep -n 'RACY READ (modes relaxed and block)' "$emu" | cut -d: -f1)
emu_write=$(grep -n 'RACY WRITE (modes relaxed and block)' "$emu" | cut -d: -f1)

# pair TOOL LOG NAME FIRST SECOND [FIRST2 SECOND2]: some race of TOOL's summary in LOG is a
# line matching FIRST followed by one matching SECOND (or FIRST2 then SECOND2). shmemu-check
# prints helgrind's and TSan's races read first; DRD shows only the other thread's segment,
# so for DRD the second pair is the same race seen from the other thread.
pair() {
    local tool=$1 log=$2 name=$3 first=$4 second=$5 first2=${6:-} second2=${7:-}
    if awk -v t="$tool" -v a="$first" -v b="$second" -v c="$first2" -v d="$second2" '
        /^[a-z]+: / { in_tool = ($0 ~ ("^" t ": [0-9]+ race report")) }
        in_tool && prev ~ a && $0 ~ b { found = 1 }
        in_tool && c != "" && prev ~ c && $0 ~ d { found = 1 }
        { prev = $0 }
        END { exit !found }' "$log"; then
        echo "PASS $tool $name"; passed=$((passed + 1))
    else
        echo "FAIL $tool $name: no race '$first' / '$second' in:"; sed 's/^/    /' "$log"
        failed=$((failed + 1))
    fi
}
bin/shmemu-check -o "$out" "$src" -- racy >"$out/put.txt" 2>&1
for tool in helgrind tsan; do
    pair "$tool" "$out/put.txt" "put-with-signal: read by PE 1, put by PE 0" \
        "^    read of size [0-9]+ at put_signal_race\.c:$read_line in main\(\) by PE 1 host$" \
        "^      races with write of size [0-9]+ at $put_re by PE 0 host \([0-9]+ reports?\)$"
done
seg_re="(within|between) put_signal_race\.c:[0-9]+( in main\(\))?( and put_signal_race\.c:[0-9]+( in main\(\))?)? "
pair drd "$out/put.txt" "put-with-signal: read by PE 1, PE 0's segment at the put" \
    "^    read of size [0-9]+ at put_signal_race\.c:$read_line in main\(\) by PE 1 host$" \
    "^      races with an access by PE 0 host within $put_re " \
    "^    write of size [0-9]+ at $put_re by PE 0 host$" \
    "^      races with an access by PE 1 host $seg_re"
blk="PE ([01]) kernel publish block [01]"
bin/shmemu-check -o "$out" "$emu" -- block >"$out/emu.txt" 2>&1
pair helgrind "$out/emu.txt" "kernel flag: read and write by two blocks" \
    "^    read of size [0-9]+ at emu_flag_race\.c:$emu_read in publish\(\) by $blk$" \
    "^      races with write of size [0-9]+ at emu_flag_race\.c:$emu_write in publish\(\) by $blk "
pair drd "$out/emu.txt" "kernel flag: read by a block, the other block's segment" \
    "^    read of size [0-9]+ at emu_flag_race\.c:$emu_read in publish\(\) by $blk$" \
    "^      races with an access by $blk (within |between |\(that thread had ended)" \
    "^    write of size [0-9]+ at emu_flag_race\.c:$emu_write in publish\(\) by $blk$" \
    "^      races with an access by $blk (within |between |\(that thread had ended)"
# (TSan at -O1 may keep no line for the read: the file and function are named)
pair tsan "$out/emu.txt" "kernel flag: read and write by threads of two blocks" \
    "^    read of size [0-9]+ at emu_flag_race\.c(:$emu_read| \(line unknown\)) in publish\(\) by $blk thread [0-9]+$" \
    "^      races with write of size [0-9]+ at emu_flag_race\.c:$emu_write in publish\(\) by $blk thread [0-9]+ "
# A CUDA program: the race summary names its .cu lines and C++ kernel frames.
cu=tests/cuda_corpus/atomic_flag.cu
cu_read=$(grep -n 'RACY READ' "$cu" | cut -d: -f1)
cu_write=$(grep -n 'RACY WRITE' "$cu" | cut -d: -f1)
cblk="PE ([01]) kernel handoff block [01]"
bin/shmemu-check -t helgrind -t tsan -o "$out" -f -DBROKEN_RELAXED "$cu" >"$out/cu.txt" 2>&1
for tool in helgrind tsan; do
    thr=""
    [ "$tool" = tsan ] && thr=" thread [0-9]+"
    pair "$tool" "$out/cu.txt" ".cu kernel flag: read and write by two blocks, at .cu lines" \
        "^    read of size [0-9]+ at atomic_flag\.cu:$cu_read in handoff\(int\*, int\*, long long\*\)\(\) by $cblk$thr$" \
        "^      races with write of size [0-9]+ at atomic_flag\.cu:$cu_write in handoff\(int\*, int\*, long long\*\)\(\) by $cblk$thr "
done
# A race whose accesses can fall at the same instant (tests/racy/same_instant_race.c) is
# reported by TSan on every run: shmemu-check serializes the PEs under TSan. Free-running,
# 8 of 20 runs came out clean, so five runs in a row would miss a regression 1 time in 12.
inst=tests/racy/same_instant_race.c
inst_read=$(grep -n 'RACY READ' "$inst" | cut -d: -f1)
caught=0
for run in 1 2 3 4 5; do
    bin/shmemu-check -t tsan -n 2 -o "$out" "$inst" >"$out/inst.$run.txt" 2>&1
    grep -qE "^    read of size [0-9]+ at same_instant_race\.c:$inst_read in main\(\) by PE 1 host$" \
        "$out/inst.$run.txt" && caught=$((caught + 1))
done
if [ "$caught" = 5 ]; then
    echo "PASS tsan same-instant put and read: reported in 5 of 5 runs"; passed=$((passed + 1))
else
    echo "FAIL tsan same-instant put and read: reported in $caught of 5 runs; the last:"
    sed 's/^/    /' "$out/inst.5.txt"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

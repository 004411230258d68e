#!/usr/bin/env bash
# check-view.sh: bin/shmemu-view (docs/view.md), `make check-view`.
#   1. the program: every fixture of tests/events/ becomes a page; each bad log of
#      tests/events/bad/ is refused with exit 2, its FILE:LINE and the reason, and leaves no
#      page behind; a page is never written over an input; --report reads shmemu-check's output
#   2. the pages in headless Chromium (tests/browser/check-view.js): lanes, arrows, waits,
#      hb edges, the report on the diagram, the occupancy, stepping forward and back, a
#      screenshot that is a picture, and a 10 000-event log (timings printed)
# Needs node, Debian's chromium and tests/browser/node_modules (scripts/ensure-deps.sh view).
# VIEW_BIN names the program (default bin/shmemu-view).
set -uo pipefail
cd "$(dirname "$0")/.."
view="${VIEW_BIN:-bin/shmemu-view}"
fail=0
say() { echo "check-view: $*"; }
bad() { say "FAIL: $*"; fail=1; }

[ -x "$view" ] || { say "no $view: build it first (make check-view does)"; exit 1; }
for need in node "${CHROMIUM:-/usr/bin/chromium}" tests/browser/node_modules/playwright-core; do
    command -v "$need" >/dev/null 2>&1 || [ -e "$need" ] ||
        { say "$need is missing: run scripts/ensure-deps.sh view"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- 1. the program -----------------------------------------------------------------------
# checknbi.jsonl: tests/events/checknbi.c under SHMEMU_CHECK_NBI=1 (a staging buffer rewritten
# before the quiet: the checking mode's failure ends the log as an error event)
for f in ring hang checknbi; do
    "$view" tests/events/$f.jsonl -o "$tmp/$f.html" >/dev/null || bad "tests/events/$f.jsonl was refused"
done
"$view" tests/events/race.jsonl --report tests/events/race.report -o "$tmp/race.html" >/dev/null ||
    bad "tests/events/race.jsonl with its report was refused"
# occupancy.jsonl: what `shmemu-md --occupancy FILE` writes (block records only, "launch":-1)
"$view" tests/events/occupancy.jsonl -o "$tmp/occupancy.html" >/dev/null ||
    bad "tests/events/occupancy.jsonl (shmemu-md --occupancy) was refused"
node tests/browser/gen-log.js 10000 8 >"$tmp/big.jsonl"
"$view" "$tmp/big.jsonl" >/dev/null || bad "the 10 000-event log was refused"
[ -s "$tmp/big.html" ] || bad "LOG.jsonl did not give LOG.html"

# Each bad log: exit 2, the message names FILE:LINE and says what is wrong, no page is left.
while IFS='|' read -r file line what; do
    [ -n "$file" ] || continue
    out=$("$view" "tests/events/bad/$file" -o "$tmp/bad.html" 2>&1); rc=$?
    if [ $rc -ne 2 ] || [[ "$out" != *"tests/events/bad/$file:$line: "*"$what"* ]]; then
        bad "$file: expected exit 2 and \"$file:$line: ...$what\", got exit $rc: $out"
    elif [ -e "$tmp/bad.html" ] || ls "$tmp"/bad.html.tmp.* >/dev/null 2>&1; then
        bad "$file: a refused log left a page behind"
    fi
    rm -f "$tmp"/bad.html*
done <<'EOF'
version2.jsonl|1|reads format 1
empty.jsonl|1|the file is empty
not-json.jsonl|2|not JSON
dup-key.jsonl|2|a key given twice
bad-utf8.jsonl|2|not UTF-8
seq-gap.jsonl|3|"seq" is 2 where 1 was expected
peer-range.jsonl|2|"peer" is out of range
missing-field.jsonl|2|"bytes" is missing
block-thread.jsonl|2|"thread" is missing
truncated.jsonl|3|cut short
edge-forward.jsonl|3|"to" is out of range
edge-release.jsonl|4|is not an event that releases
EOF
n_bad=$(ls tests/events/bad/*.jsonl | wc -l)
[ "$n_bad" -eq 12 ] || bad "tests/events/bad/ holds $n_bad logs; the table above checks 12: add the new one's line"

cp tests/events/ring.jsonl "$tmp/in.jsonl"
out=$("$view" "$tmp/in.jsonl" -o "$tmp/in.jsonl" 2>&1); rc=$?
{ [ $rc -eq 2 ] && [[ "$out" == *"would overwrite the input"* ]] && cmp -s tests/events/ring.jsonl "$tmp/in.jsonl"; } ||
    bad "-o naming the input: expected exit 2 and the input unchanged, got exit $rc: $out"
out=$("$view" "$tmp/in.jsonl" --report tests/events/bad/orphan.report -o "$tmp/o.html" 2>&1); rc=$?
{ [ $rc -eq 2 ] && [[ "$out" == *"orphan.report:2: "* ]] && [ ! -e "$tmp/o.html" ]; } ||
    bad "a report that is not shmemu-check's: expected exit 2 naming orphan.report:2, got exit $rc: $out"
out=$("$view" "$tmp/missing.jsonl" 2>&1); rc=$?
[ $rc -eq 2 ] && [[ "$out" == *"cannot open"* ]] || bad "a missing log: expected exit 2, got $rc: $out"
out=$("$view" --bogus 2>&1); rc=$?
[ $rc -eq 2 ] && [[ "$out" == *"usage"* ]] || bad "an unknown option: expected exit 2 and the usage, got $rc"
grep -Eq '<script src|<link |(src|href)="https?:|fetch\(|XMLHttpRequest|import\(' "$tmp/ring.html" &&
    bad "the page loads something from outside itself"
[ $fail -eq 0 ] && say "the program: fixtures, 12 bad logs, -o over an input, a bad report: ok"

# --- 2. the pages in the browser ------------------------------------------------------------
node tests/browser/check-view.js "$tmp" || bad "the browser checks (above)"
[ $fail -eq 0 ] && say "all passed" || say "FAILED"
exit $fail

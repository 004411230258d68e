#!/usr/bin/env bash
# course-figures.sh: every figure of the course and of the docs, regenerated from real runs
# (`make course-figures`). None is drawn by hand.
#
#   scripts/course-figures.sh [OUT]
#
# Course figures: each marker `<!-- figure: NAME: PROGRAM NPES (SETTINGS: what it shows) -->`
# in docs/course/NN-*.md (docs/course/README.md, "Figures"). PROGRAM is a program of the
# lesson's folder, course/lessons/NN-*/PROGRAM.c or .cu, else of another lesson's (built with bin/shmemu-cc or
# bin/shmemu-nvcc), run on NPES PEs, or bin/shmemu-md with its arguments; SETTINGS, the
# words before the colon inside the parentheses when each is VAR=VALUE, are its
# environment. A run without SHMEMU_SCHED runs under the deterministic scheduler
# (SHMEMU_SCHED=random SHMEMU_SEED=1), so a figure is the same on every machine. The run
# records its event log (SHMEMU_EVENTS, docs/events.md), bin/shmemu-view renders it, and
# tests/browser/screenshot.js takes the whole run's space-time diagram (--fit, every lane
# expanded) as docs/course/figures/NAME.png, checked to be a picture and not blank. A run
# may fail (a broken twin that hangs is a figure too); a run that writes no log fails the
# script. The line after each marker must be the image, `![...](figures/NAME.png)`: the
# script writes it there when it is missing (the lesson rewritten whole).
#
# Docs figures (docs/figures/): md-fused-8pe.png, the MD app's fused halo step on 8 PEs
# (2x2x2); md-occupancy-emulator.png, --occupancy on the emulator; md-occupancy-h100.png,
# the occupancy of a step on one H100, rendered from the log recorded there
# (docs/figures/md-occupancy-h100.jsonl; docs/gpu.md says how it was recorded).
#
# OUT (default: the repository, i.e. docs/course/figures and docs/figures): another folder
# gets every PNG instead, and no lesson is edited (check-course-figures, the test suite's
# check that every figure can be made). Needs `make all` and scripts/ensure-deps.sh view.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
out=${1:-}
course_out=${out:-docs/course/figures}
docs_out=${out:-docs/figures}
edit_lessons=$([ -z "$out" ] && echo 1 || echo 0)
mkdir -p "$course_out" "$docs_out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/course-figures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export SHMEMU_BUILD=${SHMEMU_BUILD:-$root/build}
view=bin/shmemu-view
[ "${SHMEMU_BUILD%/}" = "$root/build" ] || view=$SHMEMU_BUILD/bin/shmemu-view
md=bin/shmemu-md
[ "${SHMEMU_BUILD%/}" = "$root/build" ] || md=$SHMEMU_BUILD/bin/shmemu-md
for t in "$view" "$md"; do
    [ -x "$t" ] || { echo "course-figures: $t is not built (make all)" >&2; exit 2; }
done
[ -e tests/browser/node_modules/playwright-core/package.json ] ||
    { echo "course-figures: no playwright-core (scripts/ensure-deps.sh view)" >&2; exit 2; }

made=0
failed=0
fail() { echo "FAIL $1: $2" >&2; failed=$((failed + 1)); }

# shot NAME LOG PNG [screenshot options]: renders LOG and takes its picture.
shot() {
    local name=$1 log=$2 png=$3
    shift 3
    if ! "$view" "$log" -o "$tmp/$name.html" >"$tmp/view.log" 2>&1; then
        fail "$name" "shmemu-view: $(cat "$tmp/view.log")"
        return 1
    fi
    if ! node tests/browser/screenshot.js "$tmp/$name.html" "$png" "$@" >"$tmp/shot.log" 2>&1; then
        fail "$name" "$(cat "$tmp/shot.log")"
        return 1
    fi
    echo "made $png ($(grep -o '[0-9]*x[0-9]*' "$tmp/shot.log" | head -1), from $(($(wc -l <"$log") - 1)) events)"
    made=$((made + 1))
}

# ---- the course ---------------------------------------------------------------------------
for lesson in docs/course/[0-9][0-9]-*.md; do
    dir=course/lessons/$(basename "$lesson" .md)
    while IFS= read -r marker; do
        spec=${marker#<!-- figure: }
        spec=${spec% -->}
        name=${spec%%: *}
        rest=${spec#*: }
        run=${rest%% (*}
        what=${rest#* (}
        what=${what%)}
        settings=()
        if [[ "$what" == *:* ]]; then
            read -r -a words <<<"${what%%:*}"
            all=1
            for w in "${words[@]}"; do [[ "$w" =~ ^[A-Z_][A-Z0-9_]*=[^=]*$ ]] || all=0; done
            [ "$all" = 1 ] && settings=("${words[@]}")
        fi
        printf '%s\n' "${settings[@]}" | grep -q '^SHMEMU_SCHED=' ||
            settings+=(SHMEMU_SCHED=random SHMEMU_SEED=1)
        read -r -a argv <<<"$run"
        log=$tmp/$name.jsonl
        rm -f "$log"
        if [ "${argv[0]}" = bin/shmemu-md ]; then
            env "${settings[@]}" SHMEMU_EVENTS="$log" SHMEMU_HANG_TIMEOUT=20 "$md" "${argv[@]:1}" \
                >"$tmp/run.log" 2>&1
        else
            prog=${argv[0]}
            npes=${argv[1]:-2}
            src=""
            for ext in c cu; do [ -f "$dir/$prog.$ext" ] && src=$dir/$prog.$ext; done
            # a program of an earlier lesson (lesson 9 replays lesson 5's)
            [ -n "$src" ] || src=$(ls course/lessons/*/"$prog".c course/lessons/*/"$prog".cu 2>/dev/null | head -1)
            if [ -z "$src" ]; then
                fail "$name" "$lesson: no $prog.c or .cu in $dir or another lesson's folder"
                continue
            fi
            cc=bin/shmemu-cc
            [[ "$src" == *.cu ]] && cc=bin/shmemu-nvcc
            if ! "$cc" -g -O1 -o "$tmp/$prog" "$src" >"$tmp/cc.log" 2>&1; then
                fail "$name" "$cc $src: $(cat "$tmp/cc.log")"
                continue
            fi
            env "${settings[@]}" SHMEMU_NPES="$npes" SHMEMU_EVENTS="$log" SHMEMU_HANG_TIMEOUT=20 \
                timeout 120 "$tmp/$prog" >"$tmp/run.log" 2>&1
        fi
        if [ ! -s "$log" ]; then
            fail "$name" "the run wrote no event log: $(tail -5 "$tmp/run.log")"
            continue
        fi
        shot "$name" "$log" "$course_out/$name.png" --fit --expand || continue
        [ "$edit_lessons" = 1 ] || continue
        # the image on the line after the marker
        python3 - "$lesson" "$marker" "![${what#*: }](figures/$name.png)" <<'PY' || fail "$name" "could not write the image line into $lesson"
import os, sys
path, marker, image = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(path).read().split('\n')
i = lines.index(marker)
if i + 1 < len(lines) and lines[i + 1].startswith('![') and lines[i + 1].endswith(')'):
    if lines[i + 1] == image:
        sys.exit(0)
    lines[i + 1] = image
else:
    lines.insert(i + 1, image)
tmp = path + '.tmp.%d' % os.getpid()
open(tmp, 'w').write('\n'.join(lines))
os.rename(tmp, path)
PY
    done < <(grep -E '^<!-- figure: [a-z0-9-]+: ' "$lesson")
done

# ---- the docs ------------------------------------------------------------------------------
log=$tmp/md-fused-8pe.jsonl
SHMEMU_SCHED=random SHMEMU_SEED=1 SHMEMU_EVENTS="$log" "$md" --cells 4 --pes 8 --dd 2x2x2 \
    --halo fused --steps 1 >"$tmp/run.log" 2>&1 || fail md-fused-8pe "$(tail -3 "$tmp/run.log")"
[ -s "$log" ] && shot md-fused-8pe "$log" "$docs_out/md-fused-8pe.png" --fit
log=$tmp/md-occupancy-emulator.jsonl
SHMEMU_EMU_SMS=16 "$md" --cells 8 --pes 2 --halo fused --steps 12 --nstlist 10 \
    --occupancy "$log" >"$tmp/run.log" 2>&1 || fail md-occupancy-emulator "$(tail -3 "$tmp/run.log")"
[ -s "$log" ] && shot md-occupancy-emulator "$log" "$docs_out/md-occupancy-emulator.png" \
    --part occ --x time --fit
if [ -s docs/figures/md-occupancy-h100.jsonl ]; then
    shot md-occupancy-h100 docs/figures/md-occupancy-h100.jsonl "$docs_out/md-occupancy-h100.png" \
        --part occ --x time --fit
else
    fail md-occupancy-h100 "docs/figures/md-occupancy-h100.jsonl is missing (recorded on a GPU: docs/gpu.md)"
fi

echo "course-figures: $made made, $failed failed"
[ "$failed" = 0 ]

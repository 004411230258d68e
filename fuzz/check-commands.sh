#!/usr/bin/env bash
# fuzz/check-commands.sh: runs the build command written in each harness's opening comment,
# as written (from the repository root, into a scratch folder), and then the harness over
# its corpus with -runs=0: the comments must not rot. Slow (each command compiles the
# sources it names with sanitizers): not part of the suite; run after changing a harness.
#
#   fuzz/check-commands.sh [fuzz/fuzz_foo.c ...]     (default: every harness)
set -u
cd "$(dirname "$0")/.."
root=$PWD
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
[ $# -eq 0 ] && set -- fuzz/fuzz_*.c
for src in "$@"; do
    h=$(basename "$src" .c)
    # the comment's lines from "srcs=" or "clang" up to the line that runs ./HARNESS
    cmd=$(sed -n '/^ \*   \(srcs=\|clang\)/,/\.\/fuzz_/p' "$src" | sed 's/^ \*   //' |
          grep -v '\./fuzz_')
    if [ -z "$cmd" ]; then
        echo "check-commands: $src: no build command in its comment" >&2
        failed=1
        continue
    fi
    # run it from the root (paths are relative to it); the binary lands in the root: move it
    if (cd "$root" && bash -e -c "$cmd") > "$scratch/$h.log" 2>&1 && [ -x "$root/$h" ]; then
        mv "$root/$h" "$scratch/$h"
        if "$scratch/$h" -runs=0 "fuzz/corpus/$h" >> "$scratch/$h.log" 2>&1; then
            echo "check-commands: $h: the comment's command builds it; its corpus replays"
            continue
        fi
    fi
    rm -f "$root/$h"
    echo "check-commands: $h: FAILED:" >&2
    tail -15 "$scratch/$h.log" >&2
    failed=1
done
exit $failed

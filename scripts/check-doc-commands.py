#!/usr/bin/env python3
"""check-doc-commands.py: every command that README.md and docs/ show must work.

    scripts/check-doc-commands.py [--list] [FILE.md ...]     (default: README.md docs/*.md
                                                              bench/*.md)

What counts as a command, and what is done with it:
- A fenced block tagged ```sh: each of its commands (a line, with trailing-backslash
  continuations joined) is RUN with bash, in order, in a scratch directory that mirrors the
  repository (a symbolic link to each top-level entry, so `make` and `bin/...` work as in
  the checkout) and holds the example inputs the docs name: prog.c and myprog.c
  (tests/doc/prog.c) and state.lmp (tests/md_data/lammps_fcc256.data). A command fails on a
  non-zero exit or after --timeout seconds (default 300).
- A block preceded by `<!-- doc-test: dry: WHY -->` (on one of the two lines above its fence)
  is checked without running it, for commands that need a GPU or take too long for the
  suite: `make ARGS` must succeed as `make -n ARGS`; a path under bin/ or scripts/ must exist
  (bin/ after the build); a script must pass `bash -n`; `./PROG` must have been built in the
  scratch directory by an earlier block.
- An inline `make ARGS` span gets `make -n ARGS`; an inline span naming a bin/ or scripts/
  path must name one that exists; an inline `bin/PROG ARGS` span without placeholders (an
  upper-case word such as N or FILE, "args", "...") is run like a block command.
- The README's `bash scripts/run-tests.sh` is the command that runs this check (CI runs it):
  it is reported as not run here, with that reason, never as passed.

Ends with "doc commands: N passed, N failed" and exits 1 if any failed.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = {
    "prog.c": "tests/doc/prog.c",
    "myprog.c": "tests/doc/prog.c",
    "state.lmp": "tests/md_data/lammps_fcc256.data",
}
RECURSIVE = re.compile(r"scripts/run-tests\.sh\b")
PLACEHOLDER = re.compile(r"(\.\.\.|…|\bargs\b|\bPROGRAM\b|(?<![-\w])[A-Z][A-Z_]*(?![\w=]))")
DIRECTIVE = re.compile(r"<!--\s*doc-test:\s*(dry|run)\s*:?\s*(.*?)\s*-->")


class Command:
    def __init__(self, where, text, mode, why=""):
        self.where, self.text, self.mode, self.why = where, text, mode, why


def block_commands(lines):
    """Joins backslash continuations; drops blank and comment-only lines."""
    out, cur = [], ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        cur += line
        if cur.strip() and not cur.strip().startswith("#"):
            out.append(cur.strip())
        cur = ""
    if cur.strip():
        out.append(cur.strip())
    return out


def collect(path):
    rel = os.path.relpath(path, ROOT)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    cmds, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            for span in re.findall(r"`([^`\n]+)`", lines[i]):
                span = span.strip()
                if re.match(r"^(make|bin/|scripts/|bash scripts/)", span):
                    cmds.append(Command(f"{rel}:{i + 1}", span, "inline"))
            i += 1
            continue
        tag, start = m.group(1), i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        if tag == "sh":
            mode, why = "run", ""
            for k in (start - 1, start - 2):
                d = DIRECTIVE.search(lines[k]) if k >= 0 else None
                if d:
                    mode, why = d.group(1), d.group(2)
                    break
            for c in block_commands(lines[start + 1:j]):
                cmds.append(Command(f"{rel}:{start + 1}", c, mode, why))
        i = j + 1
    return cmds


def run(cmd, cwd, timeout):
    t0 = time.time()
    try:
        p = subprocess.run(["bash", "-c", cmd], cwd=cwd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), time.time() - t0
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        return 124, out + f"\n(killed after {timeout} s)", time.time() - t0


def words(cmd):
    """The command's words after leading VAR=value assignments."""
    w = cmd.split()
    while w and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w[0]):
        w = w[1:]
    return w


def dry_check(cmd, scratch):
    """Checks a command without running it; returns (ok, message)."""
    w = words(cmd)
    if not w:
        return False, "empty command"
    if w[0] == "make":
        rc, out, _ = run("make -n " + " ".join(w[1:]) + " >/dev/null", scratch, 120)
        return rc == 0, out.strip()[-800:] or "make -n: ok"
    if w[0] in ("bash", "sh") and len(w) > 1:
        w = w[1:]
    path = os.path.join(ROOT, w[0])
    if w[0].startswith(("bin/", "scripts/", "./scripts/")):
        if not os.path.exists(path):
            return False, f"{w[0]} does not exist"
        if w[0].endswith(".sh"):
            rc, out, _ = run(f"bash -n {path}", ROOT, 30)
            return rc == 0, out.strip() or "bash -n: ok"
        return os.access(path, os.X_OK), f"{w[0]} exists"
    if w[0].startswith("./"):  # a program an earlier block of the docs built in the scratch
        ok = os.access(os.path.join(scratch, w[0]), os.X_OK)
        return ok, f"{w[0]} {'was built by an earlier block' if ok else 'was built by no earlier block'}"
    if shutil.which(w[0]) is None:
        return False, f"{w[0]}: no such command on PATH"
    return True, f"{w[0]} found on PATH"


def make_scratch():
    scratch = tempfile.mkdtemp(prefix="doc-commands.")
    for name in os.listdir(ROOT):
        if name != ".git":
            os.symlink(os.path.join(ROOT, name), os.path.join(scratch, name))
    for name, src in FIXTURES.items():
        shutil.copyfile(os.path.join(ROOT, src), os.path.join(scratch, name))
    return scratch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--list", action="store_true", help="list the commands and modes only")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per command")
    args = ap.parse_args()
    files = args.files or ([os.path.join(ROOT, "README.md")]
                           + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
                           + sorted(glob.glob(os.path.join(ROOT, "bench", "*.md"))))
    passed = failed = notrun = 0
    seen = set()
    for path in files:
        if not os.path.isfile(path):
            print(f"check-doc-commands: {path}: no such file", file=sys.stderr)
            return 2
        scratch = make_scratch()
        try:
            for c in collect(path):
                if c.mode == "inline":
                    if (c.text) in seen:
                        continue
                    seen.add(c.text)
                mode = c.mode
                if mode == "inline":
                    w = words(c.text)
                    if w[0] == "make":
                        mode = "dry"
                    elif len(w) > 1 and w[0].startswith("bin/") and not PLACEHOLDER.search(c.text):
                        mode = "run"
                    else:
                        mode = "dry"
                if args.list:
                    print(f"{mode:4} {c.where}: {c.text}")
                    continue
                if RECURSIVE.search(c.text):
                    print(f"NOT RUN  {c.where}: {c.text}  (this check is part of it; CI runs it)")
                    notrun += 1
                    continue
                if mode == "run":
                    rc, out, secs = run(c.text, scratch, args.timeout)
                    ok, msg = rc == 0, out.strip()[-1500:]
                    label = f"{secs:.1f} s"
                else:
                    ok, msg = dry_check(c.text, scratch)
                    label = "dry" + (f", {c.why}" if c.why else "")
                if ok:
                    passed += 1
                    print(f"PASS  {c.where}: {c.text}  ({label})")
                else:
                    failed += 1
                    print(f"FAIL  {c.where}: {c.text}  ({label})")
                    print("\n".join("    " + l for l in msg.split("\n")))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    if not args.list:
        print(f"doc commands: {passed} passed, {failed} failed ({notrun} not run, named above)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

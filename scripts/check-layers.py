#!/usr/bin/env python3
"""check-layers.py: the runtime's files call each other in layers, with only the cycles
the design needs.

    scripts/check-layers.py [BUILD]        (default BUILD=build; needs `make libs` first)

A file depends on another when its object file uses a symbol the other defines (read with
nm from BUILD/pgas/src/*.o and BUILD/emu/src/*.o). Files that depend on each other, directly
or around a loop, form an import cycle: neither can be read, tested or replaced without the
other. The cycles allowed are the genuine ones listed in GENUINE below (docs/design.md, "Layering"); each file in one must
say why in a comment containing "import cycle". Any other cycle fails the check and is
printed with the edges that close it, so the fix (usually: move "who am I" or an error
helper down a layer) is visible.

Exit 0 when the cycles found are exactly within the allowed ones, 1 otherwise, 2 on misuse.
"""
import glob
import os
import subprocess
import sys

# The cycles the design needs, per directory, and why (docs/design.md, "Layering").
GENUINE = {
    # pgas has none: a write wakes parked waiters, and a barrier waits, through the backend's
    # table (world->backend), so those run-time calls upward are no link-time dependency.
    "pgas/src": [],
    "emu/src": [
        # a stream runs launches in order; a launch is enqueued on, and joins, its stream.
        {"stream", "launch"},
    ],
}

DEFINED = set("TDBRVWG")


def object_graph(obj_dir):
    """file -> set of files whose symbols it uses (file = object name without .o)."""
    objects = sorted(glob.glob(os.path.join(obj_dir, "*.o")))
    defined_in, used_by = {}, {}
    for obj in objects:
        name = os.path.basename(obj)[:-2]
        used_by[name] = set()
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in DEFINED:
                defined_in[parts[2]] = name
            elif len(parts) == 2 and parts[0] == "U":
                used_by[name].add(parts[1])
    graph = {name: set() for name in used_by}
    for name, symbols in used_by.items():
        for sym in symbols:
            owner = defined_in.get(sym)
            if owner is not None and owner != name:
                graph[name].add(owner)
    return graph


def cycles(graph):
    """Strongly connected components of more than one file (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def main():
    if len(sys.argv) > 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    build = sys.argv[1] if len(sys.argv) == 2 else "build"
    ok = True
    for src_dir, genuine in GENUINE.items():
        obj_dir = os.path.join(build, src_dir)
        graph = object_graph(obj_dir)
        if not graph:
            print(f"check-layers: no object files in {obj_dir}: run `make BUILD={build} libs` first",
                  file=sys.stderr)
            return 2
        for component in cycles(graph):
            allowed = next((g for g in genuine if component <= g), None)
            if allowed is None:
                ok = False
                print(f"FAIL {src_dir}: import cycle of {len(component)} files, not a genuine one:")
                for name in sorted(component):
                    print(f"    {name} -> {', '.join(sorted(graph[name] & component))}")
                continue
            for name in sorted(component):
                path = os.path.join(src_dir, name + ".c")
                with open(path, encoding="utf-8") as f:
                    if "import cycle" not in f.read():
                        ok = False
                        print(f"FAIL {path}: in the genuine cycle {sorted(component)} "
                              "but no comment says why (write one containing \"import cycle\")")
            print(f"ok   {src_dir}: genuine cycle {sorted(component)}")
        print(f"ok   {src_dir}: {len(graph)} files checked")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The include graph of a source tree's folders (core/src by default).

Prints each folder with the folders it includes from, lowest layer first, and
exits 1 naming every include cycle between folders (with the files that make
each edge of it). A folder may include only from layers below its own, so a
reader and the build see the same order: errors/ and util/ at the ground,
the transport (http/) above them, the stages above that, app/ and cli/ on top.

    scripts/lib/folder_graph.py [ROOT]
"""
import collections
import os
import re
import sys

INCLUDE = re.compile(r'\s*#\s*include\s+"([^/"]+)/')


def folder_graph(root):
    folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for folder in folders:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                path = os.path.join(dirpath, name)
                with open(path, errors="replace") as f:
                    for line in f:
                        m = INCLUDE.match(line)
                        if m and m.group(1) in folders and m.group(1) != folder:
                            edges[folder][m.group(1)].add(os.path.relpath(path, root))
    return folders, edges


def cycles(folders, edges):
    """Strongly connected components of more than one folder (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in folders:
        if v not in index:
            visit(v)
    return found


def layers(folders, edges):
    """Layer of each folder: 0 for one that includes no other, else one above its highest include."""
    layer = {}

    def of(v, seen=()):
        if v in layer:
            return layer[v]
        if v in seen:
            return 0  # in a cycle: reported separately
        layer[v] = 1 + max((of(w, seen + (v,)) for w in edges[v]), default=-1)
        return layer[v]

    for v in folders:
        of(v)
    return layer


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "core", "src")
    folders, edges = folder_graph(root)
    found = cycles(folders, edges)
    layer = layers(folders, edges)
    for v in sorted(folders, key=lambda f: (layer[f], f)):
        print(f"{layer[v]:2d} {v}/ -> {', '.join(sorted(edges[v])) or '(nothing)'}")
    for component in found:
        print(f"cycle: {', '.join(component)}")
        for a in component:
            for b in sorted(edges[a]):
                if b in component:
                    print(f"  {a}/ -> {b}/ by {', '.join(sorted(edges[a][b]))}")
    if found:
        print(f"{len(found)} include cycle(s) between folders", file=sys.stderr)
        return 1
    print(f"{len(folders)} folders, no include cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())

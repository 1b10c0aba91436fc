"""Reads `jdeps -verbose:class` of one module on stdin; prints its package cycles (see package-cycles)."""
import sys, re, collections
mod = sys.argv[1]
edges = collections.defaultdict(set); classes = collections.defaultdict(set)
modules = set()
for line in sys.stdin:
    j = re.match(r"classes -> .*/hostwide-(.+)-\d[^/]*\.jar$", line.strip())
    if j:
        modules.add(j.group(1))
        continue
    m = re.match(r"\s+(\S+)\s+->\s+(\S+)\s+(\S+)", line)
    if not m: continue
    a, b, where = m.groups()
    top = a.split("$")[0]; pa = a.rsplit(".", 1)[0]; pb = b.rsplit(".", 1)[0]
    classes[pa].add(top)
    if b.startswith("io.hostwide.") and pa != pb and where == "classes": edges[pa].add(pb)
nodes = set(classes) | set(edges)
index = {}; low = {}; stack = []; on = set(); sccs = []; n = [0]
def strong(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index: strong(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v: break
        sccs.append(c)
sys.setrecursionlimit(10000)
for v in sorted(nodes):
    if v not in index: strong(v)
total = sum(len(c) for c in classes.values())
print(f"{mod} -> {', '.join(sorted(modules)) or '(no hostwide module)'}")
cyc = [c for c in sccs if len(c) > 1]
if not cyc:
    print(f"{mod}: {len(nodes)} packages, {total} top-level classes, no package cycle")
for c in cyc:
    k = sum(len(classes[p]) for p in c)
    print(f"{mod}: CYCLE of {len(c)} packages, {k} of {total} top-level classes: {', '.join(sorted(c))}")
sys.exit(1 if cyc else 0)

#!/usr/bin/env python3
"""Per-thread CPU and wake-ups of a gateway process, for bench/scripts/rbd-vs.sh --thread-detail (issue 15).

  rbd_threads.py snap PID                      one line per thread group: name, CPU ticks, voluntary switches
  rbd_threads.py round BEFORE AFTER OPS HZ     per group: CPU us per op and voluntary context switches per op,
                                               as "name=us/switches;..." (groups with CPU or switches in the round)
  rbd_threads.py summary FILE [TITLE]          FILE: "cell<TAB>row<TAB>round<TAB>groups" lines; medians per cell and row
                                               (TITLE: what the threads are, "Gateway threads" unless given)

A voluntary context switch is a thread blocking (in read(2) on a socket or an eventfd, a futex): each is one later
wake-up, so switches per op count the hand-offs between threads an operation costs (librbd's messenger and
io_context_pool, our RBD poller, the connection's reader). Thread groups are the thread's name (comm, 15 characters)
without a trailing number: "msgr-worker-1" and "msgr-worker-2" are "msgr-worker", every "iscsi-conn-/127..." is
"iscsi-conn", every "rbd-poll-..." is "rbd-poll". Threads that ended between the two snapshots are not counted (a
connection's threads when the client logs out before the snapshot after the round): their CPU is the group
"(ended)", the process's total less the live threads', with no switch count.
"""
import os
import re
import statistics
import sys
from collections import defaultdict

PROCESS, ENDED = "(process)", "(ended)"
PREFIXES = ("iscsi-conn", "rbd-poll", "iscsi-login", "C1 CompilerThre", "C2 CompilerThre", "GC Thread")


def group(comm):
    for p in PREFIXES:
        if comm.startswith(p):
            return p
    return re.sub(r"[-#_ ]?\d+$", "", comm) or comm


def snap(pid):
    out = defaultdict(lambda: [0, 0])
    base = f"/proc/{pid}/task"
    for tid in os.listdir(base):
        try:
            with open(f"{base}/{tid}/stat") as f:
                stat = f.read()
            with open(f"{base}/{tid}/status") as f:
                status = f.read()
        except OSError:
            continue  # the thread ended meanwhile
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime (stat fields 14 and 15)
        vcsw = int(re.search(r"voluntary_ctxt_switches:\s*(\d+)", status).group(1))
        g = out[group(comm)]
        g[0] += ticks
        g[1] += vcsw
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()
    out[PROCESS] = [int(fields[11]) + int(fields[12]), 0]  # every thread's, the ended ones' too
    return out


def read_snap(path):
    out = {}
    with open(path) as f:
        for line in f:
            name, ticks, vcsw = line.rstrip("\n").split("\t")
            out[name] = (int(ticks), int(vcsw))
    return out


def round_groups(before, after, ops, hz):
    """{group: (CPU us per op, voluntary switches per op)} for groups that did anything; "(ended)" is the CPU of
    threads that ended before the second snapshot (the process's total less the live groups'), switches unknown."""
    res = {}
    live = 0
    for name, (t1, v1) in after.items():
        if name == PROCESS:
            continue
        t0, v0 = before.get(name, (0, 0))
        dt, dv = max(0, t1 - t0), max(0, v1 - v0)
        live += dt
        if dt or dv:
            res[name] = (dt / hz * 1e6 / ops, dv / ops)
    if PROCESS in after and PROCESS in before:
        ended = after[PROCESS][0] - before[PROCESS][0] - live
        if ended > 0:
            res[ENDED] = (ended / hz * 1e6 / ops, 0.0)
    return res


def fmt_groups(groups):
    items = sorted(groups.items(), key=lambda kv: -kv[1][0])
    return ";".join(f"{k}={us:.1f}/{w:.2f}" for k, (us, w) in items)


def parse_groups(s):
    out = {}
    for item in filter(None, s.split(";")):
        k, v = item.rsplit("=", 1)
        us, w = v.split("/")
        out[k] = (float(us), float(w))
    return out


def summary(lines, top=8, title="Gateway threads"):
    rounds = defaultdict(list)
    order = []
    for line in lines:
        cell, row, _, groups = line.rstrip("\n").split("\t")
        if (cell, row) not in order:
            order.append((cell, row))
        rounds[(cell, row)].append(parse_groups(groups))
    text = [f"{title} (medians over rounds; CPU us per op / voluntary switches per op, largest CPU first)"]
    for key in order:
        rs = rounds[key]
        names = {n for r in rs for n in r}
        med = {n: (statistics.median(r.get(n, (0, 0))[0] for r in rs),
                   statistics.median(r.get(n, (0, 0))[1] for r in rs)) for n in names}
        items = sorted(med.items(), key=lambda kv: -kv[1][0])[:top]
        text.append(f"{key[0]:<18} {key[1]:<9} " + "  ".join(f"{n} {us:.0f}/{w:.2f}" for n, (us, w) in items))
    return text


def main(argv):
    if len(argv) == 3 and argv[1] == "snap":
        for name, (t, v) in sorted(snap(argv[2]).items()):
            print(f"{name}\t{t}\t{v}")
    elif len(argv) == 6 and argv[1] == "round":
        ops = max(1.0, float(argv[4]))
        print(fmt_groups(round_groups(read_snap(argv[2]), read_snap(argv[3]), ops, float(argv[5]))))
    elif len(argv) in (3, 4) and argv[1] == "summary":
        with open(argv[2]) as f:
            print("\n".join(summary(f.readlines(), title=argv[3] if len(argv) == 4 else "Gateway threads")))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)

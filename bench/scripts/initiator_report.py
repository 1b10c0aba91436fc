#!/usr/bin/env python3
"""Medians, ratios and verdicts of initiator-vs-libiscsi.sh's rounds: a table on stdout, optionally JSON.

Input lines: "cell<TAB>target<TAB>client<TAB>round<TAB>iops<TAB>cpu_us_per_io_whole<TAB>cpu_us_per_io_run" where the
whole-process figure is user+sys of the client process (/usr/bin/time) over its I/Os, and the run figure is the
client's own account of the measured interval (hostwide bench's cpu.ns_per_io; "-" for iscsi-perf, whose start-up
is a login of a few milliseconds, so its whole-process figure is its run figure). The shell script has already
refused any failed or zero round, so every value is a measurement.

Verdict of a ratio (client / iscsi-perf >= goal), with the spread of the rounds as the noise margin:
"met" when even the worst pairing (slowest round of ours over the fastest of iscsi-perf) reaches the goal,
"not met" when even the best pairing falls short, "inconclusive" otherwise.
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict

PEER = "iscsi-perf"


def verdict(ours, peer, goal=1.0):
    """'met', 'not met' or 'inconclusive' for ours/peer >= goal, from the rounds' extremes."""
    if not ours or not peer:
        raise ValueError("verdict needs rounds of both clients")
    if min(ours) / max(peer) >= goal:
        return "met"
    if max(ours) / min(peer) < goal:
        return "not met"
    return "inconclusive"


def load(lines):
    rounds = defaultdict(list)
    order = []
    for line in lines:
        cell, target, client, _, iops, whole, run = line.rstrip("\n").split("\t")
        key = (cell, target)
        if key not in order:
            order.append(key)
        rounds[(cell, target, client)].append(
            (float(iops), float(whole), None if run == "-" else float(run)))
    return order, rounds


def rows(order, rounds, clients):
    out = []
    for cell, target in order:
        row = {"cell": cell, "target": target, "clients": {}}
        peer_iops = [r[0] for r in rounds[(cell, target, PEER)]]
        for c in clients:
            rs = rounds.get((cell, target, c))
            if not rs:
                continue
            iops = [r[0] for r in rs]
            runs = [r[2] for r in rs if r[2] is not None]
            d = {
                "rounds_iops": iops,
                "median_iops": statistics.median(iops),
                "cpu_us_per_io_whole_process": statistics.median(r[1] for r in rs),
                "cpu_us_per_io_during_run": statistics.median(runs) if runs else statistics.median(r[1] for r in rs),
            }
            if c != PEER:
                d["ratio"] = d["median_iops"] / statistics.median(peer_iops)
                d["verdict"] = verdict(iops, peer_iops)
            row["clients"][c] = d
        out.append(row)
    return out


def table(out, clients, secs, nrounds):
    print(f"medians of {nrounds} rounds x {secs}s; ratio = IOPS / iscsi-perf's on the same target; cpu = us of "
          f"client CPU (user+sys) per I/O, whole process / during the run")
    head = f"{'cell':<18} {'target':<9} {'client':<16} {'IOPS':>9} {'ratio':>6}  {'>=1.0x':<12} {'cpu whole':>9} {'cpu run':>8}"
    print(head)
    for r in out:
        for c in clients:
            d = r["clients"].get(c)
            if d is None:
                continue
            ratio = f"{d['ratio']:.2f}x" if "ratio" in d else ""
            print(f"{r['cell']:<18} {r['target']:<9} {c:<16} {d['median_iops']:>9.0f} {ratio:>6}  "
                  f"{d.get('verdict', ''):<12} {d['cpu_us_per_io_whole_process']:>9.2f} {d['cpu_us_per_io_during_run']:>8.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--clients", required=True, help="comma-separated, in print order")
    ap.add_argument("--secs", type=int, required=True)
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    clients = a.clients.split(",")
    with open(a.results) as f:
        order, rounds = load(f)
    out = rows(order, rounds, clients)
    table(out, clients, a.secs, a.rounds)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"secs": a.secs, "rounds": a.rounds, "rows": out}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

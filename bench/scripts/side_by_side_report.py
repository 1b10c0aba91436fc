#!/usr/bin/env python3
"""Medians and ratios of iscsi-vs-tgt.sh's rounds: a table on stdout, optionally JSON and an SVG bar chart.

Input: lines "cell<TAB>client<TAB>target<TAB>round<TAB>ops_per_second" (the iperf3 rows: cell "iperf3", value in
bytes per second). The script has already refused any zero or failed round, so every value here is a measurement.

--cpu FILE (iscsi-vs-tgt.sh --cpu): lines "cell<TAB>client<TAB>target<TAB>round<TAB>MiB<TAB>client_cpu_s<TAB>
target_cpu_s<TAB>target_read_syscalls<TAB>target_write_syscalls" (iperf3's rows: sender and receiver CPU seconds). On --cores cores a cell moves at most cores / (client +
target CPU seconds per MiB) MiB/s; the CPU table prints that bound beside the measured rate and 70% of iperf3.
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict

TARGETS = ["tgtd", "hostwide-file", "hostwide-ram"]
BASE = "hostwide-base"  # --baseline-jar: the same file LUN from another build, for before/after in one run
SIZES = {"4k": 4096, "64k": 65536, "1m": 1048576}
MIB = 1 << 20


def block_size(cell):
    return SIZES[cell.split("-")[1]]


def load(path):
    rounds = defaultdict(list)
    order = []
    with open(path) as f:
        for line in f:
            cell, client, target, _, value = line.rstrip("\n").split("\t")
            if (cell, client) not in order:
                order.append((cell, client))
            rounds[(cell, client, target)].append(float(value))
    return order, rounds


def targets_of(rounds):
    return TARGETS + ([BASE] if any(k[2] == BASE for k in rounds) else [])


def rows(order, rounds):
    iperf = statistics.median(rounds[("iperf3", "iperf3", "loopback")])
    targets = targets_of(rounds)
    out = []
    for cell, client in order:
        if cell == "iperf3":
            continue
        bs = block_size(cell)
        med = {t: statistics.median(rounds[(cell, client, t)]) for t in targets}
        row = {
            "cell": cell, "client": client, "block_size": bs,
            "rounds": {t: rounds[(cell, client, t)] for t in targets},
            "median_iops": med,
            "median_mib_s": {t: med[t] * bs / MIB for t in targets},
            "ratio_file": med["hostwide-file"] / med["tgtd"],
            "ratio_ram": med["hostwide-ram"] / med["tgtd"],
        }
        if BASE in med:
            row["ratio_base"] = med[BASE] / med["tgtd"]
            row["ratio_file_to_base"] = med["hostwide-file"] / med[BASE]
        if bs >= 65536:
            row["share_of_iperf3"] = {t: med[t] * bs / iperf for t in targets}
        out.append(row)
    return iperf, out


def table(iperf, out, secs, nrounds):
    print(f"medians of {nrounds} rounds x {secs}s; ratio = hostwide / tgtd on the same client; "
          f"iperf3 single-stream loopback {iperf / MIB:.0f} MiB/s")
    print(f"{'cell':<26} {'client':<10} {'tgtd':>10} {'hw-file':>10} {'hw-ram':>10} {'file/tgtd':>9} "
          f"{'ram/tgtd':>9}  {'MiB/s tgtd / file / ram':<24} {'of iperf3 (file)':>16}")
    for r in out:
        m, b = r["median_iops"], r["median_mib_s"]
        mib = f"{b['tgtd']:.0f} / {b['hostwide-file']:.0f} / {b['hostwide-ram']:.0f}"
        share = f"{100 * r['share_of_iperf3']['hostwide-file']:.0f}%" if "share_of_iperf3" in r else ""
        print(f"{r['cell']:<26} {r['client']:<10} {m['tgtd']:>10.0f} {m['hostwide-file']:>10.0f} "
              f"{m['hostwide-ram']:>10.0f} {r['ratio_file']:>8.2f}x {r['ratio_ram']:>8.2f}x  {mib:<24} {share:>16}")
    if any("ratio_base" in r for r in out):
        print(f"\nbaseline (--baseline-jar): the same file LUN served by the other build, in the same rotation")
        print(f"{'cell':<26} {'client':<10} {'hw-base':>10} {'hw-file':>10} {'base/tgtd':>9} {'file/tgtd':>9} "
              f"{'file/base':>9}")
        for r in out:
            m = r["median_iops"]
            print(f"{r['cell']:<26} {r['client']:<10} {m[BASE]:>10.0f} {m['hostwide-file']:>10.0f} "
                  f"{r['ratio_base']:>8.2f}x {r['ratio_file']:>8.2f}x {r['ratio_file_to_base']:>8.2f}x")


def load_cpu(path):
    """Per (cell, client, target): the rounds' (client, target) CPU seconds per MiB."""
    per = defaultdict(list)
    with open(path) as f:
        for line in f:
            f = line.rstrip("\n").split("\t")
            cell, client, target, _, mib, client_s, target_s = f[:7]
            reads, writes = (float(f[7]), float(f[8])) if len(f) > 8 else (0.0, 0.0)
            mib = float(mib)
            if mib > 0:
                per[(cell, client, target)].append((float(client_s) / mib, float(target_s) / mib, reads / mib,
                                                    writes / mib))
    return per


def cpu_rows(out, per, cores):
    """The CPU bound of each large-block cell and target: cores / (client + target CPU seconds per MiB)."""
    rows = []
    for r in out:
        if r["block_size"] < 65536:
            continue
        for t in r["median_mib_s"]:
            v = per.get((r["cell"], r["client"], t))
            if not v:
                continue
            client = statistics.median(x[0] for x in v)
            target = statistics.median(x[1] for x in v)
            bound = cores / (client + target) if client + target > 0 else float("inf")
            rows.append({"cell": r["cell"], "client": r["client"], "target": t, "mib_s": r["median_mib_s"][t],
                         "client_ms_per_mib": 1000 * client, "target_ms_per_mib": 1000 * target,
                         "target_reads_per_mib": statistics.median(x[2] for x in v),
                         "target_writes_per_mib": statistics.median(x[3] for x in v),
                         "cpu_bound_mib_s": bound, "of_bound": r["median_mib_s"][t] / bound})
    return rows


def cpu_rows_small(out, per, cores):
    """The CPU bound of each 4 KiB cell and target in operations per second: cores / (client + target CPU s per op)."""
    rows = []
    for r in out:
        if r["block_size"] >= 65536:
            continue
        ops_per_mib = MIB / r["block_size"]
        for t in r["median_iops"]:
            v = per.get((r["cell"], r["client"], t))
            if not v:
                continue
            client = statistics.median(x[0] for x in v) / ops_per_mib
            target = statistics.median(x[1] for x in v) / ops_per_mib
            bound = cores / (client + target) if client + target > 0 else float("inf")
            rows.append({"cell": r["cell"], "client": r["client"], "target": t, "iops": r["median_iops"][t],
                         "client_us_per_op": 1e6 * client, "target_us_per_op": 1e6 * target,
                         "cpu_bound_iops": bound, "of_bound": r["median_iops"][t] / bound})
    return rows


def cpu_table_small(rows, cores):
    print(f"\nCPU per operation, 4 KiB cells (medians of the rounds), {cores} cores: bound = {cores} / (client + target "
          f"CPU s per op)")
    print(f"{'cell':<26} {'client':<10} {'target':<14} {'IOPS':>8} {'client us/op':>12} {'target us/op':>12} "
          f"{'CPU bound':>9} {'of bound':>8}")
    for c in rows:
        print(f"{c['cell']:<26} {c['client']:<10} {c['target']:<14} {c['iops']:>8.0f} {c['client_us_per_op']:>12.1f} "
              f"{c['target_us_per_op']:>12.1f} {c['cpu_bound_iops']:>9.0f} {100 * c['of_bound']:>7.0f}%")


def iperf_cpu(per, cores):
    v = per.get(("iperf3", "iperf3", "loopback"))
    if not v:
        return None
    sender = statistics.median(x[0] for x in v)
    receiver = statistics.median(x[1] for x in v)
    return {"sender_ms_per_mib": 1000 * sender, "receiver_ms_per_mib": 1000 * receiver,
            "cpu_bound_mib_s": cores / (sender + receiver)}


def cpu_table(iperf, rows, ip, cores):
    line70 = 0.7 * iperf / MIB
    print(f"\nCPU per MiB (medians of the rounds), {cores} cores: bound = {cores} / (client + target CPU s per MiB); "
          f"70% of iperf3 = {line70:.0f} MiB/s")
    if ip:
        print(f"iperf3 single stream: sender {ip['sender_ms_per_mib']:.3f} + receiver {ip['receiver_ms_per_mib']:.3f} "
              f"ms/MiB, bound {ip['cpu_bound_mib_s']:.0f} MiB/s, measured {iperf / MIB:.0f}")
    print(f"{'cell':<26} {'client':<10} {'target':<14} {'MiB/s':>7} {'client ms/MiB':>13} {'target ms/MiB':>13} "
          f"{'CPU bound':>9} {'of bound':>8} {'70% iperf3':>10} {'rd/wr calls/MiB':>15}")
    for c in rows:
        print(f"{c['cell']:<26} {c['client']:<10} {c['target']:<14} {c['mib_s']:>7.0f} {c['client_ms_per_mib']:>13.3f} "
              f"{c['target_ms_per_mib']:>13.3f} {c['cpu_bound_mib_s']:>9.0f} {100 * c['of_bound']:>7.0f}% "
              f"{'above' if c['mib_s'] >= line70 else 'below':>10} "
              f"{c['target_reads_per_mib']:>7.1f}/{c['target_writes_per_mib']:<7.1f}")


def svg(out, path):
    """Ratios per cell as horizontal bars, with the 1.0 line; plain SVG text, no chart library."""
    bar, gap, left, width = 9, 6, 300, 520
    top = 40
    hi = max([2.0] + [max(r["ratio_file"], r["ratio_ram"]) for r in out]) * 1.05
    height = top + len(out) * (2 * bar + gap) + 40
    x = lambda v: left + v / hi * width
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 40}" height="{height}" '
             f'font-family="sans-serif" font-size="11">',
             f'<text x="10" y="20" font-size="13">hostwide / tgtd (median ops/s), same client; '
             f'blue: file LUN on /dev/shm (like for like), grey: RAM LUN</text>']
    for i, r in enumerate(out):
        y = top + i * (2 * bar + gap)
        parts.append(f'<text x="{left - 6}" y="{y + bar + 4}" text-anchor="end">{r["cell"]} ({r["client"]})</text>')
        for j, (key, colour) in enumerate((("ratio_file", "#3070b0"), ("ratio_ram", "#a0a0a0"))):
            parts.append(f'<rect x="{left}" y="{y + j * bar}" width="{x(r[key]) - left:.1f}" height="{bar - 1}" '
                         f'fill="{colour}"/>')
            parts.append(f'<text x="{x(r[key]) + 3:.1f}" y="{y + j * bar + bar - 2}">{r[key]:.2f}</text>')
    for v in (1.0, 2.0, 3.0):
        if v < hi:
            parts.append(f'<line x1="{x(v):.1f}" y1="{top - 5}" x2="{x(v):.1f}" y2="{height - 30}" stroke="black" '
                         f'stroke-dasharray="{"none" if v == 1.0 else "3,3"}"/>')
            parts.append(f'<text x="{x(v):.1f}" y="{height - 15}" text-anchor="middle">{v:.0f}x</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results")
    p.add_argument("--secs", type=int, required=True)
    p.add_argument("--rounds", type=int, required=True)
    p.add_argument("--json")
    p.add_argument("--plot")
    p.add_argument("--cpu", help="iscsi-vs-tgt.sh --cpu's per-round CPU file")
    p.add_argument("--cores", type=int, default=2)
    a = p.parse_args()
    order, rounds = load(a.results)
    iperf, out = rows(order, rounds)
    table(iperf, out, a.secs, a.rounds)
    doc = {"secs": a.secs, "rounds": a.rounds, "iperf3_bytes_per_second": iperf,
           "iperf3_rounds": rounds[("iperf3", "iperf3", "loopback")], "cells": out}
    if a.cpu:
        per = load_cpu(a.cpu)
        crows, ip = cpu_rows(out, per, a.cores), iperf_cpu(per, a.cores)
        cpu_table(iperf, crows, ip, a.cores)
        srows = cpu_rows_small(out, per, a.cores)
        if srows:
            cpu_table_small(srows, a.cores)
        doc["cpu"] = {"cores": a.cores, "iperf3": ip, "cells": crows, "small_cells": srows}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)
    if a.plot:
        svg(out, a.plot)


if __name__ == "__main__":
    sys.exit(main())

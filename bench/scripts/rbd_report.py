#!/usr/bin/env python3
"""Medians, ratios, the iSCSI hop's ceiling and the CPU model of rbd-vs.sh's rounds: a table on stdout, optionally JSON.

  rbd_report.py RESULTS.tsv SECS ROUNDS CORES [JSON_OUT]

Input lines: "cell<TAB>row<TAB>round<TAB>ops_per_s<TAB>block_size<TAB>osd<TAB>gateway<TAB>client", the last three
CPU microseconds per operation of the OSD, the gateway process and the client process over the round ("-" for no
OSD: the hop row, or an existing cluster without its PID file). The shell script has already refused any failed or
zero round, so every value is a measurement.

The ceiling (issue 15). With client, gateway and OSD on the same few cores, a row's throughput is about
cores / (OSD + gateway + client CPU per op). librbd-direct pays OSD + librbd's client work (fio's process) per op,
D; any iSCSI gateway pays that and the iSCSI hop on top: the gateway's target side and the initiator, H, measured by
the hop row (`hostwide serve` with a RAM LUN, driven by the same clients). So no gateway on this box can reach more
than D / (D + H) of librbd-direct's throughput when the rows are CPU-bound: that ratio is the cell's ceiling,
printed beside hostwide/librbd-direct.

What the model leaves out (say so wherever its figures are quoted): fio's own bookkeeping is inside D although a
gateway would not pay it (so the ceiling is, if anything, low); the RAM LUN's memcpy per byte moved is inside H
although the RBD gateway's librbd fills the Data-In buffer in place (also low, most on 1 MiB cells); a row that is
not CPU-bound (writes at QD16 waiting on the OSD's commit) is limited by latency, not by the sum; and other work on
the machine takes cores from every row, unevenly across rounds.

The at-rate ceiling: the hop row runs 30-100x faster than a gateway row, and per op the iSCSI client costs far less
at that rate (4 KiB writes, 2026-12-04: `hostwide bench` 2-4 us per write through the hop, 26-49 through either
gateway at 1-4K writes/s: fewer operations per wake-up and per system call). So H understates what the hop costs a
gateway, most for writes. The report also prints D / (D + H') with H' = the hop row's target + the client's CPU per
op in the hostwide row (the same client program, at hostwide's rate). The target side is still taken at the hop's
rate, so H' too is a lower bound; no verdict is drawn from it.

Verdict of hostwide against the ceiling (a function with tests, test_rbd_report.py), from the rounds' extremes as
the noise margin: "below" when even the best pairing (fastest hostwide round over the slowest librbd-direct round,
over the lowest ceiling of a round) stays under the ceiling; "above" when even the worst pairing exceeds it (the
model misses something); "at" when neither holds and the medians' ratio is within +-10% of the ceiling;
"inconclusive" otherwise. With a hw-base row, hostwide against it ("higher", "lower", "inconclusive") for ops/s and
for the gateway's CPU per op, by the same rule as bench/scripts/initiator_report.py: the rounds' extremes.
"""
import json
import statistics
import sys
from collections import defaultdict

ROWS = ["librbd", "librbd-direct", "tgtd", "hostwide", "hw-base", "hop"]
AT_MARGIN = 0.10


def load(lines):
    """Rounds by (cell, row): a list of (round, ops/s, osd or None, gateway, client); cells in order of appearance."""
    order, rounds, block = [], defaultdict(list), {}
    for line in lines:
        cell, row, rnd, v, bs, osd, gw, client = line.rstrip("\n").split("\t")
        if cell not in order:
            order.append(cell)
        block[cell] = int(bs)
        rounds[(cell, row)].append((int(rnd), float(v), None if osd == "-" else float(osd), float(gw), float(client)))
    return order, rounds, block


def cpu_sum(r):
    """CPU us per op of one round: OSD (if any) + gateway + client."""
    return (r[2] or 0) + r[3] + r[4]


def cpu_median(rs):
    osd = [r[2] for r in rs if r[2] is not None]
    return {"osd": statistics.median(osd) if osd else None, "gateway": statistics.median(r[3] for r in rs),
            "client": statistics.median(r[4] for r in rs)}


def ceiling(direct_us, hop_us):
    """The share of librbd-direct's throughput any gateway can reach when CPU-bound: D / (D + H)."""
    if direct_us <= 0 or hop_us < 0:
        raise ValueError(f"ceiling needs positive CPU per op (librbd-direct {direct_us}, hop {hop_us})")
    return direct_us / (direct_us + hop_us)


def ceiling_verdict(hostwide, direct, ceilings, margin=AT_MARGIN):
    """'below', 'above', 'at' or 'inconclusive' for hostwide/direct against the ceiling (see the module's doc)."""
    if not hostwide or not direct or not ceilings:
        raise ValueError("a verdict needs rounds of hostwide, librbd-direct and the hop row")
    best = max(hostwide) / min(direct) / min(ceilings)
    worst = min(hostwide) / max(direct) / max(ceilings)
    if best < 1:
        return "below"
    if worst > 1:
        return "above"
    gap = statistics.median(hostwide) / statistics.median(direct) / statistics.median(ceilings)
    return "at" if abs(gap - 1) <= margin else "inconclusive"


def compare(after, before):
    """'higher', 'lower' or 'inconclusive' for after against before, from the rounds' extremes: 'higher' when even
    the lowest round of after is above the highest of before, 'lower' the reverse, else the rounds overlap."""
    if not after or not before:
        raise ValueError("a comparison needs rounds of both rows")
    if min(after) > max(before):
        return "higher"
    if max(after) < min(before):
        return "lower"
    return "inconclusive"


def predicted_ops(sum_us, cores):
    """The CPU model's throughput: cores / CPU seconds per op."""
    return cores * 1e6 / sum_us if sum_us > 0 else float("inf")


def cell_ceiling(rounds, cell):
    """The hop's ceiling of one cell: per-round ceilings (paired by round number), the medians' one, the verdict."""
    direct = {r[0]: r for r in rounds[(cell, "librbd-direct")]}
    hop = {r[0]: r for r in rounds[(cell, "hop")]}
    paired = sorted(set(direct) & set(hop))
    per_round = [ceiling(cpu_sum(direct[n]), hop[n][3] + hop[n][4]) for n in paired]
    d, h = cpu_median(rounds[(cell, "librbd-direct")]), cpu_median(rounds[(cell, "hop")])
    d_us = (d["osd"] or 0) + d["client"]
    h_us = h["gateway"] + h["client"]
    hw = [r[1] for r in rounds[(cell, "hostwide")]]
    dv = [r[1] for r in rounds[(cell, "librbd-direct")]]
    ratio = statistics.median(hw) / statistics.median(dv)
    c = ceiling(d_us, h_us)
    g = cpu_median(rounds[(cell, "hostwide")])
    hw_us = (g["osd"] or 0) + g["gateway"] + g["client"]
    # the same with the client's CPU per op as it was driving hostwide (see the module's doc: at-rate ceiling)
    h_rate = h["gateway"] + g["client"]
    c_rate = ceiling(d_us, h_rate)
    return {"direct_us": d_us, "hop_us": h_us, "ceiling": c, "ceiling_rounds": per_round,
            "hostwide_us": hw_us, "by_cpu": d_us / hw_us,
            "ratio_librbd_direct": ratio, "of_ceiling": ratio / c,
            "verdict": ceiling_verdict(hw, dv, per_round),
            "hop_at_rate_us": h_rate, "ceiling_at_rate": c_rate, "of_ceiling_at_rate": ratio / c_rate}


def cell_model(rounds, cell, rows, cores):
    """Per row: the model's predicted ops/s from the median CPU sum, the measured median, and their ratio."""
    out = {}
    for row in rows:
        rs = rounds[(cell, row)]
        s = statistics.median(cpu_sum(r) for r in rs)
        pred = predicted_ops(s, cores)
        meas = statistics.median(r[1] for r in rs)
        out[row] = {"cpu_us_per_op": s, "predicted_ops": pred, "measured_ops": meas, "measured_over_predicted": meas / pred}
    return out


def report(lines, secs, nrounds, cores):
    """The whole report: (text lines, JSON-able dict)."""
    order, rounds, block = load(lines)
    rows = [r for r in ROWS if any(k[1] == r for k in rounds)]
    base, hop = "hw-base" in rows, "hop" in rows
    text = [f"medians of {nrounds} rounds x {secs}s (ops/s; MiB/s for 1 MiB cells); librbd = fio ioengine=rbd, "
            "librbd-direct = the same with --direct=1 (rbd_cache off), gateways via iSCSI on loopback"
            + ("; hop = hostwide serve with a RAM LUN (the iSCSI hop alone)" if hop else "")]
    w = max(9, max(len(r) for r in rows))
    text.append(f"{'cell':<18} " + " ".join(f"{r:>{w}}" for r in rows)
                + f" {'hw/librbd':>10} {'hw/direct':>10} {'hw/tgtd':>8}"
                + (f" {'hw/base':>8} {'base/librbd':>11} {'base/direct':>11}" if base else ""))
    cells = []
    for cell in order:
        med = {r: statistics.median(x[1] for x in rounds[(cell, r)]) for r in rows}
        scale = block[cell] / (1 << 20) if block[cell] >= (1 << 20) else 1
        text.append(f"{cell:<18} " + " ".join(f"{med[r] * scale:>{w}.0f}" for r in rows)
                    + f" {med['hostwide'] / med['librbd']:>9.2f}x {med['hostwide'] / med['librbd-direct']:>9.2f}x"
                    + f" {med['hostwide'] / med['tgtd']:>7.2f}x"
                    + (f" {med['hostwide'] / med['hw-base']:>7.2f}x {med['hw-base'] / med['librbd']:>10.2f}x"
                       f" {med['hw-base'] / med['librbd-direct']:>10.2f}x" if base else ""))
        c = {"cell": cell, "block_size": block[cell], "rounds": {r: [x[1] for x in rounds[(cell, r)]] for r in rows},
             "median_ops": med, "ratio_librbd": med["hostwide"] / med["librbd"],
             "ratio_librbd_direct": med["hostwide"] / med["librbd-direct"],
             "ratio_tgtd": med["hostwide"] / med["tgtd"],
             "cpu_us_per_op": {r: cpu_median(rounds[(cell, r)]) for r in rows},
             "model": cell_model(rounds, cell, rows, cores)}
        if base:
            c["ratio_base"] = med["hostwide"] / med["hw-base"]
            c["versus_base"] = {
                "ops": compare([x[1] for x in rounds[(cell, "hostwide")]], [x[1] for x in rounds[(cell, "hw-base")]]),
                "gateway_cpu_us_per_op": compare([x[3] for x in rounds[(cell, "hostwide")]],
                                                 [x[3] for x in rounds[(cell, "hw-base")]])}
        if hop:
            c["ceiling"] = cell_ceiling(rounds, cell)
        cells.append(c)
    text.append("CPU microseconds per operation (medians; osd / gateway / client / sum)")
    for c in cells:
        text.append(f"{c['cell']:<18} " + "  ".join(f"{r} {fmt(c['cpu_us_per_op'][r])}" for r in rows))
    if base:
        text.append("hostwide against hw-base, every round of one outside the range of the other's (else inconclusive):"
                    " ops/s, gateway CPU us per op (median hostwide / hw-base)")
        for c in cells:
            g = c["cpu_us_per_op"]
            v = c["versus_base"]
            text.append(f"{c['cell']:<18} ops {v['ops']:<12} gateway CPU {v['gateway_cpu_us_per_op']:<12}"
                        f" ({g['hostwide']['gateway']:.0f} / {g['hw-base']['gateway']:.0f} us per op)")
    if hop:
        text.append("The iSCSI hop's ceiling: D = librbd-direct's OSD + client CPU us per op, H = the hop row's target"
                    " + client; ceiling = D / (D + H), the best any gateway can do against librbd-direct when CPU-bound")
        text.append("  (hw us: hostwide's OSD + gateway + client; by CPU = D / hw us, the ratio the model predicts for"
                    " hostwide from its own CPU; hw/direct: measured)")
        text.append(f"{'cell':<18} {'D us':>7} {'H us':>7} {'ceiling':>8} {'rounds':>17} {'hw us':>7} {'by CPU':>7}"
                    f" {'hw/direct':>10} {'of ceiling':>11}  verdict")
        for c in cells:
            e = c["ceiling"]
            rr = e["ceiling_rounds"]
            text.append(f"{c['cell']:<18} {e['direct_us']:>7.0f} {e['hop_us']:>7.0f} {e['ceiling']:>7.2f}x"
                        f" {min(rr):>7.2f}-{max(rr):.2f}x {e['hostwide_us']:>7.0f} {e['by_cpu']:>6.2f}x"
                        f" {e['ratio_librbd_direct']:>9.2f}x"
                        f" {e['of_ceiling']:>10.2f}x  {e['verdict']}")
    if hop:
        text.append("The same ceiling with the client's CPU per op taken from the hostwide row (H' = the hop's target +"
                    " the client as it drove hostwide, at hostwide's rate; the hop's target still at the hop's rate)")
        text.append(f"{'cell':<18} {'D us':>7} {'H us':>7} {'H at rate':>10} {'ceiling':>8} {'at rate':>8}"
                    f" {'by CPU':>7} {'hw/direct':>10} {'of it':>7}")
        for c in cells:
            e = c["ceiling"]
            text.append(f"{c['cell']:<18} {e['direct_us']:>7.0f} {e['hop_us']:>7.0f} {e['hop_at_rate_us']:>10.0f}"
                        f" {e['ceiling']:>7.2f}x {e['ceiling_at_rate']:>7.2f}x {e['by_cpu']:>6.2f}x"
                        f" {e['ratio_librbd_direct']:>9.2f}x {e['of_ceiling_at_rate']:>6.2f}x")
    text.append(f"CPU model: predicted ops/s = {cores} cores x 1e6 / CPU us per op (median sum); measured / predicted"
                " (1.00 = the row's processes used all the cores; less: waiting, or cores taken by other work)")
    text.append(f"{'cell':<18} " + " ".join(f"{r:>{w}}" for r in rows))
    for c in cells:
        text.append(f"{c['cell']:<18} " + " ".join(f"{c['model'][r]['measured_over_predicted']:>{w}.2f}" for r in rows))
    return text, {"secs": int(secs), "rounds": int(nrounds), "cores": cores, "cells": cells}


def fmt(c):
    o = c["osd"]
    total = (o or 0) + c["gateway"] + c["client"]
    return f"{'-' if o is None else f'{o:.0f}'}/{c['gateway']:.0f}/{c['client']:.0f}/{total:.0f}"


def main(argv):
    if len(argv) not in (5, 6):
        sys.exit("usage: rbd_report.py RESULTS.tsv SECS ROUNDS CORES [JSON_OUT]")
    with open(argv[1]) as f:
        text, data = report(f.readlines(), argv[2], argv[3], int(argv[4]))
    print("\n".join(text))
    if len(argv) == 6 and argv[5]:
        with open(argv[5], "w") as f:
            json.dump(data, f, indent=1)


if __name__ == "__main__":
    main(sys.argv)

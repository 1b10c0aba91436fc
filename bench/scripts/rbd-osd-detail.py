#!/usr/bin/env python3
"""What the OSD received per client operation, for bench/scripts/rbd-vs.sh --osd-detail (issue 15).

  rbd-osd-detail.py round BEFORE.json AFTER.json HISTORIC.json T0 T1
      BEFORE/AFTER: `perf dump` of the OSD around one round; HISTORIC: its `dump_historic_ops` after the round;
      T0/T1: the round's wall clock (Unix seconds). Prints one tab-separated line: osd ops, reads, writes,
      read-modify-writes, bytes in, bytes out, mean OSD op latency (us), and the op kinds of the historic ops that
      started within [T0, T1] as "kind=count;..." (a sample: the OSD keeps its last osd_op_history_size ops).
  rbd-osd-detail.py summary FILE
      FILE: the script's per-round lines (cell, row, round, client ops, then the fields above); prints per cell and
      row the medians per client operation and the op kinds seen, summed over the rounds.

An op kind is the object's class (rbd_data, rbd_header, rbd_object_map, rbd_id, other) and the OSD op names of the
MOSDOp ("write", "sparse-read", "set-alloc-hint+write", "call lock.get_info", ...), with data ops bucketed by size.
"""
import json
import re
import statistics
import sys
from collections import Counter, defaultdict
from datetime import datetime

OPS_RE = re.compile(r"\[(.*?)\]")
OBJ_RE = re.compile(r":::([^:]+):")
LEN_RE = re.compile(r"\d+~(\d+)")


def counter(dump, *path):
    v = dump
    for k in path:
        v = v.get(k, {}) if isinstance(v, dict) else {}
    return v if isinstance(v, (int, float)) else 0


def size_bucket(n):
    if n <= 4096:
        return "<=4K"
    if n <= 65536:
        return "<=64K"
    if n < 1 << 20:
        return "<1M"
    return ">=1M"


def kind(description):
    """'osd_op(client.4167.0:3051 2.6 2:7a7d...:::rbd_data.1059.00000000000000b5:head [write 2744320~4096 in=4096b]
    snapc 0=[] ondisk+write+known_if_redirected e20)' -> 'rbd_data write <=4K'."""
    m = OPS_RE.search(description)
    if not m:
        return description.split("(")[0]
    obj = OBJ_RE.search(description)
    name = obj.group(1) if obj else "?"
    cls = next((p for p in ("rbd_data", "rbd_header", "rbd_object_map", "rbd_id", "rbd_directory", "hostwide_pr")
                if name.startswith(p)), "other")
    names, sizes = [], []
    for op in m.group(1).split(","):
        words = op.strip().split()
        if not words:
            continue
        if words[0] in ("call", "watch", "notify", "notify-ack") and len(words) > 1:
            names.append(words[0] + " " + words[1].split("(")[0])
        else:
            names.append(words[0])
        ln = LEN_RE.search(op)
        if ln and words[0] in ("write", "writefull", "read", "sparse-read", "writesame", "zero", "cmpext"):
            sizes.append(int(ln.group(1)))
    k = cls + " " + "+".join(names)
    if sizes:
        k += " " + size_bucket(max(sizes))
    return k


def epoch(ts):
    """The OSD's "initiated_at" ("2026-12-04T12:40:01.123456+0000"; older releases: no T, no zone = UTC)."""
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%d %H:%M:%S.%f%z"):
        try:
            return datetime.strptime(ts, fmt).timestamp()
        except ValueError:
            pass
    return datetime.strptime(ts.replace("T", " ") + "+0000", "%Y-%m-%d %H:%M:%S.%f%z").timestamp()


def round_line(before, after, historic, t0, t1):
    b, a = json.load(open(before)), json.load(open(after))
    d = {k: counter(a, "osd", k) - counter(b, "osd", k)
         for k in ("op", "op_r", "op_w", "op_rw", "op_in_bytes", "op_out_bytes")}
    lat_n = counter(a, "osd", "op_latency", "avgcount") - counter(b, "osd", "op_latency", "avgcount")
    lat_s = counter(a, "osd", "op_latency", "sum") - counter(b, "osd", "op_latency", "sum")
    kinds = Counter()
    try:
        ops = json.load(open(historic)).get("ops", [])
    except (OSError, ValueError):
        ops = []
    for op in ops:
        try:
            t = epoch(op["initiated_at"])
        except (KeyError, ValueError):
            continue
        if t0 <= t <= t1:
            kinds[kind(op.get("description", ""))] += 1
    fields = [d["op"], d["op_r"], d["op_w"], d["op_rw"], d["op_in_bytes"], d["op_out_bytes"],
              f"{lat_s / lat_n * 1e6:.0f}" if lat_n else "0",
              ";".join(f"{k}={v}" for k, v in kinds.most_common())]
    print("\t".join(str(f) for f in fields))


def summary(path):
    per = defaultdict(list)
    kinds = defaultdict(Counter)
    order = []
    for line in open(path):
        cell, row, _, client_ops, op, op_r, op_w, op_rw, inb, outb, lat, ks = line.rstrip("\n").split("\t")
        if (cell, row) not in per:
            order.append((cell, row))
        n = max(float(client_ops), 1.0)
        per[(cell, row)].append((int(op) / n, int(op_r) / n, int(op_w) / n, int(op_rw) / n,
                                 int(inb) / n / 1024, int(outb) / n / 1024, float(lat)))
        for kv in filter(None, ks.split(";")):
            k, v = kv.rsplit("=", 1)
            kinds[(cell, row)][k] += int(v)
    print("OSD per client operation (medians over rounds): OSD ops (reads / writes / rmw), KiB in, KiB out, "
          "mean OSD op latency us")
    for key in order:
        xs = per[key]
        med = [statistics.median(x[i] for x in xs) for i in range(7)]
        print(f"{key[0]:<18} {key[1]:<9} ops {med[0]:5.2f} ({med[1]:.2f} / {med[2]:.2f} / {med[3]:.2f})  "
              f"in {med[4]:7.1f} KiB  out {med[5]:7.1f} KiB  latency {med[6]:6.0f} us")
    print("OSD op kinds (historic ops sampled in the rounds; share of the sample)")
    for key in order:
        c = kinds[key]
        total = sum(c.values()) or 1
        top = ", ".join(f"{k} {v / total:.1%}" for k, v in c.most_common(6))
        print(f"{key[0]:<18} {key[1]:<9} n={sum(c.values()):<6} {top}")


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "round":
        round_line(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6]))
    elif len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)

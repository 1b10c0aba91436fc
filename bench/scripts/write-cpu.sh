#!/usr/bin/env bash
# CPU per write on the target side (issue 13): tgtd and `hostwide serve` (and, with --baseline-jar, a second
# hostwide from another build) each serve a 1 GiB file LUN in /dev/shm (512-byte blocks, write-back cache, as in
# iscsi-vs-tgt.sh); one client, hostwide's own initiator (`hostwide bench --device iscsi:`), drives each target in
# turn with the same writes. For each run the target process's CPU time (utime + stime of /proc/PID/stat, all its
# threads) is read before and after, and divided by the writes the client completed: target CPU per I/O, the cost
# that decides how far a loaded 2-core machine scales. Rounds alternate targets (A B C, B C A, ...); medians.
#
#   bench/scripts/write-cpu.sh [--rounds N] [--secs S] [--jar HOSTWIDE.JAR] [--baseline-jar BEFORE.JAR]
#                              [--cells 'randwrite:4096:1 randwrite:4096:16 ...']
#
# Default cells: 4 KiB random writes at QD 1/16/64 and 1 MiB sequential writes at QD 1/4. Prints, per cell and
# target, the median IOPS and the median target CPU microseconds per I/O. The client's own CPU is not counted; it
# is the same client for every target. Timings on a shared machine are noisy: compare targets within one run.
# Needs root (tgtd) and tgt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=lib.sh
source "$root/bench/scripts/lib.sh"
rounds=3 secs=5 jar="" base="" cells="randwrite:4096:1 randwrite:4096:16 randwrite:4096:64 write:1048576:1 write:1048576:4"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --secs) secs=$2; shift ;;
    --jar) jar=$2; shift ;;
    --baseline-jar) base=$2; shift ;;
    --cells) cells=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "write-cpu.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ "$rounds" =~ ^[1-9][0-9]*$ && "$secs" =~ ^[1-9][0-9]*$ ]] || { echo "write-cpu.sh: --rounds and --secs take positive integers" >&2; exit 2; }
need_packages write-cpu.sh "and run as root for tgtd" tgtd:tgt tgtadm:tgt python3:python3
[ "$(id -u)" = 0 ] || { echo "write-cpu.sh: tgtd needs root" >&2; exit 1; }
# shellcheck source=../../bin/jdk.sh
source "$root/bin/jdk.sh"
# shellcheck source=../../bin/memory.sh
source "$root/bin/memory.sh"
if [ -z "$jar" ]; then
  "$root/hostwide" --version >/dev/null
  jar="$root/cli/target/hostwide.jar"
fi
[ -f "$jar" ] || { echo "write-cpu.sh: no such jar: $jar" >&2; exit 1; }
[ -z "$base" ] || [ -f "$base" ] || { echo "write-cpu.sh: no such jar: $base (--baseline-jar)" >&2; exit 1; }

work=$(mktemp -d /tmp/hostwide-write-cpu.XXXXXX)
pids=()
declare -A pid url
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5; for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -f /dev/shm/hostwide-write-cpu.$$.*; rm -rf "$work"
}
trap cleanup EXIT INT TERM

tport=$(pick_port); hport=$(pick_port "$tport"); bport=$(pick_port "$tport" "$hport")
tfile=/dev/shm/hostwide-write-cpu.$$.tgt; truncate -s 1G "$tfile"
ctl=$((100 + RANDOM % 1000))
tgtd -f --iscsi portal=127.0.0.1:$tport --control-port=$ctl >"$work/tgtd.log" 2>&1 & pids+=($!); pid[tgtd]=$!; disown $!
wait_port $tport || { echo "tgtd did not start: $(cat "$work/tgtd.log")" >&2; exit 1; }
tgtadm -C $ctl --lld iscsi --op new --mode target --tid 1 -T iqn.2026-12.org.tgt:cpu
tgtadm -C $ctl --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 --bstype rdwr -b "$tfile"
tgtadm -C $ctl --lld iscsi --op bind --mode target --tid 1 -I ALL
url[tgtd]="iscsi://127.0.0.1:$tport/iqn.2026-12.org.tgt:cpu/1"
targets=(tgtd hostwide)

serve() { # serve NAME JAR PORT
  local f=/dev/shm/hostwide-write-cpu.$$.$1
  truncate -s 1G "$f"
  cat >"$work/$1.json" <<EOF
{
  "portals": ["127.0.0.1:$3"],
  "backstores": { "file0": { "type": "file", "path": "$f", "size": "1g", "block_size": 512, "write_cache": true } },
  "targets": [ { "name": "iqn.2026-12.io.hostwide:cpu", "luns": [ { "lun": 0, "backstore": "file0" } ] } ]
}
EOF
  # shellcheck disable=SC2046 # the option strings split into words on purpose
  "$JAVA" -XX:+UseParallelGC -Xss1m $(hostwide_memory_options serve --memory 2g) -jar "$2" serve --memory 2g \
    --config "$work/$1.json" --admin-socket "$work/$1.sock" >"$work/$1.log" 2>&1 & pids+=($!); pid[$1]=$!; disown $!
  wait_port "$3" || { echo "$1: hostwide serve did not start: $(tail "$work/$1.log")" >&2; exit 1; }
  url[$1]="iscsi://127.0.0.1:$3/iqn.2026-12.io.hostwide:cpu/0"
}
serve hostwide "$jar" "$hport"
if [ -n "$base" ]; then serve hostwide-base "$base" "$bport"; targets+=(hostwide-base); fi

ticks=$(getconf CLK_TCK)
cpu_ns() { # utime + stime of a process, all threads, in ns
  awk -v c="$(proc_cpu_ticks "$1")" -v t="$ticks" 'BEGIN {print c * 1e9 / t}'
}
echo "write-cpu.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), ${rounds} rounds x ${secs}s, jar $jar${base:+, baseline $base}" >&2
results="$work/results.tsv"; : >"$results"
for c in $cells; do
  IFS=: read -r rw bs qd <<<"$c"
  for r in $(seq 1 "$rounds"); do
    for k in "${!targets[@]}"; do
      t=${targets[$(( (k + r - 1) % ${#targets[@]} ))]}
      before=$(cpu_ns "${pid[$t]}")
      "$JAVA" -XX:+UseParallelGC -jar "$jar" bench --device "iscsi:url=${url[$t]}" --rw="$rw" --bs="$bs" \
        --iodepth="$qd" --runtime="${secs}s" --seed="$r" --json >"$work/run.json" 2>"$work/run.err" \
        || { echo "write-cpu.sh: $rw $bs qd$qd on $t failed: $(cat "$work/run.err")" >&2; exit 1; }
      after=$(cpu_ns "${pid[$t]}")
      line=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); w=r["write"]
if r["errors"] or w["ios"] == 0: sys.exit("errors %d, ios %d" % (r["errors"], w["ios"]))
print(w["iops"], (float(sys.argv[3]) - float(sys.argv[2])) / w["ios"] / 1000)' "$work/run.json" "$before" "$after") \
        || { echo "write-cpu.sh: $rw $bs qd$qd on $t: $line" >&2; exit 1; }
      printf "%s-%s-qd%s\t%s\t%s\n" "$rw" "$bs" "$qd" "$t" "$line" >>"$results"
      printf "  %-24s %-14s round %d: %s IOPS, %s us target CPU per I/O\n" "$rw-$bs-qd$qd" "$t" "$r" ${line} >&2
    done
  done
done
python3 - "$results" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    cell, target, iops, us = line.split()
    rows.setdefault(cell, {}).setdefault(target, []).append((float(iops), float(us)))
for cell, by in rows.items():
    parts = []
    for target, v in by.items():
        parts.append("%s %.0f IOPS %.1f us/IO" % (target, statistics.median(i for i, _ in v), statistics.median(u for _, u in v)))
    print("%-24s %s" % (cell, " | ".join(parts)))
EOF

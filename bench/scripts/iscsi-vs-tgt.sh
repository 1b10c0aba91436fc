#!/usr/bin/env bash
# Side-by-side: Debian's tgtd (LUN on a 1 GiB file in /dev/shm) and `hostwide
# serve` (1 GiB RAM LUN), each on its own loopback port, driven in turn by
# libiscsi's iscsi-perf: 4 KiB random reads at -m 1, 16 and 64, rounds A B A B.
# Prints IOPS per round, the medians and hostwide/tgtd ratios.
#   bench/scripts/iscsi-vs-tgt.sh [rounds=3] [seconds=10]
# Needs: tgt and libiscsi-bin (apt-get install -y tgt libiscsi-bin), root for tgtd.
set -euo pipefail
rounds=${1:-3}; secs=${2:-10}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work=$(mktemp -d /tmp/hostwide-vs-tgt.XXXXXX)
for tool in tgtd tgtadm iscsi-perf iscsi-readcapacity16; do
  command -v $tool >/dev/null || { echo "missing $tool: apt-get install -y tgt libiscsi-bin" >&2; exit 1; }
done
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() { local p; while :; do p=$((20000 + RANDOM % 30000)); port_free $p && [ "$p" != "${1:-}" ] && { echo $p; return; }; done; }
wait_port() { for _ in $(seq 1 300); do port_free "$1" || return 0; sleep 0.1; done; return 1; }
tport=$(pick_port); hport=$(pick_port "$tport")
tiqn=iqn.2026-12.org.tgt:bench; hiqn=iqn.2026-12.io.hostwide:target0
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5; for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -f /dev/shm/hostwide-bench-tgt.img; rm -rf "$work"
}
trap cleanup EXIT INT TERM

truncate -s 1G /dev/shm/hostwide-bench-tgt.img
ctl=$((100 + RANDOM % 1000))   # tgtd's control-socket index, not a TCP port
tgtd -f --iscsi portal=127.0.0.1:$tport --control-port=$ctl >"$work/tgtd.log" 2>&1 & pids+=($!); disown $!
wait_port $tport || { echo "tgtd did not start: $(cat "$work/tgtd.log")" >&2; exit 1; }
tgtadm -C $ctl --lld iscsi --op new --mode target --tid 1 -T $tiqn
tgtadm -C $ctl --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 -b /dev/shm/hostwide-bench-tgt.img
tgtadm -C $ctl --lld iscsi --op bind --mode target --tid 1 -I ALL
"$root/hostwide" --version >/dev/null
"$root/hostwide" serve --listen 127.0.0.1:$hport >"$work/hostwide.log" 2>&1 & pids+=($!); disown $!
wait_port $hport || { echo "hostwide serve did not start: $(tail "$work/hostwide.log")" >&2; exit 1; }

turl="iscsi://127.0.0.1:$tport/$tiqn/1"; hurl="iscsi://127.0.0.1:$hport/$hiqn/0"
blocks() { local bs; bs=$(iscsi-readcapacity16 "$1" | awk -F: '/LOGICAL BLOCK LENGTH/ {print $2}'); echo $((4096 / bs)); }
tb=$(blocks "$turl"); hb=$(blocks "$hurl")
run() { # url blocks depth -> average IOPS
  iscsi-perf -r -m "$3" -b "$2" -t "$secs" "$1" 2>&1 | tr '\r' '\n' | awk '/iops average/ {v=$0} END {sub(/.*iops average /, "", v); sub(/ .*/, "", v); print v+0}'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2] + a[NR/2+1]) / 2)}'; }
printf "%-6s %-8s %s\n" depth target "IOPS per round (4 KiB random read, ${secs}s each)"
summary=()
for m in 1 16 64; do
  t=(); h=()
  for r in $(seq 1 "$rounds"); do
    t+=("$(run "$turl" "$tb" $m)"); h+=("$(run "$hurl" "$hb" $m)")
  done
  printf "%-6s %-8s %s\n" "-m $m" tgtd "${t[*]}"
  printf "%-6s %-8s %s\n" "-m $m" hostwide "${h[*]}"
  tm=$(printf "%s\n" "${t[@]}" | median); hm=$(printf "%s\n" "${h[@]}" | median)
  summary+=("$(printf "%-6s tgtd %8d  hostwide %8d  ratio %s" "-m $m" "$tm" "$hm" "$(awk -v a="$hm" -v b="$tm" 'BEGIN {printf (b > 0 ? "%.2fx" : "n/a"), a / b}')")")
done
echo; echo "medians:"; printf "%s\n" "${summary[@]}"

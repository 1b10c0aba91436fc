#!/usr/bin/env bash
# Issue 12's 16-client load against a running `hostwide serve --config bench/scripts/memory-load.json`, sampling the
# server's resident memory: 8 x `iscsi-perf -m 32` (4 KiB sequential reads, 32 in flight, on the 1 GiB LUN 0) and 8
# loops that each write 32 MiB of seeded random data to their own LUN (1..8) with `hostwide copy --bs 1m` and read
# it back to compare (`--verify --method compare`), for SECONDS.
#
#   bench/scripts/memory-load.sh PORT SERVE_PID [SECONDS]     (default 120)
#
# Prints the copy rounds and any that failed or differed, then the server's VmRSS: before, highest sample (every
# 2 s), and after the clients stopped.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
port=$1 pid=$2 seconds=${3:-120}
target="iqn.2026-12.io.hostwide:load"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rss() { awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status"; }

echo "rss before: $(rss) MiB"
end=$((SECONDS + seconds))
pids=()
for i in 1 2 3 4 5 6 7 8; do
  timeout "$seconds" iscsi-perf -m 32 "iscsi://127.0.0.1:$port/$target/0" >"$work/perf$i" 2>&1 &
  pids+=($!)
  (
    rounds=0 failed=0
    while [ "$SECONDS" -lt "$end" ]; do
      if "$root/hostwide" copy --from "debug:dev_size_mb=32" --fill-source \
          --to "iscsi:url=iscsi://127.0.0.1:$port/$target/$i" --bs 1m --verify --method compare \
          >"$work/copy$i.last" 2>&1; then
        rounds=$((rounds + 1))
      else
        failed=$((failed + 1)); cp "$work/copy$i.last" "$work/copy$i.failed.$failed"
      fi
    done
    echo "$rounds $failed" >"$work/copy$i"
  ) &
  pids+=($!)
done
peak=0
while [ "$SECONDS" -lt "$end" ]; do
  sleep 2
  now=$(rss)
  awk -v a="$now" -v b="$peak" 'BEGIN { exit !(a > b) }' && peak=$now
done
wait "${pids[@]}" || true
total=0 bad=0
for i in 1 2 3 4 5 6 7 8; do
  read -r r f <"$work/copy$i"
  total=$((total + r)); bad=$((bad + f))
  for failure in "$work"/copy$i.failed.*; do
    [ -e "$failure" ] && { echo "copy loop $i failed:"; tail -3 "$failure"; }
  done
done
perf=$(for i in 1 2 3 4 5 6 7 8; do tr '\r' '\n' <"$work/perf$i" | grep -o 'iops average [0-9]*' | tail -1; done \
  | awk '{s += $3} END {print s + 0}')
echo "copy rounds (32 MiB written, read back, compared): $total passed, $bad failed"
echo "iscsi-perf: sum of the 8 clients' average IOPS: $perf"
echo "rss peak (2 s samples): $peak MiB"
sleep 2
echo "rss 2 s after the clients stopped: $(rss) MiB"

#!/usr/bin/env bash
# Side by side, issue 13 item 3: hostwide's iSCSI initiator (`hostwide bench --device iscsi:`) against libiscsi's
# iscsi-perf, the same LUN for both, reads only (iscsi-perf cannot write). Two targets: `hostwide serve` with a 1 GiB
# RAM LUN, and Debian's tgtd with a sparse 1 GiB file in /dev/shm, both 512-byte blocks. Every cell runs its clients
# in turn, one round after the other (A B C, then B C A, ...), and reports per client the median IOPS, the ratio to
# iscsi-perf with a verdict against 1.0x (met / not met / inconclusive from the spread of the rounds), and the
# client's CPU cost per I/O.
#
#   bench/scripts/initiator-vs-libiscsi.sh [--quick] [--rounds N] [--secs S] [--json FILE] [--jar HOSTWIDE.JAR]
#                                          [--before-jar OLD.JAR] [--only REGEX] [--targets hostwide,tgtd]
#                                          [--poll] [--stress] [--ramp S]
#
# Matrix: 4 KiB random reads and 1 MiB sequential reads, each at QD 1, 16 and 64 (--quick: 4 KiB at QD 1 and 16,
# 1 MiB at QD 16, 3 s rounds). Clients: iscsi-perf (-r for random; -m QD; -b blocks), `hostwide bench` with the
# --jar, and with --before-jar a second hostwide client run from that jar: before/after in the same run, against
# the same targets. `hostwide serve` always runs from --jar. "hostwide" is bench as a user runs it: since
# --poll=auto became bench's default, it polls at 4 KiB and waits for the reader thread at 1 MiB (a jar from before
# never polls by default). --poll adds the client "hostwide-poll": the --jar's bench with --poll, polling in every
# cell (the job thread reads the connection itself while it waits, fio's hipri). --stress runs
# `stress-ng --cpu N` (N = the cores) for the whole run, started and stopped here: every client then competes
# with a CPU-bound process on every core. --ramp S: each hostwide client first runs the workload S seconds
# uncounted (bench --ramp-time; a --before-jar that lacks the option runs without, and the script says so), so the
# IOPS and "cpu run" are the steady state after JIT warm-up; iscsi-perf (C, no warm-up) runs its --secs as always.
# CPU per I/O: the client process's user+sys time (/usr/bin/time) over the I/Os it completed ("whole"), and for
# hostwide also bench's own figure for the measured interval ("run": excludes JVM start-up, JIT warm-up, login and
# scan, which the whole-process figure charges to a short run; with --ramp, "whole" is over the ramp's I/Os too).
# iscsi-perf starts in milliseconds: its two agree.
# iscsi-perf's I/Os are its "iops average" times --secs.
#
# A round that fails, hangs (10 x --secs + 60 s) or measures 0 stops the script with exit status 1 naming the cell,
# target, client and round: it never enters a median. Needs root (tgtd), tgt, libiscsi-bin, python3 and GNU time
# (package "time"); as root, missing packages are installed with apt-get. By default the worktree's ./hostwide is
# built and its jar used.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=lib.sh
source "$root/bench/scripts/lib.sh"
quick=0 rounds="" secs="" json="" jar="" before="" only="" targets="hostwide,tgtd" poll=0 stress=0 ramp=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --rounds) rounds=$2; shift ;;
    --secs) secs=$2; shift ;;
    --json) json=$2; shift ;;
    --jar) jar=$2; shift ;;
    --before-jar) before=$2; shift ;;
    --only) only=$2; shift ;;
    --targets) targets=$2; shift ;;
    --poll) poll=1 ;;
    --stress) stress=1 ;;
    --ramp) ramp=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "initiator-vs-libiscsi.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$quick" = 1 ] && { rounds=${rounds:-3}; secs=${secs:-3}; }
rounds=${rounds:-3}; secs=${secs:-5}
[[ "$rounds" =~ ^[1-9][0-9]*$ && "$secs" =~ ^[1-9][0-9]*$ ]] || { echo "initiator-vs-libiscsi.sh: --rounds and --secs take positive integers" >&2; exit 2; }
[[ "$ramp" =~ ^[0-9]+$ ]] || { echo "initiator-vs-libiscsi.sh: --ramp takes whole seconds" >&2; exit 2; }
[[ "$targets" =~ ^(hostwide|tgtd)(,(hostwide|tgtd))?$ ]] || { echo "initiator-vs-libiscsi.sh: --targets takes hostwide, tgtd or both" >&2; exit 2; }

need=(iscsi-perf:libiscsi-bin iscsi-readcapacity16:libiscsi-bin python3:python3)
[[ "$targets" == *tgtd* ]] && need+=(tgtd:tgt tgtadm:tgt)
[ "$stress" = 1 ] && need+=(stress-ng:stress-ng)
need_packages initiator-vs-libiscsi.sh "" "${need[@]}" /usr/bin/time:time
[[ "$targets" != *tgtd* || "$(id -u)" = 0 ]] || { echo "initiator-vs-libiscsi.sh: tgtd needs root (or --targets hostwide)" >&2; exit 1; }
# shellcheck source=../../bin/jdk.sh
source "$root/bin/jdk.sh"
# shellcheck source=../../bin/memory.sh
source "$root/bin/memory.sh"
if [ -z "$jar" ]; then
  "$root/hostwide" --version >/dev/null
  jar="$root/cli/target/hostwide.jar"
fi
for j in "$jar" ${before:+"$before"}; do
  [ -f "$j" ] || { echo "initiator-vs-libiscsi.sh: no such jar: $j" >&2; exit 1; }
done

work=$(mktemp -d /tmp/hostwide-initiator-vs-libiscsi.XXXXXX)
tfile=/dev/shm/hostwide-initiator-vs-libiscsi.$$.tgt.img
tport=$(pick_port); hport=$(pick_port "$tport")
tiqn=iqn.2026-12.org.tgt:initiator-bench; hiqn=iqn.2026-12.io.hostwide:initiator-bench
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5; for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -f "$tfile"; rm -rf "$work"
}
trap cleanup EXIT INT TERM

declare -A url=()
if [[ "$targets" == *tgtd* ]]; then
  truncate -s 1G "$tfile"
  ctl=$(pick_tgtd_index)   # tgtd's control-socket index, not a TCP port
  tgtd -f --iscsi portal=127.0.0.1:$tport --control-port=$ctl >"$work/tgtd.log" 2>&1 & pids+=($!); disown $!
  wait_port $tport || { echo "tgtd did not start: $(cat "$work/tgtd.log")" >&2; exit 1; }
  tgtadm -C $ctl --lld iscsi --op new --mode target --tid 1 -T $tiqn
  tgtadm -C $ctl --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 --bstype rdwr -b "$tfile"
  tgtadm -C $ctl --lld iscsi --op bind --mode target --tid 1 -I ALL
  url[tgtd]="iscsi://127.0.0.1:$tport/$tiqn/1"
fi
if [[ "$targets" == *hostwide* ]]; then
  cat >"$work/serve.json" <<JSON
{
  "portals": ["127.0.0.1:$hport"],
  "backstores": { "ram0": { "type": "ram", "size": "1g", "block_size": 512 } },
  "targets": [ { "name": "$hiqn", "luns": [ { "lun": 0, "backstore": "ram0" } ] } ]
}
JSON
  # shellcheck disable=SC2046 # the option strings split into words on purpose
  "$JAVA" -XX:+UseParallelGC -Xss1m $(hostwide_memory_options serve --memory 2g) -jar "$jar" serve --memory 2g \
    --config "$work/serve.json" --admin-socket "$work/admin.sock" >"$work/hostwide.log" 2>&1 & pids+=($!); disown $!
  wait_port $hport || { echo "hostwide serve did not start: $(tail "$work/hostwide.log")" >&2; exit 1; }
  url[hostwide]="iscsi://127.0.0.1:$hport/$hiqn/0"
fi
IFS=, read -r -a tlist <<<"$targets"
for t in "${tlist[@]}"; do
  b=$(iscsi-readcapacity16 "${url[$t]}" | awk -F: '/LOGICAL BLOCK LENGTH/ {print $2+0}')
  [ "$b" = 512 ] || { echo "initiator-vs-libiscsi.sh: $t: block length '$b', expected 512" >&2; exit 1; }
done

clients=(iscsi-perf hostwide)
[ -n "$before" ] && clients=(iscsi-perf hostwide-before hostwide)
[ "$poll" = 1 ] && clients+=(hostwide-poll)
declare -A jarof=([hostwide]="$jar" [hostwide-before]="$before" [hostwide-poll]="$jar")
declare -A rampof=()   # per client: the bench option that ramps, or nothing
for c in "${clients[@]}"; do
  [ "$c" = iscsi-perf ] || [ "$ramp" = 0 ] && continue
  if "$JAVA" -jar "${jarof[$c]}" bench --help 2>/dev/null | grep -q -- --ramp-time; then
    rampof[$c]="--ramp-time=${ramp}s"
  else
    echo "initiator-vs-libiscsi.sh: $c (${jarof[$c]}) has no --ramp-time: it runs without a ramp" >&2
  fi
done

# One client run; prints "iops<TAB>cpu_us_per_io_whole<TAB>cpu_us_per_io_run" or fails.
#   run CLIENT TARGET RW(randread|read) BS QD
run() {
  local client=$1 u=${url[$2]} rw=$3 bs=$4 qd=$5 out="$work/run.out" t="$work/run.time"
  local limit=$((10 * (secs + ramp) + 60)) rc=0
  case "$client" in
    iscsi-perf)
      timeout -k 5 "$limit" /usr/bin/time -o "$t" -f "%U %S" iscsi-perf $([ "$rw" = randread ] && echo -r) -m "$qd" \
        -b $((bs / 512)) -t "$secs" "$u" >"$out" 2>&1 || rc=$? ;;
    hostwide*)
      timeout -k 5 "$limit" /usr/bin/time -o "$t" -f "%U %S" "$JAVA" -XX:+UseParallelGC -jar "${jarof[$client]}" bench \
        --device "iscsi:url=$u" --rw="$rw" --bs="$bs" --iodepth="$qd" --runtime="${secs}s" --json \
        ${rampof[$client]:-} $([ "$client" = hostwide-poll ] && echo --poll) >"$out" 2>&1 || rc=$? ;;
  esac
  if [ "$rc" != 0 ]; then
    [ "$rc" = 124 ] && echo "timed out after ${limit}s" >&2
    cat "$out" >&2; return 1
  fi
  case "$client" in
    iscsi-perf)
      tr '\r' '\n' <"$out" | awk -v s="$secs" -v cpu="$(awk '{print $1 + $2}' "$t")" '
        /iops average/ {v = $0} END {sub(/.*iops average /, "", v); sub(/ .*/, "", v); n = (v + 0) * s;
        if (n > 0) printf "%.1f\t%.3f\t-\n", v, cpu * 1e6 / n; else print "0\t0\t-"}' ;;
    hostwide*)
      python3 - "$out" "$(awk '{print $1 + $2}' "$t")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ios = r["read"]["ios"]
if r["errors"] != 0 or ios == 0:
    print("0\t0\t0")
else:
    run = f'{r["cpu"]["ns_per_io"] / 1000:.3f}' if "cpu" in r else "-"   # a jar from before bench reported it
    whole = ios + r.get("ramp_ios", 0)   # the process's CPU covers the ramp's I/Os too
    print(f'{r["read"]["iops"]}\t{float(sys.argv[2]) * 1e6 / whole:.3f}\t{run}')
PY
      ;;
  esac
}

cells=()
add() { [ -z "$only" ] || [[ "$1" =~ $only ]] && cells+=("$*"); true; }
if [ "$quick" = 1 ]; then
  add randread-4k-qd1 randread 4096 1
  add randread-4k-qd16 randread 4096 16
  add read-1m-qd16 read 1048576 16
else
  for qd in 1 16 64; do add randread-4k-qd$qd randread 4096 $qd; done
  for qd in 1 16 64; do add read-1m-qd$qd read 1048576 $qd; done
fi
[ ${#cells[@]} -gt 0 ] || { echo "initiator-vs-libiscsi.sh: --only '$only' matches no cell" >&2; exit 2; }

results="$work/results.tsv"
: >"$results"
if [ "$stress" = 1 ]; then
  stress-ng --cpu "$(nproc)" --timeout 0 >"$work/stress.log" 2>&1 & pids+=($!); disown $!
fi
echo "initiator-vs-libiscsi.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), ${rounds} rounds x ${secs}s$([ "$ramp" != 0 ] && echo " (hostwide after a ${ramp}s ramp)"), jar $jar${before:+, before-jar $before}$([ "$stress" = 1 ] && echo ", with stress-ng --cpu $(nproc)")" >&2
nc=${#clients[@]}
for c in "${cells[@]}"; do
  read -r name rw bs qd <<<"$c"
  for t in "${tlist[@]}"; do
    for r in $(seq 1 "$rounds"); do
      for k in $(seq 0 $((nc - 1))); do # rotate the order each round: A B C, B C A, C A B
        client=${clients[$(( (k + r - 1) % nc ))]}
        v=$(run "$client" "$t" "$rw" "$bs" "$qd") || v="0"
        if [ "$(awk -v v="${v%%$'\t'*}" 'BEGIN {print (v > 0)}')" != 1 ]; then
          echo "initiator-vs-libiscsi.sh: FAILED cell $name, target $t, client $client, round $r (result '$v'); see above" >&2
          exit 1
        fi
        printf "%s\t%s\t%s\t%s\t%s\n" "$name" "$t" "$client" "$r" "$v" >>"$results"
        printf "  %-18s %-9s %-16s round %d: %s IOPS, cpu us/IO whole %s, run %s\n" "$name" "$t" "$client" "$r" \
          $(tr '\t' ' ' <<<"$v") >&2
      done
    done
  done
done
echo "initiator-vs-libiscsi.sh: done $(date -u '+%H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

clist=$(IFS=,; echo "${clients[*]}")
python3 "$root/bench/scripts/initiator_report.py" "$results" --clients "$clist" --secs "$secs" --rounds "$rounds" \
  ${json:+--json "$json"}

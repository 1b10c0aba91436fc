#!/usr/bin/env bash
# Side by side on one Ceph RBD cluster (issue 15 item 3): librbd itself (fio's rbd engine: no gateway, the ceiling for
# any gateway) twice, as fio runs it by default (row librbd) and with --direct=1 (row librbd-direct), Debian's tgtd
# with its bs_rbd backing store (tgt-rbd), and `hostwide serve` with an rbd backstore. Each cell runs the rows in
# turn, rotating the order every round, and reports the medians and the ratios hostwide/librbd,
# hostwide/librbd-direct and hostwide/tgtd.
#
# The two librbd rows differ in when a write counts as done: by default fio's librbd keeps rbd_cache on and (after
# its first flush, write-around) acknowledges a write before any OSD has it; --direct=1 makes fio set
# rbd_cache=false, so a write completes when the OSD has it, as a gateway's must (README, "What the OSD receives per
# client operation"). librbd-direct is the like-for-like ceiling for writes; for reads the two rows do the same work.
#
#   bench/scripts/rbd-vs.sh [--quick] [--rounds N] [--secs S] [--json FILE] [--jar HOSTWIDE.JAR] [--only REGEX]
#                           [--baseline-jar JAR] [--osd-detail] [--thread-detail] [--hw-ceph-opt 'KEY = VALUE']...
#                           [--plain-osd] [--conf CEPH.CONF --pool POOL]
#
# Cluster: by default the script starts its own single-node test cluster (bin/ceph-test-cluster, memstore OSD on
# loopback) and destroys it at the end; --conf/--pool use an existing cluster instead (the script then creates and
# removes images of its own, hostwide-bench-<pid>-{l,a,b[,c]}). Each row has its own image, all filled with
# data first (reads of never-written RBD objects cost no OSD read and would flatter every row).
#
# The OSD's cost per write is kept from drifting with what was written before (README, "Why 4 KiB writes looked
# below the ceiling"): the script's own cluster runs its memstore OSD with `memstore page set = true` (objects in
# 64 KiB pages; the default keeps each object as one bufferlist that every random 4 KiB write splits further and
# rebuilds whole, so a write's cost grew with the image's past writes) and `osd max pg log entries = 500` (at the
# default 10,000 entries per PG, reached after ~80,000 writes to the 8-PG pool, the OSD walked the PG log to trim it,
# 12-20% of its CPU). --plain-osd leaves both at Ceph's defaults (as runs before 2026-12-04 22:00 had them).
#
# Cells: 4 KiB random read and random write at QD 1/16/64; 1 MiB sequential read and write at QD 4/16 (--quick:
# QD16 4 KiB read and write, 1 MiB read at QD4, 3 s rounds). Clients: the librbd rows are fio (ioengine=rbd); the
# gateways are driven by iSCSI clients on loopback: libiscsi's iscsi-perf for reads, hostwide's own initiator
# (`hostwide bench --device iscsi:`) for writes, the same client for both gateways.
#
# CPU per operation: each round also takes the CPU time (user + system, /proc/PID/stat) that the OSD, the gateway
# (tgtd, the serve JVM) and the client (fio, iscsi-perf: the whole process, startup included; the bench JVM: its own
# account of its process while the jobs ran, without the JVM's start-up and login) used, divided by the operations
# done; the summary prints the medians in microseconds per operation. On a shared machine this figure
# moves much less with load than ops/s does. With --conf the OSD column is empty unless DIR/run/osd.*.pid exists
# next to the conf (a bin/ceph-test-cluster directory).
#
# The hop row: `hostwide serve` (the --jar) with a 1 GiB RAM LUN of the same block size, driven by the same clients as
# the gateways: the iSCSI hop alone, its target's and client's CPU per op measured like the other rows'. With the
# client, gateway and OSD sharing the machine's cores, throughput is about cores / (OSD + gateway + client CPU per
# op); librbd-direct pays D = OSD + client, and any gateway pays D plus the hop's H = target + client, so the summary
# prints per cell the ceiling D / (D + H) beside hostwide/librbd-direct, a verdict (below / at / above / inconclusive,
# from the rounds' extremes), and the model's predicted ops/s against the measured for every row
# (bench/scripts/rbd_report.py says what the model leaves out). All of it is in --json too, and the rounds in
# FILE.tsv beside it.
#
# --baseline-jar JAR adds a row "hw-base": a second `hostwide serve` from JAR on an image of its own, driven like the
# hostwide row in the same rotation, so before/after come from one run (the summary adds hw/base).
#
# --osd-detail (needs the OSD's admin socket: the script's own cluster) says what the OSD received per client
# operation in each row: `perf dump` deltas of osd.0 around every round (ops, reads, writes, read-modify-writes,
# bytes in and out, mean op latency), the kinds of op among its `dump_historic_ops` of the round (history raised to
# 1,000 ops; e.g. "rbd_data write <=4K", "rbd_header call lock.get_info"), and for the hostwide rows the commands
# that reached the backstore (`stats` of the serve admin socket). All taken outside the CPU-measured window.
# --thread-detail: for the gateway rows, CPU per op and voluntary context switches (hand-offs: each is a later wake-up)
# per op of each group of the gateway's threads (librbd's msgr-worker and io_context_pool, our rbd-poll and iscsi-conn,
# tgtd's), from /proc/PID/task around every round (bench/scripts/rbd_threads.py), printed per round and as medians;
# the same for the OSD's threads in every row but the hop (msgr-worker, tp_osd_tp, ...), when the OSD's PID is known.
# --hw-ceph-opt 'KEY = VALUE' (repeatable) adds a [client] line to a copy of the conf that only the hostwide row's
# serve uses (e.g. 'rbd cache = false'), to try a client option on hostwide alone.
#
# Every cell starts with an uncounted 2 s warm-up run of each row. The write client is a new JVM each round, run with
# C1 only (-XX:TieredStopAtLevel=1): in 3-5 s rounds C2's compiling costs that JVM more CPU than it saves (client
# CPU per 4 KiB write 130-160 us instead of 250-380 us, measured), CPU the two gateways then lack. Both gateways get
# the same client, so the tgtd ratio is unaffected by this choice.
#
# A round that fails, hangs or measures 0 stops the script with exit status 1, naming the cell, row and round.
# Needs root (tgtd), tgt, tgt-rbd, fio, libiscsi-bin, the ceph packages, python3; as root, missing packages are
# installed with apt-get. Goals (issue 15): hostwide >= 0.9x librbd at 4 KiB QD16/64 and 1 MiB, and so >= 1.45x tgtd;
# for writes the like-for-like ceiling is librbd-direct.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=lib.sh
source "$root/bench/scripts/lib.sh"
quick=0 rounds="" secs="" json="" jar="" only="" conf="" pool="" basejar="" osd_detail=0 thread_detail=0 hw_opts=()
plain_osd=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --rounds) rounds=$2; shift ;;
    --secs) secs=$2; shift ;;
    --json) json=$2; shift ;;
    --jar) jar=$2; shift ;;
    --only) only=$2; shift ;;
    --conf) conf=$2; shift ;;
    --pool) pool=$2; shift ;;
    --baseline-jar) basejar=$2; shift ;;
    --osd-detail) osd_detail=1 ;;
    --thread-detail) thread_detail=1 ;;
    --hw-ceph-opt) hw_opts+=("$2"); shift ;;
    --plain-osd) plain_osd=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "rbd-vs.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$quick" = 1 ] && { rounds=${rounds:-3}; secs=${secs:-3}; }
rounds=${rounds:-3}; secs=${secs:-5}
[[ "$rounds" =~ ^[1-9][0-9]*$ && "$secs" =~ ^[1-9][0-9]*$ ]] || { echo "rbd-vs.sh: --rounds and --secs take positive integers" >&2; exit 2; }
{ [ -z "$conf" ] && [ -z "$pool" ]; } || { [ -f "$conf" ] && [ -n "$pool" ]; } \
  || { echo "rbd-vs.sh: --conf FILE and --pool NAME go together (and FILE must exist)" >&2; exit 2; }

need=(tgtd:tgt tgtadm:tgt fio:fio iscsi-perf:libiscsi-bin iscsi-readcapacity16:libiscsi-bin rbd:ceph-common
      python3:python3)
[ -f /usr/lib/tgt/backing-store/bs_rbd.so ] || need+=(missing:tgt-rbd)
[ -n "$conf" ] || need+=(ceph-mon:ceph-mon ceph-mgr:ceph-mgr ceph-osd:ceph-osd)
need_packages rbd-vs.sh "and run as root for tgtd" "${need[@]}"
[ "$(id -u)" = 0 ] || { echo "rbd-vs.sh: tgtd needs root" >&2; exit 1; }
# shellcheck source=../../bin/jdk.sh
source "$root/bin/jdk.sh"
# shellcheck source=../../bin/memory.sh
source "$root/bin/memory.sh"
if [ -z "$jar" ]; then
  "$root/hostwide" --version >/dev/null
  jar="$root/cli/target/hostwide.jar"
fi
[ -f "$jar" ] || { echo "rbd-vs.sh: no such jar: $jar" >&2; exit 1; }
[ -z "$basejar" ] || [ -f "$basejar" ] || { echo "rbd-vs.sh: no such jar: $basejar" >&2; exit 1; }
[ "$osd_detail" = 0 ] || [ -z "$conf" ] \
  || { echo "rbd-vs.sh: --osd-detail needs the script's own cluster (the OSD's admin socket), not --conf" >&2; exit 2; }

work=$(mktemp -d /tmp/hostwide-rbd-vs.XXXXXX)
cluster="" pids=() images=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5; for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  if [ -n "$cluster" ]; then "$root/bin/ceph-test-cluster" destroy "$cluster" >/dev/null 2>&1 || true
  else for i in "${images[@]}"; do timeout 60 rbd -c "$conf" rm "$pool/$i" >/dev/null 2>&1 || true; done; fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

himg=hostwide-bench-$$-a timg=hostwide-bench-$$-b bimg=hostwide-bench-$$-c limg=hostwide-bench-$$-l
dimg=hostwide-bench-$$-d
# Every row its own image: on a memstore OSD a write costs more on objects that took more random writes (measured:
# the row sharing fio's image paid 20-30% more OSD CPU per 4 KiB write, whichever jar it ran), and a shared image's
# exclusive lock would move between fio and the serve at every switch of rows
all_images=("$limg" "$dimg" "$himg" "$timg"); [ -z "$basejar" ] || all_images+=("$bimg")
if [ -z "$conf" ]; then
  cluster="$work/ceph" pool=rbd
  echo "rbd-vs.sh: starting a test cluster in $cluster" >&2
  # shellcheck disable=SC2046
  steady=(--osd-opt 'memstore page set = true' --osd-opt 'osd max pg log entries = 500')
  [ "$plain_osd" = 0 ] || steady=()
  "$root/bin/ceph-test-cluster" start "$cluster" --size $((3 * ${#all_images[@]})) $(printf -- "--image %s:1G " "${all_images[@]}") \
    "${steady[@]}" >&2
  conf="$cluster/ceph.conf"
else
  for i in "${all_images[@]}"; do timeout 60 rbd -c "$conf" create --size 1G "$pool/$i"; images+=("$i"); done
fi
export CEPH_CONF="$conf"
echo "rbd-vs.sh: filling the images" >&2
for i in "${all_images[@]}"; do
  timeout 300 fio --name=fill --ioengine=rbd --clientname=admin --pool="$pool" --rbdname="$i" --rw=write --bs=4m \
    --iodepth=4 --size=1g >"$work/fill.log" 2>&1 || { echo "rbd-vs.sh: filling $i failed: $(tail -5 "$work/fill.log")" >&2; exit 1; }
done

tport=$(pick_port); hport=$(pick_port "$tport"); bport=$(pick_port "$tport" "$hport")
tiqn=iqn.2026-12.org.tgt:rbd-bench; hiqn=iqn.2026-12.io.hostwide:rbd-bench

ctl=$(pick_tgtd_index)   # tgtd's control-socket index, not a TCP port
tgtd -f --iscsi portal=127.0.0.1:$tport --control-port=$ctl >"$work/tgtd.log" 2>&1 & pids+=($!); disown $!
wait_port $tport || { echo "tgtd did not start: $(cat "$work/tgtd.log")" >&2; exit 1; }
tgtd_pid=${pids[-1]}
tgtadm -C $ctl --lld iscsi --op new --mode target --tid 1 -T $tiqn
tgtadm -C $ctl --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 --bstype rbd -b "$pool/$timg" --bsopts "conf=$conf"
tgtadm -C $ctl --lld iscsi --op bind --mode target --tid 1 -I ALL
hconf=$conf
if [ ${#hw_opts[@]} -gt 0 ]; then
  hconf="$work/hostwide-ceph.conf"
  { cat "$conf"; echo "[client]"; printf "%s\n" "${hw_opts[@]}"; } >"$hconf"
  echo "rbd-vs.sh: the hostwide row's client also has: ${hw_opts[*]}" >&2
fi
# serve_jar NAME JAR PORT IMAGE CONF: starts `hostwide serve` from JAR on 127.0.0.1:PORT exporting IMAGE as LUN 0
# (IMAGE "-": a 1 GiB RAM LUN of the same block size instead, for the hop row)
serve_jar() {
  local name=$1 sjar=$2 port=$3 img=$4 sconf=$5 store mem=2g
  if [ "$img" = - ]; then
    store='{ "type": "ram", "size": "1g", "block_size": 512 }'
    mem=3g # 2g leaves the RAM LUNs a budget of 768 MiB: the fill's last writes would fail for space
  else
    store="{ \"type\": \"rbd\", \"pool\": \"$pool\", \"image\": \"$img\", \"conf\": \"$sconf\", \"block_size\": 512 }"
  fi
  cat >"$work/$name.json" <<EOF
{
  "portals": ["127.0.0.1:$port"],
  "backstores": { "lun0": $store },
  "targets": [ { "name": "$hiqn", "luns": [ { "lun": 0, "backstore": "lun0" } ] } ]
}
EOF
  # shellcheck disable=SC2046 # the option strings split into words on purpose
  "$JAVA" -XX:+UseParallelGC -Xss1m $(hostwide_memory_options serve --memory $mem) -jar "$sjar" serve --memory $mem \
    --config "$work/$name.json" --admin-socket "$work/$name.sock" >"$work/$name.log" 2>&1 & pids+=($!)
  disown $!
  wait_port "$port" || { echo "hostwide serve ($name) did not start: $(tail "$work/$name.log")" >&2; exit 1; }
}
serve_jar hostwide "$jar" "$hport" "$himg" "$hconf"; serve_pid=${pids[-1]}
declare -A url=([tgtd]="iscsi://127.0.0.1:$tport/$tiqn/1" [hostwide]="iscsi://127.0.0.1:$hport/$hiqn/0")
declare -A image=([librbd]="$limg" [librbd-direct]="$dimg" [tgtd]="$timg" [hostwide]="$himg")
declare -A sock=([hostwide]="$work/hostwide.sock")
rows=(librbd librbd-direct tgtd hostwide)
declare -A gw_pid=([librbd]="" [librbd-direct]="" [tgtd]=$tgtd_pid [hostwide]=$serve_pid)
if [ -n "$basejar" ]; then
  serve_jar hw-base "$basejar" "$bport" "$bimg" "$conf"
  url[hw-base]="iscsi://127.0.0.1:$bport/$hiqn/0" image[hw-base]=$bimg sock[hw-base]="$work/hw-base.sock"
  gw_pid[hw-base]=${pids[-1]}; rows+=(hw-base)
fi
# The hop row: the iSCSI hop alone (a RAM LUN behind the same serve and clients), filled like the images so that
# reads copy data rather than zero-fill never-written pages
pport=$(pick_port "$tport" "$hport" "$bport")
serve_jar hop "$jar" "$pport" - -
url[hop]="iscsi://127.0.0.1:$pport/$hiqn/0" sock[hop]="$work/hop.sock" gw_pid[hop]=${pids[-1]}; rows+=(hop)
"$JAVA" -XX:+UseParallelGC -XX:TieredStopAtLevel=1 -jar "$jar" bench --device "iscsi:url=${url[hop]}" --rw=write \
  --bs=1m --iodepth=4 --size=1g --json >"$work/fill.log" 2>&1 \
  || { echo "rbd-vs.sh: filling the hop row's RAM LUN failed: $(tail -5 "$work/fill.log")" >&2; exit 1; }
for t in "${rows[@]:2}"; do
  b=$(iscsi-readcapacity16 "${url[$t]}" | awk -F: '/LOGICAL BLOCK LENGTH/ {print $2+0}')
  [ "$b" = 512 ] || { echo "rbd-vs.sh: $t: block length '$b', expected 512" >&2; exit 1; }
done
nrows=${#rows[@]}
osd_pid=$(cat "$(dirname "$conf")"/run/osd.*.pid 2>/dev/null | head -1 || true)
ticks=$(getconf CLK_TCK)

# timed COMMAND...: runs it, leaving its (and its children's) user + system seconds in $work/client.cpu
timed() { /usr/bin/time -f "%U %S" -o "$work/client.cpu" "$@"; }

# One run of $dur seconds: prints operations per second, or fails.   run ROW RW(randread|read|randwrite|write) BS QD
run() {
  local t=$1 rw=$2 bs=$3 qd=$4 out="$work/run.out" limit=$((10 * dur + 60))
  case "$t" in
    librbd|librbd-direct)
      timed timeout -k 5 "$limit" fio --name=c --ioengine=rbd --clientname=admin --pool="$pool" --rbdname="${image[$t]}" \
        --direct="$([ "$t" = librbd-direct ] && echo 1 || echo 0)" \
        --rw="$rw" --bs="$bs" --iodepth="$qd" --runtime="$dur" --time_based --size=1g --output-format=json \
        >"$out" 2>"$work/run.err" || { cat "$work/run.err" "$out" >&2; return 1; }
      python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(j["read"]["iops"] + j["write"]["iops"] if j["error"] == 0 else 0)' "$out" ;;
    *)
      case "$rw" in
        randread|read)
          # shellcheck disable=SC2046
          timed timeout -k 5 "$limit" iscsi-perf $([ "$rw" = randread ] && echo -r) -m "$qd" -b $((bs / 512)) -t "$dur" "${url[$t]}" \
            >"$out" 2>&1 || { cat "$out" >&2; return 1; }
          tr '\r' '\n' <"$out" | awk '/iops average/ {v=$0} END {sub(/.*iops average /, "", v); sub(/ .*/, "", v); print v+0}' ;;
        *)
          timed timeout -k 5 "$limit" "$JAVA" -XX:+UseParallelGC -XX:TieredStopAtLevel=1 -jar "$jar" bench --device "iscsi:url=${url[$t]}" --rw="$rw" \
            --bs="$bs" --iodepth="$qd" --runtime="${dur}s" --json >"$out" 2>&1 || { cat "$out" >&2; return 1; }
          # the client's CPU: its own account of the process while the jobs ran (cpu.ns_per_io), not the whole JVM's
          # (in 3 s rounds the whole JVM used 1.7-2.5 s of CPU whether it wrote 4,000 or 417,000 blocks: start-up, JIT,
          # login; charged per op that was 270-600 us at 1-2K writes/s)
          python3 - "$out" "$dur" "$work/client.cpu" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ops = r["write"]["iops"] + r["read"]["iops"]
ns = r.get("cpu", {}).get("ns_per_io", -1)
if ns >= 0:
    with open(sys.argv[3], "w") as f:
        f.write(f"{ns * ops * float(sys.argv[2]) / 1e9} 0\n")
print(ops if r["errors"] == 0 else 0)
PY
          ;;
      esac ;;
  esac
}

cells=()
add() { [ -z "$only" ] || [[ "$1" =~ $only ]] && cells+=("$*"); true; }
if [ "$quick" = 1 ]; then
  add randread-4k-qd16 randread 4096 16; add randwrite-4k-qd16 randwrite 4096 16; add read-1m-qd4 read 1048576 4
else
  for op in read write; do
    for qd in 1 16 64; do add rand$op-4k-qd$qd rand$op 4096 $qd; done
    for qd in 4 16; do add $op-1m-qd$qd $op 1048576 $qd; done
  done
fi
[ ${#cells[@]} -gt 0 ] || { echo "rbd-vs.sh: --only '$only' matches no cell" >&2; exit 2; }

results="$work/results.tsv"; : >"$results"
detail="$work/osd-detail.tsv"; : >"$detail"
threads="$work/threads.tsv"; : >"$threads"
osd_threads="$work/osd-threads.tsv"; : >"$osd_threads"
osd_asok=""
if [ "$osd_detail" = 1 ]; then
  osd_asok=$(ls "$cluster"/run/osd.*.asok 2>/dev/null | head -1)
  [ -S "$osd_asok" ] || { echo "rbd-vs.sh: --osd-detail: no OSD admin socket in $cluster/run" >&2; exit 1; }
  for kv in "osd_op_history_size 1000" "osd_op_history_duration 3600"; do
    # shellcheck disable=SC2086
    ceph --admin-daemon "$osd_asok" config set $kv >/dev/null
  done
fi
osd_ask() { timeout 60 ceph --admin-daemon "$osd_asok" "$@"; }
# hw_stats ROW: the serve's backstore counters, "reads writes other read-bytes write-bytes" (hostwide rows only)
hw_stats() {
  [ -n "${sock[$1]:-}" ] || { echo "- - - - -"; return; }
  python3 - "${sock[$1]}" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"stats\n")
data = b""
while not data.endswith(b"\n") or data.count(b"{") > data.count(b"}"):
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
b = json.loads(data)["backstores"][0]
print(b["reads"]["ops"], b["writes"]["ops"], b["other"]["ops"], b["reads"]["bytes"], b["writes"]["bytes"])
PY
}
echo "rbd-vs.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), ${rounds} rounds x ${secs}s, jar $jar$([ -z "$cluster" ] || { [ "$plain_osd" = 1 ] && echo ", OSD at Ceph's defaults" || echo ", OSD: memstore page set, 500 PG log entries"; })" >&2
for c in "${cells[@]}"; do
  read -r name rw bs qd <<<"$c"
  # Warm-up, not counted: the serve JVM compiles the cell's path on its first runs (C2 threads took 0.6-0.8 s CPU
  # in each of its first 5 s runs, ~0.05 s once warm), which would be charged to the first rounds
  dur=2
  for t in "${rows[@]}"; do run "$t" "$rw" "$bs" "$qd" >/dev/null || { echo "rbd-vs.sh: warm-up of $name, $t failed" >&2; exit 1; }; done
  dur=$secs
  for r in $(seq 1 "$rounds"); do
    for k in $(seq 0 $((nrows - 1))); do
      t=${rows[$(( (k + r - 1) % nrows ))]}
      if [ "$osd_detail" = 1 ]; then osd_ask perf dump >"$work/perf0.json"; s0=$(hw_stats "$t"); fi
      [ "$thread_detail" = 0 ] || [ -z "${gw_pid[$t]}" ] || python3 "$root/bench/scripts/rbd_threads.py" snap "${gw_pid[$t]}" >"$work/thr0"
      [ "$thread_detail" = 0 ] || [ -z "$osd_pid" ] || [ "$t" = hop ] || python3 "$root/bench/scripts/rbd_threads.py" snap "$osd_pid" >"$work/othr0"
      t0=$(date +%s.%N)
      # the hop row has no OSD: its OSD figure would be the OSD's idle CPU, not a cost of the row
      opid=$osd_pid; [ "$t" != hop ] || opid=""
      o0=$(proc_cpu_ticks "$opid") g0=$(proc_cpu_ticks "${gw_pid[$t]}")
      v=$(run "$t" "$rw" "$bs" "$qd") || v=0
      o1=$(proc_cpu_ticks "$opid") g1=$(proc_cpu_ticks "${gw_pid[$t]}")
      t1=$(date +%s.%N)
      if [ "$thread_detail" = 1 ] && [ -n "${gw_pid[$t]}" ]; then
        python3 "$root/bench/scripts/rbd_threads.py" snap "${gw_pid[$t]}" >"$work/thr1"
        tg=$(python3 "$root/bench/scripts/rbd_threads.py" round "$work/thr0" "$work/thr1" \
          "$(awk -v v="$v" -v s="$secs" 'BEGIN {print v * s}')" "$ticks")
        printf "%s\t%s\t%s\t%s\n" "$name" "$t" "$r" "$tg" >>"$threads"
        printf "  %-18s %-13s round %d: threads (us/op / switches/op) %s\n" "$name" "$t" "$r" "$(tr ';' ' ' <<<"$tg")" >&2
      fi
      if [ "$thread_detail" = 1 ] && [ -n "$osd_pid" ] && [ "$t" != hop ]; then
        python3 "$root/bench/scripts/rbd_threads.py" snap "$osd_pid" >"$work/othr1"
        tg=$(python3 "$root/bench/scripts/rbd_threads.py" round "$work/othr0" "$work/othr1" \
          "$(awk -v v="$v" -v s="$secs" 'BEGIN {print v * s}')" "$ticks")
        printf "%s\t%s\t%s\t%s\n" "$name" "$t" "$r" "$tg" >>"$osd_threads"
        printf "  %-18s %-13s round %d: OSD threads (us/op / switches/op) %s\n" "$name" "$t" "$r" "$(tr ';' ' ' <<<"$tg")" >&2
      fi
      if [ "$osd_detail" = 1 ]; then
        osd_ask perf dump >"$work/perf1.json"; s1=$(hw_stats "$t")
        # a sample only, and slow to format (a 5,000-op history took over 60 s here): lost samples are not fatal
        timeout 30 ceph --admin-daemon "$osd_asok" dump_historic_ops >"$work/historic.json" 2>/dev/null || : >"$work/historic.json"
        d=$(python3 "$root/bench/scripts/rbd-osd-detail.py" round "$work/perf0.json" "$work/perf1.json" \
          "$work/historic.json" "$t0" "$t1")
        printf "%s\t%s\t%s\t%s\t%s\n" "$name" "$t" "$r" "$(awk -v v="$v" -v s="$secs" 'BEGIN {print v * s}')" "$d" >>"$detail"
        read -r -a a0 <<<"$s0"; read -r -a a1 <<<"$s1"
        hw=""
        [ "${a0[0]}" = - ] || hw=" | backstore: reads $((a1[0] - a0[0])) writes $((a1[1] - a0[1])) other $((a1[2] - a0[2])) bytes r/w $((a1[3] - a0[3]))/$((a1[4] - a0[4]))"
        printf "  %-18s %-9s round %d: OSD %s%s\n" "$name" "$t" "$r" "$(cut -f1-7 <<<"$d" | tr '\t' ' ')" "$hw" >&2
      fi
      # CPU microseconds per operation: OSD, gateway, client (ops = ops/s x seconds of the measured run)
      cpu=$(awk -v v="$v" -v s="$secs" -v hz="$ticks" -v o=$((o1 - o0)) -v g=$((g1 - g0)) \
        -v c="$(awk '{print $1 + $2}' "$work/client.cpu" 2>/dev/null || echo 0)" -v osd="$opid" \
        'BEGIN {n = v * s; if (n <= 0) n = 1; printf "%s\t%.0f\t%.0f", (osd == "" ? "-" : sprintf("%.0f", o / hz * 1e6 / n)), g / hz * 1e6 / n, c * 1e6 / n}')
      if [ "$(awk -v v="$v" 'BEGIN {print (v > 0)}')" != 1 ]; then
        echo "rbd-vs.sh: FAILED cell $name, row $t, round $r (result '$v'); see above" >&2; exit 1
      fi
      printf "%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$t" "$r" "$v" "$bs" "$cpu" >>"$results"
      printf "  %-18s %-13s round %d: %s ops/s, CPU us/op osd %s gateway %s client %s\n" "$name" "$t" "$r" "$v" $cpu >&2
    done
  done
done

python3 "$root/bench/scripts/rbd_report.py" "$results" "$secs" "$rounds" "$(nproc)" "$json"
# the rounds themselves beside the JSON, so the report can be run again (bench/scripts/rbd_report.py FILE.tsv ...)
[ -z "$json" ] || cp "$results" "${json%.json}.tsv"
[ "$osd_detail" = 0 ] || python3 "$root/bench/scripts/rbd-osd-detail.py" summary "$detail"
[ "$thread_detail" = 0 ] || python3 "$root/bench/scripts/rbd_threads.py" summary "$threads"
[ "$thread_detail" = 0 ] || [ ! -s "$osd_threads" ] || python3 "$root/bench/scripts/rbd_threads.py" summary "$osd_threads" "OSD threads"

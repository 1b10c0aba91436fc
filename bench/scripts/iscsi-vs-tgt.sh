#!/usr/bin/env bash
# Side-by-side, like for like (issue 13 item 1): Debian's tgtd and `hostwide serve` each serve a file LUN on the
# same storage (a sparse 1 GiB file in /dev/shm: tgtd's rdwr backing store, hostwide's file backstore), and
# hostwide also serves a 1 GiB RAM LUN as an extra row. Every cell runs its targets in turn, one round after the
# other (A B C, then B C A, ...), and reports the median per target and the ratios hostwide/tgtd.
#
#   bench/scripts/iscsi-vs-tgt.sh [--quick] [--rounds N] [--secs S] [--json FILE] [--plot FILE.svg]
#                                 [--jar HOSTWIDE.JAR] [--baseline-jar BEFORE.JAR] [--poll-us N] [--only REGEX] [--cpu]
#
# Matrix (the full run; --quick is a handful of cells with 3 s rounds, for development):
#   4 KiB random read and write at QD 1/16/64; 64 KiB and 1 MiB sequential read and write at QD 1/4/16;
#   1 and 8 sessions (8 sessions = 8 client processes at once, each with the cell's QD; their rates add up, except qemu-img's, which run a request count: all their requests over the span from the first one's first request to the last one's end);
#   4 KiB random reads at QD 1/16/64 again with `stress-ng --cpu <cores>` running ("busy" rows).
# Clients: reads, libiscsi's iscsi-perf (READ16); writes, the same two clients on every target: `qemu-img bench
# -w` (libiscsi inside qemu, the neutral one) and hostwide's own initiator (`hostwide bench --device iscsi:`).
# qemu-img bench cannot write at random offsets: its "4 KiB random write" strides by 1028 KiB (a prime number of
# 4 KiB blocks) and wraps, so consecutive writes never touch neighbouring blocks; every other client is random
# where the cell says random. iperf3's single-stream loopback bandwidth is measured in the same run (one per round)
# and printed beside the large-block rows.
#
# A round that fails, hangs (10 x --secs + 60 s) or measures 0 stops the script with exit status 1 naming the cell, target, client and round:
# it never enters a median. Needs root (tgtd), tgt, libiscsi-bin, qemu-utils, iperf3, stress-ng, python3; as root,
# missing packages are installed with apt-get, otherwise the script says which to install.
# --jar runs that hostwide.jar for serve and the initiator (e.g. a build of another commit, for before/after);
# by default the worktree's ./hostwide is built and its jar used. --baseline-jar serves a file LUN from a second
# `hostwide serve` run from that jar (its own file in /dev/shm, same shape) as one more target, "hostwide-base", in
# the same rotation: before/after in one run, printed as file/base beside file/tgtd. --only runs the cells whose name matches REGEX
# (names as printed, e.g. 'read-1m'). --plot writes an SVG bar chart of the ratios (no chart library: the plot
# of item 5 is `bench --plot`; this is the script's own quick look).
# --cpu also measures, per round, the CPU the target process and the client process(es) spent per MiB moved (target:
# utime + stime of /proc/PID/stat around the round, all threads; qemu-img and iscsi-perf: /usr/bin/time, qemu-img's
# less a one-write run's (its start, login and open: rounds calibrated on tgtd last well under a second on hostwide);
# hostwide's initiator: its own --json figure for the run, JVM start excluded), and iperf3's (sender + receiver,
# cpu_utilization_percent of its -J report). On N cores a cell can move at most N / (client + target CPU s per MiB)
# MiB/s: the table prints that bound beside the measured MiB/s and 70% of iperf3, for the 64 KiB and 1 MiB cells (and, per operation, for the 4 KiB cells),
# so that a cell near its bound is CPU-bound, and the split says by whom (issue 13 item 2's measured reason), and
# the target's read and write system calls per MiB (syscr, syscw of /proc/PID/io: socket and file alike).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=lib.sh
source "$root/bench/scripts/lib.sh"
quick=0 rounds="" secs="" json="" plot="" jar="" base="" poll="" only="" cpu=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --rounds) rounds=$2; shift ;;
    --secs) secs=$2; shift ;;
    --json) json=$2; shift ;;
    --plot) plot=$2; shift ;;
    --jar) jar=$2; shift ;;
    --baseline-jar) base=$2; shift ;;
    --poll-us) poll=$2; shift ;;
    --only) only=$2; shift ;;
    --cpu) cpu=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "iscsi-vs-tgt.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$quick" = 1 ] && { rounds=${rounds:-3}; secs=${secs:-3}; }
rounds=${rounds:-3}; secs=${secs:-5}
[[ "$rounds" =~ ^[1-9][0-9]*$ && "$secs" =~ ^[1-9][0-9]*$ ]] || { echo "iscsi-vs-tgt.sh: --rounds and --secs take positive integers" >&2; exit 2; }

# Tools: install what is missing when we may (root), else say what to install.
need=(tgtd:tgt tgtadm:tgt iscsi-perf:libiscsi-bin iscsi-readcapacity16:libiscsi-bin qemu-img:qemu-utils
      iperf3:iperf3 stress-ng:stress-ng python3:python3 /usr/bin/time:time)
need_packages iscsi-vs-tgt.sh "and run as root for tgtd" "${need[@]}"
[ "$(id -u)" = 0 ] || { echo "iscsi-vs-tgt.sh: tgtd needs root" >&2; exit 1; }
# shellcheck source=../../bin/jdk.sh
source "$root/bin/jdk.sh"
# shellcheck source=../../bin/memory.sh
source "$root/bin/memory.sh"
if [ -z "$jar" ]; then
  "$root/hostwide" --version >/dev/null
  jar="$root/cli/target/hostwide.jar"
fi
[ -f "$jar" ] || { echo "iscsi-vs-tgt.sh: no such jar: $jar" >&2; exit 1; }
[ -z "$base" ] || [ -f "$base" ] || { echo "iscsi-vs-tgt.sh: no such jar: $base (--baseline-jar)" >&2; exit 1; }

work=$(mktemp -d /tmp/hostwide-vs-tgt.XXXXXX)
tfile=/dev/shm/hostwide-vs-tgt.$$.tgt.img; hfile=/dev/shm/hostwide-vs-tgt.$$.hw.img; bfile=/dev/shm/hostwide-vs-tgt.$$.base.img
tport=$(pick_port); hport=$(pick_port "$tport"); iport=$(pick_port "$tport" "$hport"); bport=$(pick_port "$tport" "$hport" "$iport")
tiqn=iqn.2026-12.org.tgt:bench; hiqn=iqn.2026-12.io.hostwide:bench
pids=() stress=""
cleanup() {
  [ -n "$stress" ] && kill "$stress" 2>/dev/null
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5; for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -f "$tfile" "$hfile" "$bfile"; rm -rf "$work"
}
trap cleanup EXIT INT TERM

truncate -s 1G "$tfile" "$hfile"
ctl=$(pick_tgtd_index)   # tgtd's control-socket index, not a TCP port
declare -A tpid  # the process serving each target, for --cpu
tgtd -f --iscsi portal=127.0.0.1:$tport --control-port=$ctl >"$work/tgtd.log" 2>&1 & pids+=($!); tpid[tgtd]=$!; disown $!
wait_port $tport || { echo "tgtd did not start: $(cat "$work/tgtd.log")" >&2; exit 1; }
tgtadm -C $ctl --lld iscsi --op new --mode target --tid 1 -T $tiqn
tgtadm -C $ctl --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 --bstype rdwr -b "$tfile"
tgtadm -C $ctl --lld iscsi --op bind --mode target --tid 1 -I ALL
# The same shape of LUN as tgtd's: 512-byte blocks, write-back cache (tgtd's default), a page-cache-backed file.
cat >"$work/serve.json" <<EOF
{
  "portals": ["127.0.0.1:$hport"],
  "backstores": {
    "file0": { "type": "file", "path": "$hfile", "size": "1g", "block_size": 512, "write_cache": true },
    "ram0":  { "type": "ram", "size": "1g", "block_size": 512 }
  },
  "targets": [ { "name": "$hiqn", "luns": [ { "lun": 0, "backstore": "file0" }, { "lun": 1, "backstore": "ram0" } ] } ]
}
EOF
# 3 GiB: the RAM budget (half the heap) must hold the whole 1 GiB RAM LUN, or the write cells, which write it full,
# end in SPACE ALLOCATION FAILED (with 2 GiB the budget is 768 MiB and the 4 KiB write rounds on the RAM LUN failed).
# shellcheck disable=SC2046 # the option strings split into words on purpose
"$JAVA" -XX:+UseParallelGC -Xss1m $(hostwide_memory_options serve --memory 3g) -jar "$jar" serve --memory 3g \
  --config "$work/serve.json" --admin-socket "$work/admin.sock" ${poll:+--poll-us "$poll"} \
  >"$work/hostwide.log" 2>&1 & pids+=($!); tpid[hostwide-file]=$!; tpid[hostwide-ram]=$!; disown $!
wait_port $hport || { echo "hostwide serve did not start: $(tail "$work/hostwide.log")" >&2; exit 1; }
if [ -n "$base" ]; then # the same file LUN from the baseline jar, for before/after in the same rotation
  truncate -s 1G "$bfile"
  cat >"$work/base.json" <<EOF
{
  "portals": ["127.0.0.1:$bport"],
  "backstores": { "file0": { "type": "file", "path": "$bfile", "size": "1g", "block_size": 512, "write_cache": true } },
  "targets": [ { "name": "$hiqn", "luns": [ { "lun": 0, "backstore": "file0" } ] } ]
}
EOF
  # shellcheck disable=SC2046 # the option strings split into words on purpose
  "$JAVA" -XX:+UseParallelGC -Xss1m $(hostwide_memory_options serve --memory 2g) -jar "$base" serve --memory 2g \
    --config "$work/base.json" --admin-socket "$work/base.sock" ${poll:+--poll-us "$poll"} \
    >"$work/base.log" 2>&1 & pids+=($!); tpid[hostwide-base]=$!; disown $!
  wait_port $bport || { echo "baseline hostwide serve did not start: $(tail "$work/base.log")" >&2; exit 1; }
fi
iperf3 -s -p "$iport" >"$work/iperf3-server.log" 2>&1 & pids+=($!); disown $!
wait_port "$iport" || { echo "iperf3 -s did not start: $(cat "$work/iperf3-server.log")" >&2; exit 1; }

declare -A url=([tgtd]="iscsi://127.0.0.1:$tport/$tiqn/1" [hostwide-file]="iscsi://127.0.0.1:$hport/$hiqn/0"
                [hostwide-ram]="iscsi://127.0.0.1:$hport/$hiqn/1")
targets=(tgtd hostwide-file hostwide-ram)
if [ -n "$base" ]; then url[hostwide-base]="iscsi://127.0.0.1:$bport/$hiqn/0"; targets+=(hostwide-base); fi
for t in "${targets[@]}"; do
  b=$(iscsi-readcapacity16 "${url[$t]}" | awk -F: '/LOGICAL BLOCK LENGTH/ {print $2+0}')
  [ "$b" = 512 ] || { echo "iscsi-vs-tgt.sh: $t: block length '$b', expected 512" >&2; exit 1; }
done

# One client run: prints operations per second (summed over the cell's sessions; for qemu-img, which runs a request
# count rather than a time, all sessions' requests over the span of their runs), or fails. With --cpu it also
# leaves "operations_done client_cpu_seconds" (summed over the sessions) in $work/client-cpu.
#   run CLIENT TARGET RW(randread|read|randwrite|write) BS QD SESSIONS
qcount=()  # qemu-img's request count per cell, from its calibration run
declare -A qfixed  # --cpu: CPU seconds of a one-write qemu-img run per target (start, login, open), per cell
run() {
  local client=$1 t=$2 rw=$3 bs=$4 qd=$5 n=$6 u=${url[$2]} i out
  local -a ps=()
  # A client that hangs (seen once: iscsi-perf -t 3 against tgtd, 17 minutes under load average 37) fails the
  # round like any other failure instead of hanging the script.
  local limit=$((10 * secs + 60))
  local -a timed=()
  rm -f "$work"/time.* "$work"/end.*
  for i in $(seq 1 "$n"); do
    out="$work/run.$i"
    [ "$cpu" = 1 ] && timed=(/usr/bin/time -f '%U %S' -o "$work/time.$i")
    case "$client" in
      iscsi-perf)
        timeout -k 5 "$limit" "${timed[@]}" iscsi-perf $([ "$rw" = randread ] && echo -r) -m "$qd" -b $((bs / 512)) -t "$secs" "$u" >"$out" 2>&1 & ps+=($!) ;;
      qemu-img)
        local step=$bs; [ "$rw" = randwrite ] && step=$((257 * 4096))
        # the wall-clock time it exits at (end.i): with its "Run completed in" time, when its requests ran
        ( timeout -k 5 "$limit" "${timed[@]}" qemu-img bench -f raw -w -t none -c "$qc" -d "$qd" -s "$bs" -S "$step" \
            -o $(( (i - 1) * 4096 * 8192 )) "$u" >"$out" 2>&1; rc=$?; date +%s.%N >"$work/end.$i"; exit $rc ) & ps+=($!) ;;
      hostwide)
        timeout -k 5 "$limit" "${timed[@]}" "$JAVA" -XX:+UseParallelGC -jar "$jar" bench --device "iscsi:url=$u" --rw="$rw" --bs="$bs" --iodepth="$qd" \
          --runtime="${secs}s" --seed="$i" --json >"$out" 2>&1 & ps+=($!) ;;
    esac
  done
  local failed=0
  local rc
  for i in "${ps[@]}"; do
    wait "$i" && rc=0 || rc=$?
    [ "$rc" = 0 ] || { failed=1; [ "$rc" = 124 ] && echo "timed out after ${limit}s" >&2; }
  done
  [ "$failed" = 0 ] || { cat "$work"/run.* >&2; return 1; }
  [ "$cpu" = 1 ] && for i in $(seq 1 "$n"); do # operations done and client CPU seconds, per session
    case "$client" in
      iscsi-perf) tr '\r' '\n' <"$work/run.$i" | awk -v s="$secs" '/iops average/ {v=$0} END {sub(/.*iops average /, "", v); sub(/ .*/, "", v); printf "%s ", v * s}'
        awk '{print $1 + $2}' "$work/time.$i" ;;
      qemu-img) printf "%s " "$qc"; awk -v f="${qfixed[$t]:-0}" '{c = $1 + $2 - f; print (c > 0 ? c : 0)}' "$work/time.$i" ;;
      hostwide) python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); t=open(sys.argv[2]).read().split()
print(r["write"]["ios"] + r["read"]["ios"], r["cpu"]["process_ns"] / 1e9 if "cpu" in r else float(t[0]) + float(t[1]))' "$work/run.$i" "$work/time.$i" ;;
    esac
  done | awk '{o += $1; c += $2} END {print o, c}' >"$work/client-cpu"
  if [ "$client" = qemu-img ]; then
    # each qemu-img does a fixed count, and the sessions start (log in) and end apart: the cell's rate is all their
    # requests over the span from the first session's first request to the last one's end. A session's requests
    # ran from its exit time minus its "Run completed in" time (its close and logout after them make that start a
    # little early: the span errs long, the rate low) to its exit. One session: its own run time, as qemu-img says.
    for i in $(seq 1 "$n"); do
      printf "%s %s\n" "$(awk '/Run completed in/ {print $4}' "$work/run.$i")" "$(cat "$work/end.$i" 2>/dev/null)"
    done | awk -v c="$qc" -v n="$n" 'NF == 2 && $1 > 0 {k++; s = $2 - $1; e = $2
        if (k == 1 || s < first) first = s; if (k == 1 || e > last) last = e; if ($1 > m) m = $1}
      END {span = (n == 1 ? m : last - first); if (k != n || span <= 0) print 0; else printf "%.1f\n", n * c / span}'
    return 0
  fi
  for i in $(seq 1 "$n"); do
    case "$client" in
      iscsi-perf) tr '\r' '\n' <"$work/run.$i" | awk '/iops average/ {v=$0} END {sub(/.*iops average /, "", v); sub(/ .*/, "", v); print v+0}' ;;
      hostwide) python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["write"]["iops"] + r["read"]["iops"] if r["errors"] == 0 else 0)' "$work/run.$i" ;;
    esac
  done | awk '{s += $1; n++} END {if (n == 0) print 0; else printf "%.1f\n", s}'
}

# Cells: name rw bs qd sessions clients busy
cells=()
add() { [ -z "$only" ] || [[ "$1" =~ $only ]] && cells+=("$*"); true; }
if [ "$quick" = 1 ]; then
  add randread-4k-qd1-s1 randread 4096 1 1 iscsi-perf 0
  add randread-4k-qd16-s1 randread 4096 16 1 iscsi-perf 0
  add randread-4k-qd16-s1-busy randread 4096 16 1 iscsi-perf 1
  add read-1m-qd4-s1 read 1048576 4 1 iscsi-perf 0
  add randwrite-4k-qd16-s1 randwrite 4096 16 1 qemu-img,hostwide 0
  add write-1m-qd4-s1 write 1048576 4 1 qemu-img,hostwide 0
else
  for s in 1 8; do
    for op in read write; do
      cl=iscsi-perf; [ $op = write ] && cl=qemu-img,hostwide
      for qd in 1 16 64; do add rand$op-4k-qd$qd-s$s rand$op 4096 $qd $s $cl 0; done
      for bs in 64k:65536 1m:1048576; do
        for qd in 1 4 16; do add $op-${bs%%:*}-qd$qd-s$s $op "${bs#*:}" $qd $s $cl 0; done
      done
    done
  done
  for qd in 1 16 64; do add randread-4k-qd$qd-s1-busy randread 4096 $qd 1 iscsi-perf 1; done
fi
[ ${#cells[@]} -gt 0 ] || { echo "iscsi-vs-tgt.sh: --only '$only' matches no cell" >&2; exit 2; }

results="$work/results.tsv"   # cell client target round value
: >"$results"
cpu_results="$work/cpu.tsv"   # cell client target round MiB client_cpu_s target_cpu_s target_reads target_writes (--cpu)
: >"$cpu_results"
iperf() { # one iperf3 single-stream loopback run, bytes per second; with --cpu, its CPU per MiB to cpu.tsv
  iperf3 -c 127.0.0.1 -p "$iport" -t "$secs" -J >"$work/iperf3.json" 2>&1 \
    && python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]; print(e["sum_received"]["bits_per_second"] / 8)
if sys.argv[2] == "1": # sender (host) and receiver (remote) CPU, percent of one core over the run
    mib = e["sum_received"]["bytes"] / 2**20; c = e["cpu_utilization_percent"]; s = e["sum_received"]["seconds"]
    print("iperf3\tiperf3\tloopback\t%s\t%f\t%f\t%f\t0\t0" % (sys.argv[3], mib, c["host_total"] * s / 100, c["remote_total"] * s / 100), file=open(sys.argv[4], "a"))' \
      "$work/iperf3.json" "$cpu" "$1" "$cpu_results"
}
ticks=$(getconf CLK_TCK)
cpu_s() { # utime + stime of a process, all its threads, in seconds; then its read and write syscalls so far
  awk -v c="$(proc_cpu_ticks "$1")" -v t="$ticks" 'BEGIN {printf "%s ", c / t}'
  awk '/^syscr:/ {r = $2} /^syscw:/ {w = $2} END {print r, w}' "/proc/$1/io"
}
start_stress() { stress-ng --cpu "$(nproc)" --timeout 0 >"$work/stress.log" 2>&1 & stress=$!; sleep 1; }
stop_stress() { kill "$stress"; wait "$stress" 2>/dev/null || true; stress=""; }

echo "iscsi-vs-tgt.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), ${rounds} rounds x ${secs}s, jar $jar${base:+, baseline $base}" >&2
for r in $(seq 1 "$rounds"); do
  v=$(iperf "$r") && [ "${v%.*}" -gt 0 ] || { echo "iscsi-vs-tgt.sh: iperf3 round $r failed: $(cat "$work/iperf3.json")" >&2; exit 1; }
  printf "iperf3\tiperf3\tloopback\t%s\t%s\n" "$r" "$v" >>"$results"
done
for c in "${cells[@]}"; do
  read -r name rw bs qd n clients busy <<<"$c"
  [ "$busy" = 1 ] && start_stress
  for client in ${clients//,/ }; do
    if [ "$client" = qemu-img ]; then # calibrate the request count so that a round on tgtd lasts about --secs
      qc=$((bs >= 1048576 ? 64 : 2000))
      run qemu-img tgtd "$rw" "$bs" "$qd" 1 >/dev/null || { echo "iscsi-vs-tgt.sh: $name: qemu-img calibration on tgtd failed" >&2; exit 1; }
      qc=$(awk -v c="$qc" -v s="$secs" '/Run completed in/ {t = $4} END {n = int(c * s / (t > 0.01 ? t : 0.01)); print (n < 16 ? 16 : n)}' "$work/run.1")
      qc=$((qc / n > 16 ? qc / n : 16))
      if [ "$cpu" = 1 ]; then # qemu-img's fixed cost (start, login, open): one write's run, subtracted per process
        for t in "${targets[@]}"; do
          /usr/bin/time -f '%U %S' -o "$work/time.fixed" qemu-img bench -f raw -w -t none -c 1 -d 1 -s "$bs" "${url[$t]}" >/dev/null 2>&1 \
            || { echo "iscsi-vs-tgt.sh: $name: qemu-img's one-write run on $t failed" >&2; exit 1; }
          qfixed[$t]=$(awk '{print $1 + $2}' "$work/time.fixed")
        done
      fi
    fi
    for r in $(seq 1 "$rounds"); do
      for k in "${!targets[@]}"; do # rotate the order each round: A B C, B C A, C A B (A B C D with a baseline)
        t=${targets[$(( (k + r - 1) % ${#targets[@]} ))]}
        [ "$cpu" = 1 ] && c0=$(cpu_s "${tpid[$t]}")
        v=$(run "$client" "$t" "$rw" "$bs" "$qd" "$n") || v=0
        if [ "$(awk -v v="$v" 'BEGIN {print (v > 0)}')" != 1 ]; then
          [ -n "$stress" ] && stop_stress
          echo "iscsi-vs-tgt.sh: FAILED cell $name, target $t, client $client, round $r (result '$v'); see above" >&2
          exit 1
        fi
        printf "%s\t%s\t%s\t%s\t%s\n" "$name" "$client" "$t" "$r" "$v" >>"$results"
        if [ "$cpu" = 1 ]; then
          read -r ops ccpu <"$work/client-cpu"
          printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$client" "$t" "$r" "$(awk -v o="$ops" -v b="$bs" 'BEGIN {print o * b / 1048576}')" \
            "$ccpu" "$(cpu_s "${tpid[$t]}" | awk -v a="$c0" 'BEGIN {split(a, x, " ")} {print $1 - x[1] "\t" $2 - x[2] "\t" $3 - x[3]}')" >>"$cpu_results"
        fi
        printf "  %-26s %-10s %-14s round %d: %s ops/s\n" "$name" "$client" "$t" "$r" "$v" >&2
      done
    done
  done
  [ "$busy" = 1 ] && stop_stress
done

python3 "$root/bench/scripts/side_by_side_report.py" "$results" --secs "$secs" --rounds "$rounds" \
  ${json:+--json "$json"} ${plot:+--plot "$plot"} $([ "$cpu" = 1 ] && echo --cpu "$cpu_results" --cores "$(nproc)")

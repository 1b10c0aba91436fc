# Loopback port helpers for the project's scripts (conformance/run, bin/ceph-test-cluster, bench/scripts); source it.
#
# pick_port chooses below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default):
# a port in that range can be taken at any moment as the local end of an outgoing connection (a Ceph daemon's, a
# client's), and then nobody can listen on it, although nothing accepts on it when we check. Seen once in CI:
# serve failed with "Address already in use" on a port that port_free had just called free.

# True when nothing accepts on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A free port below the ephemeral range and not among the arguments; fails after 500 tries.
pick_port() {
  local low hi p
  read -r low _ < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
  hi=$((low > 12000 ? low - 1 : 32767)) # a machine whose ephemeral range starts very low: take our chances above it
  for _ in $(seq 1 500); do
    p=$((10000 + RANDOM % (hi - 10000 + 1)))
    if port_free "$p" && [[ " $* " != *" $p "* ]]; then echo "$p"; return 0; fi
  done
  echo "no free loopback port found below $hi" >&2
  return 1
}

# Waits up to 30 s until something accepts on PORT.
wait_port() { for _ in $(seq 1 300); do port_free "$1" || return 0; sleep 0.1; done; return 1; }

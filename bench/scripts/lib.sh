# Shared by the side-by-side scripts (iscsi-vs-tgt.sh, initiator-vs-libiscsi.sh, rbd-vs.sh); source it.

# need_packages SCRIPT HINT COMMAND:PACKAGE...
# Installs the packages whose command is missing when run as root (apt-get), else names them and exits 1.
# COMMAND may be a path (/usr/bin/time) or a name that never exists ("missing:tgt-rbd") to ask for a package always.
need_packages() {
  local script=$1 hint=$2 n; shift 2
  local -a missing=()
  for n in "$@"; do command -v "${n%%:*}" >/dev/null || missing+=("${n#*:}"); done
  [ ${#missing[@]} -gt 0 ] || return 0
  mapfile -t missing < <(printf "%s\n" "${missing[@]}" | sort -u)
  if [ "$(id -u)" = 0 ]; then
    echo "installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "$script: missing packages: apt-get install -y ${missing[*]}${hint:+ ($hint)}" >&2; exit 1
  fi
}

# Loopback ports (port_free, pick_port, wait_port): bin/ports.sh.
# shellcheck source=../../bin/ports.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/bin/ports.sh"

# pick_tgtd_index: prints a tgtd control-socket index (tgtd --control-port N, tgtadm -C N) that no running tgtd
# holds. tgtd takes a POSIX (lockf) lock on /var/run/tgtd/socket.N.lock for its lifetime; an index whose lock can
# be taken is free (a stale socket file of a dead tgtd is harmless: tgtd replaces it). Random candidates, so that
# two scripts started together rarely try the same one.
pick_tgtd_index() {
  python3 - <<'PY'
import errno, fcntl, os, random
d = "/var/run/tgtd"
for _ in range(200):
    n = random.randint(100, 9999)
    p = f"{d}/socket.{n}.lock"
    if not os.path.exists(p):
        print(n); raise SystemExit(0)
    try:
        fd = os.open(p, os.O_RDWR)
    except OSError:
        continue
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.lockf(fd, fcntl.LOCK_UN)
        print(n); raise SystemExit(0)
    except OSError as e:
        if e.errno not in (errno.EACCES, errno.EAGAIN):
            raise
    finally:
        os.close(fd)
raise SystemExit("pick_tgtd_index: no free tgtd control-socket index in 200 tries")
PY
}

# proc_cpu_ticks PID: utime + stime of the process, all its threads, in clock ticks (`getconf CLK_TCK` a second);
# 0 when PID is empty or the process is gone. Fields counted after the ")" that ends the command name, which may
# hold spaces.
proc_cpu_ticks() {
  { [ -n "$1" ] && awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$1/stat" 2>/dev/null; } || echo 0
}

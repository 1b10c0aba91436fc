# Sourced by ./hostwide: the JVM memory options for `hostwide serve`, from its --memory option or a default.
# The arithmetic is cli's MemoryBudget.of (MemoryLauncherTest keeps the two equal): a quarter of the budget, at
# least 64 MiB, is direct memory (-XX:MaxDirectMemorySize), the rest heap (-Xmx); all in whole MiB.
# Only sizes this script can read are turned into options; anything else is left for serve to refuse with a
# clear message (it also refuses a JVM whose limits do not match an explicit --memory).

# Prints the machine's memory in MiB: MemTotal, or the cgroup v2 limit when that is lower.
hostwide_physical_mib() {
  local kib limit mib
  kib=$(awk '/^MemTotal:/ {print $2; exit}' /proc/meminfo 2>/dev/null)
  [ -n "$kib" ] || return 1
  mib=$((kib / 1024))
  limit=$(cat /sys/fs/cgroup/memory.max 2>/dev/null || true)
  if [[ "$limit" =~ ^[0-9]+$ ]] && [ $((limit / 1048576)) -lt "$mib" ]; then
    mib=$((limit / 1048576))
  fi
  echo "$mib"
}

# Prints a size ("512m", "2g", "2GiB", "1048576") in whole MiB, or fails.
hostwide_size_mib() {
  local s="${1,,}" n unit shift
  [[ "$s" =~ ^([0-9]{1,12})(k|m|g|t)?(b|ib)?$ ]] || return 1
  n=${BASH_REMATCH[1]}
  unit=${BASH_REMATCH[2]}
  [ -z "${BASH_REMATCH[3]}" ] || [ -n "$unit" ] || [ "${BASH_REMATCH[3]}" = b ] || return 1
  case "$unit" in
    "") shift=0 ;; k) shift=10 ;; m) shift=20 ;; g) shift=30 ;; t) shift=40 ;;
  esac
  # n * 2^shift / 2^20, exact in 64 bits for n < 10^12
  if [ "$shift" -ge 20 ]; then
    echo $((n << (shift - 20)))
  else
    echo $((n >> (20 - shift)))
  fi
}

# Prints the JVM options for the command line "$@" (the arguments given to ./hostwide), or nothing: only `serve`
# gets memory options; an explicit --memory always does (its options come after HOSTWIDE_JAVA_OPTS, so they win);
# without it, the default is used unless HOSTWIDE_JAVA_OPTS already sets a heap or direct-memory limit.
hostwide_memory_options() {
  local sub="" arg memory="" want=0 total phys
  for arg in "$@"; do
    if [ "$want" = 1 ]; then memory="$arg"; want=0; continue; fi
    if [ -z "$sub" ]; then
      case "$arg" in -*) continue ;; *) sub="$arg"; [ "$sub" = serve ] || return 0; continue ;; esac
    fi
    case "$arg" in
      --memory) want=1 ;;
      --memory=*) memory="${arg#--memory=}" ;;
    esac
  done
  [ "$sub" = serve ] || return 0
  if [ -n "$memory" ]; then
    total=$(hostwide_size_mib "$memory") || return 0
  else
    case "${HOSTWIDE_JAVA_OPTS:-}" in *-Xmx*|*MaxHeapSize*|*MaxDirectMemorySize*) return 0 ;; esac
    phys=$(hostwide_physical_mib) || phys=4096
    total=$((phys / 2))
    [ "$total" -le 3072 ] || total=3072 # the default 1 GiB RAM LUN fits its budget (README: Memory)
    [ "$total" -ge 256 ] || total=256
  fi
  [ "$total" -ge 256 ] || return 0 # serve says why
  local direct=$((total / 4))
  [ "$direct" -ge 64 ] || direct=64
  echo "-Xmx$((total - direct))m -XX:MaxDirectMemorySize=${direct}m -Dhostwide.memory=${total}m"
}

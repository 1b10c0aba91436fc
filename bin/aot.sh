# Sourced by ./hostwide: the JVM's ahead-of-time cache (JDK 25+: JEP 483 class loading and linking, JEP 514/515
# one-step creation with method profiles), which takes about a second off every command's start-up and lets the JIT
# start from a training run's profiles.
#
# The cache lives under the build output, private to the user (cli/target/aot, mode 700), one file per jar build,
# JDK and JVM options (the key is in its name), so a stale or foreign cache is never handed to the JVM; the JVM's own
# AOT logging is off, so a cache it still cannot map (a different heap layout, a truncated file) is skipped silently
# and the command runs as without one. A missing cache is created out of band: a detached training run at the lowest
# CPU priority (`bench --device loop:` for 2 s, its output discarded), one at a time, while the command itself runs
# without the cache. HOSTWIDE_AOT=0 turns all of it off.

# Prints the options that use the cache for JAR under JVM options OPTS (nothing when there is none yet), and starts
# its creation when it is missing. Never fails and never prints anything else.
#   hostwide_aot_options JAR OPTS
hostwide_aot_options() {
  local jar=$1 opts=$2 dir key cache version
  [ "${HOSTWIDE_AOT:-1}" != 0 ] || return 0
  version=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null)
  [ -n "$version" ] && [ "$version" -ge 25 ] 2>/dev/null || return 0
  dir="$(dirname "$jar")/aot"
  key=$( { stat -c '%s %Y %i' "$jar" "$JAVA_HOME/lib/modules"; echo "$JAVA_HOME $opts"; } 2>/dev/null | cksum | cut -d' ' -f1)
  [ -n "$key" ] || return 0
  cache="$dir/hostwide-$key.aot"
  if [ -f "$cache" ]; then
    echo "-XX:AOTCache=$cache -Xlog:aot=off -Xlog:cds=off"
    return 0
  fi
  hostwide_aot_train "$jar" "$opts" "$dir" "$cache" >/dev/null 2>&1 || true
}

# Starts the detached training run that writes CACHE (unless one is running), removing caches of other builds.
hostwide_aot_train() {
  local jar=$1 opts=$2 dir=$3 cache=$4 lock
  (umask 077 && mkdir -p "$dir") || return 0
  lock="$dir/training.lock"
  # A lock left by a training run that died (the machine rebooted, it was killed) expires after 10 minutes.
  if [ -d "$lock" ] && [ -n "$(find "$lock" -maxdepth 0 -mmin +10 2>/dev/null)" ]; then
    rmdir "$lock" 2>/dev/null || true
  fi
  mkdir "$lock" 2>/dev/null || return 0   # another command is creating it
  command -v setsid >/dev/null || { rmdir "$lock"; return 0; }
  # shellcheck disable=SC2086 # OPTS are words on purpose
  setsid -f bash -c '
    jar=$1 dir=$2 cache=$3 lock=$4 java=$5; shift 5
    tmp="$cache.$$.tmp"
    if nice -n 19 "$java" "$@" -XX:AOTCacheOutput="$tmp" -Xlog:aot=off -Xlog:cds=off -jar "$jar" \
         bench --device loop:size_mb=64 --runtime 2s --json && [ -s "$tmp" ]; then
      for old in "$dir"/hostwide-*.aot; do [ "$old" = "$cache" ] || rm -f "$old"; done
      mv -f "$tmp" "$cache"
    fi
    rm -f "$tmp" "$tmp.config"
    rmdir "$lock"
  ' hostwide-aot "$jar" "$dir" "$cache" "$lock" "$JAVA" $opts </dev/null >/dev/null 2>&1
}

# Sourced by ./hostwide, ./check and .ci/run: finds a JDK >= 21 and exports
# JAVA_HOME and JAVA. JAVA_HOME wins when it is new enough; otherwise every JDK
# under /usr/lib/jvm is tried, newest first.
hostwide_java_major() { # prints the major version of the java binary $1
  "$1" -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}
hostwide_find_jdk() {
  local cand major
  for cand in ${JAVA_HOME:+"$JAVA_HOME"} $(ls -d /usr/lib/jvm/* 2>/dev/null | sort -rV); do
    [ -x "$cand/bin/java" ] && [ -x "$cand/bin/javac" ] || continue
    major=$(hostwide_java_major "$cand/bin/java")
    if [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null; then
      echo "$cand"; return 0
    fi
  done
  return 1
}
if ! JAVA_HOME="$(hostwide_find_jdk)"; then
  echo "hostwide: no JDK 21 or newer found (JAVA_HOME=${JAVA_HOME:-unset}, and none under /usr/lib/jvm)." >&2
  echo "hostwide: install one (e.g. apt-get install openjdk-21-jdk-headless) or point JAVA_HOME at it." >&2
  exit 1
fi
export JAVA_HOME
export JAVA="$JAVA_HOME/bin/java"
export PATH="$JAVA_HOME/bin:$PATH"
# Maven 3.8's bundled Guava touches sun.misc.Unsafe; JDK 23+ warns about it on every run.
if [ "$(hostwide_java_major "$JAVA")" -ge 23 ] 2>/dev/null; then
  case "${MAVEN_OPTS:-}" in *sun-misc-unsafe*) ;; *) export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" ;; esac
fi

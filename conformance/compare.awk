# Compares the expected results of one configuration with a run's scored results, both ways.
#
# Usage: awk -f compare.awk expected/<config>.txt <scored results>
# The expected file: "#" comment lines, and one "<PASS|SKIP|FAIL> <Suite.Test>" line per test, sorted by name;
# a SKIP or FAIL line carries its reason (the spec clause) after " # ". The scored results: score.awk's
# "<RESULT> <Suite.Test>" lines. Names are compared as plain strings.
# Prints one line per problem and exits 1 if there is any:
#   <Suite.Test>: was PASS, now SKIP           the expected result changed, in either direction
#   <Suite.Test>: was PASS, not run            an expected test did not run
#   <Suite.Test>: not expected, now PASS       a test ran that the expected file does not list
#   expected/<file>:<n>: ...                   a malformed, duplicate, unsorted or unexplained line

function trim(s) {
  sub(/^[ \t]+/, "", s)
  sub(/[ \t]+$/, "", s)
  return s
}

function problem(text) {
  print text
  problems++
}

FILENAME == ARGV[1] {
  line = trim($0)
  if (line == "" || substr(line, 1, 1) == "#") next
  p = index(line, " # ")
  entry = p > 0 ? trim(substr(line, 1, p - 1)) : line
  reason = p > 0 ? trim(substr(line, p + 3)) : ""
  n = split(entry, f, /[ \t]+/)
  if (n != 2 || (f[1] != "PASS" && f[1] != "SKIP" && f[1] != "FAIL")) {
    problem(FILENAME ":" FNR ": not \"<PASS|SKIP|FAIL> <Suite.Test> [# reason]\": " line)
    next
  }
  if (f[1] != "PASS" && (reason == "" || index(reason, "TODO") == 1)) {
    problem(FILENAME ":" FNR ": " f[1] " " f[2] " needs its reason (the spec clause) after \" # \"")
  }
  if (f[2] in expected) {
    problem(FILENAME ":" FNR ": " f[2] " listed twice")
    next
  }
  if (last != "" && f[2] < last) {
    problem(FILENAME ":" FNR ": " f[2] " is out of order (the file is sorted by name; --update rewrites it)")
  }
  last = f[2]
  expected[f[2]] = f[1]
  order[++count] = f[2]
  next
}

{
  if ($0 == "" || substr($0, 1, 1) == "#") next
  if ($2 in actual) {
    problem($2 ": ran twice")
    next
  }
  actual[$2] = $1
  ran[++runs] = $2
}

END {
  for (i = 1; i <= count; i++) {
    name = order[i]
    if (!(name in actual)) problem(name ": was " expected[name] ", not run")
    else if (actual[name] != expected[name]) problem(name ": was " expected[name] ", now " actual[name])
  }
  for (i = 1; i <= runs; i++) {
    name = ran[i]
    if (!(name in expected)) problem(name ": not expected, now " actual[name])
  }
  exit problems > 0
}

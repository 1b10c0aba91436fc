# Scores the output of iscsi-test-cu (libiscsi 1.19 on CUnit 2.1-3's basic runner) per test.
#
# What the output looks like (conformance/out/<config>.txt):
#   Suite: Reserve6
#     Test: Simple ...passed                     the verdict right after "..." when the test printed nothing
#     Test: LUNReset ...    [FAILED] RESERVE6 .. libiscsi's own lines, indented four spaces, inside the test
#   passed    [FAILED] PRIN command: ...         CUnit's verdict at the start of a line; what follows it until
#       [FAILED] PRIN command: ...               the next "Test:" is suite cleanup (libiscsi's clear_pr)
#   Run Summary:    Type  Total    Ran Passed Failed Inactive
#                 suites     51     51    n/a      0        0
#                  tests    230    230    229      1        0
#                asserts  79840  79840  79836      4      n/a
#
# A test scores FAIL on CUnit's FAILED verdict, on no verdict at all (a crash, a timeout), or on a "[FAILED]"
# line inside it: libiscsi logs a failed check and goes on, and CUnit still counts the test as passed unless an
# assertion also failed. A "[FAILED]" line that failed-by-design.txt lists for that test is one libiscsi prints on
# purpose and does not count. A passed test that printed "[SKIPPED]" scores SKIP (CUnit counts it as passed).
#
# Usage: awk -v by_design=failed-by-design.txt -f score.awk raw-output.txt
# Output, in run order: "<PASS|SKIP|FAIL> <Suite>.<Test>" per test, and "#" lines for conformance/judge:
#   # failed-line <Suite.Test> <text>    a [FAILED] line that made the test FAIL
#   # no-verdict <Suite.Test>            the output ended inside this test
#   # by-design <n> <Suite.Test>         line n of failed-by-design.txt matched a line of this test
#   # by-design-entry <n> <Suite.Test>   every usable entry, so the judge can tell which ones matched nothing
#   # by-design-error <n> <text>         an entry the scorer cannot use (no reason, no [FAILED] text)
#   # cunit-failed <count>               tests with CUnit's FAILED verdict
#   # warning <text>                     CUnit's "WARNING - Suite initialization/cleanup failed ..."
#   # summary ran <r> failed <f> suites-failed <s> asserts-failed <a> inactive <i>   (only with a Run Summary)
# Names and texts are compared as plain strings (index), never as regular expressions.

function trim(s) {
  sub(/^[ \t]+/, "", s)
  sub(/[ \t]+$/, "", s)
  return s
}

# failed-by-design.txt: "<Suite.Test> <start of the [FAILED] line> # <reason>"
function load_exemption(line, n,   name, rest, p, text, reason) {
  line = trim(line)
  if (line == "" || substr(line, 1, 1) == "#") return
  name = line; sub(/[ \t].*$/, "", name)
  rest = trim(substr(line, length(name) + 1))
  p = index(rest, " # ")
  text = p > 0 ? trim(substr(rest, 1, p - 1)) : rest
  reason = p > 0 ? trim(substr(rest, p + 3)) : ""
  if (index(text, "[FAILED]") != 1 || reason == "") {
    print "# by-design-error", n, line
    return
  }
  nx++
  xline[nx] = n; xname[nx] = name; xtext[nx] = text
  print "# by-design-entry", n, name
}

# A line printed while a test runs.
function inside(text,   k, msg, i) {
  k = index(text, "[FAILED]")
  if (k > 0) {
    msg = substr(text, k)
    for (i = 1; i <= nx; i++) {
      if (xname[i] == current && index(msg, xtext[i]) == 1) {
        print "# by-design", xline[i], current
        return
      }
    }
    failed = 1
    print "# failed-line", current, msg
  } else if (index(text, "[SKIPPED]") > 0) {
    skipped = 1
  }
}

# CUnit's verdict at the start of text: "passed" or "FAILED". Returns 1 when text was one.
function verdict(text) {
  if (substr(text, 1, 6) == "passed") { finish("PASS"); return 1 }
  if (substr(text, 1, 6) == "FAILED") { cunit_failed++; finish("FAIL"); return 1 }
  return 0
}

function finish(result) {
  if (current == "") return
  if (result == "") {
    print "# no-verdict", current
    result = "FAIL"
  } else if (result == "PASS" && failed) {
    result = "FAIL"
  } else if (result == "PASS" && skipped) {
    result = "SKIP"
  }
  print result, current
  current = ""; failed = 0; skipped = 0
}

BEGIN {
  if (by_design != "") {
    while ((r = (getline line < by_design)) > 0) load_exemption(line, ++n)
    if (r < 0) { print "# by-design-error 0 cannot read " by_design }
  }
}

index($0, "Suite: ") == 1 {
  finish("")
  suite = trim(substr($0, 8))
  next
}

index($0, "  Test: ") == 1 {
  finish("")
  line = substr($0, 9)
  p = index(line, " ...")
  if (p == 0) { current = suite "." trim(line); next }   # no "...": a cut-off line; no verdict follows
  current = suite "." substr(line, 1, p - 1)
  rest = substr(line, p + 4)
  if (!verdict(rest)) inside(rest)
  next
}

index($0, "Run Summary:") == 1 { finish(""); in_summary = 1; next }

in_summary && $1 == "suites" { suites_failed = $5; s_inactive = $6; next }
in_summary && $1 == "tests" { ran = $3; tests_failed = $5; t_inactive = $6; have_summary = 1; next }
in_summary && $1 == "asserts" { asserts_failed = $5; in_summary = 0; next }

index($0, "WARNING - Suite") > 0 { print "# warning", trim($0) }

current != "" {
  if (!verdict($0)) inside($0)
}

END {
  finish("")
  print "# cunit-failed", cunit_failed + 0
  if (have_summary) {
    print "# summary ran", ran + 0, "failed", tests_failed + 0, "suites-failed", suites_failed + 0, \
          "asserts-failed", asserts_failed + 0, "inactive", s_inactive + t_inactive
  }
}

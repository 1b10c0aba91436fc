# Scores iscsi-test-cu (CUnit) text output per test: passed, skipped or failed.
# CUnit prints "  Test: <name> ..." and then the verdict "passed" or "FAILED" at
# the start of a line (or right after the "..."); anything printed after the
# verdict belongs to the next setup/teardown. CUnit counts a test that printed
# [SKIPPED] as passed; we do not. A test without a verdict (crash, killed by a
# timeout) counts as failed.
# Output: one line per test, "<PASS|SKIP|FAIL> <Suite>.<Test>".
function finish(result) {
  if (test == "") return
  if (result == "") result = "FAIL"
  else if (result == "PASS" && skipped) result = "SKIP"
  print result, suite "." test
  test = ""; skipped = 0
}
function verdict(text) {
  if (text ~ /^passed/) { finish("PASS"); return 1 }
  if (text ~ /^FAILED/) { finish("FAIL"); return 1 }
  return 0
}
/^Suite: / { finish(""); suite = $2; next }
/^  Test: / {
  finish("")
  test = $2; skipped = 0
  rest = $0; sub(/^  Test: [^ ]+ \.\.\./, "", rest)
  if (!verdict(rest) && rest ~ /\[SKIPPED\]/) skipped = 1
  next
}
test != "" {
  if (verdict($0)) next
  if ($0 ~ /\[SKIPPED\]/) skipped = 1
}
/^Run Summary:/ { finish("") }
END { finish("") }

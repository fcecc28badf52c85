# shellcheck shell=bash
# Shared by the end-to-end test scripts (tests/scripts/*_test.sh, and through app_test_lib.sh the apps' ones).
# Source it. It provides:
#   $work          a scratch folder, removed on exit
#   fail MESSAGE   counts a failure
#   finish NAME    prints the summary and exits 1 if anything failed
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}

finish() {
  if ((failures > 0)); then
    echo "$failures $1 checks failed"
    exit 1
  fi
  echo "all $1 checks passed"
}

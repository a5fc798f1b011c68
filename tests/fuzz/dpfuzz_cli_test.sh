#!/usr/bin/env bash
# The dpfuzz binary end to end: exit statuses and the stable output lines.
#   dpfuzz_cli_test.sh PATH_TO_DPFUZZ
set -u
dpfuzz="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
expect() {  # expect STATUS DESCRIPTION -- ARGS...
  local want=$1 what=$2; shift 3
  "$dpfuzz" "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; cat "$dir/out" "$dir/err"; fail=1
  fi
}
expect 0 "help" -- --help
expect 2 "unknown flag" -- --bogus
grep -q "unknown flag --bogus" "$dir/err" || { echo "FAIL: no error line"; fail=1; }
expect 2 "unknown op" -- --op=no_such_op
expect 2 "positional" -- --op=add extra
touch "$dir/file"
expect 2 "findings is a file" -- --op=add --findings="$dir/file"
# A short campaign on a correct-looking op: SUMMARY line and summary JSON.
expect_status() { "$dpfuzz" "$@" >"$dir/out" 2>&1; echo $?; }
status=$(expect_status --op=flip --runs=300 --seed=3 --findings="$dir/f" --summary_json="$dir/s.json")
case "$status" in 0|1) ;; *) echo "FAIL: campaign exit $status"; cat "$dir/out"; fail=1 ;; esac
grep -q "^SUMMARY: cases=300 " "$dir/out" || { echo "FAIL: no SUMMARY line"; cat "$dir/out"; fail=1; }
grep -q '"cases": 300' "$dir/s.json" || { echo "FAIL: summary JSON"; fail=1; }
[ "$fail" = 0 ] && echo "dpfuzz CLI: all checks passed"
exit $fail

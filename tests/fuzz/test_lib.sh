# Sourced by the end-to-end scripts of tests/fuzz: $dir, a temporary
# directory removed on exit; die, which records a failure in $fail (the
# script exits with it at its end); json FILE EXPRESSION, which prints a
# Python expression of the JSON document j.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
die() { echo "FAIL: $*"; fail=1; }
json() {
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

#!/usr/bin/env bash
# report.html in a real browser: `dpfuzz report --format=html` over a
# findings directory made here (cases of known_findings/), opened in
# Debian's headless chromium; the bug table must render one row per bug,
# ranked, with the evidence shown as text (never as markup).
# Exits 77 (skipped) when chromium is not installed (scripts/setup.sh
# installs it).
#   report_html_test.sh PATH_TO_DPFUZZ
set -u
dpfuzz="$1"
if ! command -v chromium >/dev/null; then
  echo "SKIPPED: no chromium (scripts/setup.sh installs it)"
  exit 77
fi
known="$(dirname "$0")/../../known_findings"
source "$(dirname "$0")/test_lib.sh"

finding() {  # finding NAME KNOWN VERDICT CULPRIT FEATURE KIND HITS DETAIL
  mkdir -p "$dir/f/$1"
  cp "$known/$2/case.json" "$dir/f/$1/"
  python3 - "$dir/f/$1/finding.json" "${@:3}" <<'PY'
import json, sys
path, verdict, culprit, feature, kind, hits, detail = sys.argv[1:]
json.dump({"verdict": verdict, "signature": "report_html_test|" + path,
           "culprit": culprit,
           "feature": feature, "kind": kind, "hits": int(hits),
           "evidence": {"where": "out", "detail": detail}}, open(path, "w"))
PY
}
injected='<img src=x onerror="document.title=1"> & wrong'
finding a tril-out-gapped-writes-outside-view outside_write out gapped layout_bug 2 "wrote storage[3]"
finding b masked_select-out-aliasing-mask-heap-corruption crash mask,out aliasing layout_bug 9 "SIGSEGV"
finding c replication_pad2d-out-noncontiguous-wrong-values mismatch out permuted layout_bug 1 "$injected"
finding d max_pool2d-padding-window-out-of-bounds-index crash "" "" baseline_failure 1 "baseline died"

"$dpfuzz" report "$dir/f" --format=html --out="$dir/f/report.html" 2>"$dir/err"
status=$?
[ "$status" = 0 ] || { echo "FAIL: dpfuzz report: exit $status"; cat "$dir/err"; exit 1; }
timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$dir/chromium" \
  --dump-dom "file://$dir/f/report.html" >"$dir/dom.html" 2>"$dir/chromium.err"
status=$?
if [ "$status" != 0 ] || [ ! -s "$dir/dom.html" ]; then
  echo "FAIL: chromium: exit $status"; tail -5 "$dir/chromium.err"; exit 1
fi

# The rendered bug table, one line per row: cells joined by tabs.
python3 - "$dir/dom.html" >"$dir/rows" <<'PY' || { echo "FAIL: cannot read the DOM"; fail=1; }
import html.parser, sys
class Rows(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.table = None; self.rows = []; self.cell = None
        self.images = 0
    def handle_starttag(self, tag, attrs):
        if tag == "img": self.images += 1
        if tag == "table": self.table = dict(attrs).get("id")
        bugs = self.table in ("bugs", "low_confidence_bugs")
        if bugs and tag == "tr": self.rows.append([])
        if bugs and tag == "td": self.cell = []
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append("".join(self.cell)); self.cell = None
        if (tag == "tr" and self.table in ("bugs", "low_confidence_bugs")
                and self.rows and self.rows[-1]):
            self.rows[-1].append("table=" + self.table)
        if tag == "table": self.table = None
    def handle_data(self, data):
        if self.cell is not None: self.cell.append(data)
p = Rows(); p.feed(open(sys.argv[1]).read())
if p.images: print("IMAGES", p.images)
for row in p.rows:
    if row: print("\t".join(row))
PY
expect_row() {  # expect_row RANK ID_PREFIX SEVERITY CONFIDENCE_PREFIX
  local line
  line=$(awk -F'\t' -v r="$1" '$1 == r' "$dir/rows")
  case "$line" in
    "$1	$2"*"	$3	$4"*) ;;
    *) echo "FAIL: bug row $1: expected $2... $3 $4..., got: $line"; fail=1 ;;
  esac
}
[ "$(grep -c . "$dir/rows")" = 3 ] || { echo "FAIL: expected 3 bug rows"; fail=1; }
# High confidence bugs first, by severity; the low confidence one last, in
# a table of its own.
expect_row 1 tril-out-wrong_values- memory high
expect_row 2 replication_pad2d-out-wrong_values- wrong_values high
expect_row 3 masked_select-out-crash- memory "low: out shares memory with mask"
grep -q "^3	.*	table=low_confidence_bugs$" "$dir/rows" || { echo "FAIL: the low confidence bug is not in its own table"; fail=1; }
grep -q "^1	.*	table=bugs$" "$dir/rows" || { echo "FAIL: the first bug is not in the bugs table"; fail=1; }
grep -q '^IMAGES' "$dir/rows" && { echo "FAIL: evidence rendered as markup"; fail=1; }
grep -qF "$injected" "$dir/rows" || { echo "FAIL: evidence not shown as text"; fail=1; }
grep -qF 'id="baseline_failures"' "$dir/dom.html" || { echo "FAIL: no baseline failures table"; fail=1; }
[ "$fail" = 0 ] || { echo "rows:"; cat "$dir/rows"; exit 1; }
echo "PASS: report.html renders 3 ranked bugs"

#!/usr/bin/env bash
# report.html in a real browser: `dpfuzz report --format=html` over a
# findings directory made here (cases of known_findings/), opened in
# Debian's headless chromium; the bug table must render one row per bug,
# ranked, with the evidence shown as text (never as markup); the class
# table leads, and a screenshot shows a layout picture and a snippet.
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

# finding NAME KNOWN VERDICT CULPRIT FEATURE KIND HITS DETAIL [MECHANISM]
# (MECHANISM, of `out`, as `dpfuzz replay` reports it for that case; the
# known finding's issue.md goes with it).
finding() {
  mkdir -p "$dir/f/$1"
  cp "$known/$2/case.json" "$dir/f/$1/"
  [ -n "${9:-}" ] && cp "$known/$2/issue.md" "$dir/f/$1/"
  python3 - "$dir/f/$1/finding.json" "${@:3:6}" "${9:-}" <<'PY'
import json, sys
path, verdict, culprit, feature, kind, hits, detail, mechanism = sys.argv[1:]
evidence = {"where": "out", "detail": detail}
if mechanism:
    evidence["mechanism"] = {"name": mechanism, "argument": "out"}
json.dump({"verdict": verdict, "signature": "report_html_test|" + path,
           "culprit": culprit,
           "feature": feature, "kind": kind, "hits": int(hits),
           "evidence": evidence}, open(path, "w"))
PY
}
injected='<img src=x onerror="document.title=1"> & wrong'
finding a tril-out-gapped-writes-outside-view outside_write out gapped layout_bug 2 "wrote storage[3]"
finding b masked_select-out-aliasing-mask-heap-corruption crash mask,out aliasing layout_bug 9 "SIGSEGV"
finding c replication_pad2d-out-noncontiguous-wrong-values mismatch out permuted layout_bug 1 "$injected" writes_as_contiguous
finding d max_pool2d-padding-window-out-of-bounds-index crash "" "" baseline_failure 1 "baseline died"
finding e narrow_copy-out-gapped-writes-outside-view outside_write out gapped layout_bug 1 "wrote storage[1]" writes_as_contiguous

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
[ "$(grep -c . "$dir/rows")" = 4 ] || { echo "FAIL: expected 4 bug rows"; fail=1; }
# High confidence bugs first, by severity; the low confidence one last, in
# a table of its own.
expect_row 1 tril-out-wrong_values- memory high
expect_row 2 narrow_copy-out-wrong_values- memory high
expect_row 3 replication_pad2d-out-wrong_values- wrong_values high
expect_row 4 masked_select-out-crash- memory "low: out shares memory with mask"
grep -q "^4	.*	table=low_confidence_bugs$" "$dir/rows" || { echo "FAIL: the low confidence bug is not in its own table"; fail=1; }
grep -q "^1	.*	table=bugs$" "$dir/rows" || { echo "FAIL: the first bug is not in the bugs table"; fail=1; }
grep -q '^IMAGES' "$dir/rows" && { echo "FAIL: evidence rendered as markup"; fail=1; }
grep -qF "$injected" "$dir/rows" || { echo "FAIL: evidence not shown as text"; fail=1; }
grep -qF 'id="baseline_failures"' "$dir/dom.html" || { echo "FAIL: no baseline failures table"; fail=1; }
[ "$fail" = 0 ] || { echo "rows:"; cat "$dir/rows"; exit 1; }

# The classes lead: the two out= kernels that write out as if contiguous
# are one class, and the page shows its first member's layout picture and
# its snippet, copyable.
python3 - "$dir/dom.html" <<'PY' || fail=1
import html.parser, sys
class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.table = None; self.text = {}; self.tags = {}
    def handle_starttag(self, tag, attrs):
        if tag == "table": self.table = dict(attrs).get("id")
        if self.table:
            key = (tag, dict(attrs).get("class"))
            self.tags.setdefault(self.table, []).append(key)
    def handle_endtag(self, tag):
        if tag == "table": self.table = None
    def handle_data(self, data):
        if self.table: self.text[self.table] = self.text.get(self.table, "") + data
p = Page(); p.feed(open(sys.argv[1]).read())
classes, details = p.text.get("classes", ""), p.text.get("class_details", "")
checks = {
    "a classes table naming the class": "writes_as_contiguous-out-wrong_values-" in classes,
    "both members in it": "aten::narrow_copy (out=)" in classes and "aten::replication_pad2d (out=)" in classes,
    "a layout picture": ("svg", "layout") in p.tags.get("class_details", []),
    "a snippet": ("pre", "snippet") in p.tags.get("class_details", []) and "import torch" in details,
}
for what, ok in checks.items():
    if not ok: print("FAIL: the page has no", what)
sys.exit(0 if all(checks.values()) else 1)
PY
# As a person sees it: a screenshot shows the picture's cells (blue: the
# view's elements, red: cells the mistake writes outside it) and the
# snippet's grey block. Debian's Python reads it (python3-pil).
timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$dir/chromium" \
  --window-size=1400,3000 --screenshot="$dir/shot.png" "file://$dir/f/report.html" \
  >/dev/null 2>>"$dir/chromium.err"
/usr/bin/python3 - "$dir/shot.png" <<'PY' || fail=1
import sys
from PIL import Image
colors = Image.open(sys.argv[1]).convert("RGB").getcolors(1 << 24) or []
count = {rgb: n for n, rgb in colors}
for name, rgb, least in (("picture's view cells", (0xcf, 0xe3, 0xff), 200),
                         ("picture's wrongly written cells", (0xf4, 0xa6, 0xa6), 100),
                         ("snippet block", (0xf6, 0xf6, 0xf6), 2000)):
    if count.get(rgb, 0) < least:
        print(f"FAIL: the screenshot shows {count.get(rgb, 0)} pixels of the {name}")
        sys.exit(1)
PY
[ "$fail" = 0 ] || exit 1
echo "PASS: report.html renders the classes, a layout picture, a snippet and 4 ranked bugs"

#!/usr/bin/env bash
# What a campaign's triage budget leaves undone, `dpfuzz triage` finishes:
#   deferred_triage_test.sh PATH_TO_DPFUZZ_PLANTED
# With --triage_share=0 a campaign over planted ops with a value bug
# (sneaky_neg) and a crash (abort_neg) stores both root causes as found,
# marked untriaged, and says so in its SUMMARY line, its last INFO line and
# its report. `dpfuzz triage` then reduces and blames each, writes its
# issue.md, clears the marks and rewrites the report; run again, it has
# nothing left to do. A reduction the campaign's end cuts short
# (slow_sneaky_neg: every call takes 0.1 s) leaves its root cause untriaged
# too, and `dpfuzz triage` reduces it to the end.
set -u
dpfuzz="$1"
source "$(dirname "$0")/test_lib.sh"

"$dpfuzz" --op=planted::sneaky_neg,planted::abort_neg --jobs=1 --max_time=20 \
  --timeout=2 --seed=3 --triage_share=0 --findings="$dir/f" \
  --summary_json="$dir/s.json" >"$dir/out" 2>&1
status=$?
[ "$status" = 1 ] || die "campaign exit $status, expected 1: $(tail -3 "$dir/out")"
grep -q "^INFO: reduced" "$dir/out" && die "--triage_share=0 reduced in the campaign"
grep -q "^SUMMARY: .* untriaged=2" "$dir/out" ||
  die "SUMMARY does not count 2 untriaged: $(grep SUMMARY "$dir/out")"
grep -q "dpfuzz triage $dir/f" "$dir/out" || die "the campaign does not say how to finish its triage"
[ "$(json "$dir/s.json" "j['untriaged']")" = 2 ] || die "summary json untriaged != 2"
[ "$(json "$dir/f/report.json" "(j['summary']['untriaged'], sorted(b['untriaged'] for b in j['bugs']))")" = "(2, [True, True])" ] ||
  die "report.json does not mark both bugs untriaged: $(json "$dir/f/report.json" "j['summary']")"
grep -q "untriaged bugs: 2" "$dir/f/report.md" || die "report.md does not say 2 bugs are untriaged"

"$dpfuzz" triage "$dir/f" --timeout=2 >"$dir/triage" 2>&1
status=$?
[ "$status" = 0 ] || die "dpfuzz triage exit $status: $(tail -3 "$dir/triage")"
grep -q "^INFO: 2 untriaged root cause(s)" "$dir/triage" || die "triage did not find 2 untriaged: $(head -3 "$dir/triage")"
[ "$(grep -c "^TRIAGED: " "$dir/triage")" = 2 ] || die "triage did not triage both: $(cat "$dir/triage")"
for op in sneaky_neg abort_neg; do
  d=$(ls -d "$dir/f/"*-"$op"-* | head -1)
  [ "$(json "$d/finding.json" "(j['untriaged'], j['culprit'])")" = "(False, 'self')" ] ||
    die "$op: not triaged or not blamed on self: $(json "$d/finding.json" "(j.get('untriaged'), j['culprit'])")"
done
grep -q "^INFO: reduced planted::sneaky_neg" "$dir/triage" || die "triage did not reduce sneaky_neg"
[ "$(json "$dir/f/report.json" "(j['summary']['untriaged'], sorted(b['culprit'] for b in j['bugs']))")" = "(0, ['self', 'self'])" ] ||
  die "report.json after triage: $(json "$dir/f/report.json" "[(b['id'], b['culprit'], b['untriaged']) for b in j['bugs']]")"
[ "$(json "$dir/f/report.json" "all(b['issue'] for b in j['bugs'])")" = True ] ||
  die "a triaged bug has no issue.md"

"$dpfuzz" triage "$dir/f" >"$dir/again" 2>&1 || die "second dpfuzz triage failed"
grep -q "^INFO: 0 untriaged root cause(s)" "$dir/again" || die "second triage found work: $(head -3 "$dir/again")"

"$dpfuzz" --op=planted::slow_sneaky_neg --jobs=1 --max_time=8 --seed=3 \
  --findings="$dir/slow" >"$dir/slow.out" 2>&1
grep -q "^INFO: reduced planted::slow_sneaky_neg.*(budget exhausted)" "$dir/slow.out" ||
  die "the slow reduction was not cut short: $(grep -E '^(INFO: reduced|SUMMARY)' "$dir/slow.out")"
grep -q "^SUMMARY: .* untriaged=1" "$dir/slow.out" ||
  die "a reduction cut short is not untriaged: $(grep SUMMARY "$dir/slow.out")"
"$dpfuzz" triage "$dir/slow" >"$dir/slow.triage" 2>&1 || die "dpfuzz triage of the cut-short reduction failed"
grep "^INFO: reduced planted::slow_sneaky_neg" "$dir/slow.triage" | grep -qv "budget exhausted" ||
  die "dpfuzz triage did not reduce to the end: $(grep reduced "$dir/slow.triage")"
[ "$(json "$dir/slow/report.json" "(j['summary']['untriaged'], [b['culprit'] for b in j['bugs']])")" = "(0, ['self'])" ] ||
  die "report.json after triage of the cut-short reduction: $(json "$dir/slow/report.json" "j['summary']")"

"$dpfuzz" triage "$dir/none" >"$dir/bad" 2>&1
[ $? = 2 ] || die "triage of a missing directory is not a usage error"
grep -q "is not a findings directory" "$dir/bad" || die "unclear error: $(cat "$dir/bad")"
exit $fail

#!/usr/bin/env bash
# Isolation end to end, with planted ops that segfault, abort, hang and
# allocate without bound, next to a correct one, in one campaign:
#   isolation_test.sh PATH_TO_DPFUZZ_PLANTED REPRO_PYTHON
# It checks that the campaign keeps to its time limit, records each crash
# kind once per signature, accounts for every planned case and exits 1;
# that replay reproduces them; that repro writes runnable files; that
# SIGINT ends a campaign cleanly without touching stored findings.
set -u
dpfuzz="$1"
python="$2"  # DPFUZZ_PYTHON: the Python dpfuzz runs repro.py files with.
source "$(dirname "$0")/test_lib.sh"

# 1. The death campaign. Deaths are slow (a hang costs its 6 s timeout and
# as much again when re-run alone for blame): under a loaded CI machine 40 s
# ran only 27 cases, none of them hog_neg's permuted input.
max_time=60
start=$(date +%s)
"$dpfuzz" --op=planted::segv_neg,planted::abort_neg,planted::hang_neg,planted::hog_neg,planted::good_neg \
  --jobs=2 --max_time=$max_time --timeout=6 --rss_limit_mb=1024 --seed=5 --reduce=false \
  --findings="$dir/f" --summary_json="$dir/s.json" >"$dir/out" 2>&1
status=$?
elapsed=$(( $(date +%s) - start ))
[ "$status" = 1 ] || die "campaign exit $status, expected 1"
# The time limit, then the Python repro checks left until 10 s past it (a
# running one is cut short), then stopping workers and writing reports.
[ "$elapsed" -le $((max_time + 20)) ] || die "campaign took ${elapsed}s for --max_time=$max_time"
for kind in crash-segv_neg crash-abort_neg timeout-hang_neg oom-hog_neg; do
  n=$(ls -d "$dir/f/$kind"-* 2>/dev/null | wc -l)
  [ "$n" = 1 ] || die "$n finding directories for $kind, expected 1"
  for file in case.json finding.json repro.py repro.cc CMakeLists.txt; do
    [ -f "$dir/f/$kind"-*/"$file" ] || die "$kind: no $file"
  done
done
ls -d "$dir/f/"*good_neg* >/dev/null 2>&1 && die "a finding for the correct op good_neg"
grep -q "^SUMMARY: " "$dir/out" || die "no SUMMARY line"
accounted=$(json "$dir/s.json" "j['planned'] == j['cases'] + j['invalid'] + j['errors'] + j['abandoned']")
[ "$accounted" = True ] || die "planned cases not all accounted for: $(cat "$dir/s.json")"
# One finding per crash kind. A hog may also run out its 6 s before it
# reaches the memory limit on a loaded machine (its time counts while it
# allocates): that death of the same op, a timeout, is the one extra allowed.
extra=$(ls -d "$dir/f/"timeout-hog_neg-* 2>/dev/null | wc -l)
[ "$(json "$dir/s.json" "j['findings']")" = $((4 + extra)) ] && [ "$extra" -le 1 ] ||
  die "not 4 unique findings (and $extra hog timeouts)"
[ "$(json "$dir/s.json" "j['culprits'] > 0 and j['worker_deaths'] >= j['culprits']")" = True ] ||
  die "culprits and worker deaths do not add up"
[ "$(json "$dir/f/"crash-segv_neg-*/finding.json "j['verdict']")" = crash ] || die "segv verdict"
grep -q '"detail": "killed by SIGSEGV' "$dir/f/"crash-segv_neg-*/finding.json || die "no signal in the segv finding"
# The Python repro was run (the planted op is not in Python's torch: it
# fails, exit 2) and its result recorded; never for an oom finding.
if "$python" -c "import torch" 2>/dev/null; then
  [ "$(json "$dir/f/"crash-segv_neg-*/finding.json "j['python_repro']['result']")" = "failed: exit 2" ] ||
    die "no Python repro result in the segv finding"
  grep -q python_repro "$dir/f/"oom-hog_neg-*/finding.json && die "an oom repro was run outside a worker"
fi
[ "$fail" = 0 ] || { cat "$dir/out"; }

# 2. Replay: every stored finding reproduces; exit 1. The time limit leaves
# hog_neg (which allocates until stopped) time to reach the memory limit
# first on a loaded machine too: at --timeout=2 a CI run's replay saw a
# timeout where the campaign had seen an oom.
"$dpfuzz" replay "$dir/f" --timeout=10 --rss_limit_mb=1024 >"$dir/replay" 2>&1
status=$?
[ "$status" = 1 ] || die "replay exit $status, expected 1"
# (A hog's extra timeout finding may replay as its oom.)
reproduced=$(grep -c '^REPRODUCES: ' "$dir/replay")
[ "$reproduced" -ge 4 ] && [ "$reproduced" -le $((4 + extra)) ] ||
  { die "replay reproduced $reproduced of $((4 + extra))"; cat "$dir/replay"; }

# 3. repro: Python to stdout, C++ with its CMakeLists.txt.
"$dpfuzz" repro "$dir/f/"crash-segv_neg-* >"$dir/repro.py" 2>"$dir/err" || die "repro python: $(cat "$dir/err")"
grep -q "torch.ops.planted.segv_neg.default" "$dir/repro.py" || die "repro.py calls no planted op"
mkdir "$dir/cc"
"$dpfuzz" repro "$dir/f/"oom-hog_neg-*/case.json --format=cpp --out="$dir/cc/repro.cc" 2>"$dir/err" ||
  die "repro cpp: $(cat "$dir/err")"
[ -f "$dir/cc/repro.cc" ] && [ -f "$dir/cc/CMakeLists.txt" ] || die "repro cpp wrote no files"

# 4. SIGINT: the campaign stops cleanly; stored findings stay as they were
# (op_stats.json, the op counts, is not a finding and may grow; the reports,
# quarantine.json and the campaign's journal, campaign.json, are written
# anew by every campaign).
unchanged() {
  (cd "$dir/f" && find . -type f ! -name .lock ! -name op_stats.json \
    ! -name 'report.*' ! -name quarantine.json ! -name campaign.json \
    -exec sha1sum {} + | sort)
}
before=$(unchanged)
"$dpfuzz" --op=planted::good_neg --jobs=2 --max_time=600 --findings="$dir/f" \
  --summary_json="$dir/int.json" >"$dir/int" 2>&1 &
pid=$!
sleep 8
kill -INT $pid
wait $pid
status=$?
[ "$status" = 0 ] || die "interrupted campaign exit $status, expected 0"
grep -q "^SUMMARY: .* interrupted" "$dir/int" || { die "no interrupted SUMMARY"; cat "$dir/int"; }
[ "$(json "$dir/int.json" "j['interrupted'] and j['cases'] > 0")" = True ] || die "summary JSON after SIGINT"
after=$(unchanged)
[ "$before" = "$after" ] || die "an interrupted run changed stored findings"

[ "$fail" = 0 ] && echo "isolation: all checks passed"
exit $fail

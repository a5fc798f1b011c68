#!/usr/bin/env bash
# A campaign killed with SIGKILL and started again on the same findings
# directory resumes (fuzz/campaign_journal.h): nothing lost, nothing counted
# twice. Cases are deterministic in (seed, ticket number), so the killed and
# resumed campaign must end exactly as the same campaign run without a
# break: the same cases, invalid draws, verdict counts, hits and bugs.
# Shards (--shard=I/N) of one campaign split its tickets.
#   resume_test.sh PATH_TO_DPFUZZ_PLANTED
set -u
planted="$1"
source "$(dirname "$0")/test_lib.sh"
pid=
trap 'kill -9 $pid 2>/dev/null; rm -rf "$dir"' EXIT
# sneaky_neg has a planted layout bug whose verdict is the same on every
# run (flat_neg's is not: on an expanded input it reads past the storage,
# and the resumed campaign runs again every case done since the journal's
# last save, up to a second's worth); good_neg has none. No reduction and
# no Python check: their budgets depend on time, the cases do not. Enough
# cases that the kill, after the journal's first save past 3000 cases
# (a save is at most a second apart), lands mid-campaign: 20000 ran in
# under 2 s here, 100000 in 5 s.
args=(--op=planted::sneaky_neg,planted::good_neg --runs=100000 --seed=11 --jobs=2
      --reduce=false --python_check=false --progress=false)
key='j["cases"], j["invalid"], j["planned"], j["hits"], j["verdicts"], sorted(b["id"] for b in j["bug_list"])'

"$planted" "${args[@]}" --findings="$dir/ref" --summary_json="$dir/ref.json" >"$dir/ref.out" 2>&1
[ -f "$dir/ref.json" ] || { cat "$dir/ref.out"; die "the reference campaign wrote no summary"; exit 1; }
[ "$(json "$dir/ref.json" 'j["cases"]')" = 100000 ] || die "reference: not 100000 cases"
[ "$(json "$dir/ref.json" 'len(j["bug_list"])')" = 1 ] || die "reference: not one bug"
[ "$(json "$dir/ref/campaign.json" 'j["finished"]')" = True ] || die "a finished campaign's journal is not marked finished"

# Killed once some cases are done (the journal says so), with its workers.
setsid "$planted" "${args[@]}" --findings="$dir/f" >"$dir/first.out" 2>&1 &
pid=$!
for _ in $(seq 600); do
  sleep 0.05
  [ -f "$dir/f/campaign.json" ] &&
    [ "$(json "$dir/f/campaign.json" 'j["counts"]["cases"]' 2>/dev/null || echo 0)" -ge 3000 ] && break
done
kill -9 -- -"$pid"
wait "$pid" 2>/dev/null
pid=
done_before=$(json "$dir/f/campaign.json" 'j["counts"]["cases"]')
[ "$done_before" -ge 3000 ] && [ "$done_before" -lt 100000 ] ||
  die "the kill did not land mid-campaign ($done_before cases)"
[ "$(json "$dir/f/campaign.json" 'j["finished"]')" = False ] || die "a killed campaign's journal says finished"

"$planted" "${args[@]}" --findings="$dir/f" --summary_json="$dir/resumed.json" >"$dir/second.out" 2>&1
grep -q "^INFO: resuming the campaign in $dir/f: $done_before cases" "$dir/second.out" ||
  die "no INFO line on resuming: $(grep INFO "$dir/second.out")"
grep -q "^BUG: " "$dir/second.out" && grep -q "^BUG: " "$dir/first.out" &&
  die "the bug found before the kill was told again"
[ "$(json "$dir/ref.json" "$key")" = "$(json "$dir/resumed.json" "$key")" ] ||
  die "resumed campaign differs from the unbroken one:
  unbroken: $(json "$dir/ref.json" "$key")
  resumed:  $(json "$dir/resumed.json" "$key")"
[ "$(ls -d "$dir/f/"*sneaky_neg* | wc -l)" = "$(ls -d "$dir/ref/"*sneaky_neg* | wc -l)" ] ||
  die "findings directories differ: $(ls "$dir/f") vs $(ls "$dir/ref")"

# The hits stored in finding.json files (written together, at most a
# second apart, with the journal) add up to the campaign's own count.
stored_hits() {
  python3 -c "import glob,json,sys; print(sum(json.load(open(p))['hits'] for p in glob.glob(sys.argv[1] + '/*/finding.json')))" "$1"
}
[ "$(stored_hits "$dir/f")" = "$(json "$dir/resumed.json" 'j["hits"]')" ] ||
  die "stored hits $(stored_hits "$dir/f") of the resumed campaign, not its $(json "$dir/resumed.json" 'j["hits"]')"

# A finished campaign is not resumed: the same command starts anew.
"$planted" "${args[@]}" --runs=50 --findings="$dir/ref" >"$dir/again.out" 2>&1
grep -q "resuming" "$dir/again.out" && die "a finished campaign was resumed"

# Two shards: each runs its own tickets; together they see the bug once.
for i in 0 1; do
  "$planted" "${args[@]}" --runs=500 --shard=$i/2 --findings="$dir/s$i" \
    --summary_json="$dir/s$i.json" >"$dir/s$i.out" 2>&1
done
[ "$(json "$dir/s0.json" 'j["cases"]')" = 500 ] || die "shard 0 did not run 500 cases"
grep -q "^INFO: dpfuzz .* 1 op(s)" "$dir/s1.out" || die "shard 1 does not fuzz one of the two ops: $(grep INFO "$dir/s1.out" | head -3)"
"$planted" report "$dir/s0" "$dir/s1" --format=json --out="$dir/merged.json" >/dev/null 2>&1 ||
  die "dpfuzz report over both shards failed"
[ -f "$dir/merged.json" ] && [ "$(json "$dir/merged.json" 'len(j["bugs"])')" = 1 ] ||
  die "the merged report does not show the one bug"
"$planted" "${args[@]}" --shard=2/2 --findings="$dir/bad" >"$dir/bad.out" 2>&1
[ $? = 2 ] || die "--shard=2/2 is not a usage error"

[ "$fail" = 0 ] || { tail -5 "$dir/first.out" "$dir/second.out"; }
exit $fail

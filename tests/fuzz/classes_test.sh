#!/usr/bin/env bash
# Bug classes end to end: two campaigns, with different seeds, over the
# planted_class ops (tests/planted/class_ops.cc). In each report.json the
# three out= kernels that share a helper writing `out` as if contiguous
# form one class, named writes_as_contiguous, with a class.md listing all
# three; the two kernels reading `self` in memory order form another
# (reads_as_contiguous); skewed_neg, which no mechanism explains, is only
# ever a class of its own; no class mixes ops of two groups. A bug of the
# out= class that both campaigns find has the same id in both.
#   classes_test.sh PATH_TO_DPFUZZ_PLANTED
set -u
dpfuzz="$1"
source "$(dirname "$0")/test_lib.sh"
ops=planted_class::contig_out_neg,planted_class::contig_out_abs,planted_class::contig_out_double
ops=$ops,planted_class::memory_order_neg,planted_class::memory_order_double,planted_class::skewed_neg

for seed in 3 11; do
  "$dpfuzz" --op="$ops" --jobs=1 --max_time=40 --seed=$seed \
    --findings="$dir/f$seed" >"$dir/out$seed" 2>&1
  status=$?
  [ "$status" = 1 ] || { die "seed $seed: campaign exit $status, expected 1"; tail -5 "$dir/out$seed"; }
  python3 - "$dir/f$seed" <<'PY' || die "seed $seed: classes wrong (above)"
import json, os, sys
d = sys.argv[1]
r = json.load(open(os.path.join(d, "report.json")))
group = {"contig_out_neg": "writes", "contig_out_abs": "writes",
         "contig_out_double": "writes", "memory_order_neg": "reads",
         "memory_order_double": "reads", "skewed_neg": "alone"}
def short(op): return op.split("::")[1].split(" ")[0]
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL:", what); ok = False
high = [k for k in r["classes"] if k["confidence"] == "high"]
for k in r["classes"]:
    groups = {group[short(op)] for op in k["ops"]}
    check(len(groups) == 1, f"class {k['id']} mixes {sorted(k['ops'])}")
    if "alone" in groups:
        check(k["mechanism"] == "unexplained" and len(k["members"]) == 1,
              f"skewed_neg in class {k['id']} of {len(k['members'])}")
writes = [k for k in high if k["mechanism"] == "writes_as_contiguous"]
check(len(writes) == 1, f"{len(writes)} writes_as_contiguous classes")
if writes:
    w = writes[0]
    check(sorted(map(short, w["ops"])) ==
          ["contig_out_abs", "contig_out_double", "contig_out_neg"],
          f"writes class ops {w['ops']}")
    check(w["role"] == "out", f"writes class role {w['role']}")
    md = open(os.path.join(d, w["class_md"])).read()
    check(all(op in md for op in ("contig_out_neg", "contig_out_abs",
                                  "contig_out_double")),
          "class.md does not list the three ops")
    check("as if it were contiguous" in md.splitlines()[0],
          f"class.md title: {md.splitlines()[0]}")
reads = [k for k in high if k["mechanism"] == "reads_as_contiguous"]
check(len(reads) == 1 and sorted(map(short, reads[0]["ops"])) ==
      ["memory_order_double", "memory_order_neg"],
      f"reads_as_contiguous classes: {[k['ops'] for k in reads]}")
bug_class = {b["id"]: b["class"] for b in r["bugs"]}
for k in r["classes"]:
    for m in k["members"]:
        check(bug_class.get(m) == k["id"], f"bug {m} not of class {k['id']}")
# Every bug with its key (op, culprit, feature), for the comparison of ids.
bugs = {b["id"]: b for b in r["bugs"]}
json.dump({f'{short(b["op"])}|{b["culprit"]}|{b["feature"]}': b["id"]
           for m in (writes[0]["members"] if writes else [])
           for b in [bugs[m]]},
          open(os.path.join(d, "writes_bugs.json"), "w"), indent=1)
sys.exit(0 if ok else 1)
PY
done
# Stable ids: a bug of the out= class found by both campaigns (the same op,
# culprit and feature; which others a campaign's time reaches varies) has
# the same id in both, and each of the three ops has one there in both.
python3 - "$dir/f3/writes_bugs.json" "$dir/f11/writes_bugs.json" <<'PY' ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
common = sorted(set(a) & set(b))
ops = {k.split("|")[0] for k in common}
bad = [k for k in common if a[k] != b[k]]
if bad or len(ops) != 3:
    print("the out= class's bugs differ between seeds:", a, "vs", b)
    sys.exit(1)
PY
  die "the out= class's bug ids differ between seeds"
exit $fail

#!/usr/bin/env bash
# Time to bug, measured as fuzzing benchmarks (Magma, FuzzBench) measure
# it: each bug with a known answer is fuzzed from SEEDS campaign seeds,
# each campaign on its own op alone with --jobs=1 for at most BUDGET
# seconds, and the time is the campaign's seconds when it stored the
# bug's first finding (finding.json's first_seen_seconds; the campaign is
# stopped there). For each bug: the median and worst time over the seeds
# that found it, and how many did within the budget.
#
# The bugs: the planted test ops (tests/planted/) with their verdict
# family, and every finding of known_findings/ that shows on the track's
# LibTorch (found_in, fixed_in), identified by op, variant and a verdict
# family its issue.md names; a resource verdict's campaign turns its
# oracle on. A finding counts when it is a layout bug (or, for a known
# baseline failure, one too), not dismissed.
#
#   bench/time_to_bug.sh [BUILD_DIR] [SEEDS] [BUDGET] [TARGET...]
#   bench/time_to_bug.sh build/default 10 60
#   bench/time_to_bug.sh build/modern 3 20 tril masked_select
#
# TARGET picks bugs whose op or known-finding name contains it. The table
# is Markdown, one row per bug, then the totals; ratios between runs
# matter more than seconds, which move with the machine's load.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/default}"
seeds="${2:-10}"
budget="${3:-60}"
shift $(($# < 3 ? $# : 3))
dpfuzz="$build/tests/planted/dpfuzz_planted"
[ -x "$dpfuzz" ] || { echo "no $dpfuzz: build $build first" >&2; exit 2; }
torch_dir=$(sed -n 's/^Torch_DIR:PATH=//p' "$build/CMakeCache.txt")
version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' \
  "$torch_dir/TorchConfigVersion.cmake")
exec python3 - "$dpfuzz" "$version" "$seeds" "$budget" "$@" <<'PY'
import glob, json, os, re, signal, statistics, subprocess, sys, tempfile, time

dpfuzz, version, seeds, budget, picked = (sys.argv[1], sys.argv[2],
                                          int(sys.argv[3]), float(sys.argv[4]),
                                          sys.argv[5:])

# Each verdict's family, from the verdict table of the docs.
family_of = {}
for line in open("docs/verdicts-and-rules.md"):
    cells = [c.strip() for c in line.split("|")]
    if len(cells) > 4 and re.fullmatch(r"`[a-z_]+`", cells[1]) and cells[3]:
        family_of[cells[1].strip("`")] = cells[3]
oracle_of = {"leak": "leak", "memory": "memory", "perf": "perf"}


def release(text):
    return tuple(int(p) for p in text.strip().split("."))


# name, op, variant, families, kind
targets = []
for op, variant, family in [
        ("planted::cl_scramble", "functional", "wrong_values"),
        ("planted::flat_neg", "functional", "wrong_values"),
        ("planted::picky_neg", "functional", "rejection"),
        ("planted::asserting_neg", "functional", "internal_assert"),
        ("planted::sneaky_neg", "functional", "wrong_values"),
        ("planted::flat_fill_one", "inplace", "wrong_values"),
        ("planted::realloc_neg", "out", "layout_contract"),
        ("planted::bad_grad_double", "functional", "gradient"),
        ("planted::cl_drop_neg", "functional", "layout_contract"),
        ("planted_class::contig_out_neg", "out", "wrong_values"),
        ("planted_class::unwritten_neg", "out", "wrong_values"),
        ("planted_class::memory_order_neg", "functional", "wrong_values"),
        ("planted_class::offset_blind_neg", "functional", "wrong_values"),
        ("planted_class::memory_walk_cumsum", "functional", "wrong_values"),
        ("planted_cost::leaky_neg", "functional", "leak"),
        ("planted_cost::bloated_neg", "functional", "memory"),
        ("planted_cost::slow_strided_neg", "functional", "perf")]:
    targets.append((op, op, variant, {family}, "layout_bug"))
for d in sorted(glob.glob("known_findings/*/")):
    name = os.path.basename(d.rstrip("/"))
    shows = True
    for f, wanted in (("found_in", True), ("fixed_in", False)):
        if os.path.exists(d + f):
            at_least = release(version) >= release(open(d + f).read())
            shows = shows and at_least == wanted
    if not shows:
        continue
    case = json.load(open(d + "case.json"))
    line = next(l for l in open(d + "issue.md") if l.startswith("- verdict:"))
    families = {family_of[v] for v in re.findall(r"`([a-z_]+)`", line)
                if v in family_of}
    kind = "layout_bug"
    if os.path.exists(d + "finding.json"):
        kind = json.load(open(d + "finding.json")).get("kind", kind)
    targets.append((name, case["op"], case["variant"], families, kind))
if picked:
    targets = [t for t in targets if any(p in t[0] or p in t[1] for p in picked)]


def first_seen(findings, op, variant, families, kind):
    """The earliest first_seen_seconds of a matching stored finding."""
    best = None
    for path in glob.glob(os.path.join(findings, "*", "finding.json")):
        try:
            f = json.load(open(path))
        except (OSError, ValueError):  # Being written.
            continue
        if (f.get("op") == op and f.get("variant") == variant
                and family_of.get(f.get("verdict")) in families
                and f.get("kind") == kind and not f.get("dismissal")
                and f.get("first_seen_seconds") is not None):
            seen = f["first_seen_seconds"]
            best = seen if best is None else min(best, seen)
    return best


def campaign(op, variant, families, kind, seed, work):
    findings = os.path.join(work, f"s{seed}")
    command = [dpfuzz, "--op=" + op.removeprefix("aten::"), "--jobs=1",
               f"--max_time={budget:g}", f"--seed={seed}",
               "--findings=" + findings]
    oracles = sorted(oracle_of[f] for f in families if f in oracle_of)
    if oracles:
        command.append("--oracles=" + ",".join(oracles))
    p = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    seen = None
    while seen is None and p.poll() is None:
        time.sleep(0.25)
        seen = first_seen(findings, op, variant, families, kind)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    if seen is None:
        seen = first_seen(findings, op, variant, families, kind)
    return seen if seen is not None and seen <= budget else None


print(f"Time to bug on LibTorch {version}: {seeds} seeds of at most "
      f"{budget:g} s each, --jobs=1\n")
print("| bug | op, variant | found by | median s | worst s |")
print("|---|---|---|---|---|")
found_all = 0
medians = []
for name, op, variant, families, kind in targets:
    times = []
    with tempfile.TemporaryDirectory() as work:
        for seed in range(1, seeds + 1):
            t = campaign(op, variant, families, kind, seed, work)
            if t is not None:
                times.append(t)
    cells = ("-", "-")
    if times:
        medians.append(statistics.median(times))
        cells = (f"{statistics.median(times):.1f}", f"{max(times):.1f}")
    found_all += len(times) == seeds
    print(f"| {name} | {op.split('::')[1]} {variant} | {len(times)} of "
          f"{seeds} | {cells[0]} | {cells[1]} |", flush=True)
print(f"\n{found_all} of {len(targets)} bugs found by every seed; median of "
      f"the medians {statistics.median(medians) if medians else float('nan'):.1f} s")
PY

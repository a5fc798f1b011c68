#!/usr/bin/env python3
"""A seeded sample of a campaign's high-confidence bugs, to judge by hand.

Precision is judged, not computed: each sampled bug's issue.md and
repro.py are run, and a snippet written without dpfuzz confirms or refutes
it (real LibTorch bug, stated limitation, numerical artefact, invalid
arguments, or dpfuzz's own error). This prints the sample, drawn with
Python's random.Random(SEED).sample from report.json's high-confidence bugs
in report order, with each bug's lead finding and issue.md.

  bench/precision_sample.py FINDINGS [SEED] [N] [--report=FILE]
  bench/precision_sample.py /tmp/c 1139 30

--report reads another report.json of the same findings (one that
`dpfuzz report FINDINGS --format=json --out=FILE` wrote after a rule
changed).
"""
import json
import os
import random
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--report=")]
reports = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--report=")]
if not args:
    sys.exit(__doc__)
findings = args[0]
seed = int(args[1]) if len(args) > 1 else 1
n = int(args[2]) if len(args) > 2 else 30
report = json.load(open(reports[0] if reports else os.path.join(findings, "report.json")))
high = [b for b in report["bugs"] if b["confidence"] == "high"]
for i, b in enumerate(random.Random(seed).sample(high, min(n, len(high))), 1):
    lead = os.path.join(findings, os.path.basename(b["findings"][0])) if b["findings"] else "-"
    issue = (os.path.join(findings, os.path.basename(os.path.dirname(b["issue"])), "issue.md")
             if b["issue"] else "-")
    print(f"{i:2d}. {b['id']}  op={b['op']} variant={b['variant']} verdict={b['verdict']} "
          f"culprit={b['culprit']} feature={b['feature']} mech={b['mechanism']['name']} "
          f"class={b['class']} dtypes={b['dtypes']}")
    print(f"    lead={lead}")
    print(f"    issue={issue}")
    print(f"    detail={b['detail'][:300]}")

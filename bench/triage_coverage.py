#!/usr/bin/env python3
"""How much of a campaign's report is ready to file: of its high-confidence
bugs, how many carry a culprit, a blame (a culprit, or blame's finding
that the bug needs no layout: "no_layout"), a named mechanism (not
"unexplained"), a reduced case (not untriaged) and an issue.md whose snippet
reproduced the bug with the track's Python (its lead finding.json's
"issue": {"reproduces": true}); blamed with a reproducing issue.md
("ready"); and culprit, mechanism, reduction and issue.md all ("triaged").

    bench/triage_coverage.py FINDINGS        # after dpfuzz ... --findings=FINDINGS
"""
import json
import os
import sys


def main(findings):
    report = json.load(open(os.path.join(findings, "report.json")))
    high = [b for b in report["bugs"] if b["confidence"] == "high"]
    counts = {"culprit": 0, "blamed": 0, "mechanism": 0, "reduced": 0,
              "issue_reproduces": 0, "ready": 0, "triaged": 0}
    for bug in high:
        issue = {}
        if bug["issue"]:
            lead = os.path.dirname(os.path.join(findings, bug["issue"]))
            issue = json.load(open(os.path.join(lead, "finding.json"))).get("issue", {})
        has = {
            "culprit": bool(bug["culprit"]),
            "mechanism": not bug["mechanism"]["name"].startswith("unexplained"),
            "reduced": not bug.get("untriaged", False),
            "issue_reproduces": bool(issue.get("reproduces")),
        }
        blamed = has["culprit"] or bug["feature"] == "no_layout"
        for key, value in has.items():
            counts[key] += value
        counts["triaged"] += all(has.values())
        counts["blamed"] += blamed
        counts["ready"] += blamed and has["issue_reproduces"]
    n = len(high)
    print(f"high-confidence bugs: {n} (of {len(report['bugs'])}; "
          f"{report['summary'].get('classes', 0)} classes)")
    for key, value in counts.items():
        print(f"  {key:17s} {value:4d}  {100.0 * value / max(n, 1):5.1f}%")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])

#!/usr/bin/env bash
# A campaign over every curated op (for generic ops: dpfuzz --op=all), one
# dpfuzz process per op, each for the same time, so that campaigns on two
# LibTorch tracks compare op by op. Writes OUT/findings,
# OUT/logs/<op>.{log,json} and OUT/logs/status.txt (each op's exit status:
# 0 clean, 1 findings, else dpfuzz itself failed).
#
#   scripts/campaign.sh OUT [SECONDS_PER_OP] [extra dpfuzz flags...]
#   scripts/campaign.sh /tmp/campaign 12 --seed=7 --alias
#   TRACK=modern scripts/campaign.sh /tmp/campaign-modern 12 --seed=7
#
# TRACK: default (Debian's LibTorch 1.13) or modern (the torch wheel's 2.x),
# as for scripts/build.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/campaign.sh OUT [SECONDS_PER_OP] [dpfuzz flags...]}"
seconds="${2:-12}"
shift $(( $# < 2 ? $# : 2 ))
track="${TRACK:-default}"
scripts/build.sh "$track" >&2 || exit 2
dpfuzz="$PWD/build/$track/fuzz/dpfuzz"
mkdir -p "$out/logs"
: > "$out/logs/status.txt"
"$dpfuzz" list-ops --findings= | awk -F'\t' '$2 == "curated" {print $1}' | while read -r op; do
  "$dpfuzz" --op="$op" --max_time="$seconds" --findings="$out/findings" --noprogress \
    --summary_json="$out/logs/$op.json" "$@" > "$out/logs/$op.log" 2>&1
  status=$?
  echo "$op $status" >> "$out/logs/status.txt"
  echo "$op: exit $status, $(grep -h '^SUMMARY:' "$out/logs/$op.log" || echo 'no summary (the process died)')"
done

#!/usr/bin/env bash
# Sets up, builds, and runs dpfuzz with the given arguments.
#
#   scripts/run.sh --op masked_select --max_time 60
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default >&2
exec build/default/fuzz/dpfuzz "$@"

#!/usr/bin/env bash
# Sets up, builds and runs every test on the default LibTorch.
# GPU tests are reported as skipped where no CUDA device exists.
#
#   scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default
ctest --preset default -j "$(nproc)"

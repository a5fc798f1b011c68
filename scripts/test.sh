#!/usr/bin/env bash
# Sets up, builds and runs every test on both LibTorch tracks: Debian's
# LibTorch 1.13 (preset default), then the LibTorch 2.x of PyPI's torch
# wheel (preset modern; scripts/setup_modern.sh installs it). GPU tests are
# reported as skipped where no CUDA device exists.
#
#   scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
for preset in default modern; do
  start=$SECONDS
  scripts/build.sh "$preset"
  ctest --preset "$preset" -j "$(nproc)"
  echo "test: $preset track: setup, build and tests took $((SECONDS - start)) s"
done

#!/usr/bin/env bash
# Sets up, builds and runs every test on both LibTorch tracks, or on those
# named: Debian's LibTorch 1.13 (preset default) and the LibTorch 2.x of
# PyPI's torch wheel (preset modern; scripts/setup_modern.sh installs it,
# a few GB of downloads the first time). GPU tests are reported as
# skipped where no CUDA device exists. CI runs it with no arguments.
#
#   scripts/test.sh           # both tracks, default first
#   scripts/test.sh default   # Debian's LibTorch only
#   scripts/test.sh modern    # the wheel's LibTorch only
set -euo pipefail
cd "$(dirname "$0")/.."
presets=("$@")
[ ${#presets[@]} -eq 0 ] && presets=(default modern)
for preset in "${presets[@]}"; do
  case "$preset" in
    default | modern) ;;
    *) echo "test.sh: unknown track \"$preset\" (default or modern)" >&2; exit 2 ;;
  esac
  start=$SECONDS
  scripts/build.sh "$preset"
  ctest --preset "$preset" -j "$(nproc)"
  echo "test: $preset track: setup, build and tests took $((SECONDS - start)) s"
done

#!/usr/bin/env bash
# Sets up, builds and runs every test on both LibTorch tracks, or on those
# named: Debian's LibTorch 1.13 (preset default) and the LibTorch 2.x of
# PyPI's torch wheel (preset modern; scripts/setup_modern.sh installs it,
# a few GB of downloads the first time); and the libFuzzer target (fuzz:
# built as ClusterFuzzLite builds it, scripts/fuzz_build.sh, then run by
# tests/fuzz/libfuzzer_test.sh with the default track's dpfuzz). GPU tests
# are reported as skipped where no CUDA device exists. CI runs it with no
# arguments.
#
#   scripts/test.sh           # default, fuzz, modern
#   scripts/test.sh default   # Debian's LibTorch only
#   scripts/test.sh modern    # the wheel's LibTorch only
#   scripts/test.sh fuzz      # the libFuzzer target (builds default too)
set -euo pipefail
cd "$(dirname "$0")/.."
presets=("$@")
[ ${#presets[@]} -eq 0 ] && presets=(default fuzz modern)
for preset in "${presets[@]}"; do
  case "$preset" in
    default | modern | fuzz) ;;
    *) echo "test.sh: unknown track \"$preset\" (default, modern or fuzz)" >&2; exit 2 ;;
  esac
done
# The modern track's wheels (a few GB) download while the tracks before it
# build and test; Debian's packages first, so that only one apt runs.
prefetch=""
if [[ " ${presets[*]:1} " == *" modern "* ]]; then
  scripts/setup.sh
  mkdir -p build
  scripts/setup_modern.sh >/dev/null 2>build/setup_modern.log &
  prefetch=$!
fi
for preset in "${presets[@]}"; do
  start=$SECONDS
  if [ "$preset" = modern ] && [ -n "$prefetch" ]; then
    wait "$prefetch" || { cat build/setup_modern.log >&2; exit 1; }
    prefetch=""
    echo "test: waited $((SECONDS - start)) s for the modern track's wheels"
  fi
  if [ "$preset" = fuzz ]; then
    scripts/build.sh default
    out="$(scripts/fuzz_build.sh)"
    bash tests/fuzz/libfuzzer_test.sh "$out" build/default/fuzz/dpfuzz \
      build/default/tests/custom_ops/libdpfuzz_custom_ops.so
    echo "test: libfuzzer_test passed"
  else
    scripts/build.sh "$preset"
    echo "test: $preset track: setup and build took $((SECONDS - start)) s"
    ctest --preset "$preset" -j "$(nproc)"
  fi
  echo "test: $preset track: setup, build and tests took $((SECONDS - start)) s"
done

#!/usr/bin/env bash
# Builds the libFuzzer target as ClusterFuzzLite's build step would
# (.clusterfuzzlite/build.sh with the OSS-Fuzz build contract's variables,
# an AddressSanitizer build as the engine's default), into build/fuzz:
# out/ is $OUT (the target, its libraries, seed corpus and options), work/
# is $WORK; the seeds are recorded with Debian's torch (/usr/bin/python3), the
# LibTorch CMake finds; those of the default build when it has recorded
# them since the harvest scripts last changed (the same Python and torch).
# Prints the OUT folder on stdout.
#
#   scripts/fuzz_build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >&2
root="$PWD/build/fuzz"
mkdir -p "$root/out" "$root/work" "$root/src"
seeds=build/default/seeds
if [ -f "$seeds/index.json" ] && [ "$seeds/index.json" -nt scripts/harvest_seeds.py ] &&
   [ "$seeds/index.json" -nt scripts/seed_workloads.py ]; then
  export DPFUZZ_SEEDS="$PWD/$seeds"
fi
flags="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
CC=clang-14 CXX=clang++-14 CFLAGS="$flags" CXXFLAGS="$flags" \
  LIB_FUZZING_ENGINE=-fsanitize=fuzzer SANITIZER=address \
  FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64 DPFUZZ_PYTHON=/usr/bin/python3 \
  SRC="$root/src" OUT="$root/out" WORK="$root/work" \
  .clusterfuzzlite/build.sh >&2
echo "$root/out"

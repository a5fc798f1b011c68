#!/bin/bash -eu
# Builds dpfuzz's libFuzzer target as OSS-Fuzz and ClusterFuzzLite build a
# project: with the compilers and flags the engine passes ($CC, $CXX,
# $CFLAGS, $CXXFLAGS: a sanitizer and -fsanitize=fuzzer-no-link), linked
# with $LIB_FUZZING_ENGINE, intermediate files in $WORK, everything the
# runner needs in $OUT: the target, the shared libraries it loads (the
# runner image has no LibTorch) in $OUT/lib, its seed corpus and its
# options file. $SRC holds the checkout (the Dockerfile copies it to
# $SRC/dpfuzz); run from a checkout, the checkout is used.
#
# LibTorch is the one CMake finds: Debian's libtorch-dev here; with
# TORCH_CMAKE_PREFIX_PATH=python (the Dockerfile's image), the one in the
# torch wheel of $DPFUZZ_PYTHON; any other value is CMake's prefix path.
# The seeds are those of the validity work (scripts/harvest_seeds.py,
# recorded with $DPFUZZ_PYTHON's torch, which must be the LibTorch's own),
# each recorded call one case-form input (oracles/case_bytes.h).
# DPFUZZ_SEEDS names a folder of seeds recorded so already (a dpfuzz
# build's seeds/), to encode instead of recording them again.
#
#   CC=clang-14 CXX=clang++-14 CFLAGS=... CXXFLAGS="-fsanitize=address
#   -fsanitize=fuzzer-no-link" LIB_FUZZING_ENGINE=-fsanitize=fuzzer
#   OUT=/tmp/out SRC=/tmp WORK=/tmp/work .clusterfuzzlite/build.sh
src="$(cd "$(dirname "$0")/.." && pwd)"
[ -d "$SRC/dpfuzz/.clusterfuzzlite" ] && src="$SRC/dpfuzz"
build="$WORK/dpfuzz-build"
python="${DPFUZZ_PYTHON:-$(command -v python3)}"
prefix="${TORCH_CMAKE_PREFIX_PATH:-}"
if [ "$prefix" = python ]; then
  prefix="$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')"
fi

# The engine's flags alone choose optimization and debug information:
# RelWithDebInfo's own (-O2 -g) would come after them and win.
cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-DNDEBUG \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath,\$ORIGIN/lib" \
  -DCMAKE_PREFIX_PATH="$prefix" \
  -DDPFUZZ_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DDPFUZZ_PYTHON="$python" \
  -DDPFUZZ_CUDA=OFF -DDPFUZZ_BUILD_TESTS=OFF -DDPFUZZ_BUILD_BENCH=OFF
seeds="${DPFUZZ_SEEDS:-}"
if [ -z "$seeds" ]; then
  seeds="$build/seeds"
  cmake --build "$build" --target dpfuzz_fuzzer dpfuzz_seeds
else
  cmake --build "$build" --target dpfuzz_fuzzer
fi

cp "$build/fuzz/dpfuzz_fuzzer" "$OUT/"
cp "$src/.clusterfuzzlite/dpfuzz_fuzzer.options" "$OUT/"

# The shared libraries outside the C and C++ runtimes (LibTorch, Abseil,
# BLAS, ...), found where the loader finds them here.
mkdir -p "$OUT/lib"
ldd "$OUT/dpfuzz_fuzzer" | awk '$3 ~ /^\// {print $3}' |
  grep -Ev '/(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libgcc_s|libstdc\+\+)\.so' |
  while read -r lib; do cp -L "$lib" "$OUT/lib/"; done

"$python" "$src/scripts/encode_seeds.py" "$seeds" "$WORK/seed_corpus"
rm -f "$OUT/dpfuzz_fuzzer_seed_corpus.zip"
(cd "$WORK/seed_corpus" &&
  "$python" -m zipfile -c "$OUT/dpfuzz_fuzzer_seed_corpus.zip" ./*.json)

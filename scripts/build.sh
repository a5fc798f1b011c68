#!/usr/bin/env bash
# Sets up, configures and builds one CMake preset (default: "default").
#
#   scripts/build.sh [PRESET]
#   scripts/build.sh modern    # against the LibTorch of PyPI's torch wheel
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
scripts/setup.sh
track=()
if [ "$preset" = modern ]; then
  # The wheel's LibTorch, and its Python to verify repros with (see
  # scripts/setup_modern.sh and the modern preset in CMakePresets.json).
  python="$(scripts/setup_modern.sh)"
  prefix="$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"
  # <torch>/share/cmake finds TorchConfig.cmake; <torch> itself makes the
  # find_library calls in it take <torch>/lib before Debian's libtorch-dev.
  track=("-DCMAKE_PREFIX_PATH=$prefix;${prefix%/share/cmake}" "-DDPFUZZ_PYTHON=$python")
fi
cmake --preset "$preset" "${track[@]}" >/dev/null
cmake --build --preset "$preset"

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
  # The CUDA of the wheel, never the system's (setup_modern.sh says why):
  # the toolkit root that the pip-installed nvcc sits in, and -rpath-link
  # to the folders of the CUDA libraries libtorch_cuda.so needs, which the
  # linker then searches before all else. Without it a system CUDA folder
  # on the link line (an -rpath, as the system toolkit's libraries bring)
  # comes before the wheel's and its older NCCL fails the link on missing
  # nccl* symbols.
  nvidia="${prefix%/torch/share/cmake}/nvidia"
  nvcc=("$nvidia"/cu*/bin/nvcc)
  libs=("$nvidia"/*/lib)
  rpath_link="-Wl,-rpath-link,$(IFS=:; echo "${libs[*]}")"
  # <torch>/share/cmake finds TorchConfig.cmake; <torch> itself makes the
  # find_library calls in it take <torch>/lib before Debian's libtorch-dev.
  track=("-DCMAKE_PREFIX_PATH=$prefix;${prefix%/share/cmake}"
         "-DDPFUZZ_PYTHON=$python"
         "-DCUDA_TOOLKIT_ROOT_DIR=${nvcc[0]%/bin/nvcc}"
         "-DCMAKE_CUDA_COMPILER=${nvcc[0]}"
         "-DCMAKE_EXE_LINKER_FLAGS=$rpath_link"
         "-DCMAKE_SHARED_LINKER_FLAGS=$rpath_link")
  # A build folder configured with another CUDA (the system toolkit's, as
  # before the torch 2.15 pin, or another pin's) is configured afresh: a
  # changed CMAKE_CUDA_COMPILER makes CMake drop its cache half-way and
  # lose the variables above (it then finds Debian's LibTorch 1.13).
  release="$("${nvcc[0]}" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')"
  cached() { sed -n "s/^$1:[A-Z]*=//p" build/modern/CMakeCache.txt 2>/dev/null; }
  if [ -f build/modern/CMakeCache.txt ] &&
     { [ "$(cached CMAKE_CUDA_COMPILER)" != "${nvcc[0]}" ] ||
       [ "$(cached CUDA_VERSION)" != "$release" ]; }; then
    track+=(--fresh)
  fi
fi
cmake --preset "$preset" "${track[@]}" >/dev/null
cmake --build --preset "$preset"

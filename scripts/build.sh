#!/usr/bin/env bash
# Sets up, configures and builds one CMake preset (default: "default").
#
#   scripts/build.sh [PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
scripts/setup.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"

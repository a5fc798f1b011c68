#!/usr/bin/env bash
# Installs everything dpfuzz needs from Debian's archive (Debian 12).
# Idempotent: quiet and quick when all is already there.
#
#   scripts/setup.sh
set -euo pipefail

packages=(
  cmake ninja-build g++ clang-14 libclang-rt-14-dev clang-format
  libtorch-dev python3-torch python3-venv
  libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
  chromium  # renders report.html in tests/fuzz/report_html_test.sh
  python3-pil  # reads its screenshot there
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
[ "$(id -u)" -ne 0 ] && sudo=(sudo)
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
echo "setup: done"

#!/usr/bin/env bash
# Sets up the modern LibTorch track: PyPI's torch wheel, at one pinned
# version, in a virtualenv outside git, and prints that virtualenv's python
# on stdout (messages go to stderr). Takes about a second when the pinned
# versions are already there.
#
#   scripts/setup_modern.sh           # virtualenv in .cache/venv-torch
#   DPFUZZ_TORCH_VENV=/opt/venv scripts/setup_modern.sh
#
# The pin: torch 2.11.0 is built against CUDA 13.0 (its wheel requires
# cuda-toolkit==13.0.2, nvidia-cudnn-cu13==9.19.0.56, nvidia-nccl-cu13==2.28.9),
# exactly the CUDA libraries of the toolkit installed here (/usr/local/cuda:
# nvcc 13.0.88, the same cuDNN and NCCL). The wheel's libtorch_cuda.so loads
# its nvidia/ libraries, while the linker and CUDA code built here take the
# toolkit's: with 2.11.0 they are the same. Newer 2.12-2.14 are CUDA 13.0
# too but need a newer NCCL than the toolkit's (linking fails on missing
# nccl* symbols); 2.15 is CUDA 13.2; 2.10 and older are CUDA 12.
# The wheel with its CUDA libraries is about 3 GB to download (5 GB
# installed). numpy only quiets torch's "Failed to initialize NumPy"
# warning on every import, as Debian's python3-torch has numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
pins=(torch==2.11.0 numpy==2.4.6)
venv="${DPFUZZ_TORCH_VENV:-$PWD/.cache/venv-torch}"
python="$venv/bin/python"

installed() {  # The pins as they are installed, e.g. "torch==2.14.1 ...".
  "$python" - "${pins[@]}" 2>/dev/null <<'EOF'
import importlib.metadata as m, sys
print(" ".join(f"{p.split('==')[0]}=={m.version(p.split('==')[0])}" for p in sys.argv[1:]))
EOF
}

scripts/setup.sh >&2  # Debian's packages, python3-venv among them.
if [ "$(installed)" != "${pins[*]}" ]; then
  echo "setup_modern: installing ${pins[*]} into $venv" >&2
  # Debian's python3, not whatever python3 comes first on PATH: the wheel
  # must match the interpreter that runs repros on this track.
  /usr/bin/python3 -m venv "$venv"
  "$python" -m pip install --quiet --progress-bar off --no-input "${pins[@]}" >&2
  [ "$(installed)" = "${pins[*]}" ] || {
    echo "setup_modern: $python lacks ${pins[*]} after pip install" >&2
    exit 1
  }
  echo "setup_modern: done" >&2
fi
echo "$python"

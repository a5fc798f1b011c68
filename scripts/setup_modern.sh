#!/usr/bin/env bash
# Sets up the modern LibTorch track: PyPI's torch wheel, at one pinned
# version, in a virtualenv outside git, with the CUDA toolkit of that wheel
# (nvcc included) from PyPI too, and prints that virtualenv's python on
# stdout (messages go to stderr). Takes about a second when the pinned
# versions are already there.
#
#   scripts/setup_modern.sh           # virtualenv in .cache/venv-torch
#   DPFUZZ_TORCH_VENV=/opt/venv scripts/setup_modern.sh
#
# The pin: torch 2.15.0 (the newest release) is built against CUDA 13.2:
# its wheel requires cuda-toolkit==13.2.2, nvidia-nccl-cu13==2.30.7 and
# nvidia-cudnn-cu13==9.26.0.51, newer than the toolkit installed here
# (/usr/local/cuda: nvcc 13.0.88, NCCL 2.28, on the linker's default
# paths). So this track builds against the CUDA of the wheel, never the
# system's: the same cuda-toolkit pin with its nvcc and cccl parts adds
# nvcc 13.2.86 and the CUDA C++ headers to site-packages/nvidia/cu13,
# which with the runtime wheels' headers and libraries already there is a
# toolkit root (scripts/build.sh names it to CMake). The wheels ship each
# library under its soname only (libcudart.so.13); the development names
# that CMake and the linker look for (libcudart.so) are added below as
# links, as a toolkit's -dev packages would. 2.11.0, the track's pin
# before, was the newest release whose CUDA libraries are exactly the
# toolkit's; 2.12-2.14 are CUDA 13.0 with a newer NCCL; 2.10 and older
# are CUDA 12.
# The wheels are a few GB to download (4.7 GB installed; pip keeps no
# second copy in its cache). torch goes in first without its dependencies,
# then every dependency its metadata names but triton (1 GB: the compiler
# of torch.compile, which neither LibTorch nor the repros use); torch's own
# download is gone by the time the others come. numpy only quiets torch's
# "Failed to initialize NumPy" warning on every import, as Debian's
# python3-torch has numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
pins=(torch==2.15.0 'cuda-toolkit[nvcc,cccl]==13.2.2' numpy==2.4.6)
need_gb=8  # At most 6.8 GB at once: 4.7 installed, the rest downloads.
venv="${DPFUZZ_TORCH_VENV:-$PWD/.cache/venv-torch}"
python="$venv/bin/python"

installed() {  # The pins as they are installed, e.g. "torch==2.14.1 ...".
  "$python" - "${pins[@]}" 2>/dev/null <<'EOF'
import importlib.metadata as m, sys
names = [p.split("==")[0] for p in sys.argv[1:]]
print(" ".join(f"{n}=={m.version(n.split('[')[0])}" for n in names))
EOF
}

scripts/setup.sh >&2  # Debian's packages, python3-venv among them.
if [ "$(installed)" != "${pins[*]}" ]; then
  # pip holds the downloaded wheels and the installed ones at once:
  # say so before it fails half way with "No space left on device".
  mkdir -p "$(dirname "$venv")"
  free_gb=$(($(df --output=avail -k "$(dirname "$venv")" | tail -1) / 1048576))
  if [ "$free_gb" -lt "$need_gb" ]; then
    echo "setup_modern: installing ${pins[*]} needs about $need_gb GB free" \
      "in $(dirname "$venv"), where only $free_gb GB are" >&2
    exit 1
  fi
  echo "setup_modern: installing ${pins[*]} into $venv" >&2
  # Debian's python3, not whatever python3 comes first on PATH: the wheel
  # must match the interpreter that runs repros on this track.
  /usr/bin/python3 -m venv "$venv"
  # --no-compile: byte-compiling the wheels' thousands of modules costs CPU
  # the first track's build needs; Python compiles what it imports.
  pip=("$python" -m pip install --quiet --progress-bar off --no-input
    --no-cache-dir --no-compile)
  "${pip[@]}" --no-deps "${pins[0]}" >&2
  # The requirements in torch's metadata that hold here, triton left out.
  requirements='
import importlib.metadata as m
from pip._vendor.packaging.requirements import Requirement
for text in m.requires("torch"):
    r = Requirement(text)
    if r.name == "triton" or (r.marker and not r.marker.evaluate({"extra": ""})):
        continue
    extras = "[" + ",".join(sorted(r.extras)) + "]" if r.extras else ""
    print(r.name + extras + str(r.specifier))
'
  mapfile -t deps < <("$python" -c "$requirements")
  [ ${#deps[@]} -gt 0 ] || {
    echo "setup_modern: no dependencies in ${pins[0]}'s metadata" >&2
    exit 1
  }
  "${pip[@]}" --no-warn-conflicts "${deps[@]}" "${pins[@]:1}" >&2
  [ "$(installed)" = "${pins[*]}" ] && "$python" -c "import torch" || {
    echo "setup_modern: $python lacks ${pins[*]} after pip install" >&2
    exit 1
  }
  echo "setup_modern: done" >&2
fi
nvcc=("$venv"/lib/python3*/site-packages/nvidia/cu*/bin/nvcc)
[ -x "${nvcc[0]}" ] || {
  echo "setup_modern: no nvidia/cu*/bin/nvcc in $venv" >&2
  exit 1
}
for lib in "${nvcc[0]%/bin/nvcc}"/lib/lib*.so.*; do
  dev="${lib%.so.*}.so"
  [ -e "$dev" ] || ln -s "${lib##*/}" "$dev"
done
echo "$python"

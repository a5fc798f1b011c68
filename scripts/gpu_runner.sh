#!/usr/bin/env bash
# For GPU runners (CI machines with an NVIDIA GPU and a CUDA-enabled
# LibTorch): builds dpfuzz against the runner's LibTorch, runs the
# gpu-labelled tests (which must run, not skip), then a bounded campaign on
# CUDA, and writes the report. Exit status: 0 no finding, 1 findings (or a
# gpu test failed), 2 setup or usage failure.
#
#   scripts/gpu_runner.sh OUT [SECONDS] [extra dpfuzz flags...]
#   scripts/gpu_runner.sh /tmp/gpu 600 --op='aten::*pool*'
#
# Without an --op flag the campaign fuzzes every op (--op=all).
#
# Continuous mode: run it again and again (a cron job, a systemd timer, a
# CI schedule) with the same OUT. The campaign keeps its layout corpus in
# OUT/corpus (--corpus: the cases that reached new layout coverage, which
# the next run mutates) and its journal in OUT/findings/campaign.json: a
# run killed on the way (a preempted runner, SIGKILL included) resumes
# where it was, a finished one is followed by a new one that builds on the
# corpus, and findings accumulate in OUT/findings with their report
# (report.html: bugs and the layout-coverage map). N runners split one
# campaign with --shard=I/N and the same --seed; `dpfuzz report` over their
# findings directories merges them.
#
# The runner's LibTorch: CMAKE_PREFIX_PATH when set, else the one of the
# Python named by DPFUZZ_PYTHON (default: python3) through
# torch.utils.cmake_prefix_path. OUT gets build/ (the CMake build),
# findings/, corpus/, campaign.log, summary.json, toolchain_tests.log and
# gpu_tests.log.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/gpu_runner.sh OUT [SECONDS] [dpfuzz flags...]}"
seconds="${2:-600}"
shift $(($# < 2 ? $# : 2))
mkdir -p "$out" || exit 2
out="$(cd "$out" && pwd)"
fail() { echo "gpu_runner: $*" >&2; exit 2; }

python="${DPFUZZ_PYTHON:-python3}"
prefix="${CMAKE_PREFIX_PATH:-$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null)}"
[ -n "$prefix" ] || fail "no LibTorch: set CMAKE_PREFIX_PATH or DPFUZZ_PYTHON to a Python with torch"
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' ||
  fail "$python's torch sees no CUDA device: this script is for GPU runners"

# Debian's packages (scripts/setup.sh) only where the configure step
# lacks something: a runner that has Abseil, GoogleTest and nlohmann-json
# (any distribution, or CMAKE_PREFIX_PATH naming their prefixes beside
# LibTorch's) needs no apt and no root.
configure() {
  cmake -S . -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_PREFIX_PATH="$prefix" -DDPFUZZ_CUDA=ON -DDPFUZZ_BUILD_BENCH=OFF \
    -DDPFUZZ_PYTHON="$(command -v "$python")" >"$out/configure.log" 2>&1
}
configure || { scripts/setup.sh && configure; } ||
  fail "configure failed, see $out/configure.log"
# What the gpu tests and the campaign run, not the whole suite.
cmake --build "$out/build" -j "$(nproc)" --target dpfuzz dpfuzz_planted \
  dpfuzz_cuda_gpu_test dpfuzz_cuda_oracles_test dpfuzz_seeds \
  >"$out/build.log" 2>&1 || fail "build failed, see $out/build.log"

# Where dpfuzz's standard library calls bind to LibTorch's copies, the
# campaign dies on the way (Note [LibTorch's libstdc++ symbols] in
# CMakeLists.txt): stop before it.
ctest --test-dir "$out/build" -L toolchain --output-on-failure >"$out/toolchain_tests.log" 2>&1 ||
  fail "dpfuzz calls LibTorch's copy of the standard library, see $out/toolchain_tests.log"

# The gpu tests must run here: a skip means the device was not usable.
status=0
ctest --test-dir "$out/build" -L gpu -j 1 --output-on-failure >"$out/gpu_tests.log" 2>&1 || status=1
if grep -q "(Skipped)" "$out/gpu_tests.log"; then
  echo "gpu_runner: gpu tests were skipped on a GPU runner, see $out/gpu_tests.log" >&2
  status=1
fi
tail -n 3 "$out/gpu_tests.log"

ops=(--op=all)
for flag in "$@"; do [[ "$flag" == --op=* ]] && ops=(); done
"$out/build/fuzz/dpfuzz" "${ops[@]}" --device=cuda --max_time="$seconds" \
  --findings="$out/findings" --corpus="$out/corpus" \
  --summary_json="$out/summary.json" \
  --noprogress "$@" >"$out/campaign.log" 2>&1
campaign=$?
grep -h '^SUMMARY:' "$out/campaign.log" || echo "gpu_runner: no SUMMARY line (campaign exit $campaign)"
[ "$campaign" -ge 2 ] && fail "campaign exit $campaign, see $out/campaign.log"
[ "$campaign" = 1 ] && status=1
exit $status

#!/usr/bin/env bash
# Every C++ standard library function a dpfuzz program calls must bind to
# the system's libstdc++, never to the copy a LibTorch library exports
# (Note [LibTorch's libstdc++ symbols] in CMakeLists.txt): the torch
# wheels' copies of some (std::filesystem::remove_all) jump to address 0.
# Which one a call binds to depends on the toolchain's link order, so this
# asks the dynamic loader, with every symbol bound at start. Exit 77 (skip)
# where the loader cannot say (not glibc's).
#
#   libstdcxx_binding_test.sh PROGRAM
set -uo pipefail
program="${1:?usage: libstdcxx_binding_test.sh PROGRAM}"
bindings=$(LD_BIND_NOW=1 LD_DEBUG=bindings "$program" --help 2>&1 >/dev/null |
  grep -F "binding file $program [0] to " | grep -E '`_ZN?K?St|`_ZSt')
if [ -z "$bindings" ]; then
  echo "SKIP: the dynamic loader printed no bindings of $program (LD_DEBUG is glibc's)"
  exit 77
fi
wrong=$(grep -E ' to [^ ]*/lib(torch|c10)[^ /]*\.so' <<<"$bindings")
if [ -n "$wrong" ]; then
  echo "FAIL: $(wc -l <<<"$wrong") standard library symbol(s) of $program bind to LibTorch's copies:"
  sed 's/.* to \([^ ]*\) .*`\(.*\).$/  \2 -> \1/' <<<"$wrong" | head -n 20
  echo "the link put LibTorch before libstdc++; see Note [LibTorch's libstdc++ symbols] in CMakeLists.txt"
  exit 1
fi
echo "OK: $(wc -l <<<"$bindings") standard library symbol(s) of $program bind to $(sed 's/.* to \([^ ]*\) .*/\1/' <<<"$bindings" | sort -u | paste -sd, -)"

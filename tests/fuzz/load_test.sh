#!/usr/bin/env bash
# Custom operators loaded with --load and fuzzed through the generic
# (schema-driven) path only:
#   load_test.sh PATH_TO_DPFUZZ PATH_TO_LIBDPFUZZ_CUSTOM_OPS
# The library's four planted bugs (a CPU kernel, an Autograd backward, an
# out= kernel, an in-place-only op; tests/custom_ops/custom_ops.cc) are
# each found and reduced;
# its good_* ops give no finding; list-ops shows the loaded ops; a missing
# library or an unloaded op is a usage error; an op with a CUDA kernel
# only is not drawn on the CPU.
set -u
dpfuzz="$1"
lib="$2"
source "$(dirname "$0")/test_lib.sh"

# Aliased out= is left out (--alias=false): ATen's own kernels, which the
# good ops call, do not promise results for partially overlapping outputs.
"$dpfuzz" --load="$lib" --op='dpfuzz_custom::*' --jobs=2 --max_time=25 --seed=7 \
  --alias=false --python_check=false --findings="$dir/f" >"$dir/out" 2>&1
status=$?
[ "$status" = 1 ] || die "campaign exit $status, expected 1"
grep -q "^INFO: dpfuzz .* 7 op(s)" "$dir/out" || die "the pattern did not name the 5 functional and 2 in-place-only custom ops"
for op in scaled_add square twice scale_; do
  ls -d "$dir/f/"*-"$op"-* >/dev/null 2>&1 || die "no finding for planted bug $op"
  grep -q "^INFO: reduced dpfuzz_custom::$op|" "$dir/out" || die "$op finding not reduced"
done
grep -q "^BUG: .* dpfuzz_custom::square functional gradient" "$dir/out" ||
  die "square's backward bug not reported as grad_mismatch"
grep -q "^BUG: .* dpfuzz_custom::twice out " "$dir/out" || die "twice's out= bug not found in the out variant"
grep -q "^BUG: .* dpfuzz_custom::scale_ inplace " "$dir/out" || die "scale_'s bug not found in its in-place variant"
ls -d "$dir/f/"*good_* >/dev/null 2>&1 && die "a finding for a correct op: $(ls "$dir/f")"
grep -q "^BUG: .* dpfuzz_custom::twice functional" "$dir/out" && die "a finding for twice's correct functional kernel"
[ "$fail" = 0 ] || cat "$dir/out"

# list-ops shows the loaded ops as generic, with their variants.
"$dpfuzz" list-ops --load="$lib" --op='dpfuzz_custom::*' >"$dir/list" 2>&1 || die "list-ops exit $?"
grep -q "^dpfuzz_custom::twice	generic	.*functional,out" "$dir/list" || { die "list-ops: twice"; cat "$dir/list"; }
grep -q "^dpfuzz_custom::twice.out	excluded	" "$dir/list" || die "list-ops: twice.out not shown as excluded"
grep -q "^dpfuzz_custom::good_scale_	generic	generic	inplace	" "$dir/list" || die "list-ops: the in-place-only good_scale_ not fuzzed in place"
# An op with a CUDA kernel only: excluded from the CPU's catalog (the
# campaign above counted 7 ops without it), listed for --device=cuda, and
# named alone on the CPU a usage error that says which device it needs.
grep -q "^dpfuzz_custom::cuda_only	excluded	no kernel for dense cpu tensors .*--device=cuda" "$dir/list" ||
  die "list-ops: cuda_only not excluded on the CPU: $(grep cuda_only "$dir/list")"
"$dpfuzz" list-ops --load="$lib" --op='dpfuzz_custom::cuda_only' --device=cuda >"$dir/list" 2>&1 || die "list-ops --device=cuda exit $?"
grep -q "^dpfuzz_custom::cuda_only	generic	" "$dir/list" || die "list-ops --device=cuda: cuda_only not generic: $(cat "$dir/list")"
"$dpfuzz" --load="$lib" --op=dpfuzz_custom::cuda_only --max_time=1 >"$dir/err" 2>&1
[ $? = 2 ] && grep -q "cuda_only is not fuzzed: no kernel for dense cpu tensors" "$dir/err" || die "cuda_only on the CPU: $(cat "$dir/err")"
"$dpfuzz" list-ops --device=tpu >"$dir/err" 2>&1
[ $? = 2 ] && grep -q 'unknown device "tpu"' "$dir/err" || die "list-ops --device=tpu: $(cat "$dir/err")"

# Usage errors: one line, exit 2.
"$dpfuzz" --op=dpfuzz_custom::square --max_time=1 >"$dir/err" 2>&1
[ $? = 2 ] && grep -q 'no op "dpfuzz_custom::square"' "$dir/err" || die "unloaded op: $(cat "$dir/err")"
"$dpfuzz" --load="$dir/missing.so" --op=relu --max_time=1 >"$dir/err" 2>&1
[ $? = 2 ] && grep -q "cannot load op library" "$dir/err" || die "missing library: $(cat "$dir/err")"

[ "$fail" = 0 ] && echo "load: all checks passed"
exit $fail

#!/usr/bin/env python3
# dpfuzz repro: aten::_nested_from_padded (variant functional), verdict internal_assert.
# Found with LibTorch 1.13.0 by dpfuzz 0.1.0.
#
# Checks: no call may fail with "INTERNAL ASSERT FAILED".
# Schema: aten::_nested_from_padded(Tensor padded, Tensor cpu_nested_shape_example, bool fuse_transform_0213=False) -> Tensor
#
# The case (case.json beside this file is the source of truth):
#   aten::_nested_from_padded functional seed 0
#     padded: f32 cpu [2, 3, 2]@[6, 2, 1]+0 dyadic#7
#     cpu_nested_shape_example: i64 cpu [2, 2]@[4, 1]+0 explicit[4]#0
#
# Every tensor argument is a view (as_strided) of an explicit storage
# holding exactly the elements dpfuzz used; POISON marks dpfuzz's poison
# in gaps and margins. The contiguous baseline holds the same logical
# values, each argument dense, in a storage of its own.
#
# Exit status: 1 when the bug shows, 0 when it does not, 2 when the
# repro itself fails. A crash shows as death by a signal.

import cmath
import faulthandler
import gc
import itertools
import math
import sys

import torch

# As dpfuzz runs cases: sparse tensors built from invalid indices are
# rejected (torch 2.x checks them only when asked).
if hasattr(torch.sparse, "check_sparse_tensor_invariants"):
    torch.sparse.check_sparse_tensor_invariants.enable()

# ---------------------------------------------------------------------------
# Helpers: the same in every dpfuzz repro that makes this check
# ---------------------------------------------------------------------------

NAN = math.nan
INF = math.inf


class _Poison:
    def __repr__(self):
        return "POISON"


# dpfuzz fills every storage element outside a view (gaps and margins) with
# this pattern: a NaN with a 0xA5 payload, or 0xA5 bytes for integers and
# bool. A kernel that reads it returns it; one that writes there destroys it.
POISON = _Poison()

_POISON_BITS = {  # dtype: (integer dtype of the same width, bit pattern)
    torch.float16: (torch.int16, 0x7EA5),
    torch.bfloat16: (torch.int16, 0x7FE5),
    torch.float32: (torch.int32, 0x7FE5A5A5),
    torch.float64: (torch.int64, 0x7FFDA5A5A5A5A5A5),
    torch.bool: (torch.uint8, 0xA5),
    torch.uint8: (torch.uint8, 0xA5),
    torch.int8: (torch.int8, 0xA5),
    torch.int16: (torch.int16, 0xA5A5),
    torch.int32: (torch.int32, 0xA5A5A5A5),
    torch.int64: (torch.int64, 0xA5A5A5A5A5A5A5A5),
}


def _signed(pattern, dtype):
    width = torch.iinfo(dtype).bits
    if dtype != torch.uint8 and pattern >= 1 << (width - 1):
        return pattern - (1 << width)
    return pattern


# Every storage's memory goes on for GUARD elements of POISON past its end:
# a kernel that writes past a storage changes its guard (overflow()), on
# every run, where without one it corrupts the heap and the process dies,
# hangs or goes on, as what lies next to the block decides.
GUARD = 4096


def storage(dtype, elements, device="cpu", guard=GUARD):
    """A dense 1-d tensor holding exactly `elements`: numbers, (re, im) pairs
    for complex dtypes, POISON for dpfuzz's poison, bool as 0/1 bytes.
    Its memory goes on past its end with `guard` POISON elements (none for
    a nested tensor's buffer, which must be its whole memory)."""
    if dtype.is_complex:
        part = torch.float32 if dtype == torch.complex64 else torch.float64
        flat = []
        for e in elements:
            flat += [e, e] if e is POISON else [e[0], e[1]]
        real = storage(part, flat, guard=2 * guard)
        return torch.view_as_complex(real.reshape(-1, 2)).to(device)
    bits, pattern = _POISON_BITS[dtype]
    build = torch.uint8 if dtype == torch.bool else dtype
    guarded = list(elements) + [POISON] * guard
    t = torch.tensor([0 if e is POISON else e for e in guarded], dtype=build)
    poisoned = [i for i, e in enumerate(guarded) if e is POISON]
    t.view(bits)[poisoned] = _signed(pattern, bits)
    if dtype == torch.bool:
        t = t.view(torch.bool)
    return t.to(device)[:len(elements)]


def _memory_elements(t):
    """How many elements of t's dtype its memory holds, guard included."""
    if hasattr(t, "untyped_storage"):
        return t.untyped_storage().nbytes() // t.element_size()
    return t.storage().size()


def overflow(storages):
    """Where the call wrote past the end of a storage (into its guard), as
    text; None when every guard holds its POISON. `storages` holds
    (name, tensor, views) as variant_tensors() returns them."""
    for name, s, _ in storages:
        end = s.storage_offset() + s.numel()
        guard = torch.as_strided(s, (_memory_elements(s) - end,), (1,), end)
        poison = _bytes(storage(s.dtype, [POISON]))
        now, size = _bytes(guard), len(poison)
        changed = [s.numel() + i // size for i in range(0, len(now), size)
                   if now[i:i + size] != poison]
        if changed:
            return ("%s past the end of %s (%d elements), the first at "
                    "%s[%d], the last at [%d]: a heap overflow without the "
                    "guard" % ("one element" if len(changed) == 1 else
                               "%d elements" % len(changed), name,
                               s.numel(), name, changed[0], changed[-1]))
    return None


def _bytes(t):
    return t.detach().cpu().reshape(-1).view(torch.uint8).tolist()


def view(base, sizes, strides, offset, requires_grad=False):
    """The view dpfuzz passes: as_strided over the storage (a leaf if it
    requires grad)."""
    t = torch.as_strided(base, sizes, strides, offset)
    return t.detach().requires_grad_() if requires_grad else t


def dense(dtype, sizes, elements, requires_grad=False, device="cpu"):
    """A baseline tensor: row-major `elements`, on `device`."""
    t = storage(dtype, elements, device).reshape(sizes)
    return t.requires_grad_() if requires_grad else t


def nested_view(base, sizes, strides, offsets):
    """A nested tensor whose components have `sizes` and `strides` at
    `offsets` in the storage `base`: how LibTorch's nested views are built.
    LibTorch 1.13 takes the offsets as a list and a storage of exactly the
    components' elements (no guard after it); 2.x takes them as a
    tensor."""
    args = (base, torch.tensor(sizes, dtype=torch.int64),
            torch.tensor(strides, dtype=torch.int64))
    if int(torch.__version__.split(".")[0]) < 2:
        return torch.ops.aten._nested_view_from_buffer(*args, offsets)
    return torch.ops.aten._nested_view_from_buffer(
        *args, torch.tensor(offsets, dtype=torch.int64))


def nested_dense(dtype, sizes, elements, device="cpu"):
    """A contiguous nested baseline: components of `sizes` holding
    `elements`, one component after another."""
    parts, at = [], 0
    for s in sizes:
        n = math.prod(s)
        parts.append(dense(dtype, tuple(s), elements[at:at + n], device=device))
        at += n
    return torch.nested.nested_tensor(parts)


def as_list(value):
    return value if isinstance(value, list) else [value]


def attempt(function, *args):
    """(result, None), or (None, message) when the call raises."""
    try:
        return function(*args), None
    except Exception as e:  # noqa: BLE001 -- any error is a rejection
        return None, str(e).strip() or type(e).__name__


def strided(t):
    """`t` as a strided tensor of its values: a sparse, compressed or mkldnn
    result densified, autograd's ZeroTensor (no memory) made real."""
    if t.layout != torch.strided:
        return t.to_dense()
    if t._is_zerotensor():
        return torch.zeros(t.shape, dtype=t.dtype, device=t.device)
    return t


def flatten(value):
    """Returned tensors, lists and tuples flattened, numbers as 0-dim,
    nested tensors as their components, others as strided values."""
    if isinstance(value, torch.Tensor):
        return list(value.unbind()) if value.is_nested else [strided(value)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flatten(v)]
    if isinstance(value, bool):
        return [torch.tensor(value)]
    if isinstance(value, int):
        return [torch.tensor(value, dtype=torch.int64)]
    if isinstance(value, float):
        return [torch.tensor(value, dtype=torch.float64)]
    return []


def results(returned, args):
    """What a run is judged by: the arguments the schema writes, after the
    call, else the returned tensors. Returns (names, tensors)."""
    if not WRITTEN:
        outs = flatten(returned)
        return ["output %d" % i for i in range(len(outs))], outs
    names, tensors = [], []
    for name in WRITTEN:
        for t in as_list(args[name]):
            names.append(name)
            tensors.append(t)
    return names, tensors


def elements(t):
    """The logical values of `t`, row-major, as Python numbers (bool as
    its byte); tolist() walks the strides itself."""
    t = t.detach().cpu()
    if t.dtype == torch.bool:
        t = t.view(torch.uint8)
    return _flat(t.tolist())


def _flat(value):
    if not isinstance(value, list):
        return [value]
    return [x for item in value for x in _flat(item)]


def run(main):
    """Exit status 1: the bug shows; 0: it does not; 2: the repro failed."""
    try:
        status = main()
    except Exception as e:  # noqa: BLE001
        print("error: the repro itself failed: %r" % e)
        sys.exit(2)
    sys.stdout.flush()
    sys.exit(status)


def grad_inputs(args):
    """(names, tensors) of the arguments that require grad, sorted by name
    as dpfuzz orders them."""
    names, tensors = [], []
    for name in sorted(args):
        for t in as_list(args[name]):
            if t.requires_grad:
                names.append("grad of " + name)
                tensors.append(t)
    return names, tensors


def backward(returned, inputs, grad_outputs):
    """Gradients of `inputs` (zeros where unused) for the outputs that
    require grad, fed `grad_outputs` in order."""
    outs = [t for t in flatten(returned) if t.requires_grad]
    if len(outs) != len(grad_outputs):
        raise RuntimeError("dpfuzz: %d outputs require grad but the case has "
                           "%d grad_outputs" % (len(outs), len(grad_outputs)))
    grads = torch.autograd.grad(outs, inputs, grad_outputs,
                                allow_unused=True)
    return [strided(g) if g is not None else torch.zeros_like(i)
            for g, i in zip(grads, inputs)]


# ---------------------------------------------------------------------------
# The case
# ---------------------------------------------------------------------------

VERDICT = "internal_assert"
WRITTEN = []  # arguments the schema writes
# How dpfuzz compares this op's results (generators/op_spec.h):
EXACT = True  # False: assert_close tolerances, then a float64 reference
TIED_INDICES = False
TIE_DIM = None
NONDETERMINISTIC = False
PROPAGATES_STRIDES = False
MEMORY_FORMAT = ""
REJECTION_ALLOWED = False  # aliased out=/in-place arguments may be rejected
BACKWARD = False


def variant_tensors():
    """The case's tensors as dpfuzz ran them: views of explicit
    storages. Returns (arguments, grad_outputs, storages)."""
    # padded: f32 [2, 3, 2]@[6, 2, 1]+0
    padded_storage = storage(torch.float32, [
        0.625, -2.875, 3.625, -3.0, 2.125, 1.625, 1.375, -3.125, -1.5, 0.375,
        0.75, -1.375, *[POISON] * 4])
    padded = view(padded_storage, (2, 3, 2), (6, 2, 1), 0)
    # cpu_nested_shape_example: i64 [2, 2]@[4, 1]+0
    cpu_nested_shape_example_storage = storage(torch.int64, [
        3, 2, POISON, POISON, 1, 2, *[POISON] * 4])
    cpu_nested_shape_example = view(cpu_nested_shape_example_storage, (2, 2), (4, 1), 0)
    args = {
        "padded": padded,
        "cpu_nested_shape_example": cpu_nested_shape_example,
    }
    grad_outputs = []
    storages = [
        ("padded_storage", padded_storage,
         [("padded", ((2, 3, 2), (6, 2, 1), 0))]),
        ("cpu_nested_shape_example_storage", cpu_nested_shape_example_storage,
         [("cpu_nested_shape_example", ((2, 2), (4, 1), 0))]),
    ]
    return args, grad_outputs, storages


def baseline_tensors():
    """The contiguous baseline: each argument dense, with the
    variant's logical values. Returns (arguments, grad_outputs)."""
    base_padded = dense(torch.float32, (2, 3, 2), [
        0.625, -2.875, 3.625, -3.0, 2.125, 1.625, 1.375, -3.125, -1.5, 0.375,
        0.75, -1.375])
    base_cpu_nested_shape_example = dense(torch.int64, (2, 2), [3, 2, 1, 2])
    args = {
        "padded": base_padded,
        "cpu_nested_shape_example": base_cpu_nested_shape_example,
    }
    grad_outputs = []
    return args, grad_outputs


# aten::_nested_from_padded(Tensor padded, Tensor cpu_nested_shape_example, bool fuse_transform_0213=False) -> Tensor
def op():
    """The operator under test; main() fails (exit 2) without it."""
    return torch.ops.aten._nested_from_padded.default


def call(a):
    return op()(
        a["padded"], a["cpu_nested_shape_example"])


def main():
    op()
    variant, grad_outputs, storages = variant_tensors()
    baseline, base_grad_outputs = baseline_tensors()
    expected, b_error = attempt(call, baseline)
    actual, v_error = attempt(call, variant)
    if judge("forward", b_error, v_error):
        return 1
    if BACKWARD and b_error is None and v_error is None:
        _, b_error = attempt(backward, expected, grad_inputs(baseline)[1],
                             base_grad_outputs)
        _, v_error = attempt(backward, actual, grad_inputs(variant)[1],
                             grad_outputs)
        if judge("backward", b_error, v_error):
            return 1
    print("expected: %s" % EXPECTED)
    print("actual:   so it is (baseline: %s; variant: %s)"
          % (b_error or "returned", v_error or "returned"))
    return 0


EXPECTED = "no call fails with INTERNAL ASSERT FAILED"


def judge(stage, b_error, v_error):
    """True (and prints) when a side hit an internal assert in `stage`."""
    for side, error in (("contiguous baseline", b_error),
                        ("strided variant", v_error)):
        if error is not None and "INTERNAL ASSERT FAILED" in error:
            print("expected: the %s's %s returns or raises an ordinary error"
                  % (side, stage))
            print("actual:   %s" % error)
            return True
    return False


if __name__ == "__main__":
    run(main)

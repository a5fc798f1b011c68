#!/usr/bin/env python3
# dpfuzz repro: aten::kron (variant functional), verdict rejection_mismatch.
# Found with LibTorch 1.13.0 by dpfuzz 0.1.0.
#
# Checks: the strided variant must raise an error exactly when the contiguous
# baseline does, in forward and in backward.
# Schema: aten::kron(Tensor self, Tensor other) -> Tensor
#
# The case (case.json beside this file is the source of truth):
#   aten::kron functional seed 14831946618898890315
#     self: f32 cpu [2, 1]@[1, 2]+0 zeros#0
#     other: f32 cpu [2, 1]@[1, 1]+0 zeros#0
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


def storage(dtype, elements, device="cpu"):
    """A dense 1-d tensor holding exactly `elements`: numbers, (re, im) pairs
    for complex dtypes, POISON for dpfuzz's poison, bool as 0/1 bytes."""
    if dtype.is_complex:
        part = torch.float32 if dtype == torch.complex64 else torch.float64
        flat = []
        for e in elements:
            flat += [e, e] if e is POISON else [e[0], e[1]]
        real = storage(part, flat)
        return torch.view_as_complex(real.reshape(-1, 2)).to(device)
    bits, pattern = _POISON_BITS[dtype]
    build = torch.uint8 if dtype == torch.bool else dtype
    t = torch.tensor([0 if e is POISON else e for e in elements], dtype=build)
    poisoned = [i for i, e in enumerate(elements) if e is POISON]
    if poisoned:
        t.view(bits)[poisoned] = _signed(pattern, bits)
    if dtype == torch.bool:
        t = t.view(torch.bool)
    return t.to(device)


def view(base, sizes, strides, offset, requires_grad=False):
    """The view dpfuzz passes: as_strided over the storage (a leaf if it
    requires grad)."""
    t = torch.as_strided(base, sizes, strides, offset)
    return t.detach().requires_grad_() if requires_grad else t


def dense(dtype, sizes, elements, requires_grad=False, device="cpu"):
    """A baseline tensor: row-major `elements`, on `device`."""
    t = storage(dtype, elements, device).reshape(sizes)
    return t.requires_grad_() if requires_grad else t


def as_list(value):
    return value if isinstance(value, list) else [value]


def attempt(function, *args):
    """(result, None), or (None, message) when the call raises."""
    try:
        return function(*args), None
    except Exception as e:  # noqa: BLE001 -- any error is a rejection
        return None, str(e).strip() or type(e).__name__


def flatten(value):
    """Returned tensors, lists and tuples flattened, numbers as 0-dim."""
    if isinstance(value, torch.Tensor):
        return [value]
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
    return [g if g is not None else torch.zeros_like(i)
            for g, i in zip(grads, inputs)]


# ---------------------------------------------------------------------------
# The case
# ---------------------------------------------------------------------------

VERDICT = "rejection_mismatch"
WRITTEN = []  # arguments the schema writes
# How dpfuzz compares this op's results (generators/op_spec.h):
EXACT = False  # False: assert_close tolerances, then a float64 reference
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
    # self: f32 [2, 1]@[1, 2]+0
    self_storage = storage(torch.float32, [0.0, 0.0, *[POISON] * 4])
    self_ = view(self_storage, (2, 1), (1, 2), 0)
    # other: f32 [2, 1]@[1, 1]+0
    other_storage = storage(torch.float32, [0.0, 0.0, *[POISON] * 4])
    other = view(other_storage, (2, 1), (1, 1), 0)
    args = {
        "self": self_,
        "other": other,
    }
    grad_outputs = []
    storages = [
        ("self_storage", self_storage,
         [("self", ((2, 1), (1, 2), 0))]),
        ("other_storage", other_storage,
         [("other", ((2, 1), (1, 1), 0))]),
    ]
    return args, grad_outputs, storages


def baseline_tensors():
    """The contiguous baseline: each argument dense, with the
    variant's logical values. Returns (arguments, grad_outputs)."""
    base_self_ = dense(torch.float32, (2, 1), [0.0, 0.0])
    base_other = dense(torch.float32, (2, 1), [0.0, 0.0])
    args = {
        "self": base_self_,
        "other": base_other,
    }
    grad_outputs = []
    return args, grad_outputs


# aten::kron(Tensor self, Tensor other) -> Tensor
def op():
    """The operator under test; main() fails (exit 2) without it."""
    return torch.ops.aten.kron.default


def call(a):
    return op()(
        a["self"], a["other"])


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


EXPECTED = "the strided variant raises exactly when the baseline does"


def judge(stage, b_error, v_error):
    """True (and prints) when exactly one side raised in `stage`."""
    if (b_error is None) == (v_error is None):
        return False
    if v_error is not None and REJECTION_ALLOWED:
        return False  # PyTorch may reject an out= that aliases an input
    if v_error is not None:
        print("expected: the strided variant's %s returns, as the contiguous "
              "baseline's does" % stage)
        print("actual:   it raised: %s" % v_error)
    else:
        print("expected: the strided variant's %s raises, as the contiguous "
              "baseline's does: %s" % (stage, b_error))
        print("actual:   it returned")
    return True


if __name__ == "__main__":
    run(main)

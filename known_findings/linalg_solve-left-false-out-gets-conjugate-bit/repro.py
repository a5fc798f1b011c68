#!/usr/bin/env python3
# dpfuzz repro: aten::linalg_solve.out (variant out), verdict layout_contract.
# Found with LibTorch 1.13.0 by dpfuzz 0.1.0.
#
# Checks: an out= call must write into its out tensors, keeping their memory
# and strides, and return them.
# Schema: aten::linalg_solve.out(Tensor A, Tensor B, *, bool left=True, Tensor(a!) out) -> Tensor(a!)
#
# The case (case.json beside this file is the source of truth):
#   aten::linalg_solve out seed 9518511134666339751
#     A: c64 cpu [1, 1]@[1, 1]+0 ones#0
#     B: c64 cpu [1, 1]@[1, 1]+0 zeros#0
#     left: False
#     out: c64 cpu [1, 1]@[1, 1]+0 zeros#0
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


def _significant_strides(t):
    return [t.stride(d) for d in range(t.dim()) if t.size(d) > 1]


def _layout_text(sizes, strides, offset):
    return "%s@%s+%d" % (list(sizes), list(strides), offset)


def non_overlapping_and_dense(t):
    """c10's is_non_overlapping_and_dense."""
    if t.dim() == 1:
        return t.size(0) < 2 or t.stride(0) == 1
    expected = 1
    for d in sorted((d for d in range(t.dim()) if t.size(d) >= 2),
                    key=t.stride):
        if t.stride(d) != expected:
            return False
        expected *= t.size(d)
    return True


def broken_out_contract(args, returned, layouts, pointers):
    """What an out= call broke of its contract: keep each out (its places
    when its size was right, its memory) and return it. None if nothing."""
    outs = flatten(returned)
    for k, name in enumerate(WRITTEN):
        t = args[name]
        if t.is_conj() or t.is_neg():
            return ("out= tensor came back with its %s bit set: its memory "
                    "holds other values than it reads as"
                    % ("conjugate" if t.is_conj() else "negative"))
        sizes, strides, offset = layouts[name]
        moved = t.data_ptr() != pointers[k]
        same_places = (list(t.shape) == list(sizes)
                       and t.storage_offset() == offset
                       and all(n <= 1 or t.stride(d) == strides[d]
                               for d, n in enumerate(sizes)))
        if math.prod(sizes) > 0 and (moved or not same_places):
            return "out= tensor %s of the right size came back as %s%s" % (
                _layout_text(sizes, strides, offset),
                _layout_text(t.shape, t.stride(), t.storage_offset()),
                " in new memory" if moved else "")
        if k < len(outs) and outs[k] is not t:
            return "out= call returned a tensor other than its out"
    return None


def _shares_storage(a, b):
    return a.storage().data_ptr() == b.storage().data_ptr()


def broken_layout_promise(args, returned):
    """What the functional call broke of PyTorch's layout promises
    (MEMORY_FORMAT, PROPAGATES_STRIDES), or None."""
    outs = flatten(returned)
    if not outs:
        return None
    out = outs[0]
    inputs = [t for v in args.values() for t in as_list(v)]
    if out.numel() == 0 or any(_shares_storage(out, t) for t in inputs):
        return None
    self_ = args.get("self")
    if MEMORY_FORMAT and MEMORY_FORMAT != "preserve_format":
        if not out.is_contiguous(memory_format=getattr(torch, MEMORY_FORMAT)):
            return "memory_format=%s but the result %s@%s is not " \
                   "contiguous in it" % (MEMORY_FORMAT, list(out.shape),
                                         list(out.stride()))
    elif MEMORY_FORMAT and isinstance(self_, torch.Tensor):
        if self_.shape != out.shape:
            return None
        if non_overlapping_and_dense(self_):
            if _significant_strides(self_) != _significant_strides(out):
                return "preserve_format on a dense input %s returned " \
                       "strides %s" % (list(self_.stride()),
                                       list(out.stride()))
        elif not non_overlapping_and_dense(out):
            return "preserve_format on a non-dense input returned a " \
                   "non-dense %s@%s" % (list(out.shape), list(out.stride()))
    if PROPAGATES_STRIDES:
        first = None
        for name in sorted(args):
            for t in as_list(args[name]):
                if not non_overlapping_and_dense(t) or t.shape != out.shape:
                    return None
                if first is not None and (_significant_strides(first) !=
                                          _significant_strides(t)):
                    return None
                first = t
        if first is not None and (_significant_strides(first) !=
                                  _significant_strides(out)):
            return "dense inputs with strides %s gave an output with " \
                   "strides %s" % (list(first.stride()), list(out.stride()))
    return None


# ---------------------------------------------------------------------------
# The case
# ---------------------------------------------------------------------------

VERDICT = "layout_contract"
WRITTEN = ["out"]  # arguments the schema writes
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
    # A: c64 [1, 1]@[1, 1]+0
    A_storage = storage(torch.complex64, [(1.0, 1.0), *[POISON] * 4])
    A = view(A_storage, (1, 1), (1, 1), 0)
    # B: c64 [1, 1]@[1, 1]+0
    B_storage = storage(torch.complex64, [(0.0, 0.0), *[POISON] * 4])
    B = view(B_storage, (1, 1), (1, 1), 0)
    # out: c64 [1, 1]@[1, 1]+0
    out_storage = storage(torch.complex64, [(0.0, 0.0), *[POISON] * 4])
    out = view(out_storage, (1, 1), (1, 1), 0)
    args = {
        "A": A,
        "B": B,
        "out": out,
    }
    grad_outputs = []
    storages = [
        ("A_storage", A_storage,
         [("A", ((1, 1), (1, 1), 0))]),
        ("B_storage", B_storage,
         [("B", ((1, 1), (1, 1), 0))]),
        ("out_storage", out_storage,
         [("out", ((1, 1), (1, 1), 0))]),
    ]
    return args, grad_outputs, storages


def baseline_tensors():
    """The contiguous baseline: each argument dense, with the
    variant's logical values. Returns (arguments, grad_outputs)."""
    base_A = dense(torch.complex64, (1, 1), [(1.0, 1.0)])
    base_B = dense(torch.complex64, (1, 1), [(0.0, 0.0)])
    base_out = dense(torch.complex64, (1, 1), [(0.0, 0.0)])
    args = {
        "A": base_A,
        "B": base_B,
        "out": base_out,
    }
    grad_outputs = []
    return args, grad_outputs


# aten::linalg_solve.out(Tensor A, Tensor B, *, bool left=True, Tensor(a!) out) -> Tensor(a!)
def op():
    """The operator under test; main() fails (exit 2) without it."""
    return torch.ops.aten.linalg_solve.out


def call(a):
    return op()(
        a["A"], a["B"], left=False, out=a["out"])


def main():
    op()
    variant, grad_outputs, storages = variant_tensors()
    baseline, base_grad_outputs = baseline_tensors()
    pointers = [variant[name].data_ptr() for name in WRITTEN]
    returned, error = attempt(call, variant)
    if error:
        print("expected: the call returns (this check needs its result)")
        print("actual:   it raised: %s" % error)
        return 0
    layouts = {"out": ((1, 1), (1, 1), 0)}  # as given
    broken = broken_out_contract(variant, returned, layouts, pointers)
    if broken is None:
        print("expected: the layout PyTorch promises")
        print("actual:   kept")
        return 0
    print("expected: the layout PyTorch promises")
    print("actual:   %s" % broken)
    return 1


if __name__ == "__main__":
    run(main)

#!/usr/bin/env python3
# dpfuzz repro: aten::cov (variant functional), verdict input_modified.
# Found with LibTorch 2.11.0 by dpfuzz 0.1.0.
#
# Checks: the call may change only the storage elements that its written
# arguments address (input_modified, outside_write).
# Schema: aten::cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor
#
# The case (case.json beside this file is the source of truth):
#   aten::cov functional seed 1422626253967968353
#     self: f32 cpu []@[]+0 ones#0
#     fweights: i64 cpu []@[]+0 ones#0
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


def addressed(layout):
    """The storage elements a view (sizes, strides, offset) addresses."""
    sizes, strides, offset = layout
    return {offset + sum(i * s for i, s in zip(index, strides))
            for index in itertools.product(*[range(n) for n in sizes])}


def _bytes(t):
    return t.detach().cpu().reshape(-1).view(torch.uint8).tolist()


def snapshot(storages):
    """The bytes of every storage. (A clone() would not do: copying a bool
    tensor turns the poison byte 0xA5 into 1.)"""
    return [_bytes(s) for _, s, _ in storages]


def storage_change(storages, before):
    """The first storage element that changed although no written argument
    addresses it, as {"where", "after"}; None when there is none.
    `storages` holds (name, tensor, [(argument, layout)]); `before` their
    snapshot() from before the call."""
    for (name, now, views), old_bytes in zip(storages, before):
        size = now.element_size()
        new_bytes = _bytes(now)
        may_change, holds_written = set(), False
        for arg, layout in views:
            if arg in WRITTEN:
                holds_written = True
                may_change |= addressed(layout)
        for i in range(len(new_bytes) // size):
            chunk = slice(i * size, (i + 1) * size)
            if i in may_change or new_bytes[chunk] == old_bytes[chunk]:
                continue
            roles = [arg for arg, layout in views if i in addressed(layout)]
            return {
                "where": "%s[%d] (%s) keeps %s" % (
                    name, i, ("an element of " + ", ".join(roles)) if roles
                    else "a gap or margin",
                    _element_text(now.dtype, old_bytes[chunk])),
                "after": "it holds %s (%s)" % (
                    _element_text(now.dtype, new_bytes[chunk]),
                    "outside_write" if holds_written else "input_modified")}
    return None


def _element_text(dtype, element_bytes):
    if element_bytes == _bytes(storage(dtype, [POISON])):
        return "POISON"
    one = torch.tensor(element_bytes, dtype=torch.uint8).view(dtype)
    return repr(elements(one)[0])


# ---------------------------------------------------------------------------
# The case
# ---------------------------------------------------------------------------

VERDICT = "input_modified"
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
    # self: f32 []@[]+0
    self_storage = storage(torch.float32, [1.0, *[POISON] * 4])
    self_ = view(self_storage, (), (), 0)
    # fweights: i64 []@[]+0
    fweights_storage = storage(torch.int64, [1, *[POISON] * 4])
    fweights = view(fweights_storage, (), (), 0)
    args = {
        "self": self_,
        "fweights": fweights,
    }
    grad_outputs = []
    storages = [
        ("self_storage", self_storage,
         [("self", ((), (), 0))]),
        ("fweights_storage", fweights_storage,
         [("fweights", ((), (), 0))]),
    ]
    return args, grad_outputs, storages


def baseline_tensors():
    """The contiguous baseline: each argument dense, with the
    variant's logical values. Returns (arguments, grad_outputs)."""
    base_self_ = dense(torch.float32, (), [1.0])
    base_fweights = dense(torch.int64, (), [1])
    args = {
        "self": base_self_,
        "fweights": base_fweights,
    }
    grad_outputs = []
    return args, grad_outputs


# aten::cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor
def op():
    """The operator under test; main() fails (exit 2) without it."""
    return torch.ops.aten.cov.default


def call(a):
    return op()(
        a["self"], fweights=a["fweights"])


def main():
    op()
    variant, grad_outputs, storages = variant_tensors()
    baseline, base_grad_outputs = baseline_tensors()
    before = snapshot(storages)
    returned, error = attempt(call, variant)
    if error:
        print("expected: the call returns (this check needs its writes)")
        print("actual:   it raised: %s" % error)
        return 0
    change = storage_change(storages, before)
    if change is None:
        print("expected: elements no written argument addresses unchanged")
        print("actual:   unchanged")
        return 0
    print("expected: %s" % change["where"])
    print("actual:   %s" % change["after"])
    return 1


if __name__ == "__main__":
    run(main)

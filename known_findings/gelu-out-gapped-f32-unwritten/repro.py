#!/usr/bin/env python3
# dpfuzz repro: aten::gelu.out (variant out), verdict mismatch.
# Found with LibTorch 1.13.0 by dpfuzz 0.1.0.
#
# Checks: the strided variant's results must equal the contiguous baseline's
# (mismatch, nan_introduced).
# Schema: aten::gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out) -> Tensor(a!)
#
# The case (case.json beside this file is the source of truth):
#   aten::gelu out seed 14953520354614701885
#     self: f32 cpu [2]@[1]+0 explicit[48]#0
#     out: f32 cpu [2]@[2]+0 zeros#0
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


def nested_view(base, sizes, strides, offsets, requires_grad=False):
    """A nested tensor whose components have `sizes` and `strides` at
    `offsets` in the storage `base`: how LibTorch's nested views are built
    (a leaf when it requires grad). LibTorch 1.13 takes the offsets as a
    list and a storage of exactly the components' elements (no guard after
    it); 2.x takes them as a tensor."""
    args = (base, torch.tensor(sizes, dtype=torch.int64),
            torch.tensor(strides, dtype=torch.int64))
    if int(torch.__version__.split(".")[0]) < 2:
        t = torch.ops.aten._nested_view_from_buffer(*args, offsets)
    else:
        t = torch.ops.aten._nested_view_from_buffer(
            *args, torch.tensor(offsets, dtype=torch.int64))
    return t.detach().requires_grad_() if requires_grad else t


def nested_dense(dtype, sizes, elements, requires_grad=False, device="cpu"):
    """A contiguous nested baseline: components of `sizes` holding
    `elements`, one component after another."""
    parts, at = [], 0
    for s in sizes:
        n = math.prod(s)
        parts.append(dense(dtype, tuple(s), elements[at:at + n], device=device))
        at += n
    t = torch.nested.nested_tensor(parts)
    return t.requires_grad_() if requires_grad else t


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


def widen(args):
    """float64 (complex128) copies of the floating tensors, for the
    reference run; other tensors as they are."""
    def wide(t):
        if not (t.is_floating_point() or t.is_complex()):
            return t
        kind = torch.complex128 if t.is_complex() else torch.float64
        if t.is_nested:  # 1.13 converts nested tensors component-wise only
            return torch.nested.nested_tensor(
                [c.detach().to(kind) for c in t.unbind()])
        w = t.detach().to(kind).clone()
        return w.requires_grad_() if t.requires_grad else w
    return {k: ([wide(t) for t in v] if isinstance(v, list) else wide(v))
            for k, v in args.items()}


def index_of(flat, sizes):
    index = []
    for size in reversed(sizes):
        index.insert(0, flat % size if size else 0)
        flat = flat // size if size else 0
    return list(index)


# torch.testing.assert_close's default (rtol, atol); zero for the others.
TOLERANCES = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.complex64: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex128: (1e-7, 1e-7),
}


def first_difference(expected, actual, exact, reference=None):
    """dpfuzz's comparison: None when `actual` agrees with `expected`, else
    a dict with the verdict, the first differing element and the count.
    exact: equal values (NaN == NaN, -0.0 == 0.0). Otherwise |a - e| <=
    atol + rtol * |e|, and an element outside that is judged again against
    the float64 `reference`: within atol + 4 * rtol * |r| of it, or no
    further from it than twice the baseline is. A NaN where the baseline has
    a finite number is nan_introduced."""
    if tuple(expected.shape) != tuple(actual.shape):
        return {"verdict": "mismatch", "what": "shape %s where the baseline "
                "has %s" % (list(actual.shape), list(expected.shape))}
    if expected.dtype != actual.dtype:
        return {"verdict": "mismatch", "what": "dtype %s where the baseline "
                "has %s" % (actual.dtype, expected.dtype)}
    n = expected.numel()
    if n == 0:
        return None
    e, a = elements(expected), elements(actual)
    r = None
    if reference is not None and reference.numel() == n:
        r = elements(reference)
    floating = expected.is_floating_point() or expected.is_complex()
    rtol, atol = TOLERANCES.get(expected.dtype, (0.0, 0.0))
    first = first_nan = None
    count = nans = 0
    for i in range(n):
        ev, av = e[i], a[i]
        if not floating:
            same = ev == av
        else:
            if cmath.isnan(av) and cmath.isfinite(ev):
                nans += 1
                first_nan = i if first_nan is None else first_nan
            same = ev == av or (cmath.isnan(ev) and cmath.isnan(av))
            if not same and not exact:
                if not (cmath.isfinite(ev) and cmath.isfinite(av)):
                    same = not cmath.isfinite(ev) and not cmath.isfinite(av)
                elif r is None:
                    same = abs(av - ev) <= atol + rtol * abs(ev)
                elif cmath.isfinite(r[i]):
                    allowed = max(atol + 4 * rtol * abs(r[i]),
                                  2 * abs(ev - r[i]))
                    same = abs(av - r[i]) <= allowed
                else:
                    same = True
        if not same:
            count += 1
            first = i if first is None else first
    if count == 0 and nans == 0:
        return None
    at = first_nan if nans else first
    return {"verdict": "nan_introduced" if nans else "mismatch",
            "index": index_of(at, list(expected.shape)),
            "expected": e[at], "actual": a[at],
            "count": nans if nans else count, "of": n}


def selected(self_, indices):
    """The values of `self_` that int64 `indices` select along TIE_DIM
    (flattened without one); None when an index is out of range."""
    self_ = self_.detach()
    flat = TIE_DIM is None or self_.dim() == 0
    d = 0 if flat else TIE_DIM % self_.dim()
    bound = self_.numel() if flat else self_.size(d)
    idx = dense(torch.int64, tuple(indices.shape), elements(indices))
    if idx.numel() > 0 and (idx.min() < 0 or idx.max() >= bound):
        return None
    if flat:
        return self_.reshape(-1).take(idx.reshape(-1))
    if idx.dim() == self_.dim() - 1:
        idx = idx.unsqueeze(d)
    if idx.dim() != self_.dim():
        return None
    for k in range(self_.dim()):
        if k != d and idx.size(k) > self_.size(k):
            return None
    return self_.gather(d, idx)


def compare_output(expected, actual, reference, self_):
    """first_difference with the op's rules: random ops compare shapes and
    dtypes only; tied index outputs compare the values they select."""
    if (NONDETERMINISTIC and expected.shape == actual.shape
            and expected.dtype == actual.dtype):
        return None
    if (TIED_INDICES and expected.dtype == torch.int64
            and actual.dtype == torch.int64 and self_ is not None
            and expected.shape == actual.shape):
        e, a = selected(self_, expected), selected(self_, actual)
        if e is not None and a is not None:
            return first_difference(e, a, exact=True)
    return first_difference(expected, actual, EXACT, reference)


def show_difference(where, d):
    """Prints expected/actual for a difference; True when there is one."""
    if d is None:
        print("expected: %s as the contiguous baseline's" % where)
        print("actual:   the same")
        return False
    if "index" not in d:
        print("expected: %s as the contiguous baseline's" % where)
        print("actual:   %s (%s)" % (d["what"], d["verdict"]))
        return True
    print("expected: %s%s = %r (contiguous baseline)"
          % (where, d["index"], d["expected"]))
    print("actual:   %s%s = %r (strided variant); %s: %d of %d elements"
          % (where, d["index"], d["actual"], d["verdict"], d["count"],
             d["of"]))
    return True


# ---------------------------------------------------------------------------
# The case
# ---------------------------------------------------------------------------

VERDICT = "mismatch"
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
    # self: f32 [2]@[1]+0
    self_storage = storage(torch.float32, [
        float.fromhex("0x1.8b685p-2"), float.fromhex("-0x1.87afbep-3"),
        *[POISON] * 4])
    self_ = view(self_storage, (2,), (1,), 0)
    # out: f32 [2]@[2]+0
    out_storage = storage(torch.float32, [0.0, POISON, 0.0, *[POISON] * 4])
    out = view(out_storage, (2,), (2,), 0)
    args = {
        "self": self_,
        "out": out,
    }
    grad_outputs = []
    storages = [
        ("self_storage", self_storage,
         [("self", ((2,), (1,), 0))]),
        ("out_storage", out_storage,
         [("out", ((2,), (2,), 0))]),
    ]
    return args, grad_outputs, storages


def baseline_tensors():
    """The contiguous baseline: each argument dense, with the
    variant's logical values. Returns (arguments, grad_outputs)."""
    base_self_ = dense(torch.float32, (2,), [
        float.fromhex("0x1.8b685p-2"), float.fromhex("-0x1.87afbep-3")])
    base_out = dense(torch.float32, (2,), [0.0, 0.0])
    args = {
        "self": base_self_,
        "out": base_out,
    }
    grad_outputs = []
    return args, grad_outputs


# aten::gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out) -> Tensor(a!)
def op():
    """The operator under test; main() fails (exit 2) without it."""
    return torch.ops.aten.gelu.out


def call(a):
    return op()(
        a["self"], out=a["out"])


def main():
    op()
    variant, grad_outputs, storages = variant_tensors()
    baseline, base_grad_outputs = baseline_tensors()
    wide = widen(baseline)  # before an in-place call writes it
    expected, b_error = attempt(call, baseline)
    actual, v_error = attempt(call, variant)
    if b_error or v_error:
        print("expected: both calls return (this check compares them)")
        print("actual:   baseline: %s; variant: %s"
              % (b_error or "returned", v_error or "returned"))
        return 0
    names, expected = results(expected, baseline)
    _, actual = results(actual, variant)
    if len(expected) != len(actual):
        print("expected: %d results (contiguous baseline)" % len(expected))
        print("actual:   %d results (strided variant)" % len(actual))
        return 1
    reference = None
    for i, name in enumerate(names):
        self_ = baseline.get("self")
        d = compare_output(expected[i], actual[i], None, self_)
        if d is not None and not EXACT:
            if reference is None:
                returned, error = attempt(call, wide)
                reference = [] if error else results(returned, wide)[1]
            ref = reference[i] if i < len(reference) else None
            if ref is not None and ref.shape != expected[i].shape:
                ref = None
            d = compare_output(expected[i], actual[i], ref, self_)
        if d is not None:
            return int(show_difference(name, d))
    show_difference("every result", None)
    return 0


if __name__ == "__main__":
    run(main)

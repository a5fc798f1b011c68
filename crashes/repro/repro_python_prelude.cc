#include "crashes/repro/repro_python_prelude.h"

#include "absl/strings/str_cat.h"

namespace dpfuzz {
namespace {

// Imports, exact tensors, calls and results: every repro needs these.
constexpr char kCore[] = R"py(import cmath
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


def addressed(layout):
    """The storage elements a view (sizes, strides, offset) addresses."""
    sizes, strides, offset = layout
    return {offset + sum(i * s for i, s in zip(index, strides))
            for index in itertools.product(*[range(n) for n in sizes])}


def _memory(t):
    """The address of t's memory (its storage's, not its first element's)."""
    if hasattr(t, "untyped_storage"):
        return t.untyped_storage().data_ptr()
    return t.storage().data_ptr()


def resized(storage_view, views, args):
    """The memory elements that written arguments over `storage_view`
    address after the call where the op resized them in place (an out= of
    the wrong size, made contiguous from its offset, in memory the storage
    and its guard hold): the op's to write, as dpfuzz allows them too."""
    allowed = set()
    for arg, layout in views:
        t = args.get(arg) if args is not None and arg in WRITTEN else None
        if (isinstance(t, torch.Tensor) and list(t.shape) != list(layout[0])
                and _memory(t) == _memory(storage_view)):
            allowed |= addressed((t.shape, t.stride(), t.storage_offset()))
    return allowed


def overflow(storages, args=None):
    """Where the call wrote past the end of a storage (into its guard), as
    text; None when every guard holds its POISON. `storages` holds
    (name, tensor, views) as variant_tensors() returns them; `args`, the
    arguments after the call, tells where a resized argument may write."""
    for name, s, views in storages:
        end = s.storage_offset() + s.numel()
        guard = torch.as_strided(s, (_memory_elements(s) - end,), (1,), end)
        poison = _bytes(storage(s.dtype, [POISON]))
        now, size = _bytes(guard), len(poison)
        allowed = resized(s, views, args)
        changed = [s.numel() + i // size for i in range(0, len(now), size)
                   if now[i:i + size] != poison
                   and end + i // size not in allowed]
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


)py";

// Comparing results as oracles/compare.h and oracles/rules.h do.
constexpr char kCompare[] = R"py(def widen(args):
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


)py";

// Gradients as oracles/backward.h computes them.
constexpr char kOnCpu[] = R"py(def on_cpu(args):
    """The same tensors copied to the CPU (those requiring grad still do)."""
    def cpu(t):
        c = t.detach().cpu()
        return c.requires_grad_() if t.requires_grad else c
    return {name: [cpu(t) for t in v] if isinstance(v, list) else cpu(v)
            for name, v in args.items()}


)py";

constexpr char kBackward[] = R"py(def grad_inputs(args):
    """(names, tensors) of the arguments that require grad, sorted by name
    as dpfuzz orders them."""
    names, tensors = [], []
    for name in sorted(args):
        for t in as_list(args[name]):
            if t.requires_grad:
                names.append("grad of " + name)
                tensors.append(t)
    return names, tensors


def returned_tensors(value):
    """The tensors a call returned, lists and tuples flattened, a nested
    tensor whole."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in returned_tensors(v)]
    return []


def logical(grad):
    """A gradient as it is compared: a nested one's components one after
    another, as one flat tensor."""
    if grad.is_nested:
        return torch.cat([strided(c).reshape(-1) for c in grad.unbind()])
    return strided(grad)


def backward(returned, inputs, grad_outputs):
    """Gradients of `inputs` (zeros where unused) for the outputs that
    require grad, fed `grad_outputs` in order."""
    outs = [t for t in returned_tensors(returned) if t.requires_grad]
    if len(outs) != len(grad_outputs):
        raise RuntimeError("dpfuzz: %d outputs require grad but the case has "
                           "%d grad_outputs" % (len(outs), len(grad_outputs)))
    grads = torch.autograd.grad(outs, inputs, grad_outputs,
                                allow_unused=True)
    return [logical(g if g is not None else torch.zeros_like(i))
            for g, i in zip(grads, inputs)]


)py";

// Storage snapshots as oracles/case_tensors.h compares them.
constexpr char kStorage[] = R"py(def snapshot(storages):
    """The bytes of every storage. (A clone() would not do: copying a bool
    tensor turns the poison byte 0xA5 into 1.)"""
    return [_bytes(s) for _, s, _ in storages]


def storage_change(storages, before, args):
    """The first storage element that changed although no written argument
    addresses it, as {"where", "after"}; None when there is none.
    `storages` holds (name, tensor, [(argument, layout)]); `before` their
    snapshot() from before the call; `args` the arguments after it."""
    for (name, now, views), old_bytes in zip(storages, before):
        size = now.element_size()
        new_bytes = _bytes(now)
        may_change = resized(now, views, args)
        holds_written = False
        for arg, layout in views:
            if arg in WRITTEN:
                holds_written = True
                may_change |= addressed(layout)
        kind = "outside_write" if holds_written else "input_modified"
        past_end = overflow([(name, now, views)], args)
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
                    _element_text(now.dtype, new_bytes[chunk]), kind)}
        if past_end:
            return {"where": "the guard after %s keeps POISON" % name,
                    "after": "the call wrote %s (%s)" % (past_end, kind)}
    return None


def _element_text(dtype, element_bytes):
    if element_bytes == _bytes(storage(dtype, [POISON])):
        return "POISON"
    one = torch.tensor(element_bytes, dtype=torch.uint8).view(dtype)
    return repr(elements(one)[0])


)py";

// The out= contract and layout promises of oracles/rules.h.
constexpr char kLayout[] = R"py(def _significant_strides(t):
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
    (MEMORY_FORMAT, PROPAGATES_STRIDES, KEEPS_MEMORY_FORMAT), or None."""
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
    if KEEPS_MEMORY_FORMAT:
        for name in ("self", "input"):
            t = args.get(name)
            if not isinstance(t, torch.Tensor):
                continue
            fmt = {4: "channels_last", 5: "channels_last_3d"}.get(t.dim())
            if fmt is None:
                break
            mf = getattr(torch, fmt)
            spatial = 1
            for n in t.shape[2:]:
                spatial *= n
            # Laid out exactly in the format, of no ambiguous sizes.
            if (t.stride() == torch.empty(t.shape, memory_format=mf).stride()
                    and t.shape[1] != 1 and spatial != 1
                    and out.dim() == t.dim()
                    and not out.is_contiguous(memory_format=mf)):
                return "a %s input %s@%s gave a result %s@%s not in that " \
                       "format" % (fmt, list(t.shape), list(t.stride()),
                                   list(out.shape), list(out.stride()))
            break
    return None


)py";

}  // namespace

std::string PythonReproPrelude(ReproCheck check) {
  const std::string out = kCore;
  switch (check) {
    case ReproCheck::kValues:
      return absl::StrCat(out, kCompare);
    case ReproCheck::kDevice:
      return absl::StrCat(out, kCompare, kOnCpu);
    case ReproCheck::kGrads:
      return absl::StrCat(out, kCompare, kBackward);
    case ReproCheck::kRejection:
    case ReproCheck::kInternalAssert:
    case ReproCheck::kCall:
      return absl::StrCat(out, kBackward);
    case ReproCheck::kCost:  // crashes/repro/repro_python_cost.h
      return out;
    case ReproCheck::kStorage:
      return absl::StrCat(out, kStorage);
    case ReproCheck::kLayout:
      return absl::StrCat(out, kLayout);
  }
  return out;
}

}  // namespace dpfuzz

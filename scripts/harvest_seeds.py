#!/usr/bin/env python3
"""Harvests dpfuzz seeds: valid arguments recorded from PyTorch's own samples.

Runs the sample inputs of PyTorch's OpInfo database, of its ModuleInfo
database and of its legacy nn tests (torch.testing._internal, shipped with
the torch package), forward and backward, and the calls none of them make
(seed_workloads.py: packed sequences, fused optimizers, ...), under a
dispatch-recording mode, and writes every aten call it sees succeed as a
dpfuzz case (the case file format of generators/case_json.h, one JSON
object per line, one file per overload). The backward and private ops that autograd calls get arguments
a real forward produced: pooling indices, saved outputs, masks.

    harvest_seeds.py OUT_DIR          # with the torch of the track

Writes OUT_DIR/<op>.<overload>.jsonl ("::" spelled "__") and
OUT_DIR/index.json ({"format": "dpfuzz-seeds", "torch": version,
"ops": {"aten::add.Tensor": {"cases": n, "dtypes": ["f32"]}}}). Values of
small tensors are kept exactly (an index stays a valid index); a larger
tensor keeps a range (indices below its maximum, or exact small values).
Only dense CPU tensors are recorded; an argument of a type the case format
has no word for drops the call.
"""

import contextlib
import importlib
import json
import math
import os
import sys
import types as types_module
import unittest
import warnings

# Debian's python3-torch (1.13) imports expecttest in common_utils without
# depending on it; the harvest never uses what it provides.
try:
    import expecttest  # noqa: F401
except ImportError:
    stub = types_module.ModuleType("expecttest")
    stub.TestCase = unittest.TestCase
    stub.ACCEPT = False
    sys.modules["expecttest"] = stub

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

DTYPES = {
    torch.bool: "b8", torch.uint8: "u8", torch.int8: "i8", torch.int16: "i16",
    torch.int32: "i32", torch.int64: "i64", torch.float16: "f16",
    torch.bfloat16: "bf16", torch.float32: "f32", torch.float64: "f64",
    torch.complex64: "c64", torch.complex128: "c128",
}
MEMORY_FORMATS = {
    torch.contiguous_format: "contiguous_format",
    torch.channels_last: "channels_last",
    torch.channels_last_3d: "channels_last_3d",
    torch.preserve_format: "preserve_format",
}
MAX_EXPLICIT = 4096       # Elements whose values a seed keeps exactly.
MAX_CASE_NUMEL = 1 << 15  # Elements of all tensors of one recorded call.
PER_OVERLOAD = 24         # Distinct recorded calls kept per overload.
SAMPLES_PER_OP = 12       # OpInfo samples run per op and dtype.


class Unrecordable(Exception):
    """An argument the case format cannot hold."""


def number(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def values_of(t):
    if t.dtype.is_complex or t.numel() > MAX_EXPLICIT:
        if not t.dtype.is_floating_point and not t.dtype.is_complex and \
                t.dtype != torch.bool and t.numel() > 0 and t.min() >= 0:
            return {"distribution": "indices", "seed": 0, "specials": [],
                    "high": int(t.max()) + 1}
        return {"distribution": "dyadic", "seed": 0, "specials": []}
    flat = t.detach().reshape(-1)
    if t.dtype == torch.bool:
        data = [int(x) for x in flat.tolist()]
    elif t.dtype.is_floating_point:
        data = [number(float(x)) for x in flat.double().tolist()]
    else:
        data = [int(x) for x in flat.tolist()]
    return {"distribution": "explicit", "seed": 0, "specials": [],
            "data": data}


def tensor_spec(t):
    if not isinstance(t, torch.Tensor) or t.layout != torch.strided or \
            t.device.type != "cpu" or t.dtype not in DTYPES or t.is_quantized:
        raise Unrecordable("not a dense CPU tensor")
    sizes = list(t.shape)
    strides, stride = [], 1
    for size in reversed(sizes):
        strides.insert(0, stride)
        stride *= max(size, 1)
    values = values_of(t)  # The mode is off inside __torch_dispatch__.
    return {"device": "cpu", "dtype": DTYPES[t.dtype], "requires_grad": False,
            "sizes": sizes, "strides": strides, "storage_offset": 0,
            "values": values}


def kind_of(schema_type):
    """"Tensor", "Tensor[]", "int", "int[]", "float", "bool", "bool[]",
    "str", "Scalar" or "other", optional or not (the fake types of JIT
    schemas: a ScalarType or MemoryFormat is an "int")."""
    if schema_type.kind() == "OptionalType":
        schema_type = schema_type.getElementType()
    k = schema_type.kind()
    if k == "ListType":
        element = schema_type.getElementType()
        if element.kind() == "OptionalType":
            element = element.getElementType()
        inner = kind_of(element)
        return inner + "[]" if inner in ("Tensor", "int", "bool") else "other"
    return {"TensorType": "Tensor", "IntType": "int", "SymIntType": "int",
            "FloatType": "float", "BoolType": "bool", "StringType": "str",
            "NumberType": "Scalar"}.get(k, "other")


def arg_value(schema_arg, value):
    """The case-file argument object for one recorded value."""
    kind = kind_of(schema_arg.type)
    if value is None:
        return {"none": None}
    if kind == "Tensor":
        return {"tensor": tensor_spec(value)}
    if kind == "Tensor[]":
        if any(v is None for v in value):
            raise Unrecordable("a list with None tensors")
        return {"tensors": [tensor_spec(v) for v in value]}
    if isinstance(value, torch.dtype):
        return {"string": DTYPES[value]}
    if isinstance(value, torch.memory_format):
        return {"string": MEMORY_FORMATS[value]}
    if isinstance(value, (torch.layout, torch.device, torch.Tensor)):
        raise Unrecordable("layout, device or tensor in a non-tensor place")
    if kind in ("int[]", "bool[]") and isinstance(value, int):
        return {"ints": [int(value)] * (schema_arg.N or 1)}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, float):
        return {"float": number(value)}
    if isinstance(value, str):
        return {"string": value}
    if isinstance(value, (list, tuple)) and kind in ("int[]", "bool[]") and \
            all(isinstance(v, int) for v in value):
        return {"ints": [int(v) for v in value]}
    raise Unrecordable(f"{kind} value {type(value).__name__}")


def fits(schema_arg, value):
    """Whether the Python binding's `value` can be this schema argument."""
    kind = kind_of(schema_arg.type)
    if value is None:
        return schema_arg.type.kind() == "OptionalType" or \
            schema_arg.has_default_value()
    if isinstance(value, torch.Tensor):
        return kind == "Tensor"
    if isinstance(value, (torch.dtype, torch.memory_format)):
        return kind == "int"
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, torch.Tensor) for v in value):
            return kind == "Tensor[]"
        return kind in ("int[]", "bool[]") and \
            all(isinstance(v, int) for v in value)
    if isinstance(value, bool):
        return kind in ("bool", "Scalar")
    if isinstance(value, int):
        return kind in ("int", "float", "Scalar", "int[]")
    if isinstance(value, float):
        return kind in ("float", "Scalar")
    if isinstance(value, str):
        return kind == "str"
    return False


def is_default(schema_arg, value):
    if not schema_arg.has_default_value():
        return False
    try:
        return schema_arg.default_value == value
    except Exception:
        return False


def bind(schema, args, kwargs):
    """{argument name: value} when the call fits `schema`, else None."""
    names = [a.name for a in schema.arguments]
    given = {}
    positional = [a for a in schema.arguments if not a.kwarg_only]
    if len(args) > len(positional):
        return None
    for schema_arg, value in zip(positional, args):
        given[schema_arg.name] = value
    for name, value in kwargs.items():
        name = "self" if name == "input" and "input" not in names else name
        if name not in names or name in given:
            return None
        given[name] = value
    for schema_arg in schema.arguments:
        if schema_arg.name in given:
            if not fits(schema_arg, given[schema_arg.name]):
                return None
        elif not schema_arg.has_default_value() and \
                schema_arg.type.kind() != "OptionalType":
            return None
    return given


def record_call(schema, given):
    """(qualified overload name, case dict) of one aten call given as
    {argument name: value}; None when it cannot be written as a case."""
    if not schema.name.startswith("aten::"):
        return None
    case_args, numel = [], 0
    for schema_arg in schema.arguments:
        if schema_arg.alias_info is not None and \
                schema_arg.alias_info.is_write and schema_arg.name != "self":
            return None  # out=: dpfuzz records the functional call.
        if schema_arg.name not in given:
            continue
        value = given[schema_arg.name]
        if kind_of(schema_arg.type) not in ("Tensor", "Tensor[]") and \
                is_default(schema_arg, value):
            continue
        try:
            v = arg_value(schema_arg, value)
        except (Unrecordable, KeyError):
            return None
        for t in tree_flatten(value)[0]:
            if isinstance(t, torch.Tensor):
                numel += t.numel()
        v["name"] = schema_arg.name
        case_args.append(v)
    if numel > MAX_CASE_NUMEL:
        return None
    name = schema.name + ("." + schema.overload_name if schema.overload_name
                          else "")
    case = {"format": "dpfuzz-case", "version": 1, "op": schema.name,
            "overload": schema.overload_name, "variant": "functional",
            "seed": 0, "args": case_args}
    return name, case


def recorded_or_none(schema, given):
    """record_call's answer, taken before the call (an in-place op changes
    its arguments) and kept only after it succeeds: a seed is a call
    LibTorch accepted."""
    try:
        return record_call(schema, given)
    except Exception:
        return None


def keep(seeds, recorded):
    if recorded is None:
        return
    name, case = recorded
    kept = seeds.setdefault(name, {})
    key = json.dumps(case["args"], sort_keys=True)
    if len(kept) < PER_OVERLOAD and key not in kept:
        kept[key] = case


SCHEMAS = {}


def schemas_of(name):
    if name not in SCHEMAS:
        SCHEMAS[name] = torch._C._jit_get_schemas_for_operator("aten::" + name)
    return SCHEMAS[name]


BINDING_MODULES = ("torch", "torch._C._nn", "torch._C._linalg",
                   "torch._C._special", "torch._C._fft", "torch._VF",
                   "torch.linalg", "torch.special", "torch.fft",
                   "torch.nn.functional")


def bindings_of(module_name):
    """(module, name, function) of the builtins a binding module holds.
    torch._VF (what torch.functional, the RNN modules and nn.utils.rnn
    call: stft, istft, lstm_cell, _pack_padded_sequence, ...) forwards to
    torch._C._VariableFunctions through __getattr__; a function set on
    the module itself comes first. The public modules (torch.linalg,
    torch.special, torch.fft, torch.nn.functional) hold the builtins of
    torch._C._linalg and the like under their own names, taken when they
    were imported (torch.linalg.norm is linalg_norm): a binding is known
    by its __name__."""
    module = importlib.import_module(module_name)
    source = torch._C._VariableFunctions if module_name == "torch._VF" \
        else module
    for name in dir(source):
        fn = getattr(source, name, None)
        if isinstance(fn, types_module.BuiltinFunctionType) and \
                not name.startswith("__") and schemas_of(fn.__name__):
            yield module, name, fn


@contextlib.contextmanager
def recording_bindings(seeds):
    """Records the calls into LibTorch's Python bindings (torch.*,
    torch._C._nn.*, ...) as the aten overload they bind to, while on:
    composite ops (nll_loss_nd, embedding_bag, _ctc_loss) are decomposed
    before a dispatch mode sees them. The bindings are builtins, replaced
    by recording wrappers in their modules, so torch.nn.functional's calls
    go through them too."""
    patched = []

    def wrap(fn):
        def recording(*args, **kwargs):
            recorded = None
            for schema in schemas_of(fn.__name__):
                given = bind(schema, args, kwargs)
                if given is not None:
                    recorded = recorded_or_none(schema, given)
                    break
            result = fn(*args, **kwargs)
            keep(seeds, recorded)
            return result
        return recording

    for module_name in BINDING_MODULES:
        for module, name, fn in list(bindings_of(module_name)):
            patched.append((module, name, fn))
            setattr(module, name, wrap(fn))
    try:
        yield
    finally:
        for module, name, fn in patched:
            setattr(module, name, fn)


class Recorder(TorchDispatchMode):
    """Records every aten call as a case; keeps PER_OVERLOAD distinct ones."""

    def __init__(self, seeds):
        super().__init__()
        self.seeds = seeds

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        schema = func._schema
        given = dict(kwargs)
        for schema_arg, value in zip(schema.arguments, args):
            given[schema_arg.name] = value
        recorded = recorded_or_none(schema, given)
        result = func(*args, **kwargs)
        keep(self.seeds, recorded)
        return result


def backward_of(out):
    """Runs backward from every differentiable output (random grads)."""
    leaves = [t for t in tree_flatten(out)[0]
              if isinstance(t, torch.Tensor) and t.requires_grad and
              (t.dtype.is_floating_point or t.dtype.is_complex)]
    if leaves:
        torch.autograd.backward(
            leaves, [torch.randn_like(t) for t in leaves])


def run_sample(seeds, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with Recorder(seeds):
                backward_of(fn())
        except Exception:
            pass  # A sample that fails (skips, xfails) records what ran.


def pick_dtypes(supported):
    for preferred in (torch.float32, torch.float64, torch.int64, torch.bool):
        if preferred in supported:
            yield preferred
            if preferred == torch.float32 and torch.int64 in supported:
                yield torch.int64
            return


def opinfo_db():
    """OpInfo's op_db, and its foreach databases (foreach_unary_op_db,
    foreach_binary_op_db, ...: the _foreach_* ops, which op_db lacks).
    1.13's foreach samples take a list length where 2.x's take
    requires_grad, and are bare tensor lists: they record nothing."""
    import torch.testing._internal.common_methods_invocations as cmi
    ops, names = list(cmi.op_db), {op.name for op in cmi.op_db}
    for db_name in sorted(dir(cmi)):
        if db_name.startswith("foreach_") and db_name.endswith("_db"):
            for op in getattr(cmi, db_name):
                if op.name not in names:
                    names.add(op.name)
                    ops.append(op)
    return ops


def harvest_ops(seeds):
    for op in opinfo_db():
        for dtype in pick_dtypes(op.supported_dtypes("cpu")):
            grad = op.supports_autograd and (dtype.is_floating_point or
                                             dtype.is_complex)
            try:
                samples = list(op.sample_inputs("cpu", dtype,
                                                requires_grad=grad))
            except Exception:
                continue
            for sample in samples[:SAMPLES_PER_OP]:
                run_sample(seeds, lambda: op(sample.input, *sample.args,
                                             **sample.kwargs))


def harvest_modules(seeds):
    from torch.testing._internal.common_modules import module_db
    for info in module_db:
        try:
            inputs = info.module_inputs_func(info, device="cpu",
                                             dtype=torch.float32,
                                             requires_grad=True,
                                             training=True)
        except TypeError:
            inputs = info.module_inputs_func(info, device="cpu",
                                             dtype=torch.float32,
                                             requires_grad=True)
        except Exception:
            continue
        for mi in inputs[:SAMPLES_PER_OP]:
            if mi.forward_input is None:
                continue
            def forward(mi=mi):
                c = mi.constructor_input
                m = info.module_cls(*c.args, **c.kwargs)
                f = mi.forward_input
                return m(*f.args, **f.kwargs)
            run_sample(seeds, forward)


def nn_tests():
    """The dicts of torch's legacy nn tests (common_nn: module, criterion
    and functional tests): dilated and transposed 3-d convolutions,
    interpolation, fold/unfold, the losses' targets, which neither
    database above covers on every release."""
    import torch.testing._internal.common_nn as common_nn
    new = common_nn.get_new_module_tests() \
        if hasattr(common_nn, "get_new_module_tests") \
        else common_nn.new_module_tests
    return list(common_nn.module_tests) + list(new) + \
        list(getattr(common_nn, "criterion_tests", []))


def nn_test_value(test, fn_key, value_key, size_key):
    if fn_key in test:
        return test[fn_key]()
    if value_key in test:
        return test[value_key]
    return torch.randn(test[size_key])


def harvest_nn_tests(seeds):
    for test in nn_tests():
        def forward(test=test):
            args = test["constructor_args_fn"]() \
                if "constructor_args_fn" in test \
                else test.get("constructor_args", ())
            m = test["constructor"](*args) if "constructor" in test \
                else getattr(torch.nn, test["module_name"])(*args)
            x = nn_test_value(test, "input_fn", "input", "input_size")
            if isinstance(x, torch.Tensor) and x.dtype.is_floating_point:
                x = x.detach().requires_grad_()
            if any(k in test for k in ("target_fn", "target", "target_size")):
                target = nn_test_value(test, "target_fn", "target",
                                       "target_size")
                return m(x, target, *test.get("extra_args", ()))
            return m(*x) if isinstance(x, tuple) else m(x)
        run_sample(seeds, forward)


def direct_caller(seeds):
    """aten("op.overload", *args, **kwargs): calls the overload through
    torch.ops and keeps the call as a seed when it succeeds. A dispatch
    mode never sees a composite op called this way (it is decomposed
    first), so the call is recorded here."""
    def aten(name, *args, **kwargs):
        op_name, _, overload = name.partition(".")
        overload_packet = getattr(torch.ops.aten, op_name)
        fn = getattr(overload_packet, overload or "default")
        given = bind(fn._schema, args, kwargs)
        recorded = recorded_or_none(fn._schema, given) if given else None
        result = fn(*args, **kwargs)
        keep(seeds, recorded)
        return result
    return aten


def harvest_workloads(seeds):
    """The calls of seed_workloads.py: what the databases above never call.
    A workload that stops (an op its torch lacks) says so on stderr and
    keeps the calls it made before."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from seed_workloads import WORKLOADS
    aten = direct_caller(seeds)
    for workload in WORKLOADS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                with Recorder(seeds):
                    workload(aten)
            except Exception as e:
                first_line = (str(e).strip().splitlines() or [""])[0]
                print(f"harvest_seeds: workload {workload.__name__} stopped "
                      f"on torch {torch.__version__}: "
                      f"{type(e).__name__}: {first_line[:160]}",
                      file=sys.stderr)


def first_tensor_dtype(case):
    """The dtype of a case's first tensor, wherever it is (a Scalar may
    come first), as dpfuzz's seeded draws read it; None without one."""
    for a in case["args"]:
        if "tensor" in a:
            return a["tensor"]["dtype"]
        if a.get("tensors"):
            return a["tensors"][0]["dtype"]
    return None


def file_name(overload):
    return overload.replace("::", "__") + ".jsonl"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: harvest_seeds.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    seeds = {}
    with recording_bindings(seeds):
        harvest_ops(seeds)
        harvest_modules(seeds)
        harvest_nn_tests(seeds)
        harvest_workloads(seeds)
    index = {}
    for name, kept in sorted(seeds.items()):
        cases = list(kept.values())
        with open(os.path.join(out, file_name(name)), "w") as f:
            for case in cases:
                f.write(json.dumps(case, sort_keys=True) + "\n")
        dtypes = sorted(set(filter(None, map(first_tensor_dtype, cases))))
        index[name] = {"cases": len(cases), "dtypes": dtypes}
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"format": "dpfuzz-seeds", "version": 1,
                   "torch": torch.__version__, "ops": index}, f, indent=1,
                  sort_keys=True)
    print(f"harvest_seeds: {sum(v['cases'] for v in index.values())} cases "
          f"of {len(index)} overloads from torch {torch.__version__} in {out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()

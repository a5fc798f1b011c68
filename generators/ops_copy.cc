// Curated specs: copies and conversions (clone, contiguous, to.dtype,
// _to_copy, copy).
//
// Memory formats are passed by name; channels_last only with rank-4 and
// channels_last_3d only with rank-5 tensors. Values that are converted
// from floating to integral dtypes are finite and in range (and
// non-negative for u8): converting anything else is undefined behaviour
// in C++, so vectorized and scalar loops may legitimately disagree.

#include <string>

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

OpSpec Copy(std::string op, std::string overload, std::string out, bool inplace,
            std::function<std::vector<Argument>(Rng&, DType)> make) {
  return OpSpec{.op = std::move(op),
                .overload = std::move(overload),
                .out_overload = std::move(out),
                .has_inplace = inplace,
                .family = "copy",
                .differentiable = true,
                .comparison = Comparison::kExact,
                .dtypes = AllDTypes(),
                .make_args = std::move(make)};
}

// Values of `from` that convert to `to` without undefined behaviour.
TensorSpec ConvertibleValues(const Dims& sizes, DType from, DType to,
                             Rng& rng) {
  const bool from_float = IsFloating(from) || IsComplex(from);
  if (from_float && to == DType::kUInt8) {
    return NonNegative(sizes, from, 9, rng);
  }
  if (from_float && IsIntegral(to)) return FiniteValues(sizes, from, rng);
  return Values(sizes, from, rng);
}

// Rank 0-5, rank 4 and 5 often enough for the channels-last formats.
Dims CopyShape(Rng& rng) {
  return rng.OneIn(2) ? RandomShape(rng, 4, 5, 3) : RandomShape(rng, 0, 3);
}

// A memory format that fits a tensor of `rank`; "" when the argument is
// better left out. `preserve`: whether "preserve_format" is allowed.
std::string DrawMemoryFormat(size_t rank, bool preserve, Rng& rng) {
  std::vector<std::string> formats = {"", "contiguous_format"};
  if (preserve) formats.push_back("preserve_format");
  if (rank == 4) formats.insert(formats.end(), 2, "channels_last");
  if (rank == 5) formats.insert(formats.end(), 2, "channels_last_3d");
  return rng.Pick(formats);
}

void AddMemoryFormat(std::vector<Argument>& args, size_t rank, bool preserve,
                     Rng& rng) {
  const std::string format = DrawMemoryFormat(rank, preserve, rng);
  if (!format.empty()) args.push_back(Arg("memory_format", format));
}

std::vector<Argument> CloneArgs(Rng& rng, DType dtype) {
  const Dims self = CopyShape(rng);
  std::vector<Argument> args = {Arg("self", Values(self, dtype, rng))};
  AddMemoryFormat(args, self.size(), true, rng);
  return args;
}

// contiguous rejects preserve_format.
std::vector<Argument> ContiguousArgs(Rng& rng, DType dtype) {
  const Dims self = CopyShape(rng);
  std::vector<Argument> args = {Arg("self", Values(self, dtype, rng))};
  AddMemoryFormat(args, self.size(), false, rng);
  return args;
}

std::vector<Argument> ToDTypeArgs(Rng& rng, DType dtype) {
  const Dims self = CopyShape(rng);
  const DType to = rng.Pick(AllDTypes());
  std::vector<Argument> args = {
      Arg("self", ConvertibleValues(self, dtype, to, rng)),
      Arg("dtype", std::string(DTypeName(to)))};
  if (rng.OneIn(2)) args.push_back(Arg("copy", rng.OneIn(2)));
  AddMemoryFormat(args, self.size(), true, rng);
  return args;
}

std::vector<Argument> ToCopyArgs(Rng& rng, DType dtype) {
  const Dims self = CopyShape(rng);
  const DType to = rng.OneIn(3) ? dtype : rng.Pick(AllDTypes());
  std::vector<Argument> args = {
      Arg("self", ConvertibleValues(self, dtype, to, rng))};
  if (to != dtype || rng.OneIn(2)) {
    args.push_back(Arg("dtype", std::string(DTypeName(to))));
  }
  AddMemoryFormat(args, self.size(), true, rng);
  return args;
}

// copy(self, src): src broadcasts to self and is converted to self's dtype;
// it is of self's dtype or of a random one.
std::vector<Argument> CopyArgs(Rng& rng, DType dtype) {
  const Dims self = CopyShape(rng);
  const DType from = rng.OneIn(2) ? dtype : rng.Pick(AllDTypes());
  return {Arg("self", Values(self, dtype, rng)),
          Arg("src", ConvertibleValues(BroadcastPartner(self, rng), from, dtype,
                                       rng))};
}

}  // namespace

void AddCopyOps(std::vector<OpSpec>& ops) {
  ops.push_back(Copy("aten::clone", "", "out", false, &CloneArgs));
  ops.push_back(Copy("aten::contiguous", "", "", false, &ContiguousArgs));
  ops.push_back(Copy("aten::to", "dtype", "", false, &ToDTypeArgs));
  ops.push_back(Copy("aten::_to_copy", "", "out", false, &ToCopyArgs));
  ops.push_back(Copy("aten::copy", "", "out", true, &CopyArgs));
}

}  // namespace dpfuzz

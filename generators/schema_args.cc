#include "generators/schema_args.h"

#include <ATen/core/jit_type.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "generators/op_args.h"

namespace dpfuzz {
namespace {

constexpr int64_t kMaxSize = 4;

// The choices PyTorch's string arguments take, by argument name (from the
// docs of the ops that have them); a string without a default whose name
// is not here cannot be drawn.
const std::map<std::string, std::vector<std::string>>& KnownStrings() {
  static const auto* m = new std::map<std::string, std::vector<std::string>>{
      {"reduce", {"sum", "prod", "mean", "amax", "amin"}},
      {"reduction", {"sum", "mean", "none"}},
      {"mode",
       {"nearest", "bilinear", "constant", "reflect", "replicate", "reduced",
        "complete"}},
      {"padding_mode", {"zeros", "border", "reflection"}},
      {"approximate", {"none", "tanh"}},
      {"rounding_mode", {"trunc", "floor"}},
      {"side", {"left", "right"}},
      {"interpolation", {"linear", "lower", "higher", "midpoint", "nearest"}},
      {"UPLO", {"L", "U"}},
      {"uplo", {"L", "U"}},
      {"indexing", {"ij", "xy"}},
      {"norm", {"backward", "ortho", "forward"}},
      {"padding", {"same", "valid"}},
      {"equation", {"i->i", "ij->ji", "ij,j->i", "i,i->"}},
  };
  return *m;
}

bool NameHas(const std::string& name,
             std::initializer_list<absl::string_view> parts) {
  for (absl::string_view part : parts) {
    if (absl::StrContains(name, part)) return true;
  }
  return false;
}

bool IsWritten(const c10::Argument& arg) {
  return arg.alias_info() != nullptr && arg.alias_info()->isWrite();
}

bool Drawable(const c10::Argument& arg) {
  const c10::TypePtr type = Unwrapped(arg.real_type());
  switch (type->kind()) {
    case c10::TypeKind::TensorType:
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType:
    case c10::TypeKind::NumberType:
    case c10::TypeKind::ScalarTypeType:
    case c10::TypeKind::MemoryFormatType:
      return true;
    case c10::TypeKind::StringType:
      return KnownStrings().count(arg.name()) > 0;
    case c10::TypeKind::ListType: {
      const c10::TypePtr element =
          type->castRaw<c10::ListType>()->getElementType();
      return element->kind() == c10::TypeKind::IntType ||
             element->kind() == c10::TypeKind::SymIntType ||
             element->kind() == c10::TypeKind::BoolType ||
             Unwrapped(element)->kind() == c10::TypeKind::TensorType;
    }
    default:
      return false;
  }
}

class Drawer {
 public:
  Drawer(SchemaPlan plan, DType dtype, Rng& rng)
      : plan_(plan), dtype_(dtype), rng_(rng) {}

  // Whether the schema takes an output_size (upsampling, adaptive
  // pooling): its optional scales say the same thing again.
  void SetSizedOutput(bool sized) { sized_output_ = sized; }

  std::optional<ArgValue> Draw(const c10::Argument& arg) {
    if (!Drawable(arg)) return std::nullopt;  // Left to its default.
    // Scales beside an output size are drawn all or none, as
    // F.interpolate passes them: its scale_factor, with the output size
    // it computes from it (TieOutputSizeToScales). A scale drawn on its
    // own would contradict the size (0.25 for a size kept at 3), which
    // kernels resolve differently by path: a call no user makes.
    if (sized_output_ && absl::StartsWith(arg.name(), "scale") &&
        Unwrapped(arg.real_type())->kind() == c10::TypeKind::FloatType) {
      if (!scales_drawn_.has_value()) scales_drawn_ = rng_.OneIn(2);
      if (!*scales_drawn_) return std::nullopt;
      return FloatArg{
          rng_.Pick(std::vector<double>{0.5, 0.75, 1.2, 1.5, 2, 2.5})};
    }
    if (MayLeaveOut(arg) && rng_.OneIn(2)) return std::nullopt;
    const c10::TypePtr type = Unwrapped(arg.real_type());
    const std::string& name = arg.name();
    switch (type->kind()) {
      case c10::TypeKind::TensorType:
        return Tensor(name);
      case c10::TypeKind::IntType:
      case c10::TypeKind::SymIntType:
        return Int(name);
      case c10::TypeKind::FloatType:
        return Float(name);
      case c10::TypeKind::BoolType:
        return ArgValue(rng_.OneIn(2));
      case c10::TypeKind::NumberType:
        return ScalarFor(dtype_, rng_);
      case c10::TypeKind::ScalarTypeType:
        return ArgValue(std::string(DTypeName(rng_.Pick(std::vector<DType>{
            dtype_, DType::kFloat32, DType::kFloat64, DType::kInt64}))));
      case c10::TypeKind::MemoryFormatType:
        return ArgValue(rng_.Pick(
            std::vector<std::string>{"contiguous_format", "channels_last",
                                     "channels_last_3d", "preserve_format"}));
      case c10::TypeKind::StringType:
        return ArgValue(rng_.Pick(KnownStrings().at(name)));
      case c10::TypeKind::ListType: {
        const c10::TypePtr element =
            type->castRaw<c10::ListType>()->getElementType();
        if (Unwrapped(element)->kind() == c10::TypeKind::TensorType) {
          std::vector<TensorSpec> list(rng_.Uniform(1, 3));
          for (TensorSpec& t : list) t = Tensor(name);
          return ArgValue(std::move(list));
        }
        if (element->kind() == c10::TypeKind::BoolType) {
          return BoolList(arg.N());
        }
        return IntList(name, arg.N());
      }
      default:
        return std::nullopt;
    }
  }

 private:
  Dims Shape() {
    if (!first_.has_value()) {
      first_ = Dims(plan_.rank);
      const int64_t square = rng_.Uniform(1, kMaxSize);
      for (int64_t& size : *first_) {
        if (plan_.relation == ShapeRelation::kSquare) {
          size = square;
        } else {
          size = rng_.OneIn(25) ? 0 : rng_.Uniform(1, kMaxSize);
        }
      }
      return *first_;
    }
    switch (plan_.relation) {
      case ShapeRelation::kSame:
        return *first_;
      case ShapeRelation::kBroadcast:
        return BroadcastPartner(*first_, rng_);
      case ShapeRelation::kScalars:
        return {};
      case ShapeRelation::kIndependent:
        return RandomShape(rng_, plan_.rank, plan_.rank, kMaxSize);
      case ShapeRelation::kSquare: {
        const int64_t rank = std::clamp<int64_t>(
            plan_.rank + rng_.Uniform(-1, 1), 0, kMaxPlanRank);
        return Dims(rank, first_->empty() ? 1 : first_->front());
      }
    }
    return *first_;
  }

  int64_t SmallestSize() const {
    int64_t smallest = kMaxSize;
    for (int64_t size : first_.value_or(Dims{})) {
      smallest = std::min(smallest, size);
    }
    return std::max<int64_t>(smallest, 1);
  }

  TensorSpec Tensor(const std::string& name) {
    const Dims shape = Shape();
    if (NameHas(name, {"index", "indices"})) {
      return Indices(shape, SmallestSize(), rng_);
    }
    if (NameHas(name, {"mask"})) return Mask(shape, rng_);
    return Values(shape, dtype_, rng_);
  }

  int64_t Rank() const {
    return first_.has_value() ? static_cast<int64_t>(first_->size())
                              : plan_.rank;
  }

  ArgValue Int(const std::string& name) {
    if (NameHas(name, {"dim"})) return RandomDim(rng_, Rank());
    if (name == "groups") return int64_t{1};
    if (NameHas(name, {"size", "chunks", "sections", "repeats", "steps", "num_",
                       "length"}) ||
        name == "n") {
      return rng_.Uniform(1, kMaxSize);
    }
    return rng_.Uniform(-1, 3);
  }

  ArgValue Float(const std::string& name) {
    if (NameHas(name, {"eps", "tol"})) return FloatArg{1e-5};
    if (name == "momentum") return FloatArg{0.1};
    if (name == "p") return FloatArg{rng_.Pick(std::vector<double>{0.5, 1, 2})};
    return FloatArg{rng_.Pick(std::vector<double>{0, 0.5, 1, 2, -1, 0.25})};
  }

  // bool[N] (output_mask: which gradients to compute) as Dims of 0 and 1,
  // mostly all set: an unset flag leaves an undefined result.
  ArgValue BoolList(const c10::optional<int32_t>& n) {
    Dims flags(n.has_value() ? *n : Rank(), 1);
    for (int64_t& f : flags) f = rng_.OneIn(4) ? 0 : 1;
    return flags;
  }

  ArgValue IntList(const std::string& name, const c10::optional<int32_t>& n) {
    const int64_t rank = Rank();
    const int64_t spatial = std::max<int64_t>(rank - 2, 1);
    const int64_t length = n.has_value() ? *n : spatial;
    auto list = [&](int64_t len, int64_t lo, int64_t hi) {
      Dims d(len);
      for (int64_t& x : d) x = rng_.Uniform(lo, hi);
      return d;
    };
    if (name == "kernel_size" || name == "stride" || name == "dilation") {
      return list(length, 1, 2);
    }
    if (name == "padding" || name == "output_padding") {
      return list(length, 0, 1);
    }
    if (name == "output_size") return list(length, 1, 3);
    if (NameHas(name, {"dim"})) {
      Dims dims = RandomDims(rng_, rank, /*allow_none=*/false);
      if (n.has_value()) dims.resize(std::min<size_t>(dims.size(), *n));
      return dims;
    }
    if (NameHas(name, {"size", "shape"})) {
      if (!first_.has_value()) return Shape();  // A factory's: any shape.
      const Dims first = *first_;
      int64_t numel = 1;
      for (int64_t s : first) numel *= s;
      switch (rng_.Uniform(0, 3)) {
        case 0:
          return first;
        case 1:
          return Dims(first.rbegin(), first.rend());
        case 2:
          return Dims{numel};
        default:
          return Dims{-1};
      }
    }
    if (name == "repeats" || name == "shifts") return list(rank, 1, 2);
    return list(n.has_value() ? *n : rng_.Uniform(0, rank), 0, 3);
  }

  const SchemaPlan plan_;
  const DType dtype_;
  Rng& rng_;
  std::optional<Dims> first_;  // The first tensor's shape.
  bool sized_output_ = false;
  std::optional<bool> scales_drawn_;  // Decided at the first scale.
};

// What F.interpolate computes from a scale_factor: each output size is
// floor(input size * scale) over the input's last dims, the scales
// (scales_d, scales_h, scales_w; or "scales") in the same order. Where
// that cannot be (a size would be 0, which F.interpolate refuses; an
// input of too few dims; a backward op, whose first tensor is the
// output's gradient beside an input_size) the scales are dropped and the
// drawn sizes kept.
void TieOutputSizeToScales(std::vector<Argument>& args) {
  Dims* output_size = nullptr;
  const Dims* input = nullptr;
  bool backward = false;
  std::vector<double> scales;
  for (Argument& a : args) {
    if (a.name == "output_size") output_size = std::get_if<Dims>(&a.value);
    backward |= a.name == "input_size";
    if (auto* t = std::get_if<TensorSpec>(&a.value); t && input == nullptr) {
      input = &t->layout.sizes;
    }
    if (auto* f = std::get_if<FloatArg>(&a.value);
        f && absl::StartsWith(a.name, "scale")) {
      scales.push_back(f->value);
    }
  }
  if (output_size == nullptr || scales.empty()) return;
  Dims sizes(scales.size());
  bool tied = !backward && input != nullptr &&
              scales.size() == output_size->size() &&
              input->size() >= scales.size();
  for (size_t i = 0; tied && i < scales.size(); ++i) {
    const int64_t in = (*input)[input->size() - scales.size() + i];
    sizes[i] = static_cast<int64_t>(std::floor(in * scales[i]));
    tied = sizes[i] >= 1;
  }
  if (tied) {
    *output_size = sizes;
    return;
  }
  args.erase(
      std::remove_if(args.begin(), args.end(),
                     [](const Argument& a) {
                       return std::holds_alternative<FloatArg>(a.value) &&
                              absl::StartsWith(a.name, "scale");
                     }),
      args.end());
}

}  // namespace

c10::TypePtr Unwrapped(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::OptionalType) {
    return type->castRaw<c10::OptionalType>()->getElementType();
  }
  return type;
}

bool MayLeaveOut(const c10::Argument& arg) {
  return arg.default_value().has_value() ||
         arg.real_type()->kind() == c10::TypeKind::OptionalType;
}

bool IsTensorLike(const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::TensorType:
      return true;
    case c10::TypeKind::OptionalType:
      return IsTensorLike(type->castRaw<c10::OptionalType>()->getElementType());
    case c10::TypeKind::ListType:
      return IsTensorLike(type->castRaw<c10::ListType>()->getElementType());
    default:
      return false;
  }
}

std::string SchemaPlan::Key() const {
  static const char* const kRelations[] = {"same", "broadcast", "scalars",
                                           "independent", "square"};
  return absl::StrCat("r", rank, "/", kRelations[static_cast<int>(relation)]);
}

SchemaPlan DrawPlan(Rng& rng) {
  SchemaPlan plan;
  plan.rank = static_cast<int>(rng.Uniform(0, kMaxPlanRank));
  plan.relation =
      static_cast<ShapeRelation>(rng.Uniform(0, kShapeRelations - 1));
  return plan;
}

SchemaPlan PlanOfSeed(uint64_t seed) {
  Rng rng(seed);
  return DrawPlan(rng);
}

namespace {

// A str or str[] argument named for dims (dim, dim0, start_dim, outdim,
// dims) or `names`/`order`: a Dimname, which the JIT's schemas spell str.
bool IsDimensionName(const c10::Argument& arg) {
  c10::TypePtr type = Unwrapped(arg.real_type());
  if (type->kind() == c10::TypeKind::ListType) {
    type = type->castRaw<c10::ListType>()->getElementType();
  }
  return type->kind() == c10::TypeKind::StringType &&
         (absl::StrContains(arg.name(), "dim") || arg.name() == "names" ||
          arg.name() == "order");
}

// Why `arg` is not drawn.
std::string UndrawableArgument(const c10::Argument& arg) {
  if (IsDimensionName(arg)) {
    return absl::StrCat("argument ", arg.name(), " ", kNamesDimensions);
  }
  return absl::StrCat("argument ", arg.name(), " of type ",
                      arg.real_type()->str(), " is not generated");
}

}  // namespace

std::string UndrawableReason(const c10::FunctionSchema& schema) {
  for (const c10::Argument& arg : schema.arguments()) {
    if (IsWritten(arg) || MayLeaveOut(arg) || Drawable(arg)) continue;
    return UndrawableArgument(arg);
  }
  return "";
}

std::string UnrecordableReason(const c10::FunctionSchema& schema) {
  for (const c10::Argument& arg : schema.arguments()) {
    if (IsWritten(arg) || MayLeaveOut(arg) || Drawable(arg)) continue;
    if (IsDimensionName(arg) ||
        arg.real_type()->kind() != c10::TypeKind::StringType) {
      return UndrawableArgument(arg);
    }
  }
  return "";
}

absl::StatusOr<std::vector<Argument>> DrawSchemaArgs(
    const c10::FunctionSchema& schema, DType dtype, Rng& rng,
    bool draw_written) {
  const std::string reason = UndrawableReason(schema);
  if (!reason.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(schema.name(), ": ", reason));
  }
  Drawer drawer(DrawPlan(rng), dtype, rng);
  drawer.SetSizedOutput(std::any_of(
      schema.arguments().begin(), schema.arguments().end(),
      [](const c10::Argument& a) { return a.name() == "output_size"; }));
  std::vector<Argument> args;
  for (const c10::Argument& arg : schema.arguments()) {
    if (IsWritten(arg) && !draw_written) continue;
    std::optional<ArgValue> value = drawer.Draw(arg);
    if (value.has_value()) args.push_back(Arg(arg.name(), std::move(*value)));
  }
  TieOutputSizeToScales(args);
  return args;
}

}  // namespace dpfuzz

#include "generators/view_ops.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"

namespace dpfuzz {
namespace {

absl::Status CheckDim(const StridedLayout& in, int64_t dim, const char* op) {
  if (dim < 0 || dim >= in.dim()) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": dim ", dim, " is out of range for a ", in.dim(), "-d layout"));
  }
  return absl::OkStatus();
}

void EraseDim(StridedLayout& layout, int64_t dim) {
  layout.sizes.erase(layout.sizes.begin() + dim);
  layout.strides.erase(layout.strides.begin() + dim);
}

}  // namespace

absl::StatusOr<StridedLayout> Transpose(const StridedLayout& in, int64_t dim0,
                                        int64_t dim1) {
  DPFUZZ_RETURN_IF_ERROR(CheckDim(in, dim0, "transpose"));
  DPFUZZ_RETURN_IF_ERROR(CheckDim(in, dim1, "transpose"));
  StridedLayout out = in;
  std::swap(out.sizes[dim0], out.sizes[dim1]);
  std::swap(out.strides[dim0], out.strides[dim1]);
  return out;
}

absl::StatusOr<StridedLayout> Permute(const StridedLayout& in,
                                      const Dims& order) {
  Dims sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < static_cast<int64_t>(sorted.size()); ++i) {
    if (sorted.size() != in.sizes.size() || sorted[i] != i) {
      return absl::InvalidArgumentError(absl::StrCat(
          "permute: ", DimsToString(order),
          " is not a permutation of the dims of a ", in.dim(), "-d layout"));
    }
  }
  StridedLayout out = in;
  for (size_t i = 0; i < order.size(); ++i) {
    out.sizes[i] = in.sizes[order[i]];
    out.strides[i] = in.strides[order[i]];
  }
  return out;
}

absl::StatusOr<StridedLayout> Slice(const StridedLayout& in, int64_t dim,
                                    int64_t start, int64_t end, int64_t step) {
  DPFUZZ_RETURN_IF_ERROR(CheckDim(in, dim, "slice"));
  if (step <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("slice: step ", step, " must be positive"));
  }
  // ATen clamps start and end into [0, size] with end >= start.
  const int64_t size = in.sizes[dim];
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  StridedLayout out = in;
  out.storage_offset += start * in.strides[dim];
  out.sizes[dim] = (end - start + step - 1) / step;
  out.strides[dim] *= step;
  return out;
}

absl::StatusOr<StridedLayout> Narrow(const StridedLayout& in, int64_t dim,
                                     int64_t start, int64_t length) {
  DPFUZZ_RETURN_IF_ERROR(CheckDim(in, dim, "narrow"));
  if (start < 0 || length < 0 || start + length > in.sizes[dim]) {
    return absl::InvalidArgumentError(
        absl::StrCat("narrow: start ", start, " + length ", length,
                     " exceeds dim ", dim, " of size ", in.sizes[dim]));
  }
  return Slice(in, dim, start, start + length, 1);
}

absl::StatusOr<StridedLayout> Select(const StridedLayout& in, int64_t dim,
                                     int64_t index) {
  DPFUZZ_RETURN_IF_ERROR(CheckDim(in, dim, "select"));
  if (index < 0 || index >= in.sizes[dim]) {
    return absl::InvalidArgumentError(
        absl::StrCat("select: index ", index, " is out of range for dim ", dim,
                     " of size ", in.sizes[dim]));
  }
  StridedLayout out = in;
  out.storage_offset += index * in.strides[dim];
  EraseDim(out, dim);
  return out;
}

absl::StatusOr<StridedLayout> Unfold(const StridedLayout& in, int64_t dim,
                                     int64_t size, int64_t step) {
  DPFUZZ_RETURN_IF_ERROR(CheckDim(in, dim, "unfold"));
  if (size < 0 || size > in.sizes[dim] || step <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("unfold: window ", size, " with step ", step,
                     " does not fit dim ", dim, " of size ", in.sizes[dim]));
  }
  StridedLayout out = in;
  out.sizes[dim] = (in.sizes[dim] - size) / step + 1;
  out.strides[dim] = in.strides[dim] * step;
  out.sizes.push_back(size);
  out.strides.push_back(in.strides[dim]);
  return out;
}

absl::StatusOr<StridedLayout> Diagonal(const StridedLayout& in, int64_t offset,
                                       int64_t dim1, int64_t dim2) {
  DPFUZZ_RETURN_IF_ERROR(CheckDim(in, dim1, "diagonal"));
  DPFUZZ_RETURN_IF_ERROR(CheckDim(in, dim2, "diagonal"));
  if (dim1 == dim2) {
    return absl::InvalidArgumentError(
        absl::StrCat("diagonal: dims ", dim1, " and ", dim2, " are the same"));
  }
  const int64_t size1 = in.sizes[dim1];
  const int64_t size2 = in.sizes[dim2];
  const int64_t diag_size =
      offset >= 0 ? std::max<int64_t>(std::min(size1, size2 - offset), 0)
                  : std::max<int64_t>(std::min(size1 + offset, size2), 0);
  StridedLayout out = in;
  // As ATen, the offset moves only when the diagonal has elements.
  if (diag_size > 0) {
    out.storage_offset +=
        offset >= 0 ? offset * in.strides[dim2] : -offset * in.strides[dim1];
  }
  EraseDim(out, std::max(dim1, dim2));
  EraseDim(out, std::min(dim1, dim2));
  out.sizes.push_back(diag_size);
  out.strides.push_back(in.strides[dim1] + in.strides[dim2]);
  return out;
}

absl::StatusOr<StridedLayout> Expand(const StridedLayout& in,
                                     const Dims& sizes) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  if (ndim < in.dim()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expand: ", DimsToString(sizes), " has fewer dims than ",
                     DimsToString(in.sizes)));
  }
  StridedLayout out{Dims(ndim), Dims(ndim), in.storage_offset};
  // ATen's inferExpandGeometry, right-aligned.
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t dim = in.dim() - 1 - (ndim - 1 - i);
    int64_t size = dim >= 0 ? in.sizes[dim] : 1;
    int64_t stride = dim >= 0       ? in.strides[dim]
                     : i + 1 < ndim ? out.sizes[i + 1] * out.strides[i + 1]
                                    : 1;
    int64_t target = sizes[i];
    if (target == -1) {
      if (dim < 0) {
        return absl::InvalidArgumentError(
            "expand: -1 is not allowed for a new leading dim");
      }
      target = size;
    }
    if (size != target) {
      if (size != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("expand: size ", size, " of dim ", i,
                         " cannot be expanded to ", target));
      }
      size = target;
      stride = 0;
    }
    out.sizes[i] = size;
    out.strides[i] = stride;
  }
  return out;
}

StridedLayout ViewAsReal(const StridedLayout& in) {
  StridedLayout out = in;
  for (int64_t& stride : out.strides) stride *= 2;
  out.sizes.push_back(2);
  out.strides.push_back(1);
  out.storage_offset *= 2;
  return out;
}

absl::StatusOr<StridedLayout> ApplyViewStep(const StridedLayout& in,
                                            const ViewStep& step) {
  const Dims& a = step.args;
  auto need = [&](size_t n) -> absl::Status {
    if (a.size() == n) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(ViewStepToString(step), ": expected ", n, " arguments"));
  };
  switch (step.kind) {
    case ViewKind::kTranspose:
      DPFUZZ_RETURN_IF_ERROR(need(2));
      return Transpose(in, a[0], a[1]);
    case ViewKind::kPermute:
      return Permute(in, a);
    case ViewKind::kNarrow:
      DPFUZZ_RETURN_IF_ERROR(need(3));
      return Narrow(in, a[0], a[1], a[2]);
    case ViewKind::kSelect:
      DPFUZZ_RETURN_IF_ERROR(need(2));
      return Select(in, a[0], a[1]);
    case ViewKind::kSlice:
      DPFUZZ_RETURN_IF_ERROR(need(4));
      return Slice(in, a[0], a[1], a[2], a[3]);
    case ViewKind::kUnfold:
      DPFUZZ_RETURN_IF_ERROR(need(3));
      return Unfold(in, a[0], a[1], a[2]);
    case ViewKind::kDiagonal:
      DPFUZZ_RETURN_IF_ERROR(need(3));
      return Diagonal(in, a[0], a[1], a[2]);
    case ViewKind::kExpand:
      return Expand(in, a);
    case ViewKind::kViewAsReal:
      return ViewAsReal(in);
  }
  return absl::InternalError("unknown view kind");
}

std::string ViewStepToString(const ViewStep& step) {
  static constexpr const char* kNames[kNumViewKinds] = {
      "transpose", "permute",  "narrow", "select",      "slice",
      "unfold",    "diagonal", "expand", "view_as_real"};
  const char* name = kNames[static_cast<int>(step.kind)];
  if (step.kind == ViewKind::kPermute || step.kind == ViewKind::kExpand) {
    return absl::StrCat(name, "(", DimsToString(step.args), ")");
  }
  return absl::StrCat(name, "(", absl::StrJoin(step.args, ", "), ")");
}

}  // namespace dpfuzz

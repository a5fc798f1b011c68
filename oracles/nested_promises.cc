#include "oracles/nested_promises.h"

#include <ATen/NestedTensorImpl.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/torch_compat.h"
#include "generators/geometry.h"

namespace dpfuzz {
namespace {

// The rows of a [components, rank] int64 metadata tensor.
std::vector<std::vector<int64_t>> Rows(const at::Tensor& metadata) {
  const at::Tensor m = metadata.to(at::kLong).contiguous();
  std::vector<std::vector<int64_t>> rows;
  if (m.dim() != 2) return rows;
  const int64_t* data = m.data_ptr<int64_t>();
  for (int64_t i = 0; i < m.size(0); ++i) {
    rows.emplace_back(data + i * m.size(1), data + (i + 1) * m.size(1));
  }
  return rows;
}

std::string Row(const std::vector<int64_t>& row) {
  return absl::StrCat("[", absl::StrJoin(row, ", "), "]");
}

}  // namespace

std::optional<std::string> CheckNestedPromises(const at::Tensor& result) {
  if (!result.defined() || !result.is_nested()) return std::nullopt;
  const std::vector<std::vector<int64_t>> sizes =
      Rows(result._nested_tensor_size());
  const std::vector<std::vector<int64_t>> strides =
      Rows(result._nested_tensor_strides());
  const std::vector<int64_t> offsets = compat::NestedOffsets(result);
  const size_t n = sizes.size();
  const int64_t rank = result.dim() - 1;
  if (strides.size() != n || offsets.size() != n) {
    return absl::StrCat("the nested result has ", n, " rows of sizes, ",
                        strides.size(), " of strides and ", offsets.size(),
                        " offsets");
  }
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<int64_t>(sizes[i].size()) != rank ||
        strides[i].size() != sizes[i].size()) {
      return absl::StrCat("component ", i, " of the nested result of dim ",
                          result.dim(), " has sizes ", Row(sizes[i]),
                          " and strides ", Row(strides[i]));
    }
    for (size_t d = 0; d < sizes[i].size(); ++d) {
      if (sizes[i][d] < 0 || strides[i][d] < 0 || offsets[i] < 0) {
        return absl::StrCat("component ", i, " of the nested result has sizes ",
                            Row(sizes[i]), ", strides ", Row(strides[i]),
                            " and offset ", offsets[i]);
      }
    }
  }
  const int64_t buffer = static_cast<int64_t>(
      at::native::get_nested_tensor_impl(result)->get_buffer_size());
  for (size_t i = 0; i < n; ++i) {
    if (ComputeNumel(sizes[i]) == 0) continue;
    int64_t end = offsets[i] + 1;
    for (size_t d = 0; d < sizes[i].size(); ++d) {
      end += (sizes[i][d] - 1) * strides[i][d];
    }
    if (end > buffer) {
      return absl::StrCat("component ", i, " of the nested result (sizes ",
                          Row(sizes[i]), ", strides ", Row(strides[i]),
                          ", offset ", offsets[i], ") reaches element ",
                          end - 1, " of a buffer of ", buffer);
    }
  }
  return std::nullopt;
}

}  // namespace dpfuzz

// Curated specs: compressed sparse tensors (CSR, CSC, BSR, BSC) built and
// validated from their dense parts.
//
// sparse_csr_tensor(crow_indices, col_indices, values[, size]), its CSC,
// BSR and BSC siblings, _validate_sparse_{csr,csc,bsr,bsc}_tensor_args and
// _validate_compressed_sparse_indices accept only parts that form a valid
// compressed tensor: compressed indices that start at 0, never decrease
// and end at nnz; plain indices in range, sorted and distinct within each
// compressed slice; one value (a block for BSR/BSC) per plain index. Three
// tensors drawn from the schema never form one, so none of these 13
// overloads had a valid case. These draw valid parts, batched or not, with
// int32 or int64 indices; the engine then lays every part out in every
// way, the indices in every way that reads each element once
// (OpSpec::never_overlap: 2.x does not check the invariants of what it
// builds by default, so repeated compressed indices would build an
// invalid tensor whose to_dense() reads anything), and the results
// (sparse tensors) are compared through to_dense().
// sparse_compressed_tensor takes its layout as a Layout, which case files
// do not hold (generators/schema_args.h): not here.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

enum class Compression : uint8_t {
  kCsr,  // Rows compressed, single elements.
  kCsc,  // Columns compressed, single elements.
  kBsr,  // Rows of blocks compressed.
  kBsc,  // Columns of blocks compressed.
};

bool RowsCompressed(Compression c) {
  return c == Compression::kCsr || c == Compression::kBsr;
}
bool Blocked(Compression c) {
  return c == Compression::kBsr || c == Compression::kBsc;
}

// The parts of one valid compressed tensor and what its validation is
// told of them.
struct CompressedParts {
  TensorSpec compressed;       // [*batch, compressed_dim + 1]
  TensorSpec plain;            // [*batch, nnz]
  TensorSpec values;           // [*batch, nnz, *block]
  Dims size;                   // [*batch, rows, columns]
  int64_t compressed_dim = 0;  // Rows (CSR, BSR) or columns, in blocks.
  int64_t plain_dim = 0;       // The other one, in blocks.
  int64_t nnz = 0;
};

CompressedParts DrawParts(Compression c, DType dtype, Rng& rng) {
  CompressedParts p;
  p.compressed_dim = rng.Uniform(0, 3);
  p.plain_dim = rng.Uniform(1, 4);
  // One sparsity pattern, repeated in every batch (batches must have the
  // same nnz).
  std::vector<double> compressed = {0}, plain;
  for (int64_t slice = 0; slice < p.compressed_dim; ++slice) {
    for (int64_t i = 0; i < p.plain_dim; ++i) {
      if (rng.OneIn(2)) plain.push_back(static_cast<double>(i));
    }
    compressed.push_back(static_cast<double>(plain.size()));
  }
  p.nnz = static_cast<int64_t>(plain.size());
  const Dims batch = rng.OneIn(3) ? Dims{rng.Uniform(1, 2)} : Dims{};
  const int64_t batches = batch.empty() ? 1 : batch[0];
  std::vector<double> all_compressed, all_plain;
  for (int64_t b = 0; b < batches; ++b) {
    all_compressed.insert(all_compressed.end(), compressed.begin(),
                          compressed.end());
    all_plain.insert(all_plain.end(), plain.begin(), plain.end());
  }
  const DType index_dtype = rng.OneIn(2) ? DType::kInt32 : DType::kInt64;
  Dims sizes = batch;
  sizes.push_back(p.compressed_dim + 1);
  p.compressed = Explicit(sizes, all_compressed, index_dtype);
  sizes = batch;
  sizes.push_back(p.nnz);
  p.plain = Explicit(sizes, all_plain, index_dtype);
  const Dims block =
      Blocked(c) ? Dims{rng.Uniform(1, 2), rng.Uniform(1, 2)} : Dims{1, 1};
  if (Blocked(c)) sizes.insert(sizes.end(), block.begin(), block.end());
  p.values = Values(sizes, dtype, rng);
  const int64_t rows = RowsCompressed(c) ? p.compressed_dim : p.plain_dim;
  const int64_t columns = RowsCompressed(c) ? p.plain_dim : p.compressed_dim;
  p.size = batch;
  p.size.push_back(rows * block[0]);
  p.size.push_back(columns * block[1]);
  return p;
}

// The names the parts go by: crow_indices and col_indices when rows are
// compressed, ccol_indices and row_indices when columns are.
std::pair<std::string, std::string> IndexNames(Compression c) {
  return RowsCompressed(c) ? std::pair{"crow_indices", "col_indices"}
                           : std::pair{"ccol_indices", "row_indices"};
}

// A constructor (`dtype`: at the aten level an unset dtype is the
// default dtype, which the values must then have) or a validator.
OpSpec Compressed(std::string op, std::string overload, Compression c,
                  bool with_size, bool constructor) {
  const auto [compressed, plain] = IndexNames(c);
  return OpSpec{
      .op = std::move(op),
      .overload = std::move(overload),
      .family = "sparse_compressed",
      .comparison = Comparison::kExact,
      .dtypes = AllDTypes(),
      .never_overlap = {compressed, plain},
      .make_args = [c, with_size, constructor](Rng& rng, DType dtype) {
        const CompressedParts p = DrawParts(c, dtype, rng);
        const auto [compressed, plain] = IndexNames(c);
        std::vector<Argument> args = {Arg(compressed, p.compressed),
                                      Arg(plain, p.plain),
                                      Arg("values", p.values)};
        if (with_size) args.push_back(Arg("size", p.size));
        if (constructor) {
          args.push_back(Arg("dtype", std::string(DTypeName(dtype))));
        }
        return args;
      }};
}

}  // namespace

void AddSparseCompressedOps(std::vector<OpSpec>& ops) {
  const std::pair<Compression, const char*> kinds[] = {
      {Compression::kCsr, "csr"},
      {Compression::kCsc, "csc"},
      {Compression::kBsr, "bsr"},
      {Compression::kBsc, "bsc"}};
  for (const auto& [c, name] : kinds) {
    const std::string parts =
        RowsCompressed(c) ? "crow_col_value" : "ccol_row_value";
    const std::string constructor =
        absl::StrCat("aten::sparse_", name, "_tensor");
    ops.push_back(Compressed(constructor, parts, c, /*with_size=*/false,
                             /*constructor=*/true));
    ops.push_back(Compressed(constructor, parts + "_size", c,
                             /*with_size=*/true, /*constructor=*/true));
    ops.push_back(Compressed(
        absl::StrCat("aten::_validate_sparse_", name, "_tensor_args"), "", c,
        /*with_size=*/true, /*constructor=*/false));
  }
  ops.push_back(OpSpec{
      .op = "aten::_validate_compressed_sparse_indices",
      .overload = "",
      .family = "sparse_compressed",
      .comparison = Comparison::kExact,
      .dtypes = {DType::kInt64},  // Of no tensor: the indices choose theirs.
      .never_overlap = {"compressed_idx", "plain_idx"},
      .make_args = [](Rng& rng, DType dtype) {
        const Compression c =
            rng.OneIn(2) ? Compression::kCsr : Compression::kCsc;
        const CompressedParts p = DrawParts(c, dtype, rng);
        return std::vector<Argument>{Arg("is_crow", RowsCompressed(c)),
                                     Arg("compressed_idx", p.compressed),
                                     Arg("plain_idx", p.plain),
                                     Arg("cdim", p.compressed_dim),
                                     Arg("dim", p.plain_dim),
                                     Arg("nnz", p.nnz)};
      }});
}

}  // namespace dpfuzz

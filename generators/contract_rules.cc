#include "generators/contract_rules.h"

#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace dpfuzz {
namespace {

constexpr char kRunningStats[] =
    "updates the running statistics in place while it computes batch "
    "statistics (by design; the schema has no \"!\")";

std::vector<MutatedArgument> BuiltinMutatedArguments() {
  std::vector<MutatedArgument> rules;
  auto add = [&rules](const char* op, const char* when) {
    for (const char* arg : {"running_mean", "running_var"}) {
      rules.push_back({op, arg, when, kRunningStats});
    }
  };
  add("aten::batch_norm", "training");
  add("aten::_batch_norm_impl_index", "training");
  add("aten::native_batch_norm", "training");  // And native_batch_norm.out.
  add("aten::cudnn_batch_norm", "training");
  add("aten::miopen_batch_norm", "training");
  // Copies the mean over the batch of its per-instance statistics back
  // into the given ones even when it does not update them.
  add("aten::instance_norm", "");
  add("aten::batch_norm_update_stats", "");
  add("aten::batch_norm_gather_stats", "");
  add("aten::batch_norm_gather_stats_with_counts", "");
  // PyTorch's own SchemaInfo (torch/csrc/utils/schema_info.cpp) lists these
  // training ops as mutating `noise`; later schemas mark it "(b!)".
  constexpr char kRandomSlopes[] =
      "writes the random slopes it draws into noise while training, for "
      "its backward (by design; the 1.13 schema has no \"!\")";
  for (const char* op : {"aten::rrelu_with_noise", "aten::rrelu_with_noise_"}) {
    rules.push_back({op, "noise", "training", kRandomSlopes});
  }
  return rules;
}

std::map<std::string, std::string> BuiltinUnsafeOps() {
  constexpr char kUnsafeSparse[] =
      "unsafe by contract: builds a sparse tensor from indices it does not "
      "validate (the checked constructor is the one without _unsafe)";
  constexpr char kNestedView[] =
      "unsafe by contract: views a buffer as a nested tensor with sizes, "
      "strides and offsets it trusts";
  constexpr char kBatching[] =
      "unsafe by contract: functorch batching internals, trusts the level "
      "and dims vmap keeps";
  constexpr char kUnsafeIndex[] =
      "unsafe by contract: trusts its indices to be in range (for compiled "
      "code that checked them)";
  constexpr char kTestOnly[] =
      "test-only: exists only to test PyTorch's code generation and dispatch";
  std::map<std::string, std::string> ops;
  for (const char* op :
       {"_sparse_coo_tensor_unsafe", "_sparse_compressed_tensor_unsafe",
        "_sparse_csr_tensor_unsafe", "_sparse_csc_tensor_unsafe",
        "_sparse_bsr_tensor_unsafe", "_sparse_bsc_tensor_unsafe"}) {
    ops[absl::StrCat("aten::", op)] = kUnsafeSparse;
  }
  for (const char* op :
       {"_nested_view_from_buffer", "_nested_view_from_buffer_copy",
        "_nested_view_from_jagged", "_nested_view_from_jagged_copy"}) {
    ops[absl::StrCat("aten::", op)] = kNestedView;
  }
  for (const char* op : {"_add_batch_dim", "_remove_batch_dim",
                         "_wrap_for_grad", "_unwrap_for_grad"}) {
    ops[absl::StrCat("aten::", op)] = kBatching;
  }
  for (const char* op :
       {"_unsafe_index", "_unsafe_index_put", "_unsafe_masked_index",
        "_unsafe_masked_index_put_accumulate"}) {
    ops[absl::StrCat("aten::", op)] = kUnsafeIndex;
  }
  for (const char* op :
       {"_test_serialization_subcmul", "_test_optional_intlist",
        "_test_optional_filled_intlist", "_test_optional_floatlist",
        "_test_string_default", "_test_ambiguous_defaults",
        "_test_warn_in_autograd", "_test_autograd_multiple_dispatch",
        "_test_autograd_multiple_dispatch_view",
        "_test_autograd_multiple_dispatch_view_copy",
        "_test_parallel_materialize", "_test_check_tensor",
        "_test_functorch_fallback"}) {
    ops[absl::StrCat("aten::", op)] = kTestOnly;
  }
  return ops;
}

// The tables, with what was added; read on every case, written rarely.
struct Tables {
  std::mutex mu;
  std::map<std::string, std::vector<MutatedArgument>> mutated;  // By op.
  std::map<std::string, std::string> unsafe;

  Tables() : unsafe(BuiltinUnsafeOps()) {
    for (MutatedArgument& rule : BuiltinMutatedArguments()) {
      mutated[rule.op].push_back(std::move(rule));
    }
  }
};

Tables& GetTables() {
  static Tables* tables = new Tables;
  return *tables;
}

bool IsTrue(const Case& c, const std::string& name) {
  const Argument* arg = FindArgument(c, name);
  const bool* value = arg ? std::get_if<bool>(&arg->value) : nullptr;
  return value != nullptr && *value;
}

}  // namespace

std::vector<MutatedArgument> MutatedArgumentRules() {
  Tables& t = GetTables();
  std::lock_guard<std::mutex> lock(t.mu);
  std::vector<MutatedArgument> all;
  for (const auto& [op, rules] : t.mutated) {
    all.insert(all.end(), rules.begin(), rules.end());
  }
  return all;
}

std::vector<std::string> MutatedByDesign(const Case& c) {
  Tables& t = GetTables();
  std::vector<MutatedArgument> rules;
  {
    std::lock_guard<std::mutex> lock(t.mu);
    const auto it = t.mutated.find(c.op);
    if (it == t.mutated.end()) return {};
    rules = it->second;
  }
  std::vector<std::string> names;
  for (const Argument& arg : c.args) {
    if (!std::holds_alternative<TensorSpec>(arg.value)) continue;
    for (const MutatedArgument& rule : rules) {
      if (rule.arg == arg.name && (rule.when.empty() || IsTrue(c, rule.when))) {
        names.push_back(arg.name);
        break;
      }
    }
  }
  return names;
}

std::string UnsafeByContract(absl::string_view op) {
  Tables& t = GetTables();
  std::lock_guard<std::mutex> lock(t.mu);
  const auto it = t.unsafe.find(std::string(op));
  return it == t.unsafe.end() ? "" : it->second;
}

std::string UnsafeExclusion(absl::string_view op) {
  const std::string reason = UnsafeByContract(op);
  if (reason.empty()) return "";
  return absl::StrCat(reason, "; runs only when named exactly");
}

bool OutputChosenByLayout(absl::string_view op, size_t index) {
  static const auto* kChosen = new std::map<std::string, std::set<size_t>>{
      // The LU factors and pivots.
      {"aten::_linalg_det", {1, 2}},
      {"aten::_linalg_slogdet", {2, 3}},
      {"aten::_linalg_solve_ex", {1, 2}},
      // offset2bag, bag_size, max_indices: what the backward needs, filled
      // as the kernel's path needs them (the fast path, which a layout
      // turns on or off, leaves offset2bag empty); the gradients check them.
      {"aten::embedding_bag", {1, 2, 3}},
      {"aten::_embedding_bag", {1, 2, 3}},
      {"aten::_embedding_bag_forward_only", {1, 2, 3}},
  };
  const auto it = kChosen->find(std::string(op));
  return it != kChosen->end() && it->second.count(index) > 0;
}

std::string AssumedContiguous(absl::string_view op, absl::string_view arg) {
  static const auto* kEmbeddingBag = new std::set<std::string>{
      "aten::_embedding_bag",
      "aten::_embedding_bag_forward_only",
      "aten::_embedding_bag_backward",
      "aten::_embedding_bag_dense_backward",
      "aten::_embedding_bag_sparse_backward",
      "aten::_embedding_bag_per_sample_weights_backward",
  };
  static const auto* kInputs = new std::set<std::string>{
      "indices",  "offsets",     "offset2bag",
      "bag_size", "max_indices", "per_sample_weights"};
  if (kEmbeddingBag->count(std::string(op)) == 0 ||
      kInputs->count(std::string(arg)) == 0) {
    return "";
  }
  return "the _embedding_bag ops assume every input but weight contiguous "
         "(native_functions.yaml, NOTE [ embedding_bag Native Functions ]): "
         "embedding_bag makes them so, and the backward ops get the "
         "forward's";
}

void AddMutatedArgumentRules(const std::vector<MutatedArgument>& rules) {
  Tables& t = GetTables();
  std::lock_guard<std::mutex> lock(t.mu);
  for (const MutatedArgument& rule : rules) t.mutated[rule.op].push_back(rule);
}

void AddUnsafeOp(const std::string& op, const std::string& reason) {
  Tables& t = GetTables();
  std::lock_guard<std::mutex> lock(t.mu);
  t.unsafe[op] = reason;
}

}  // namespace dpfuzz

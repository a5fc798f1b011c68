#include "generators/op_catalog.h"

#include <fnmatch.h>

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "generators/contract_rules.h"
#include "generators/op_registry.h"
#include "generators/schema_spec.h"

namespace dpfuzz {
namespace {

bool IsGlob(absl::string_view pattern) {
  return pattern.find_first_of("*?[") != absl::string_view::npos;
}

// Whether overload `full` ("aten::add.Tensor", op "aten::add") is named by
// `pattern`.
bool Matches(absl::string_view pattern, const std::string& full,
             const std::string& op) {
  if (pattern == "all") {
    return absl::StartsWith(full, "aten::") ||
           absl::StartsWith(full, absl::StrCat(kNestedPrefix, "aten::"));
  }
  // "nested:relu", "nested:*": nested specs only, by their own names.
  if (absl::ConsumePrefix(&pattern, kNestedPrefix)) {
    const std::string q = absl::StrCat(kNestedPrefix, WithNamespace(pattern));
    if (!absl::StartsWith(full, kNestedPrefix)) return false;
    return IsGlob(pattern) ? fnmatch(q.c_str(), full.c_str(), 0) == 0
                           : q == full || absl::StrCat(kNestedPrefix, op) == q;
  }
  const std::string q = WithNamespace(pattern);
  if (IsGlob(pattern)) {
    return fnmatch(q.c_str(), full.c_str(), 0) == 0 ||
           fnmatch(q.c_str(), op.c_str(), 0) == 0;
  }
  return q == full || q == op;
}

// Why an op with dense kernels only for other devices is not fuzzed on
// `device`.
std::string OtherDeviceOnly(Device device) {
  const Device other = device == Device::kCpu ? Device::kCuda : Device::kCpu;
  return absl::StrCat("no kernel for dense ", DeviceName(device),
                      " tensors in this LibTorch (its kernel is for ",
                      DeviceName(other), ": --device=", DeviceName(other), ")");
}

// A generic entry's spec (that of its name, unless `excluded` gives a
// reason), status and reason; `writes_reason`: the exclusion of overloads
// that write their arguments.
void Judge(CatalogEntry& e, const absl::StatusOr<std::string>& excluded,
           absl::string_view writes_reason) {
  if (excluded.ok() && excluded->empty()) e.spec = FindOp(e.name);
  e.writes = excluded.ok() && *excluded == writes_reason;
  if (e.spec != nullptr) {
    e.status = "generic";
  } else {
    e.status = "excluded";
    e.reason =
        excluded.ok() ? *excluded : std::string(excluded.status().message());
  }
}

CatalogEntry EntryOf(const OverloadName& name, Device device) {
  CatalogEntry e;
  e.name = name.Full();
  e.is_private = IsPrivateOp(name);
  e.is_random = IsRandomOp(name);
  e.dense_kernel = HasKernelOn(name, device);
  if (const OpSpec* curated = FindCuratedOp(e.name);
      curated != nullptr && SpecName(*curated) == e.name) {
    e.spec = curated;
    e.status = "curated";
    return e;
  }
  absl::StatusOr<std::string> excluded = GenericExclusion(name);
  if (excluded.ok() && excluded->empty() && !e.dense_kernel) {
    excluded = OtherDeviceOnly(device);
  }
  Judge(e, excluded, kWritesArguments);
  return e;
}

// The nested entry of `name`, an overload with a nested kernel on
// `device` that no curated or added nested spec names.
CatalogEntry NestedEntryOf(const OverloadName& name, Device device) {
  CatalogEntry e;
  e.name = absl::StrCat(kNestedPrefix, name.Full());
  e.is_private = IsPrivateOp(name);
  e.is_random = IsRandomOp(name);
  e.dense_kernel = HasKernelOn(name, device);
  Judge(e, GenericNestedExclusion(name), kNestedWritesArguments);
  return e;
}

}  // namespace

std::vector<CatalogEntry> Catalog(absl::string_view pattern, Device device) {
  std::vector<CatalogEntry> entries;
  std::set<std::string> seen;
  // Specs first (a curated spec without an overload stands for the op's
  // main overload; an added spec may name an op of its own).
  for (const OpSpec* spec : AllOps()) {
    const std::string name = SpecName(*spec);
    if (!Matches(pattern, name, spec->op) && !(pattern == "all")) {
      continue;
    }
    CatalogEntry e;
    e.name = name;
    e.spec = spec;
    e.status = "curated";
    e.is_private = IsPrivateOp(SplitOverload(name));
    e.is_random = (spec->rules & kRuleNondeterministic) != 0;
    e.dense_kernel = true;  // A spec's own op runs on every device.
    seen.insert(name);
    entries.push_back(std::move(e));
  }
  for (const OverloadName& name : RegisteredOverloads()) {
    const std::string full = name.Full();
    // Its nested spec, where the op has a nested kernel and no listed
    // nested spec of that name.
    if (const std::string nested = absl::StrCat(kNestedPrefix, full);
        seen.count(nested) == 0 && Matches(pattern, nested, name.op) &&
        HasNestedKernelOn(name, device)) {
      entries.push_back(NestedEntryOf(name, device));
    }
    if (seen.count(full) > 0 || !Matches(pattern, full, name.op)) continue;
    // The overload a curated spec without an overload name covers.
    if (name.overload.empty() && seen.count(name.op) > 0) continue;
    entries.push_back(EntryOf(name, device));
    // Unsafe by contract: run only when named exactly
    // (generators/contract_rules.h).
    if (entries.back().spec != nullptr &&
        (pattern == "all" || IsGlob(pattern))) {
      if (std::string why = UnsafeExclusion(name.op); !why.empty()) {
        entries.back().spec = nullptr;
        entries.back().status = "excluded";
        entries.back().reason = std::move(why);
      }
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const CatalogEntry& a, const CatalogEntry& b) {
              return a.name < b.name;
            });
  return entries;
}

absl::StatusOr<std::vector<const OpSpec*>> ResolveOps(absl::string_view pattern,
                                                      Device device) {
  // One overload by its full name; a name without one means them all.
  if (const OpSpec* exact = FindOp(pattern);
      exact != nullptr && !IsGlob(pattern) &&
      SplitOverload(pattern).overload != "") {
    if (exact->family == "generic" &&
        !HasKernelOn(SplitOverload(SpecName(*exact)), device)) {
      return absl::FailedPreconditionError(absl::StrCat(
          SpecName(*exact), " is not fuzzed: ", OtherDeviceOnly(device)));
    }
    return std::vector<const OpSpec*>{exact};
  }
  std::vector<const OpSpec*> specs;
  std::vector<CatalogEntry> excluded;
  for (const CatalogEntry& e : Catalog(pattern, device)) {
    if (e.spec != nullptr) {
      specs.push_back(e.spec);
    } else {
      excluded.push_back(e);
    }
  }
  if (!specs.empty()) return specs;
  if (excluded.size() == 1) {
    return absl::FailedPreconditionError(
        absl::StrCat(excluded[0].name, " is not fuzzed: ", excluded[0].reason));
  }
  return absl::NotFoundError(absl::StrCat(
      "no op \"", pattern, "\"",
      excluded.empty() ? ""
                       : absl::StrCat(" that can be fuzzed (", excluded.size(),
                                      " overloads match, none fuzzable)")));
}

}  // namespace dpfuzz

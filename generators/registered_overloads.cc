#include "generators/registered_overloads.h"

#include <ATen/core/dispatch/Dispatcher.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "absl/strings/str_cat.h"

namespace dpfuzz {
namespace {

// Overload names by op, as the dispatcher registers and deregisters them.
class Index : public c10::OpRegistrationListener {
 public:
  void onOperatorRegistered(const c10::OperatorHandle& h) override {
    const c10::OperatorName& n = h.operator_name();
    std::lock_guard<std::mutex> lock(mu_);
    overloads_[n.name].insert(n.overload_name);
  }
  void onOperatorDeregistered(const c10::OperatorHandle& h) override {
    const c10::OperatorName& n = h.operator_name();
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = overloads_.find(n.name);
    if (it == overloads_.end()) return;
    it->second.erase(n.overload_name);
    if (it->second.empty()) overloads_.erase(it);
  }

  std::vector<OverloadName> All() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<OverloadName> all;
    for (const auto& [op, names] : overloads_) {
      for (const std::string& overload : names) all.push_back({op, overload});
    }
    return all;
  }

  std::vector<std::string> Of(const std::string& op) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = overloads_.find(op);
    if (it == overloads_.end()) return {};
    return {it->second.begin(), it->second.end()};
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::set<std::string>> overloads_;
};

const Index& TheIndex() {
  // The dispatcher calls a new listener for every op registered so far,
  // then for each one registered or deregistered later. Both live as long
  // as the process.
  static const Index* index = [] {
    auto owned = std::make_unique<Index>();
    const Index* raw = owned.get();
    static auto* handle = new c10::RegistrationHandleRAII(
        c10::Dispatcher::singleton().addRegistrationListener(std::move(owned)));
    (void)handle;
    return raw;
  }();
  return *index;
}

}  // namespace

std::string OverloadName::Full() const {
  return overload.empty() ? op : absl::StrCat(op, ".", overload);
}

std::vector<OverloadName> RegisteredOverloads() { return TheIndex().All(); }

std::vector<std::string> OverloadsOf(const std::string& op) {
  return TheIndex().Of(op);
}

}  // namespace dpfuzz

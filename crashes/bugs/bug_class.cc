#include "crashes/bugs/bug_class.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace dpfuzz {

std::string ClassKey(const Bug& bug) {
  const BugMechanism& m = bug.mechanism;
  if (!Explains(m)) return absl::StrCat("unexplained|", bug.key);
  std::string key = absl::StrJoin({m.name, m.role, bug.family}, "|");
  if (!m.detail.empty()) absl::StrAppend(&key, "|", m.detail);
  return key;
}

std::string ClassId(const Bug& bug) {
  if (!Explains(bug.mechanism)) return absl::StrCat("unexplained-", bug.id);
  return absl::StrFormat(
      "%s-%s-%s-%08x", bug.mechanism.name,
      bug.mechanism.role.empty() ? "any" : bug.mechanism.role, bug.family,
      SignatureHash(ClassKey(bug)) & 0xffffffffu);
}

std::string ClassOpName(const Bug& bug) {
  if (bug.variant == "out") return absl::StrCat(bug.op, " (out=)");
  if (bug.variant == "inplace") return absl::StrCat(bug.op, " (in place)");
  return bug.op;
}

std::vector<BugClass> GroupClasses(const std::vector<Bug>& bugs) {
  std::map<std::string, BugClass> by_key;
  std::vector<std::string> order;
  for (const Bug& bug : bugs) {
    const std::string key = ClassKey(bug);
    auto [it, fresh] = by_key.try_emplace(key);
    BugClass& k = it->second;
    if (fresh) {
      order.push_back(key);
      k.id = ClassId(bug);
      k.key = key;
      k.mechanism = bug.mechanism;
      k.family = bug.family;
      k.severity = bug.severity;
      k.confidence = bug.confidence;
    }
    // Members name the argument differently ("out", "grad_input"): the
    // class speaks of its role.
    if (k.mechanism.argument != bug.mechanism.argument) {
      k.mechanism.argument.clear();
    }
    k.severity = std::min(k.severity, bug.severity);
    k.confidence = std::min(k.confidence, bug.confidence);
    k.members.push_back(bug.id);
    k.ops.insert(ClassOpName(bug));
    k.hits += bug.hits;
  }
  std::vector<BugClass> classes;
  for (const std::string& key : order) classes.push_back(by_key[key]);
  std::sort(classes.begin(), classes.end(),
            [](const BugClass& a, const BugClass& b) {
              const auto rank = [](const BugClass& k) {
                return std::make_tuple(k.confidence, k.severity,
                                       -static_cast<int64_t>(k.members.size()),
                                       -k.hits, k.id);
              };
              return rank(a) < rank(b);
            });
  return classes;
}

}  // namespace dpfuzz

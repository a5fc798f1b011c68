#include "fuzz/report_not_bugs.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"

namespace dpfuzz {
namespace {

using Json = nlohmann::json;

std::string StringField(const Json& j, const char* key) {
  return j.at(key).get<std::string>();
}

struct NotBugGroup {
  const Json* lead = nullptr;  // The finding with the most hits.
  int64_t findings = 0;
  int64_t hits = 0;
};

}  // namespace

Table NotBugsTable(const std::string& id, const std::string& title,
                   const Json& findings) {
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, NotBugGroup> groups;
  std::vector<Key> order;
  for (const Json& f : findings) {
    const Key key{StringField(f, "op"), StringField(f, "variant"),
                  StringField(f, "verdict")};
    auto [it, added] = groups.try_emplace(key);
    if (added) order.push_back(key);
    NotBugGroup& g = it->second;
    const int64_t hits = f.at("hits").get<int64_t>();
    if (g.lead == nullptr || hits > g.lead->at("hits").get<int64_t>()) {
      g.lead = &f;
    }
    ++g.findings;
    g.hits += hits;
  }
  Table t{
      id, title, {"findings", "op", "variant", "verdict", "hits", "evidence"}};
  for (const Key& key : order) {
    const NotBugGroup& g = groups.at(key);
    Cell lead = Link(StringField(*g.lead, "dir"));
    if (g.findings > 1) {
      lead.push_back(Piece{absl::StrCat("and ", g.findings - 1, " more")});
    }
    t.rows.push_back({"",
                      {lead, Code(std::get<0>(key)), Text(std::get<1>(key)),
                       Text(std::get<2>(key)), Text(absl::StrCat(g.hits)),
                       Text(StringField(*g.lead, "detail"))}});
  }
  return t;
}

}  // namespace dpfuzz

// BugClass: bugs of many ops that one kernel mistake explains, the unit a
// maintainer fixes once.
//
// Bugs whose representatives have the same mechanism (bug_mechanism.h:
// its name and detail), the same role of the argument it is about ("out",
// "input", "grad_output", ...) and the same verdict family form a class,
// across ops and overloads. A bug no mechanism explains is a class of its
// own. A class's id is stable as a bug's is: "writes_as_contiguous-out-
// wrong_values-1a2b3c4d" from its key, "unexplained-<bug id>" for one of
// its own. Classes rank as bugs do: high confidence first (any member),
// then the most severe member's severity, more members, more hits, id.
//
//   for (const BugClass& k : GroupClasses(bugs)) {
//     k.members  // {"contig_out_neg-out-wrong_values-...", ...}
//     k.ops      // {"planted_class::contig_out_neg.out", ...}
//   }

#ifndef DPFUZZ_CRASHES_BUGS_BUG_CLASS_H_
#define DPFUZZ_CRASHES_BUGS_BUG_CLASS_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "crashes/bugs/bug.h"

namespace dpfuzz {

struct BugClass {
  std::string id, key;
  // Its members' mechanism; the argument only when every member names the
  // same one (else "": the class speaks of the role).
  BugMechanism mechanism;
  std::string family;  // Verdict family.
  Severity severity = Severity::kContract;
  Confidence confidence = Confidence::kHigh;
  std::vector<std::string> members;  // Bug ids, in the bugs' rank order.
  std::set<std::string> ops;         // ClassOpName of each member.
  int64_t hits = 0;
};

// "writes_as_contiguous|out|wrong_values", with the mechanism's detail
// when it has one; "unexplained|<bug key>" for a bug no mechanism
// explains.
std::string ClassKey(const Bug& bug);
std::string ClassId(const Bug& bug);

// The op overload a class lists for a bug, with its variant when not
// functional: "aten::tril (out=)", "aten::add.Tensor (in place)".
std::string ClassOpName(const Bug& bug);

// `bugs` (GroupBugs' ranked list) into classes, ranked.
std::vector<BugClass> GroupClasses(const std::vector<Bug>& bugs);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_BUGS_BUG_CLASS_H_

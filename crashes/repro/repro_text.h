// Text shared by the repro emitters (crashes/repro/repro_python.h,
// crashes/repro/repro_cpp.h, crashes/bugs/issue_snippet.h): the header that
// explains a repro, the wrapping of long literal lists, Python's dtype names.
//
//   ReproHeader(plan, "# ")   // "# dpfuzz repro: aten::tril.out ..." lines
//   WrapItems({"1", "2"}, 8)  // "1, 2", broken before column 79

#ifndef DPFUZZ_CRASHES_REPRO_REPRO_TEXT_H_
#define DPFUZZ_CRASHES_REPRO_REPRO_TEXT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "crashes/repro/repro_plan.h"

namespace dpfuzz {

// The header comment of a repro, every line starting with `prefix`: the
// op, variant, verdict, versions, what the repro checks, the case, and the
// exit statuses.
std::string ReproHeader(const ReproPlan& plan, absl::string_view prefix);

// One sentence: what the check of `plan` compares.
std::string CheckDescription(const ReproPlan& plan);

// The items of an element list with every run of at least four poisoned
// elements replaced by run(count); element(e) spells one element.
std::vector<std::string> ElementItems(
    const std::vector<ReproElement>& elements,
    const std::function<std::string(const ReproElement&)>& element,
    const std::function<std::string(int64_t)>& run);

// "torch.float32" for DType::kFloat32: the dtype as Python spells it.
std::string TorchDType(DType dtype);

// `items` joined by ", ", broken into lines indented by `indent` spaces
// (the first line not indented) so that no line passes column 79.
std::string WrapItems(const std::vector<std::string>& items, int indent);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_REPRO_TEXT_H_

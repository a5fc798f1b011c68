// PythonRepro: a finding as a standalone Python script that a PyTorch
// maintainer can run with nothing but `torch` installed.
//
// The script rebuilds the case exactly as dpfuzz ran it (see
// crashes/repro/repro_plan.h): each tensor argument is torch.as_strided over an
// explicit storage listing every element, dpfuzz's poison in gaps and
// margins included, aliased arguments over one shared storage; the
// contiguous baseline holds the same logical values, each argument dense.
// It calls the schema through torch.ops.aten.<name>.<overload>, performs
// the one check that mirrors the oracle behind the verdict, prints
// "expected:" and "actual:" lines, and exits 1 when the bug shows, 0 when
// it does not and 2 when the script itself fails. A crash shows as the
// process dying by a signal; a timeout as "Timeout" and exit status 1.
//
//   absl::StatusOr<std::string> py =
//       PythonRepro(c, *FindCuratedOp("aten::cat"), Verdict::kMismatch);
//   // #!/usr/bin/env python3
//   // # dpfuzz repro: aten::cat.out (variant out), verdict mismatch. ...
//
// The layout of a script: a header comment (op, variant, verdict, LibTorch
// version, the case), the fixed prelude (crashes/repro/repro_python_prelude.h),
// then the case: constants, variant_tensors(), baseline_tensors(), call(),
// main().

#ifndef DPFUZZ_CRASHES_REPRO_REPRO_PYTHON_H_
#define DPFUZZ_CRASHES_REPRO_REPRO_PYTHON_H_

#include <string>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "generators/op_spec.h"
#include "oracles/verdict.h"

namespace dpfuzz {

// An error when the verdict is not a finding or the case does not fit the
// op's schema.
absl::StatusOr<std::string> PythonRepro(const Case& c, const OpSpec& spec,
                                        Verdict verdict);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_REPRO_PYTHON_H_

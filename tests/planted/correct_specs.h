// OpSpecs for the correct ops of correct_ops.cc, which dpfuzz must never
// report (tests/oracles/correct_ops_test.cc), and the contract rule one of
// them needs. Test code only.
//
//   AddCorrectOpRules();  // Before building cases of correct::* ops.
//   for (const OpSpec& spec : CorrectOps()) ... no finding ...

#ifndef DPFUZZ_TESTS_PLANTED_CORRECT_SPECS_H_
#define DPFUZZ_TESTS_PLANTED_CORRECT_SPECS_H_

#include <string>
#include <vector>

#include "generators/op_spec.h"

namespace dpfuzz {

// correct::widen_cumsum (mixed dtypes), correct::order_sum (an
// accumulation in half or bfloat16 whose order follows the layout, large
// enough to overflow half in one order only), correct::noisy (random
// values, judged as a generic op is: kRuleCheckDeterminism),
// correct::running_update (mutates running_mean by design),
// correct::grad_mode_path (another result by grad mode) and
// correct::unsteady_grad (a gradient that holds unwritten memory).
const std::vector<OpSpec>& CorrectOps();

// The spec of correct::NAME in CorrectOps(); nullptr when there is none.
const OpSpec* CorrectOp(const std::string& name);

// correct::flat_running_update, the control: running_update (float32) that
// writes running_mean as if it were contiguous. A finding on strided
// running_means.
const OpSpec& FlatRunningUpdateSpec();

// Registers running_mean of correct::running_update and of the control as
// mutated by design (generators/contract_rules.h); idempotent.
void AddCorrectOpRules();

}  // namespace dpfuzz

#endif  // DPFUZZ_TESTS_PLANTED_CORRECT_SPECS_H_

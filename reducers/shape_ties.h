// Shape ties: the tensors of a finding's case that have the same sizes,
// kept the same through reduction.
//
// The arguments of a real call are related: a backward op's grad_output
// has the shape of its forward's result, a right-size out= the shape of
// the result, the inputs of a pointwise op one shape. A case drawn or
// recorded with two tensors of the same sizes holds such a relation or may.
// A reduced case that gives them different sizes (a grad_out [2, 1] for an
// input [1, 1], a 0-dim grad_output for a self [2]) calls the op with
// arguments no caller makes: what the kernel reads there is undefined (a
// missing shape check at most), and a difference between its layouts is no
// bug a maintainer accepts. So a reduction keeps every tie of its original
// case: tied tensors shrink together (the passes resize every tensor of
// the same size at once before trying one alone) and a candidate that
// unties two is not run. A tensor the candidate no longer has (a dropped
// optional argument) is tied to nothing. Nested tensors are left out.
//
// The ops that read undefined memory for such arguments are those that
// trust their callers: private ops ("_foo") and backward ops, which
// autograd and other ops call with the arguments their forward made, and
// every call's gradients and written tensors (out=, an in-place self).
// A public forward op checks its inputs, as users call it: refused sizes
// are refused in every layout (no finding, so no candidate kept), and the
// sizes it takes (a 0-dim True mask over a self [2, 2], a source [4] for
// masked_scatter's self [2, 2]) are calls users make. Its inputs are tied
// to nothing.
//
//   ShapeTies ties(finding.c);
//   if (!ties.HeldBy(candidate)) return false;  // never run

#ifndef DPFUZZ_REDUCERS_SHAPE_TIES_H_
#define DPFUZZ_REDUCERS_SHAPE_TIES_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "generators/case.h"

namespace dpfuzz {

class ShapeTies {
 public:
  explicit ShapeTies(const Case& original);

  // True when every two tensors tied in the original that `candidate`
  // still has are of the same sizes.
  bool HeldBy(const Case& candidate) const;

  // Argument name and Tensor[] element (0 for a tensor argument; grad
  // outputs are named "grad_outputs").
  using TensorName = std::pair<std::string, size_t>;
  // Groups of two or more tied tensors of the same sizes.
  const std::vector<std::vector<TensorName>>& groups() const { return groups_; }

 private:
  std::vector<std::vector<TensorName>> groups_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_REDUCERS_SHAPE_TIES_H_

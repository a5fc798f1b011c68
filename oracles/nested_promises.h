// CheckNestedPromises: what a nested result says of its own layout holds.
//
// A nested tensor keeps, beside its buffer, each component's sizes,
// strides and storage offset (_nested_tensor_size, _nested_tensor_strides,
// the offsets). Kernels and unbind trust them, so a nested result must
// keep:
// - one row of sizes, strides and an offset per component, sizes and
//   strides of the components' rank, no negative size, stride or offset;
// - every component inside its buffer.
// (Whether it is contiguous LibTorch computes from the same metadata, so
// that claim cannot contradict it.)
//
//   if (std::optional<std::string> broken = CheckNestedPromises(result)) ...

#ifndef DPFUZZ_ORACLES_NESTED_PROMISES_H_
#define DPFUZZ_ORACLES_NESTED_PROMISES_H_

#include <ATen/ATen.h>

#include <optional>
#include <string>

namespace dpfuzz {

// The first promise `result` (a nested tensor) breaks, said in words;
// nullopt when it keeps them all or is not nested.
std::optional<std::string> CheckNestedPromises(const at::Tensor& result);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_NESTED_PROMISES_H_

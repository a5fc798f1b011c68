// Reference strided copies between a view in device memory and a dense
// device buffer, made without ATen.
//
// Note [Reference copies]
// To check an op on CUDA, dpfuzz must put values into strided device
// tensors and read results back out of them. If it used ATen's copy_ (or
// .contiguous(), .cpu()) for that, a bug in ATen's own strided copy kernels
// would either hide a bug in the op under test (the same wrong walk on both
// sides) or fake one. These copies are dpfuzz's own: one thread per
// element computes the storage index from sizes and strides with plain
// integer arithmetic (cuda/kernel_util.cuh) and moves the element's bytes,
// so they share no code with ATen and are checked against a host walk
// (tests/cuda/strided_copy_test.cc).
//
//   DeviceView view{storage, storage_bytes, 4, {{2, 3}, {1, 2}, 0}};
//   DPFUZZ_RETURN_IF_ERROR(GatherStrided(view, dense));   // 6 elements
//   DPFUZZ_RETURN_IF_ERROR(ScatterStrided(dense, view));  // and back
//
// Elements of any size in 1, 2, 4, 8, 16 bytes are moved bit for bit, as
// the widest words both pointers' alignment allows. Both functions run on
// the legacy default stream (which orders with LibTorch's default stream),
// wait for the copy to finish and return its errors (cuda/cuda_status.h);
// an empty view launches nothing. The dense buffer must not overlap the
// storage.

#ifndef DPFUZZ_CUDA_STRIDED_COPY_H_
#define DPFUZZ_CUDA_STRIDED_COPY_H_

#include "absl/status/status.h"
#include "cuda/device_view.h"

namespace dpfuzz {

// dense[i] = the view's i-th element in row-major order; `dense` holds
// numel * element_size bytes. Any view: expanded (zero strides) and
// overlapping views are read as they are.
absl::Status GatherStrided(const DeviceView& source, void* dense);

// The view's i-th element = dense[i]. A destination view in which two
// elements share storage (an expanded or otherwise overlapping view) has
// no defined result and is rejected with kInvalidArgument, as is one whose
// overlap cannot be decided (an interleaved view of over 2^20 elements).
// Storage outside the view is not touched.
absl::Status ScatterStrided(const void* dense, const DeviceView& destination);

}  // namespace dpfuzz

#endif  // DPFUZZ_CUDA_STRIDED_COPY_H_

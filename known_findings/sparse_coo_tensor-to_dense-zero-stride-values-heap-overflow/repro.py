"""Hand-written repro (see known_findings/README.md): to_dense() of a hybrid
sparse COO tensor whose values have a zero stride on their size-one dense
dim writes past the end of the dense result.

dpfuzz found it as aten::sparse_coo_tensor.indices_size with `values`
[1, 1]@[10, 0] (case.json; `dpfuzz replay` shows it on every run under
glibc's checking allocator). The write is a few bytes past a small
allocation, so one call corrupts the heap without always aborting; this
script repeats it until glibc notices. It dies by a signal (SIGABRT:
"corrupted size vs. prev_size", "free(): invalid next size") while the bug
is there, and exits 0 once it is fixed.
"""
import gc

import torch

for _ in range(1000):
    # Legal strides (size-one dims take any), contiguous by PyTorch's
    # definition; [1, 1]@[0, 0] gives zeros instead of the value.
    values = torch.ones(1).as_strided((1, 1), (10, 0))
    dense = torch.sparse_coo_tensor(torch.tensor([[0]]), values, (1, 1)).to_dense()
    del values, dense
    gc.collect()
print("to_dense returned 1000 times: the bug does not show")

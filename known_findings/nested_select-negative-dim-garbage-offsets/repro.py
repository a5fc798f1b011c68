#!/usr/bin/env python3
# Known finding: a strided nested tensor's select along a negative dim
# returns a nested tensor whose storage offsets are garbage (uninitialized
# memory), so reading it reads outside its buffer or corrupts the heap.
# Hand-written: dpfuzz's generated repro.py does not check a nested
# result's own metadata yet. Exits 1 while the bug is there, 0 once fixed
# (and on 1.13, which selects nested tensors along dim 0 only).
import sys
import warnings

import torch

warnings.filterwarnings("ignore")
nt = torch.nested.nested_tensor([torch.arange(6.).view(2, 3),
                                 torch.arange(6.).view(2, 3) + 6])
try:
    expected = nt.select(2, 1)  # the same dim, counted from the front
    actual = nt.select(-1, 1)
except Exception as e:  # A clean error is no bug.
    print("select raises:", str(e).splitlines()[0])
    sys.exit(0)
want = expected._nested_tensor_storage_offsets().tolist()
got = actual._nested_tensor_storage_offsets().tolist()
print("storage offsets of select(-1, 1):", got, "of select(2, 1):", want)
sys.exit(0 if got == want else 1)

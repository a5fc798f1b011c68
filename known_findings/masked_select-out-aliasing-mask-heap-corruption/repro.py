# masked_select(self, mask, out=out) where `out` shares memory with `mask`
# corrupts the heap (LibTorch 1.13): the kernel sizes `out` from the mask,
# then writes through `out` into the mask it is still reading, and writes
# past the end of the storage. PyTorch should reject the aliasing (as
# TensorIterator ops do with "unsupported operation: some elements of the
# input tensor and the written-to tensor refer to a single memory location").
# The process aborts ("double free or corruption", "free(): invalid next
# size") within a few hundred tries; exit status 1 if the call returns
# wrong values, 0 if every call is rejected or correct.
import sys
import torch

torch.manual_seed(0)
for trial in range(2000):
    storage = torch.randint(0, 2, (20,), dtype=torch.bool)
    mask = storage.as_strided((2, 1), (1, 4), 0)
    out = storage.as_strided((6,), (3,), 0)
    self_ = torch.randint(0, 2, (12,), dtype=torch.bool).as_strided((3, 2, 2), (1, 3, 6), 0)
    expected = torch.masked_select(self_, mask.clone())
    try:
        torch.masked_select(self_, mask, out=out)
    except RuntimeError as e:
        print("rejected:", e)
        sys.exit(0)
    if not torch.equal(out[: expected.numel()], expected):
        print("trial", trial, "expected", expected.tolist(), "actual", out.tolist())
        sys.exit(1)
print("no wrong result in 2000 trials")

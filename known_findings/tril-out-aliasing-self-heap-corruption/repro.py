# tril(self, -1, out=out) where `out` partly overlaps `self` in one storage
# (both strided) corrupts the heap (LibTorch 1.13, CPU): the process aborts
# with "free(): invalid pointer" or "double free or corruption". PyTorch
# should reject the overlap or compute as if there were none. triu behaves
# the same. Run it: an abort (exit status 134) is the bug; 0 means fixed.
import torch

for trial in range(200):
    storage = torch.randn(80).half()
    self_ = storage.as_strided((3, 2, 3, 4), (2, 1, 24, 6), 4)
    out = storage.as_strided((3, 2, 3, 4), (12, 36, 1, 3), 2)
    try:
        torch.tril(self_, -1, out=out)
    except RuntimeError as e:
        print("rejected:", e)
        break
print("survived 200 calls")

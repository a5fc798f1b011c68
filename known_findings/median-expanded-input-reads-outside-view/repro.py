# median(self, dim) on an expanded input (stride 0) returns a value that is
# not in the input: the kernel reads storage outside the view (LibTorch
# 1.13, CPU). Here the storage holds 7 followed by -999; every element of
# the view is 7, and median returns -999. Exit status 1 while the bug is
# there.
import sys
import torch

storage = torch.full((8,), -999, dtype=torch.int16)
storage[0] = 7
x = storage.as_strided((2,), (0,), 0)  # [7, 7], expanded
actual = torch.median(x, 0).values.item()
expected = torch.median(x.contiguous(), 0).values.item()
print("expected:", expected, "actual:", actual)
sys.exit(0 if actual == expected else 1)

# self.masked_scatter_(mask, source) on a non-contiguous self takes source
# elements in self's memory order instead of its logical order (LibTorch
# 1.13, CPU). Same root cause as masked_select's wrong gradient. Exit
# status 1 while the bug is there.
import sys
import torch

self_ = torch.zeros(2, 2).t()  # transposed
source = torch.tensor([1.0, 2.0, 3.0, 4.0])
actual = self_.clone(memory_format=torch.preserve_format).masked_scatter_(torch.tensor(True), source)
expected = source.reshape(2, 2)  # logical (row-major) order
print("expected:", expected.tolist(), "actual:", actual.tolist())
sys.exit(0 if torch.equal(actual, expected) else 1)

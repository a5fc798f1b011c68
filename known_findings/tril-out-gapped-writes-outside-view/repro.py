# tril(self, 1, out=out) with a gapped (non-dense) `out` writes storage
# outside `out`'s view and leaves wrong values in it (LibTorch 1.13, CPU);
# no aliasing involved. Exit status 1 while the bug is there.
import sys
import torch

s = torch.arange(48, dtype=torch.int8).reshape(4, 4, 3, 1)
storage = torch.full((500,), -91, dtype=torch.int8)
out = storage.as_strided((4, 4, 3, 1), (108, 3, 12, 12), 5)
torch.tril(s, 1, out=out)
inside = torch.zeros(500, dtype=torch.bool)
inside[torch.arange(500).as_strided((4, 4, 3, 1), (108, 3, 12, 12), 5).flatten()] = True
outside_writes = int((storage[~inside] != -91).sum())
values_ok = torch.equal(out, torch.tril(s, 1))
print("elements written outside the view:", outside_writes, "values right:", values_ok)
sys.exit(0 if outside_writes == 0 and values_ok else 1)

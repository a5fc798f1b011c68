# cat([empty, b, empty], dim=0, out=out) into a strided `out` leaves `out`
# unwritten (LibTorch 1.13, CPU) when the empty inputs are themselves
# strided. Exit status 1 while the bug is there.
import sys
import torch

a = torch.empty(10).as_strided((0, 1), (2, 2), 3)
b = torch.tensor([[-7.0]])
c = torch.empty(10).as_strided((0, 1), (1, 1), 0)
storage = torch.full((20,), 99.0)
out = storage.as_strided((1, 1), (2, 12), 5)
torch.cat([a, b, c], -2, out=out)
expected = torch.cat([a.contiguous(), b, c.contiguous()], -2)
print("expected:", expected.tolist(), "actual:", out.tolist())
sys.exit(0 if torch.equal(out, expected) else 1)

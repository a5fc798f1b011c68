# conv2d forward accepts a non-contiguous weight, but its backward (the
# slow_conv2d path, float64 on CPU) raises "slow_conv2d: grad_weight must be
# contiguous" (LibTorch 1.13): a layout the forward takes must not break
# backward. Exit status 1 while the bug is there.
import sys, torch
torch.manual_seed(0)
inp = torch.randn(40, dtype=torch.float64).as_strided((1, 2, 2, 3), (12, 1, 6, 2), 2).detach().requires_grad_()
w = torch.randn(120, dtype=torch.float64).as_strided((2, 2, 2, 1), (4, 1, 2, 52), 2).detach().requires_grad_()
y = torch.nn.functional.conv2d(inp, w, None, stride=(2, 1), padding=(1, 0))
g = torch.randn(120, dtype=torch.float64).as_strided(y.shape, (57, 1, 6, 2), 0)
try:
    y.backward(g); print("backward ok")
except RuntimeError as e:
    print("backward raised:", str(e).splitlines()[0])
    sys.exit(1)

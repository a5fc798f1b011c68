# max_pool2d with a dilated window that lies entirely in the padding
# returns -inf and an index past the end of the input (LibTorch 1.13, CPU).
# Its backward then scatters the gradient to that index, writing outside
# grad_input: in a long run glibc aborts ("free(): invalid next size").
# Exit status 1 while the bug is there.
import sys
import torch

x = torch.randn(1, 1, 1, 1, requires_grad=True)
y, index = torch.nn.functional.max_pool2d(
    x, kernel_size=(1, 2), stride=1, padding=(0, 1), dilation=2, return_indices=True)
print("output:", y.tolist(), "index:", index.tolist(), "input width:", x.shape[-1])
sys.exit(1 if (index >= x.shape[-2] * x.shape[-1]).any() else 0)

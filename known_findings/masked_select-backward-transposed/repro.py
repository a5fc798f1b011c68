# masked_select's gradient is scattered in memory order, not logical order,
# when the input is not contiguous (LibTorch 1.13: masked_select_backward
# calls masked_scatter_ on zeros_like(input) with input's strides, and the
# CPU masked_scatter_ kernel consumes its source in memory order).
# Exit status 1 while the bug is there.
import sys
import torch

storage = torch.zeros(4)
x = storage.as_strided((2, 2), (1, 2), 0).detach().requires_grad_()  # transposed
mask = torch.tensor(True)
grad_output = torch.tensor([1.0, 2.0, 3.0, 4.0])
torch.masked_select(x, mask).backward(grad_output)
expected = grad_output.reshape(2, 2)  # masked_select reads x in logical order
print("expected:", expected.tolist())
print("actual:  ", x.grad.tolist())
sys.exit(0 if torch.equal(x.grad, expected) else 1)

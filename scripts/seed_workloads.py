"""Seed workloads: calls PyTorch's test databases never make.

OpInfo, ModuleInfo and the legacy nn tests leave ops without one valid
sample: packed sequences through the RNN layers, forward-mode AD's
helpers, fused optimizers, AMP's scaler, Sobol's engine, the slow
convolution kernels the dispatcher only reaches on some builds, and the
weight-packing matmuls. Each workload below is what a user (or PyTorch
itself, for private ops) would call, with arguments whose relations the
op needs (lengths sorted, indices in range, groups that divide). They run
under harvest_seeds.py's recording, so every aten call they reach is kept
as a seed; an op called directly through `aten(...)` (composite ops a
dispatch mode never sees, private ops no binding exposes) is kept only when
the call succeeds. A workload that needs what a torch version lacks fails
there and records nothing, which is how a version without an op skips it.

    for workload in WORKLOADS:
        run_sample(seeds, lambda: workload(aten))
"""

import torch
import torch.nn.functional as F
from torch import nn

F64 = torch.float64


def _randn(*sizes, dtype=torch.float32, grad=False):
    return torch.randn(sizes, dtype=dtype).requires_grad_(grad)


def linalg_cond_by_name(aten):
    a = _randn(2, 4, 4, dtype=F64)
    for p in ("fro", "nuc"):
        torch.linalg.cond(a, p)
        aten("linalg_cond.p_str", a, p)


def assertions(aten):
    ok = torch.tensor(True)
    aten("_assert_async", torch.tensor(1.0))
    aten("_assert_async.msg", ok, "holds")
    token = torch.ops.aten._make_dep_token()
    aten("_functional_assert_async.msg", ok, "holds", token)
    aten("_functional_assert_scalar", 1, "holds", token)


def affine_grids(aten):
    for align_corners in (False, True):
        theta = _randn(2, 2, 3, grad=True)
        out = F.affine_grid(theta, [2, 3, 4, 5], align_corners=align_corners)
        out.sum().backward()
        theta = _randn(2, 3, 4, grad=True)
        aten("affine_grid_generator", theta, [2, 1, 3, 4, 5], align_corners)


def trace_gradients(aten):
    for sizes in ([3, 4], [5, 2]):
        aten("trace_backward", _randn(), sizes)


def scatter_reducing_a_value(aten):
    x = _randn(4, 3)
    index = torch.randint(0, 4, (2, 3))
    for reduce in ("add", "multiply"):
        torch.scatter(x, 0, index, 1.5, reduce=reduce)


def inverse_stfts(aten):
    window = torch.hann_window(32)
    signal = _randn(2, 300)
    for normalized in (False, True):
        spec = torch.stft(signal, 32, hop_length=8, window=window,
                          normalized=normalized, return_complex=True)
        torch.istft(spec, 32, hop_length=8, window=window,
                    normalized=normalized, length=290)


def glu_forward_ad(aten):
    x, dx = _randn(4, 6, dtype=F64), _randn(4, 6, dtype=F64)
    glu = F.glu(x, 1)
    aten("glu_jvp", glu, x, dx, 1)
    grad_glu, dgrad_glu = torch.randn_like(glu), torch.randn_like(glu)
    grad_x = torch.ops.aten.glu_backward(grad_glu, x, 1)
    aten("glu_backward_jvp", grad_x, grad_glu, x, dgrad_glu, dx, 1)


def time_batch_channel_convolution(aten):
    x, w, b = _randn(7, 2, 3, grad=True), _randn(3, 3, 4, grad=True), \
        _randn(4, grad=True)
    torch.conv_tbc(x, w, b, 1).sum().backward()


def slow_convolutions(aten):
    for dtype in (torch.float32, F64):
        x, b = _randn(2, 3, 7, 6, dtype=dtype), _randn(4, dtype=dtype)
        w = _randn(4, 3, 3, 2, dtype=dtype)
        aten("slow_conv_dilated2d", x, w, [3, 2], b, [1, 1], [1, 0], [2, 1])
        aten("thnn_conv2d", x, w, [3, 2], b, [2, 1], [1, 1])
        aten("_slow_conv2d_forward", x, w, [3, 2], b, [1, 1], [0, 1])
        x3, w3 = _randn(1, 2, 5, 6, 5, dtype=dtype), \
            _randn(3, 2, 3, 2, 3, dtype=dtype)
        aten("slow_conv_dilated3d", x3, w3, [3, 2, 3], None, [1, 1, 1],
             [1, 0, 1], [1, 2, 1])
        wt = _randn(2, 3, 3, 2, 2, dtype=dtype)
        aten("slow_conv_transpose3d", x3, wt, [3, 2, 2], None, [2, 1, 1],
             [1, 0, 0], [1, 0, 0], [1, 1, 1])


def attention_fast_path(aten):
    mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    q = _randn(2, 5, 8)
    with torch.no_grad():
        mha(q, q, q, need_weights=False)
        mha(q, q, q, need_weights=True)


def packed_sequences(aten):
    x = _randn(5, 3, 4, grad=True)
    packed = nn.utils.rnn.pack_padded_sequence(x, torch.tensor([5, 3, 2]))
    outputs = []
    for layer in (nn.GRU(4, 6, 2), nn.LSTM(4, 6), nn.RNN(4, 6),
                  nn.RNN(4, 6, nonlinearity="relu", bidirectional=True)):
        out, _ = layer(packed)
        outputs.append(nn.utils.rnn.pad_packed_sequence(out)[0].sum())
        outputs.append(layer(x)[0].sum())
    sum(outputs).backward()
    aten("_pack_padded_sequence_backward", _randn(10, 4), [5, 3, 4],
         packed.batch_sizes, False)


def fused_optimizer_steps(aten):
    def lists(n=2):
        return [_randn(5) for _ in range(n)]
    steps = [torch.tensor(3.0) for _ in range(2)]
    for name in ("_fused_adam", "_fused_adamw"):
        for lr, overload in ((0.01, ""), (torch.tensor(0.01), ".tensor_lr")):
            aten(name + overload, lists(), lists(), lists(),
                 [t.abs() for t in lists()], [t.abs() for t in lists()],
                 steps, lr=lr, beta1=0.9, beta2=0.999, weight_decay=0.01,
                 eps=1e-8, amsgrad=True, maximize=False)
    lr = torch.tensor(0.01)
    aten("_fused_adagrad", lists(), lists(), [t.abs() for t in lists()],
         steps, lr=0.01, lr_decay=0.0, weight_decay=0.0, eps=1e-10,
         maximize=False)
    aten("_fused_adagrad.tensor_lr", lists(), lists(),
         [t.abs() for t in lists()], steps, lr=lr, lr_decay=0.0,
         weight_decay=0.0, eps=1e-10, maximize=False)
    for name in ("_foreach_addcdiv.Tensor", "_foreach_addcmul.Tensor"):
        aten(name, lists(3), lists(3), [t.abs() + 1 for t in lists(3)],
             torch.tensor([0.5, -1.0, 2.0]))


def grad_scaling(aten):
    grads = [_randn(3, 4), torch.tensor([1.0, float("inf")])]
    aten("_amp_foreach_non_finite_check_and_unscale", grads, torch.zeros(1),
         torch.tensor([0.5]))
    for found_inf in (0.0, 1.0):
        aten("_amp_update_scale", torch.tensor([65536.0]),
             torch.tensor([3], dtype=torch.int32), torch.tensor([found_inf]),
             2.0, 0.5, 4)


def sobol_sequences(aten):
    for scramble in (False, True):
        engine = torch.quasirandom.SobolEngine(3, scramble=scramble, seed=0)
        engine.draw(5)
        engine.fast_forward(4)
        engine.draw(3, dtype=F64)


def reshape_by_tensor(aten):
    aten("_reshape_from_tensor", _randn(6), torch.tensor([2, 3]))


def integer_and_packed_matmuls(aten):
    a = torch.randint(-8, 8, (32, 16), dtype=torch.int8)
    b = torch.randint(-8, 8, (16, 8), dtype=torch.int8)
    aten("_int_mm", a, b)
    for dtype in (torch.float32, torch.bfloat16):
        x = _randn(4, 16, dtype=dtype)
        aten("_weight_int8pack_mm", x,
             torch.randint(-8, 8, (8, 16), dtype=torch.int8),
             torch.rand(8, dtype=dtype) + 0.5)
    weight = torch.randint(0, 16, (16, 64), dtype=torch.int32)
    packed = aten("_convert_weight_to_int4pack_for_cpu", weight, 2)
    scales_and_zeros = torch.rand(2, 16, 2, dtype=torch.bfloat16)
    aten("_weight_int4pack_mm_for_cpu", _randn(3, 64, dtype=torch.bfloat16),
         packed, 32, scales_and_zeros)


def dynamically_quantized_matmul(aten):
    in_features, out_features, block_size = 64, 16, 32
    for bias in (None, _randn(out_features)):
        packed = aten("_dyn_quant_pack_4bit_weight",
                      torch.randint(0, 16, (out_features, in_features // 2),
                                    dtype=torch.uint8),
                      torch.rand(out_features, in_features // block_size),
                      bias, block_size, in_features, out_features)
        aten("_dyn_quant_matmul_4bit", _randn(3, in_features), packed,
             block_size, in_features, out_features)


def fake_quantization(aten):
    x = _randn(2, 3, 4, grad=True)
    scale = torch.rand(3) + 0.1
    zero_point = torch.randint(0, 255, (3,), dtype=torch.int32)
    torch.fake_quantize_per_channel_affine(x, scale, zero_point, 1, 0,
                                           255).sum().backward()
    learnable = torch._fake_quantize_learnable_per_channel_affine(
        x, scale.requires_grad_(), zero_point.float().requires_grad_(), 1, 0,
        255, 1.0)
    learnable.sum().backward()


def antialiased_and_exact_resizing(aten):
    for mode, antialias in (("bilinear", True), ("bicubic", True),
                            ("nearest-exact", False)):
        x = _randn(1, 2, 6, 5, grad=True)
        F.interpolate(x, scale_factor=0.6, mode=mode,
                      antialias=antialias).sum().backward()
    # 1.13's dispatch mode never sees these backward ops: called directly.
    for name in ("_upsample_bilinear2d_aa_backward",
                 "_upsample_bicubic2d_aa_backward"):
        for align_corners in (False, True):
            aten(name, _randn(1, 2, 4, 3), [4, 3], [1, 2, 6, 5],
                 align_corners)
    for sizes in ((1, 2, 6), (1, 2, 6, 5), (1, 2, 4, 3, 5)):
        out = [size * 3 // 2 for size in sizes[2:]]
        aten(f"_upsample_nearest_exact{len(out)}d_backward",
             _randn(*sizes[:2], *out), out, list(sizes))


def grouped_matmul(aten):
    a = _randn(6, 16, dtype=torch.bfloat16)
    b = _randn(2, 16, 8, dtype=torch.bfloat16)
    aten("_grouped_mm", a, b, torch.tensor([2, 6], dtype=torch.int32))



def sparse_diagonals(aten):
    diagonals = _randn(2, 5)
    torch.sparse.spdiags(diagonals, torch.tensor([0, -1]), (5, 4))


def nested_from_dense(aten):
    padded = _randn(2, 3, 4)
    mask = torch.tensor([[True, True, False], [True, True, True]])
    aten("_nested_tensor_from_mask", padded, mask, False)
    aten("_nested_from_padded", padded, torch.tensor([[2, 4], [3, 4]]), False)
    aten("_nested_tensor_from_tensor_list", [_randn(2, 4), _randn(3, 4)])


WORKLOADS = (
    linalg_cond_by_name, assertions, affine_grids, trace_gradients,
    scatter_reducing_a_value, inverse_stfts, glu_forward_ad,
    time_batch_channel_convolution, slow_convolutions, attention_fast_path,
    packed_sequences, fused_optimizer_steps, grad_scaling, sobol_sequences,
    reshape_by_tensor, integer_and_packed_matmuls,
    dynamically_quantized_matmul, fake_quantization,
    antialiased_and_exact_resizing, grouped_matmul, sparse_diagonals,
    nested_from_dense,
)

// Curated specs: neural-network ops (convolution, pooling, normalization,
// softmax, losses, embedding, upsampling).
//
// Image ops take rank-4 NCHW inputs (sometimes unbatched CHW where the op
// allows it), so that the engine's channels_last layouts apply. Window
// geometry is drawn so that every output has at least one element and
// padding stays within what each op accepts.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "generators/geometry.h"
#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

OpSpec Nn(std::string op, std::string overload, std::string out,
          Comparison comparison, std::vector<DType> dtypes,
          std::function<std::vector<Argument>(Rng&, DType)> make) {
  return OpSpec{.op = std::move(op),
                .overload = std::move(overload),
                .out_overload = std::move(out),
                .family = "nn",
                .differentiable = true,
                .comparison = comparison,
                .dtypes = std::move(dtypes),
                .make_args = std::move(make)};
}

// What most CPU nn kernels of 1.13 dispatch over: no Half, no integers.
std::vector<DType> FloatDoubleBFloat16() {
  return {DType::kBFloat16, DType::kFloat32, DType::kFloat64};
}

// An int[2] argument: one value (applied to both dims) or two.
Dims Pair(int64_t h, int64_t w, Rng& rng) {
  return h == w && rng.OneIn(3) ? Dims{h} : Dims{h, w};
}

// A tensor of `sizes`, or None one time in three.
ArgValue Optional(const Dims& sizes, DType dtype, Rng& rng) {
  if (rng.OneIn(3)) return std::monostate{};
  return Values(sizes, dtype, rng);
}

// [N, C, H, W] (or [C, H, W] when `unbatched_ok`, one time in five).
Dims Image(int64_t n, int64_t c, int64_t h, int64_t w, bool unbatched_ok,
           Rng& rng) {
  if (unbatched_ok && rng.OneIn(5)) return {c, h, w};
  return {n, c, h, w};
}

std::vector<Argument> Conv2dArgs(Rng& rng, DType dtype) {
  const int64_t groups = rng.Uniform(1, 2);
  const int64_t in = groups * rng.Uniform(1, 2);
  const int64_t out = groups * rng.Uniform(1, 2);
  const int64_t kh = rng.Uniform(1, 3), kw = rng.Uniform(1, 3);
  const int64_t dilation = rng.Uniform(1, 2);
  const int64_t stride_h = rng.Uniform(1, 2), stride_w = rng.Uniform(1, 2);
  const int64_t pad_h = rng.Uniform(0, 1), pad_w = rng.Uniform(0, 1);
  // The padded input covers the dilated kernel at least once.
  const int64_t h = std::max<int64_t>(1, dilation * (kh - 1) + 1 - 2 * pad_h) +
                    rng.Uniform(0, 2);
  const int64_t w = std::max<int64_t>(1, dilation * (kw - 1) + 1 - 2 * pad_w) +
                    rng.Uniform(0, 2);
  return {Arg("input", Values(Image(rng.Uniform(1, 2), in, h, w, true, rng),
                              dtype, rng)),
          Arg("weight", Values({out, in / groups, kh, kw}, dtype, rng)),
          Arg("bias", Optional({out}, dtype, rng)),
          Arg("stride", Pair(stride_h, stride_w, rng)),
          Arg("padding", Pair(pad_h, pad_w, rng)),
          Arg("dilation", Dims{dilation}),
          Arg("groups", groups)};
}

std::vector<Argument> ConvTranspose2dArgs(Rng& rng, DType dtype) {
  const int64_t groups = rng.Uniform(1, 2);
  const int64_t in = groups * rng.Uniform(1, 2);
  const int64_t out = groups * rng.Uniform(1, 2);
  const int64_t k = rng.Uniform(1, 3);
  const int64_t stride = rng.Uniform(1, 2);
  const int64_t dilation = rng.Uniform(1, 2);
  // output_padding must be smaller than stride or dilation.
  const int64_t output_padding = rng.Uniform(0, std::max(stride, dilation) - 1);
  const int64_t h = rng.Uniform(1, 3), w = rng.Uniform(1, 3);
  int64_t padding = rng.Uniform(0, 1);
  // The output size (h - 1) * stride - 2 * padding + dilation * (k - 1) +
  // output_padding + 1 must be positive in both dims.
  const int64_t unpadded =
      (std::min(h, w) - 1) * stride + dilation * (k - 1) + output_padding + 1;
  if (unpadded - 2 * padding <= 0) padding = 0;
  return {Arg("input", Values(Image(rng.Uniform(1, 2), in, h, w, true, rng),
                              dtype, rng)),
          Arg("weight", Values({in, out / groups, k, k}, dtype, rng)),
          Arg("bias", Optional({out}, dtype, rng)),
          Arg("stride", Dims{stride}),
          Arg("padding", Dims{padding}),
          Arg("output_padding", Dims{output_padding}),
          Arg("groups", groups),
          Arg("dilation", Dims{dilation})};
}

// Window geometry shared by the pooling ops: kernel, stride (sometimes
// omitted: the kernel), padding at most half the kernel, and an input at
// least one (dilated) window tall and wide.
struct Window {
  int64_t kh, kw, pad_h, pad_w, h, w;
  Dims stride;
};

Window RandomWindow(int64_t dilation, Rng& rng) {
  Window win;
  win.kh = rng.Uniform(1, 3);
  win.kw = rng.Uniform(1, 3);
  win.pad_h = rng.Uniform(0, win.kh / 2);
  win.pad_w = rng.Uniform(0, win.kw / 2);
  win.h = std::max<int64_t>(1, dilation * (win.kh - 1) + 1 - 2 * win.pad_h) +
          rng.Uniform(0, 3);
  win.w = std::max<int64_t>(1, dilation * (win.kw - 1) + 1 - 2 * win.pad_w) +
          rng.Uniform(0, 3);
  if (!rng.OneIn(4))
    win.stride = Pair(rng.Uniform(1, 2), rng.Uniform(1, 2), rng);
  return win;
}

std::vector<Argument> MaxPool2dArgs(Rng& rng, DType dtype) {
  const int64_t dilation = rng.Uniform(1, 2);
  const Window win = RandomWindow(dilation, rng);
  return {Arg("self", Values(Image(rng.Uniform(1, 2), rng.Uniform(1, 3), win.h,
                                   win.w, true, rng),
                             dtype, rng)),
          Arg("kernel_size", Pair(win.kh, win.kw, rng)),
          Arg("stride", win.stride),
          Arg("padding", Pair(win.pad_h, win.pad_w, rng)),
          Arg("dilation", Dims{dilation}),
          Arg("ceil_mode", rng.OneIn(3))};
}

std::vector<Argument> AvgPool2dArgs(Rng& rng, DType dtype) {
  const Window win = RandomWindow(1, rng);
  std::vector<Argument> args = {
      Arg("self", Values(Image(rng.Uniform(1, 2), rng.Uniform(1, 3), win.h,
                               win.w, true, rng),
                         dtype, rng)),
      Arg("kernel_size", Pair(win.kh, win.kw, rng)),
      Arg("stride", win.stride),
      Arg("padding", Pair(win.pad_h, win.pad_w, rng)),
      Arg("ceil_mode", rng.OneIn(3)),
      Arg("count_include_pad", !rng.OneIn(3))};
  if (rng.OneIn(4)) args.push_back(Arg("divisor_override", rng.Uniform(1, 5)));
  return args;
}

std::vector<Argument> AdaptiveAvgPool2dArgs(Rng& rng, DType dtype) {
  return {
      Arg("self", Values(Image(rng.Uniform(1, 2), rng.Uniform(1, 3),
                               rng.Uniform(1, 5), rng.Uniform(1, 5), true, rng),
                         dtype, rng)),
      Arg("output_size", Dims{rng.Uniform(1, 4), rng.Uniform(1, 4)})};
}

// Note [Degenerate statistics]
// Training normalizes two elements of a channel to exactly -1 and 1
// whatever their values, and its input gradient is then identically zero:
// what a kernel returns is the rounding noise of terms that cancel (about
// u * |grad_output| / std), which neither the magnitude nor the
// sensitivity of Note [Accumulation error] (oracles/compare.h) can
// measure, the function being flat. Such statistics say nothing about
// layouts, so they are drawn over at least three elements.
constexpr int64_t kMinStatisticElements = 3;

// The running statistics of a norm over `c` channels, or None for both.
void AddRunningStats(int64_t c, bool defined, DType dtype, Rng& rng,
                     std::vector<Argument>& args) {
  if (!defined) {
    args.push_back(Arg("running_mean", std::monostate{}));
    args.push_back(Arg("running_var", std::monostate{}));
    return;
  }
  args.push_back(Arg("running_mean", Values({c}, dtype, rng)));
  args.push_back(Arg("running_var", NonNegative({c}, dtype, 5, rng)));
}

// Inference with running statistics, or training with or without them;
// training updates them in place (generators/contract_rules.h).
std::vector<Argument> BatchNormArgs(Rng& rng, DType dtype) {
  const int64_t n = rng.Uniform(1, 3), c = rng.Uniform(1, 3);
  Dims input = {n, c};
  for (int64_t i = rng.Uniform(0, 2); i > 0; --i) {
    input.push_back(rng.Uniform(1, 3));
  }
  const bool training =
      rng.OneIn(2) && ComputeNumel(input) / c >= kMinStatisticElements;
  std::vector<Argument> args = {Arg("input", Values(input, dtype, rng)),
                                Arg("weight", Optional({c}, dtype, rng)),
                                Arg("bias", Optional({c}, dtype, rng))};
  AddRunningStats(c, !training || rng.OneIn(2), dtype, rng, args);
  args.push_back(Arg("training", training));
  args.push_back(Arg("momentum", FloatArg{0.1}));
  args.push_back(Arg("eps", FloatArg{1e-5}));
  args.push_back(Arg("cudnn_enabled", false));
  return args;
}

// [N, C, *spatial], statistics per (n, c) over the spatial elements when
// use_input_stats (updating running statistics given, averaged over N),
// else the running ones.
std::vector<Argument> InstanceNormArgs(Rng& rng, DType dtype) {
  const int64_t c = rng.Uniform(1, 3);
  const bool use_input_stats = !rng.OneIn(4);
  Dims input = {rng.Uniform(1, 2), c};
  int64_t spatial = 1;
  for (int64_t i = rng.Uniform(1, 2); i > 0; --i) {
    input.push_back(rng.Uniform(1, 4));
    spatial *= input.back();
  }
  if (spatial < kMinStatisticElements) input.back() = kMinStatisticElements;
  std::vector<Argument> args = {Arg("input", Values(input, dtype, rng)),
                                Arg("weight", Optional({c}, dtype, rng)),
                                Arg("bias", Optional({c}, dtype, rng))};
  AddRunningStats(c, !use_input_stats || rng.OneIn(2), dtype, rng, args);
  args.push_back(Arg("use_input_stats", use_input_stats));
  args.push_back(Arg("momentum", FloatArg{0.1}));
  args.push_back(Arg("eps", FloatArg{1e-5}));
  args.push_back(Arg("cudnn_enabled", false));
  return args;
}

std::vector<Argument> LayerNormArgs(Rng& rng, DType dtype) {
  const Dims input = RandomShape(rng, 1, 4);
  const auto k = rng.Uniform(1, static_cast<int64_t>(input.size()));
  const Dims normalized(input.end() - k, input.end());
  return {Arg("input", Values(input, dtype, rng)),
          Arg("normalized_shape", normalized),
          Arg("weight", Optional(normalized, dtype, rng)),
          Arg("bias", Optional(normalized, dtype, rng))};
}

std::vector<Argument> GroupNormArgs(Rng& rng, DType dtype) {
  const int64_t groups = rng.Uniform(1, 3);
  const int64_t c = groups * rng.Uniform(1, 2);
  Dims input = {rng.Uniform(1, 2), c};
  for (int64_t i = rng.Uniform(0, 2); i > 0; --i) {
    input.push_back(rng.Uniform(1, 3));
  }
  return {Arg("input", Values(input, dtype, rng)), Arg("num_groups", groups),
          Arg("weight", Optional({c}, dtype, rng)),
          Arg("bias", Optional({c}, dtype, rng))};
}

std::vector<Argument> SoftmaxArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 0, 4);
  return {Arg("self", Values(self, dtype, rng)),
          Arg("dim", RandomDim(rng, static_cast<int64_t>(self.size())))};
}

// Class scores [N, C, d1, ...] (or [C]) and class targets [N, d1, ...]
// (or []); ignore_index is sometimes a real class. `max_rank` of scores.
std::vector<Argument> NllArgs(Rng& rng, DType dtype, int max_rank) {
  const int64_t c = rng.Uniform(1, 4);
  const int rank = static_cast<int>(rng.Uniform(1, max_rank));
  Dims scores = {c};
  Dims target;
  if (rank >= 2) {
    scores.insert(scores.begin(), rng.Uniform(1, 3));
    target.push_back(scores[0]);
  }
  for (int i = 2; i < rank; ++i) {
    scores.push_back(rng.Uniform(1, 3));
    target.push_back(scores.back());
  }
  std::vector<Argument> args = {Arg("self", Values(scores, dtype, rng)),
                                Arg("target", Indices(target, c, rng)),
                                Arg("weight", Optional({c}, dtype, rng)),
                                Arg("reduction", rng.Uniform(0, 2))};
  if (rng.OneIn(3)) args.push_back(Arg("ignore_index", rng.Uniform(0, c - 1)));
  return args;
}

std::vector<Argument> NllLossArgs(Rng& rng, DType dtype) {
  return NllArgs(rng, dtype, 2);
}

std::vector<Argument> NllLossNdArgs(Rng& rng, DType dtype) {
  return NllArgs(rng, dtype, 4);
}

std::vector<Argument> CrossEntropyArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = NllArgs(rng, dtype, 4);
  if (rng.OneIn(3)) {
    // Class probabilities instead of class indices: same shape as self,
    // and no ignore_index.
    const auto& self = std::get<TensorSpec>(args[0].value);
    args[1].value = Values(self.layout.sizes, dtype, rng);
    if (args.size() > 4) args.pop_back();
  }
  args.push_back(Arg("label_smoothing",
                     FloatArg{rng.Pick(std::vector<double>{0, 0, 0.1, 0.5})}));
  return args;
}

std::vector<Argument> EmbeddingArgs(Rng& rng, DType dtype) {
  const int64_t num = rng.Uniform(1, 5);
  std::vector<Argument> args = {
      Arg("weight", Values({num, rng.Uniform(0, 4)}, dtype, rng)),
      Arg("indices", Indices(RandomShape(rng, 0, 3), num, rng))};
  if (rng.OneIn(3)) args.push_back(Arg("padding_idx", rng.Uniform(0, num - 1)));
  return args;
}

std::vector<Argument> UpsampleArgs(Rng& rng, DType dtype, bool bilinear) {
  const int64_t h = rng.Uniform(1, 4), w = rng.Uniform(1, 4);
  const int64_t oh = rng.Uniform(1, 6), ow = rng.Uniform(1, 6);
  std::vector<Argument> args = {
      Arg("self",
          Values(Image(rng.Uniform(1, 2), rng.Uniform(1, 3), h, w, false, rng),
                 dtype, rng)),
      Arg("output_size", Dims{oh, ow})};
  if (bilinear) args.push_back(Arg("align_corners", rng.OneIn(2)));
  if (rng.OneIn(3)) {
    // The scales that produced output_size, as F.interpolate passes them.
    args.push_back(Arg("scales_h", FloatArg{static_cast<double>(oh) / h}));
    args.push_back(Arg("scales_w", FloatArg{static_cast<double>(ow) / w}));
  }
  return args;
}

std::vector<Argument> UpsampleNearestArgs(Rng& rng, DType dtype) {
  return UpsampleArgs(rng, dtype, false);
}

std::vector<Argument> UpsampleBilinearArgs(Rng& rng, DType dtype) {
  return UpsampleArgs(rng, dtype, true);
}

}  // namespace

void AddNnOps(std::vector<OpSpec>& ops) {
  // The slow (non-mkldnn) kernels cover i64 and complex too; the dilated
  // one lacks u8, i8, i16 and i32, and nothing has Half.
  ops.push_back(Nn("aten::conv2d", "", "", Comparison::kTolerance,
                   {DType::kInt64, DType::kBFloat16, DType::kFloat32,
                    DType::kFloat64, DType::kComplex64, DType::kComplex128},
                   &Conv2dArgs));
  // No bf16: in 1.13 the mkldnn bf16 path checks a transposed convolution
  // as if it were a forward one ("Given groups=2, weight of size [2, 2, 2,
  // 2], expected input[1, 2, 1, 2] to have 4 channels"), so most valid
  // cases are rejected.
  ops.push_back(Nn(
      "aten::conv_transpose2d", "input", "", Comparison::kTolerance,
      {DType::kInt64, DType::kFloat32, DType::kFloat64}, &ConvTranspose2dArgs));
  // Note: in 1.13 a dilated window that lies wholly in the padding (e.g.
  // width 1, kernel 2, padding 1, dilation 2) yields -inf and an index past
  // the input, and backward then writes outside grad_input. The arguments
  // are valid, so they are drawn like any others.
  ops.push_back(Nn("aten::max_pool2d", "", "", Comparison::kExact,
                   FloatDoubleBFloat16(), &MaxPool2dArgs));
  ops.push_back(
      Nn("aten::avg_pool2d", "", "out", Comparison::kTolerance,
         {DType::kInt64, DType::kBFloat16, DType::kFloat32, DType::kFloat64},
         &AvgPool2dArgs));
  ops.push_back(Nn("aten::adaptive_avg_pool2d", "", "out",
                   Comparison::kTolerance, FloatDoubleBFloat16(),
                   &AdaptiveAvgPool2dArgs));
  ops.push_back(Nn("aten::batch_norm", "", "", Comparison::kTolerance,
                   FloatDoubleBFloat16(), &BatchNormArgs));
  ops.push_back(Nn("aten::instance_norm", "", "", Comparison::kTolerance,
                   FloatDoubleBFloat16(), &InstanceNormArgs));
  ops.push_back(Nn("aten::layer_norm", "", "", Comparison::kTolerance,
                   FloatDoubleBFloat16(), &LayerNormArgs));
  // Note: in 1.13 backward fails ("tensor does not have a device") when
  // weight is None and bias is not; such arguments are still valid.
  ops.push_back(Nn("aten::group_norm", "", "", Comparison::kTolerance,
                   FloatDoubleBFloat16(), &GroupNormArgs));
  ops.push_back(Nn("aten::softmax", "int", "int_out", Comparison::kTolerance,
                   FloatDoubleBFloat16(), &SoftmaxArgs));
  ops.push_back(Nn("aten::log_softmax", "int", "int_out",
                   Comparison::kTolerance, FloatDoubleBFloat16(),
                   &SoftmaxArgs));
  ops.push_back(Nn("aten::nll_loss", "", "out", Comparison::kTolerance,
                   FloatDoubleBFloat16(), &NllLossArgs));
  // [N, C, d1, d2] goes through nll_loss2d, other ranks through reshapes.
  ops.push_back(Nn("aten::nll_loss_nd", "", "", Comparison::kTolerance,
                   FloatDoubleBFloat16(), &NllLossNdArgs));
  ops.push_back(Nn("aten::cross_entropy_loss", "", "", Comparison::kTolerance,
                   FloatDoubleBFloat16(), &CrossEntropyArgs));
  ops.push_back(Nn("aten::embedding", "", "out", Comparison::kExact,
                   AllDTypes(), &EmbeddingArgs));
  ops.push_back(
      Nn("aten::upsample_nearest2d", "", "out", Comparison::kExact,
         {DType::kUInt8, DType::kBFloat16, DType::kFloat32, DType::kFloat64},
         &UpsampleNearestArgs));
  ops.push_back(Nn("aten::upsample_bilinear2d", "", "out",
                   Comparison::kTolerance, FloatDoubleBFloat16(),
                   &UpsampleBilinearArgs));
}

}  // namespace dpfuzz

// The out= forms of the losses, the pools and their backward ops (`.out`,
// `.output`, `.grad_input`; backends/cpu/out_overloads_nn.cc): each equals
// its functional form, resizes an empty out, writes through a strided out,
// and refuses an out of another dtype as PyTorch's structured kernels do.
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "tests/ops/nn_test_util.h"

namespace ember_conformance {
namespace {

using nn_test::long_tensor;

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

class NnOutOverloads : public OutTest {};
EMBER_INSTANTIATE_CONFORMANCE(NnOutOverloads);

// Writes with `write` into an empty out and into an out of the result's
// shape; both must equal `want` and be returned.
template <typename Write>
void expect_out(const at::Tensor& want, Write write, const char* what) {
  const auto opts = at::TensorOptions().dtype(want.scalar_type()).device(want.device());
  for (at::Tensor o : {at::empty({0}, opts), at::empty(want.sizes(), opts)}) {
    at::Tensor& r = write(o);
    EXPECT_TRUE(r.is_same(o)) << what;
    EXPECT_TRUE(at::equal(o, want)) << what;
  }
}

TEST_P(NnOutOverloads, MseLossOutAndGradInput) {
  for (const ScalarType dtype : {kFloat, kDouble}) {
    const at::Tensor x = rand({3, 4}, dtype, {-2, 2}, 1);
    const at::Tensor y = rand({3, 4}, dtype, {-2, 2}, 2);
    for (const int64_t red : {kNone, kMean, kSum}) {
      expect_out(at::mse_loss(x, y, red),
                 [&](at::Tensor& o) -> at::Tensor& { return at::mse_loss_out(o, x, y, red); },
                 "mse_loss");
      const at::Tensor g = red == kNone ? rand({3, 4}, dtype, {-1, 1}, 3)
                                        : at::ones({}, options(dtype));
      expect_out(at::mse_loss_backward(g, x, y, red),
                 [&](at::Tensor& o) -> at::Tensor& {
                   return at::mse_loss_backward_outf(g, x, y, red, o);
                 },
                 "mse_loss_backward");
    }
    // A transposed grad_input of the right shape is written through its strides.
    at::Tensor t = at::empty({4, 3}, options(dtype)).transpose(0, 1);
    at::mse_loss_backward_out(t, rand({3, 4}, dtype, {-1, 1}, 4), x, y, kNone);
    EXPECT_TRUE(at::equal(t, at::mse_loss_backward(rand({3, 4}, dtype, {-1, 1}, 4), x, y,
                                                   kNone)));
  }
}

TEST_P(NnOutOverloads, NllLossOutOutputAndGradInput) {
  const at::Tensor x = rand({4, 3}, kDouble, {-3, 0}, 5);
  const at::Tensor target = long_tensor({4}, {0, 2, 1, 2}).to(device());
  const at::Tensor w = rand({3}, kDouble, {0.5, 2}, 6);
  for (const int64_t red : {kNone, kMean, kSum}) {
    for (const std::optional<at::Tensor>& wt : {std::optional<at::Tensor>(),
                                                 std::optional<at::Tensor>(w)}) {
      expect_out(at::nll_loss(x, target, wt, red, 1),
                 [&](at::Tensor& o) -> at::Tensor& {
                   return at::nll_loss_out(o, x, target, wt, red, 1);
                 },
                 "nll_loss");
      // Named references, not a structured binding: C++17 lambdas (clang's
      // reading) cannot capture a structured binding.
      const auto forward = at::nll_loss_forward(x, target, wt, red, -100);
      const at::Tensor& want = std::get<0>(forward);
      const at::Tensor& total = std::get<1>(forward);
      at::Tensor o = empty(kDouble), tw = empty(kDouble);
      auto r = at::nll_loss_forward_out(o, tw, x, target, wt, red, -100);
      EXPECT_TRUE(std::get<0>(r).is_same(o));
      EXPECT_TRUE(std::get<1>(r).is_same(tw));
      EXPECT_TRUE(at::equal(o, want));
      EXPECT_TRUE(at::equal(tw, total));
      const at::Tensor g = red == kNone ? rand({4}, kDouble, {-1, 1}, 7)
                                        : at::ones({}, options(kDouble));
      expect_out(at::nll_loss_backward(g, x, target, wt, red, -100, total),
                 [&](at::Tensor& gi) -> at::Tensor& {
                   return at::nll_loss_backward_out(gi, g, x, target, wt, red, -100, total);
                 },
                 "nll_loss_backward");
    }
  }
}

TEST_P(NnOutOverloads, NllLoss2dOutOutputAndGradInput) {
  const at::Tensor x = rand({2, 3, 2, 2}, kFloat, {-3, 0}, 8);
  const at::Tensor target =
      long_tensor({2, 2, 2}, {0, 1, 2, 0, 1, 1, 2, 0}).to(device());
  for (const int64_t red : {kNone, kMean, kSum}) {
    expect_out(at::nll_loss2d(x, target, std::nullopt, red, -100),
               [&](at::Tensor& o) -> at::Tensor& {
                 return at::nll_loss2d_out(o, x, target, std::nullopt, red, -100);
               },
               "nll_loss2d");
    const auto forward = at::nll_loss2d_forward(x, target, std::nullopt, red, -100);
    const at::Tensor& want = std::get<0>(forward);
    const at::Tensor& total = std::get<1>(forward);
    at::Tensor o = empty(kFloat), tw = empty(kFloat);
    at::nll_loss2d_forward_outf(x, target, std::nullopt, red, -100, o, tw);
    EXPECT_TRUE(at::equal(o, want));
    EXPECT_TRUE(at::equal(tw, total));
    const at::Tensor g = red == kNone ? rand({2, 2, 2}, kFloat, {-1, 1}, 9)
                                      : at::ones({}, options(kFloat));
    expect_out(at::nll_loss2d_backward(g, x, target, std::nullopt, red, -100, total),
               [&](at::Tensor& gi) -> at::Tensor& {
                 return at::nll_loss2d_backward_out(gi, g, x, target, std::nullopt, red, -100,
                                                    total);
               },
               "nll_loss2d_backward");
  }
}

TEST_P(NnOutOverloads, BinaryCrossEntropyOutAndGradInput) {
  const at::Tensor x = rand({3, 2}, kDouble, {0.05, 0.95}, 10);
  const at::Tensor y = rand({3, 2}, kDouble, {0, 1}, 11);
  const at::Tensor w = rand({3, 2}, kDouble, {0.5, 2}, 12);
  for (const int64_t red : {kNone, kMean, kSum}) {
    for (const std::optional<at::Tensor>& wt : {std::optional<at::Tensor>(),
                                                 std::optional<at::Tensor>(w)}) {
      expect_out(at::binary_cross_entropy(x, y, wt, red),
                 [&](at::Tensor& o) -> at::Tensor& {
                   return at::binary_cross_entropy_out(o, x, y, wt, red);
                 },
                 "binary_cross_entropy");
      const at::Tensor g = red == kNone ? rand({3, 2}, kDouble, {-1, 1}, 13)
                                        : at::ones({}, options(kDouble));
      expect_out(at::binary_cross_entropy_backward(g, x, y, wt, red),
                 [&](at::Tensor& gi) -> at::Tensor& {
                   return at::binary_cross_entropy_backward_out(gi, g, x, y, wt, red);
                 },
                 "binary_cross_entropy_backward");
    }
  }
}

TEST_P(NnOutOverloads, PoolOutAndGradInput) {
  for (const ScalarType dtype : {kFloat, kDouble}) {
    const at::Tensor x = rand({2, 3, 5, 6}, dtype, {-4, 4}, 14);
    const auto want_idx = at::max_pool2d_with_indices(x, {2, 3}, {2, 2}, {1, 1}, {1, 1},
                                                         true);
    const auto& want = std::get<0>(want_idx);
    const auto& idx = std::get<1>(want_idx);
    at::Tensor o = empty(dtype), i = empty(kLong);
    auto r = at::max_pool2d_with_indices_out(o, i, x, {2, 3}, {2, 2}, {1, 1}, {1, 1}, true);
    EXPECT_TRUE(std::get<0>(r).is_same(o));
    EXPECT_TRUE(at::equal(o, want));
    EXPECT_TRUE(at::equal(i, idx));
    const at::Tensor g = rand(std::vector<int64_t>(want.sizes().begin(), want.sizes().end()),
                              dtype, {-1, 1}, 15);
    expect_out(at::max_pool2d_with_indices_backward(g, x, {2, 3}, {2, 2}, {1, 1}, {1, 1}, true,
                                                    idx),
               [&](at::Tensor& gi) -> at::Tensor& {
                 return at::max_pool2d_with_indices_backward_out(gi, g, x, {2, 3}, {2, 2},
                                                                 {1, 1}, {1, 1}, true, idx);
               },
               "max_pool2d_with_indices_backward");
    for (const bool include_pad : {false, true}) {
      const at::Tensor avg = at::avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, false, include_pad);
      expect_out(avg,
                 [&](at::Tensor& out) -> at::Tensor& {
                   return at::avg_pool2d_out(out, x, {3, 3}, {2, 2}, {1, 1}, false,
                                             include_pad);
                 },
                 "avg_pool2d");
      const at::Tensor ga = rand(std::vector<int64_t>(avg.sizes().begin(), avg.sizes().end()),
                                 dtype, {-1, 1}, 16);
      expect_out(at::avg_pool2d_backward(ga, x, {3, 3}, {2, 2}, {1, 1}, false, include_pad,
                                         std::nullopt),
                 [&](at::Tensor& gi) -> at::Tensor& {
                   return at::avg_pool2d_backward_out(gi, ga, x, {3, 3}, {2, 2}, {1, 1}, false,
                                                      include_pad, std::nullopt);
                 },
                 "avg_pool2d_backward");
    }
  }
}

TEST_P(NnOutOverloads, OutsOfAnotherDtypeAreRefused) {
  const at::Tensor x = rand({3, 4}, kFloat, {-2, 2}, 17);
  at::Tensor d = empty(kDouble);
  EXPECT_THAT(errorOf([&] { at::mse_loss_out(d, x, x); }),
              HasSubstr("mse_loss: Expected out tensor `out` to have dtype Float, but got "
                        "Double instead. Pass an out= tensor of dtype Float."));
  const at::Tensor target = long_tensor({3}, {0, 1, 3}).to(device());
  at::Tensor o = empty(kFloat), tw = empty(kDouble);
  EXPECT_THAT(errorOf([&] { at::nll_loss_forward_out(o, tw, x, target, std::nullopt,
                                                     kMean, -100); }),
              HasSubstr("nll_loss_forward: Expected out tensor `total_weight` to have dtype "
                        "Float, but got Double instead."));
  EXPECT_EQ(o.numel(), 0);  // checked before anything was written
  const at::Tensor img = rand({1, 1, 4, 4}, kFloat, {-2, 2}, 18);
  at::Tensor po = empty(kFloat), pi = empty(kInt);
  EXPECT_THAT(errorOf([&] { at::max_pool2d_with_indices_out(po, pi, img, {2, 2}); }),
              HasSubstr("Expected out tensor `indices` to have dtype Long, but got Int"));
  at::Tensor gi = empty(kDouble);
  EXPECT_THAT(errorOf([&] { at::avg_pool2d_backward_out(gi, at::ones({1, 1, 2, 2}), img,
                                                        {2, 2}, {2, 2}, {0, 0}, false, true,
                                                        std::nullopt); }),
              HasSubstr("avg_pool2d_backward: Expected out tensor `grad_input` to have dtype "
                        "Float, but got Double instead."));
}

}  // namespace
}  // namespace ember_conformance

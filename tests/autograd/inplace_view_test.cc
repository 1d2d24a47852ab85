// tests/autograd/inplace_view_test.cc — in-place ops on views under autograd
// give PyTorch's gradients: the base's history is rebased onto CopySlices
// and views made stale get a fresh grad_fn (Note [In-place on views] in
// autograd/variable.cc). Error paths: inplace_view_errors_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <torch/autograd.h>
#include <torch/types.h>

#include "autograd/gradcheck.h"

namespace {
using torch::autograd::variable_list;

at::TensorOptions f64() { return at::TensorOptions().dtype(at::kDouble); }

at::Tensor values(std::initializer_list<double> v) { return at::tensor(v); }  // Double

// 1, 2, ..., n as a float64 tensor of the given shape.
at::Tensor iota(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return at::arange(1, n + 1, f64()).view(shape);
}

#define EXPECT_TENSOR_EQ(actual, expected)                                          \
  EXPECT_TRUE(at::allclose((actual), (expected), 1e-12, 1e-12))                     \
      << "actual:\n" << (actual) << "\nexpected:\n" << (expected)

TEST(InplaceView, ScalarOpOnASelectRebasesTheBaseOntoCopySlices) {
  at::Tensor a = at::ones({3, 2}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  at::Tensor v = b.select(0, 1);
  v.mul_(2);
  ASSERT_TRUE(b.grad_fn());
  EXPECT_EQ(b.grad_fn()->name(), "CopySlices");
  EXPECT_EQ(b.output_nr(), 0);
  EXPECT_EQ(v.grad_fn()->name(), "AsStridedBackward0");
  EXPECT_EQ(v.grad_fn()->next_edge(0).function.get(), b.grad_fn().get());
  EXPECT_TENSOR_EQ(b, values({1, 1, 2, 2, 1, 1}).view({3, 2}));
  b.sum().backward();
  EXPECT_TENSOR_EQ(a.grad(), values({1, 1, 2, 2, 1, 1}).view({3, 2}));
}

TEST(InplaceView, GradientFlowsIntoTheOtherInputOfAnInPlaceOpOnANarrow) {
  // The base needs no grad: only y does.
  at::Tensor x = at::zeros({4}, f64());
  at::Tensor y = values({5, 7}).requires_grad_();
  x.narrow(0, 1, 2).add_(y);
  EXPECT_TRUE(x.requires_grad());
  EXPECT_EQ(x.grad_fn()->name(), "CopySlices");
  EXPECT_TENSOR_EQ(x, values({0, 5, 7, 0}));
  (x * iota({4})).sum().backward();
  EXPECT_TENSOR_EQ(y.grad(), values({2, 3}));
}

TEST(InplaceView, MulByATensorOnANarrowGivesBothGradients) {
  at::Tensor a = iota({4}).requires_grad_();
  at::Tensor y = values({5, 6}).requires_grad_();
  at::Tensor b = a.clone();
  b.narrow(0, 1, 2).mul_(y);
  EXPECT_TENSOR_EQ(b, values({1, 10, 18, 4}));
  (b * iota({4})).sum().backward();
  // d/da = w * [1, y0, y1, 1]; d/dy = w[1:3] * a[1:3].
  EXPECT_TENSOR_EQ(a.grad(), values({1, 10, 18, 4}));
  EXPECT_TENSOR_EQ(y.grad(), values({4, 9}));
}

TEST(InplaceView, CopyIntoAnIndexedRowReplacesItsGradient) {
  at::Tensor a = at::ones({2, 3}, f64()).requires_grad_();
  at::Tensor y = values({1, 2, 3}).requires_grad_();
  at::Tensor b = a * 2;
  b[0].copy_(y);
  EXPECT_TENSOR_EQ(b, values({1, 2, 3, 2, 2, 2}).view({2, 3}));
  (b * iota({2, 3})).sum().backward();
  EXPECT_TENSOR_EQ(a.grad(), values({0, 0, 0, 8, 10, 12}).view({2, 3}));
  EXPECT_TENSOR_EQ(y.grad(), values({1, 2, 3}));
}

TEST(InplaceView, ZeroAndFillOnViewsCutTheGradientOfTheOverwrittenPart) {
  at::Tensor a = at::ones({3, 3}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  b.diagonal().zero_();
  b.unsqueeze(0).squeeze(0).narrow(1, 2, 1).fill_(5);
  EXPECT_TENSOR_EQ(b, values({0, 1, 5, 1, 0, 5, 1, 1, 5}).view({3, 3}));
  b.sum().backward();
  EXPECT_TENSOR_EQ(a.grad(), values({0, 1, 0, 1, 0, 0, 1, 1, 0}).view({3, 3}));
}

TEST(InplaceView, TransposeViewAndAsStridedViewsGiveExactGradients) {
  at::Tensor a = iota({2, 3}).requires_grad_();
  at::Tensor y = values({10, 20}).requires_grad_();
  at::Tensor b = a.clone();
  b.t().select(0, 1).mul_(y);         // column 1: b[0][1] *= 10, b[1][1] *= 20
  b.view({6}).narrow(0, 5, 1).add_(1);  // b[1][2] += 1
  b.as_strided({2}, {3}, 0).mul_(3);    // column 0 (storage 0 and 3) *= 3
  EXPECT_TENSOR_EQ(b, values({3, 20, 3, 12, 100, 7}).view({2, 3}));
  b.sum().backward();
  EXPECT_TENSOR_EQ(a.grad(), values({3, 10, 1, 3, 20, 1}).view({2, 3}));
  EXPECT_TENSOR_EQ(y.grad(), values({2, 5}));
}

TEST(InplaceView, ANestedViewRebasesTheRootBase) {
  at::Tensor a = iota({3, 2}).requires_grad_();
  at::Tensor y = values({4}).requires_grad_();
  at::Tensor b = a.clone();
  at::Tensor row = b.select(0, 2);
  row.narrow(0, 1, 1).mul_(y);  // b[2][1] = 6 * 4
  EXPECT_EQ(b.grad_fn()->name(), "CopySlices");
  EXPECT_TENSOR_EQ(b, values({1, 2, 3, 4, 5, 24}).view({3, 2}));
  // The intermediate view `row` is stale and sees the new values.
  (row * values({1, 10})).sum().backward();
  EXPECT_TENSOR_EQ(a.grad(), values({0, 0, 0, 0, 1, 40}).view({3, 2}));
  EXPECT_TENSOR_EQ(y.grad(), values({60}));
}

TEST(InplaceView, TwoInPlaceOpsInARowOnTheSameView) {
  at::Tensor a = iota({3}).requires_grad_();
  at::Tensor y = values({5, 6}).requires_grad_();
  at::Tensor b = a.clone();
  at::Tensor v = b.narrow(0, 0, 2);
  v.mul_(y);
  v.add_(y);  // b[0:2] = a * y + y
  EXPECT_TENSOR_EQ(b, values({10, 18, 3}));
  EXPECT_EQ(b.grad_fn()->name(), "CopySlices");
  b.sum().backward();
  EXPECT_TENSOR_EQ(a.grad(), values({5, 6, 1}));
  EXPECT_TENSOR_EQ(y.grad(), values({2, 3}));
}

TEST(InplaceView, AViewTakenBeforeAnInPlaceOpOnItsBaseGetsTheNewHistory) {
  at::Tensor a = at::ones({3, 2}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  at::Tensor v = b.select(0, 0);
  EXPECT_EQ(v.grad_fn()->name(), "SelectBackward0");
  b.mul_(2);
  EXPECT_EQ(v.grad_fn()->name(), "AsStridedBackward0");
  v.sum().backward();
  EXPECT_TENSOR_EQ(a.grad(), values({2, 2, 0, 0, 0, 0}).view({3, 2}));
}

TEST(InplaceView, ASiblingViewSeesAnInPlaceOpOnAnotherView) {
  at::Tensor a = at::ones({2, 2}, f64()).requires_grad_();
  at::Tensor y = values({3, 4}).requires_grad_();
  at::Tensor b = a.clone();
  at::Tensor first = b.select(1, 0);  // b[:, 0]
  at::Tensor row = b.select(0, 1);    // b[1, :]
  row.mul_(y);                        // b[1] = [3, 4]
  EXPECT_TENSOR_EQ(first, values({1, 3}));
  (first * values({10, 100})).sum().backward();
  EXPECT_TENSOR_EQ(a.grad(), values({10, 0, 300, 0}).view({2, 2}));
  EXPECT_TENSOR_EQ(y.grad(), values({100, 0}));
}

TEST(InplaceView, AViewOfAPlainTensorRequiresGradOnceItsBaseHasHistory) {
  at::Tensor x = at::zeros({4}, f64());
  at::Tensor old = x.narrow(0, 2, 2);
  EXPECT_FALSE(old.requires_grad());
  at::Tensor y = values({1, 2, 3, 4}).requires_grad_();
  x.add_(y);
  EXPECT_TRUE(old.requires_grad());
  (old * 5).sum().backward();
  EXPECT_TENSOR_EQ(y.grad(), values({0, 0, 5, 5}));
}

TEST(InplaceView, GradWithInputsReachesOnlyThemThroughCopySlices) {
  at::Tensor a = iota({4}).requires_grad_();
  at::Tensor y = values({2, 3}).requires_grad_();
  at::Tensor b = a.clone();
  b.narrow(0, 2, 2).mul_(y);
  at::Tensor out = (b * b).sum();
  variable_list gy = torch::autograd::grad({out}, {y}, {}, true);
  EXPECT_TENSOR_EQ(gy[0], values({2 * 6 * 3, 2 * 12 * 4}));
  variable_list ga = torch::autograd::grad({out}, {a});
  EXPECT_TENSOR_EQ(ga[0], values({2, 4, 2 * 6 * 2, 2 * 12 * 3}));
  EXPECT_FALSE(a.grad().defined());
}

TEST(InplaceView, CopySlicesIsReleasedAfterABackwardWithoutRetainGraph) {
  at::Tensor a = at::ones({2}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  b.narrow(0, 0, 1).mul_(3);
  at::Tensor out = b.sum();
  out.backward({}, /*retain_graph=*/true);
  out.backward();
  EXPECT_TENSOR_EQ(a.grad(), values({6, 2}));
  EXPECT_THROW(out.backward(), c10::Error);
}

// Every view op, with an in-place op on the view that also reads another
// input: f(a, y) = { b = a.clone(); view(b).op_(y); return b and an older
// view of b }, compared with finite differences.
TEST(InplaceView, GradcheckOfInPlaceOpsOnEveryViewOp) {
  using ViewFn = std::function<at::Tensor(const at::Tensor&)>;
  const std::vector<std::pair<std::string, ViewFn>> views = {
      {"select", [](const at::Tensor& b) { return b.select(0, 1); }},
      {"narrow", [](const at::Tensor& b) { return b.narrow(1, 1, 2); }},
      {"slice", [](const at::Tensor& b) { return b.slice(0, 0, 3, 2); }},
      {"view", [](const at::Tensor& b) { return b.view({12}); }},
      {"reshape", [](const at::Tensor& b) { return b.reshape({4, 3}); }},
      {"transpose", [](const at::Tensor& b) { return b.transpose(0, 1); }},
      {"t", [](const at::Tensor& b) { return b.t(); }},
      {"permute", [](const at::Tensor& b) { return b.permute({1, 0}); }},
      {"diagonal", [](const at::Tensor& b) { return b.diagonal(1); }},
      {"as_strided", [](const at::Tensor& b) { return b.as_strided({2, 2}, {5, 1}, 1); }},
      {"unsqueeze", [](const at::Tensor& b) { return b.unsqueeze(1); }},
      {"squeeze", [](const at::Tensor& b) { return b.narrow(0, 1, 1).squeeze(0); }},
      {"operator[]", [](const at::Tensor& b) { return b[2]; }},
      {"nested", [](const at::Tensor& b) { return b.t().narrow(0, 1, 2).select(1, 2); }},
  };
  using OpFn = std::function<void(at::Tensor&, const at::Tensor&)>;
  const std::vector<std::pair<std::string, OpFn>> ops = {
      {"add_", [](at::Tensor& v, const at::Tensor& y) { v.add_(y); }},
      {"mul_", [](at::Tensor& v, const at::Tensor& y) { v.mul_(y); }},
      {"copy_", [](at::Tensor& v, const at::Tensor& y) { v.copy_(y); }},
      {"mul_ then add_", [](at::Tensor& v, const at::Tensor& y) { v.mul_(y).add_(y * y); }},
      {"zero_ then add_", [](at::Tensor& v, const at::Tensor& y) { v.zero_().add_(y); }},
  };
  for (const auto& view : views) {
    for (const auto& op : ops) {
      SCOPED_TRACE(view.first + " + " + op.first);
      at::Tensor a = at::rand({3, 4}, f64()).requires_grad_();
      at::Tensor y = at::rand(view.second(a.detach()).sizes(), f64()).requires_grad_();
      auto f = [&](const variable_list& in) {
        at::Tensor b = in[0].clone();
        at::Tensor older = b.select(1, 0);
        at::Tensor v = view.second(b);
        op.second(v, in[1]);
        return variable_list{b * 1.5, older * 2, v};
      };
      EXPECT_TRUE(torch::autograd::gradcheck(f, {a, y}));
    }
  }
}

TEST(InplaceView, SecondDerivativesFlowThroughCopySlices) {
  at::Tensor a = at::rand({4}, f64()).requires_grad_();
  at::Tensor y = at::rand({2}, f64()).requires_grad_();
  auto f = [](const variable_list& in) {
    at::Tensor b = in[0].clone();
    b.narrow(0, 1, 2).mul_(in[1]);
    return variable_list{b * b};
  };
  EXPECT_TRUE(torch::autograd::gradgradcheck(f, {a, y}));
}

TEST(InplaceView, UnrecordedInPlaceOnViewsStaysAllowed) {
  // No input requires grad: plain tensor semantics.
  at::Tensor x = at::zeros({4}, f64());
  x.narrow(0, 1, 2).add_(1);
  EXPECT_TENSOR_EQ(x, values({0, 1, 1, 0}));
  EXPECT_FALSE(x.requires_grad());
  // Under NoGradGuard, on a view of a leaf (an optimizer-style update).
  at::Tensor w = at::ones({2, 2}, f64()).requires_grad_();
  {
    torch::NoGradGuard no_grad;
    w.select(0, 0).mul_(3);
  }
  EXPECT_TRUE(w.is_leaf());
  EXPECT_TENSOR_EQ(w, values({3, 3, 1, 1}).view({2, 2}));
  // A view of the leaf taken before that update gets the leaf's history.
  at::Tensor w2 = at::ones({2, 2}, f64()).requires_grad_();
  at::Tensor row = w2.select(0, 1);
  {
    torch::NoGradGuard no_grad;
    w2.mul_(2);
  }
  (row * 3).sum().backward();
  EXPECT_TENSOR_EQ(w2.grad(), values({0, 0, 3, 3}).view({2, 2}));
}

}  // namespace

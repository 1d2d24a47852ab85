// tests/autograd/inplace_view_test.cc — in-place ops on views under autograd.
// Ember does not rebase view histories (PyTorch's CopySlices) yet; every case
// whose gradient would be wrong must raise instead (Note [In-place on views]
// in autograd/variable.cc), and the cases that are right must stay allowed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "tests/support/error_of.h"

namespace {
using ::testing::HasSubstr;
using ember_test::errorOf;

at::TensorOptions f64() { return at::TensorOptions().dtype(at::kDouble); }

at::Tensor values(std::initializer_list<double> v) {
  at::Tensor t = at::empty({static_cast<int64_t>(v.size())}, f64());
  double* p = t.data_ptr<double>();
  for (double x : v) *p++ = x;
  return t;
}

TEST(InplaceView, RecordedInPlaceOnAViewOfANonLeafIsRefused) {
  at::Tensor a = at::ones({3, 2}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  for (auto view : {b.select(0, 1), b.narrow(0, 1, 2), b.t(), b.view({6}), b.diagonal(),
                    b.unsqueeze(0), b.permute({1, 0}), b.split(1)[0], b.unbind(0)[2]}) {
    EXPECT_THAT(errorOf([&] { view.mul_(2); }),
                HasSubstr("an in-place operation on a view is being recorded for autograd"));
  }
  // The refused ops did not run: b still holds a's values.
  EXPECT_TRUE(at::equal(b, at::ones({3, 2}, f64())));
}

TEST(InplaceView, InPlaceOnAViewOfALeafGivesPyTorchsMessage) {
  at::Tensor leaf = at::ones({2, 2}).requires_grad_();
  EXPECT_THAT(errorOf([&] { leaf.view({4}).add_(1); }),
              HasSubstr("a view of a leaf Variable that requires grad is being used in an "
                        "in-place operation."));
}

TEST(InplaceView, WritingAGradValueIntoAViewOfAPlainTensorIsRefused) {
  at::Tensor x = at::zeros({4}, f64());
  at::Tensor y = at::ones({2}, f64()).requires_grad_();
  EXPECT_THAT(errorOf([&] { x.narrow(0, 1, 2).add_(y); }),
              HasSubstr("an in-place operation on a view is being recorded"));
  // Taken under NoGradGuard, modified with grad mode on: refused too.
  at::Tensor v;
  {
    torch::NoGradGuard no_grad;
    v = x.narrow(0, 1, 2);
  }
  EXPECT_THAT(errorOf([&] { v.add_(y); }), HasSubstr("an in-place operation on a view"));
}

TEST(InplaceView, AViewUsedAfterItsBaseChangedInPlaceIsRefused) {
  at::Tensor a = at::ones({3, 2}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  at::Tensor v = b.select(0, 1);
  b.mul_(2);  // allowed: b is not a view
  EXPECT_THAT(errorOf([&] { (v * 3).sum().backward(); }),
              HasSubstr("a view of a tensor that requires grad is being used after it or its "
                        "base was modified by an in-place operation (version 1, expected 0)"));
  // A view taken after the in-place op is current: its gradient is right.
  at::Tensor w = b.select(0, 1);
  (w * 3).sum().backward();
  EXPECT_TRUE(at::equal(a.grad(), values({0.0, 0.0, 6.0, 6.0, 0.0, 0.0}).view({3, 2})));
}

TEST(InplaceView, UnrecordedInPlaceOnViewsStaysAllowed) {
  // No input requires grad: plain tensor semantics.
  at::Tensor x = at::zeros({4}, f64());
  x.narrow(0, 1, 2).add_(1);
  EXPECT_TRUE(at::equal(x, values({0.0, 1.0, 1.0, 0.0})));
  // Under NoGradGuard, on a view of a leaf (an optimizer-style update).
  at::Tensor w = at::ones({2, 2}, f64()).requires_grad_();
  {
    torch::NoGradGuard no_grad;
    w.select(0, 0).mul_(3);
  }
  EXPECT_TRUE(at::equal(w, values({3.0, 3.0, 1.0, 1.0}).view({2, 2})));
  // Out-of-place ops on views keep exact gradients.
  at::Tensor a = at::ones({3, 2}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  (b.select(0, 1) * 2 + b).sum().backward();
  EXPECT_TRUE(at::equal(a.grad(), values({1.0, 1.0, 7.0, 7.0, 1.0, 1.0}).view({3, 2})));
}

}  // namespace

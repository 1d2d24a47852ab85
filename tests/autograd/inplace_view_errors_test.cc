// tests/autograd/inplace_view_errors_test.cc — the in-place-on-view cases
// PyTorch refuses, with its messages (Note [In-place on views] in
// autograd/variable.cc). The supported cases: inplace_view_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/autograd.h>
#include <torch/types.h>

#include "autograd/variable.h"
#include "tests/support/error_of.h"

namespace {
using ::testing::HasSubstr;
using ember_test::errorOf;

at::TensorOptions f64() { return at::TensorOptions().dtype(at::kDouble); }

TEST(InplaceViewErrors, InPlaceOnAViewOfALeafGivesPyTorchsMessage) {
  at::Tensor leaf = at::ones({2, 2}).requires_grad_();
  EXPECT_THAT(errorOf([&] { leaf.view({4}).add_(1); }),
              HasSubstr("a view of a leaf Variable that requires grad is being used in an "
                        "in-place operation."));
  EXPECT_THAT(errorOf([&] { leaf.select(0, 0).narrow(0, 0, 1).zero_(); }),
              HasSubstr("a view of a leaf Variable that requires grad"));
  // The refused op did not run.
  EXPECT_TRUE(at::equal(leaf, at::ones({2, 2})));
}

TEST(InplaceViewErrors, AViewMadeInNoGradModeCannotBeModifiedWithGradMode) {
  at::Tensor x = at::zeros({4}, f64());
  at::Tensor y = at::ones({2}, f64()).requires_grad_();
  at::Tensor v;
  {
    torch::NoGradGuard no_grad;
    v = x.narrow(0, 1, 2);
  }
  EXPECT_THAT(errorOf([&] { v.add_(y); }),
              HasSubstr("A view was created in no_grad mode and is being modified inplace "
                        "with grad mode enabled. Given that this use case is ambiguous and "
                        "error-prone, it is forbidden."));
  // A view of that view keeps the restriction.
  EXPECT_THAT(errorOf([&] { v.view({2, 1}).add_(y.view({2, 1})); }),
              HasSubstr("A view was created in no_grad mode"));
  EXPECT_TRUE(at::equal(x, at::zeros({4}, f64())));
  // Both inside the no_grad block: allowed, nothing recorded.
  {
    torch::NoGradGuard no_grad;
    v.add_(y);
  }
  EXPECT_FALSE(x.requires_grad());
  // Modified in grad mode but recording nothing: allowed.
  v.add_(1);
  EXPECT_TRUE(at::equal(x.narrow(0, 1, 2), at::full({2}, 2.0, f64())));
  EXPECT_EQ(x[0].item<double>() + x[3].item<double>(), 0.0);
}

TEST(InplaceViewErrors, ANoGradViewUsedAfterItsBaseChangedIsRefused) {
  at::Tensor a = at::ones({3, 2}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  at::Tensor v;
  {
    torch::NoGradGuard no_grad;
    v = b.select(0, 1);
  }
  b.mul_(2);
  at::Tensor y = at::ones({2}, f64()).requires_grad_();
  EXPECT_THAT(errorOf([&] { (v * y).sum(); }),
              HasSubstr("A view was created in no_grad mode and its base or another view "
                        "of its base has been modified inplace with grad mode enabled."));
}

TEST(InplaceViewErrors, AnOutputOfAMultiOutputViewOpCannotBeModifiedInPlace) {
  at::Tensor a = at::ones({3, 2}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  EXPECT_THAT(errorOf([&] { b.split(1)[0].mul_(2); }),
              HasSubstr("Output 0 of SplitBackward0 is a view and is being modified "
                        "inplace. This view is the output of a function that returns multiple "
                        "views. Such functions do not allow the output views to be modified "
                        "inplace. You should replace the inplace operation by an "
                        "out-of-place one"));
  EXPECT_THAT(errorOf([&] { b.unbind(0)[2].add_(1); }),
              HasSubstr("Output 2 of UnbindBackward0 is a view and is being modified inplace"));
  EXPECT_THAT(errorOf([&] { b.chunk(3)[1].view({2}).zero_(); }),
              HasSubstr("This view is the output of a function that returns multiple views"));
  // Without history to record, or after clone(), it is fine.
  at::Tensor part = b.split(1)[0].clone();
  part.mul_(2);
  EXPECT_TRUE(at::equal(b, at::ones({3, 2}, f64())));
  // Plain tensors: nothing is recorded, nothing refused.
  at::Tensor x = at::zeros({4}, f64());
  x.chunk(2)[1].add_(1);
  EXPECT_TRUE(at::equal(x.narrow(0, 2, 2), at::ones({2}, f64())));
}

TEST(InplaceViewErrors, AMultiOutputViewUsedAfterItsBaseChangedIsRefused) {
  at::Tensor a = at::ones({3, 2}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  std::vector<at::Tensor> rows = b.unbind(0);
  b.mul_(2);
  EXPECT_THAT(errorOf([&] { rows[1].sum(); }),
              HasSubstr("is a view and its base or another view of its base has been "
                        "modified inplace. This view is the output of a function that returns "
                        "multiple views."));
}

TEST(InplaceViewErrors, ACustomFunctionMarkingAViewDirtyIsRefused) {
  // Custom Functions set the history of dirty outputs directly; they cannot
  // rebase the base of a view, so recording one on a view is refused.
  struct DoubleInPlace : torch::autograd::Function<DoubleInPlace> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::Tensor x) {
      x.mul_(2);
      ctx->mark_dirty({x});
      return x;
    }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext*,
                                                   torch::autograd::variable_list g) {
      return {g[0] * 2};
    }
  };
  at::Tensor a = at::ones({2, 2}, f64()).requires_grad_();
  at::Tensor b = a.clone();
  EXPECT_THAT(errorOf([&] { DoubleInPlace::apply(b.select(0, 0)); }),
              HasSubstr("an in-place operation on a view is being recorded for autograd by an "
                        "op without a derivative formula or a custom Function marking it "
                        "dirty"));
  // On a tensor that is not a view it is recorded as before.
  at::Tensor c = a.clone();
  DoubleInPlace::apply(c).sum().backward();
  EXPECT_TRUE(at::equal(a.grad(), at::full({2, 2}, 2.0, f64())));
}

TEST(InplaceViewErrors, MarkViewNeverMakesATensorAViewOfItself) {
  // A view op returning its input's own TensorImpl would otherwise make the
  // tensor own itself through its view base.
  at::Tensor x = at::ones({2}, f64()).requires_grad_();
  torch::autograd::mark_view(x, x);
  const torch::autograd::AutogradMeta* meta = torch::autograd::impl::get_autograd_meta(x);
  ASSERT_NE(meta, nullptr);
  EXPECT_FALSE(meta->is_view_);
  EXPECT_FALSE(meta->view_base_.defined());
  at::Tensor y = at::ones({2}, f64());
  torch::autograd::mark_views({y}, y);
  EXPECT_TRUE(torch::autograd::impl::get_autograd_meta(y) == nullptr ||
              !torch::autograd::impl::get_autograd_meta(y)->is_view_);
  // A real view still records its root base.
  at::Tensor v = x.view({2, 1}).select(1, 0);
  EXPECT_EQ(torch::autograd::impl::get_autograd_meta(v)->view_base_.unsafeGetTensorImpl(),
            x.unsafeGetTensorImpl());
}

}  // namespace

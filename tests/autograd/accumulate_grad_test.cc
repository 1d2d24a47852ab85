// AccumulateGrad keeps the first incoming gradient as .grad without a copy
// when nothing else can see it, and copies it otherwise; matrix-product
// gradients come out in their operand's layout so that linear's weight
// gradient can be kept. See Note [Keeping the incoming gradient] and Note
// [Gradients in their operand's layout].
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/autograd.h>
#include <torch/types.h>

namespace {

// A float64 leaf of `sizes` holding start, start + 0.5, ...
at::Tensor leaf(std::vector<int64_t> sizes, double start) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  at::Tensor t = at::arange(start, start + 0.5 * static_cast<double>(n), 0.5, at::kDouble);
  return t.view(sizes).requires_grad_();
}

// Records where the gradient reaching the leaf `w` lives, without holding it.
void watch_incoming(const at::Tensor& w, const void** where) {
  w.register_hook([where](const at::Tensor& g) { *where = g.data_ptr(); });
}

TEST(AccumulateGrad, LinearWeightGradientIsKeptWithoutCopy) {
  at::Tensor x = leaf({5, 3}, -1.0).detach();
  at::Tensor w = leaf({4, 3}, 0.25);
  at::Tensor b = leaf({4}, 1.0);
  const void* incoming = nullptr;
  watch_incoming(w, &incoming);
  at::Tensor y = at::linear(x, w, b);  // addmm(b, x, w.t())
  at::Tensor loss = (y * y).sum();
  loss.backward({}, /*retain_graph=*/true);
  ASSERT_TRUE(w.grad().defined());
  EXPECT_TRUE(w.grad().is_contiguous());
  EXPECT_EQ(w.grad().data_ptr(), incoming);  // kept, not cloned
  EXPECT_FALSE(w.grad().requires_grad());
  EXPECT_EQ(w.grad().grad_fn(), nullptr);
  // d/dw sum((x w^T + b)^2) = 2 (x w^T + b)^T x
  at::Tensor expected = at::mm((2 * (at::mm(x, w.detach().t()) + b.detach())).t(), x);
  EXPECT_TRUE(at::allclose(w.grad(), expected));
  // The kept gradient accumulates in place on the next backward.
  loss.backward();
  EXPECT_TRUE(at::allclose(w.grad(), 2 * expected));
}

TEST(AccumulateGrad, ColumnMajorOperandsGetTheSameGradientValues) {
  // mm with each operand row-major or column-major (a transposed view):
  // both layouts of the formulas give the same values.
  at::Tensor a_rows = leaf({3, 4}, -2.0);
  at::Tensor b_rows = leaf({4, 2}, 0.5);
  at::Tensor a_cols_base = leaf({4, 3}, -2.0);
  at::Tensor b_cols_base = leaf({2, 4}, 0.5);
  {
    at::NoGradGuard no_grad;
    a_cols_base.copy_(a_rows.t());
    b_cols_base.copy_(b_rows.t());
  }
  at::Tensor g = at::arange(6, at::kDouble).view({3, 2}) - 2.5;
  at::mm(a_rows, b_rows).backward(g);
  at::mm(a_cols_base.t(), b_cols_base.t()).backward(g);
  EXPECT_TRUE(at::allclose(a_cols_base.grad().t(), a_rows.grad()));
  EXPECT_TRUE(at::allclose(b_cols_base.grad().t(), b_rows.grad()));
  EXPECT_TRUE(at::allclose(a_rows.grad(), at::mm(g, b_rows.detach().t())));
  EXPECT_TRUE(at::allclose(b_rows.grad(), at::mm(a_rows.detach().t(), g)));
  EXPECT_TRUE(a_cols_base.grad().is_contiguous());
  EXPECT_TRUE(b_cols_base.grad().is_contiguous());
}

TEST(AccumulateGrad, AlphaScalesBothLayouts) {
  at::Tensor bias = leaf({2}, 0.0);
  at::Tensor m1_base = leaf({3, 2}, 1.0);  // used as m1_base.t(): column-major
  at::Tensor m2_base = leaf({2, 3}, -1.0);  // used as m2_base.t()
  at::addmm(bias, m1_base.t(), m2_base.t(), /*beta=*/0.5, /*alpha=*/3).sum().backward();
  at::Tensor ones = at::ones({2, 2}, at::kDouble);
  EXPECT_TRUE(at::allclose(m1_base.grad().t(), 3 * at::mm(ones, m2_base.detach())));
  EXPECT_TRUE(at::allclose(m2_base.grad().t(), 3 * at::mm(m1_base.detach(), ones)));
  EXPECT_TRUE(at::allclose(bias.grad(), at::full({2}, 0.5 * 2, at::kDouble)));
}

TEST(AccumulateGrad, GradientSeenElsewhereIsCopied) {
  // A hook on the non-leaf w.t() keeps its gradient; TBackward's view of it
  // then has a base that someone else holds, so w's .grad must be a copy.
  at::Tensor w = leaf({2, 3}, 0.0);
  at::Tensor wt = w.t();
  at::Tensor seen;
  wt.register_hook([&seen](const at::Tensor& g) { seen = g; });
  (wt * 2).sum().backward();
  ASSERT_TRUE(seen.defined());
  EXPECT_NE(w.grad().data_ptr(), seen.data_ptr());
  EXPECT_TRUE(at::allclose(w.grad(), at::full({2, 3}, 2.0, at::kDouble)));
  {
    at::NoGradGuard no_grad;
    seen.fill_(-7);
  }
  EXPECT_TRUE(at::allclose(w.grad(), at::full({2, 3}, 2.0, at::kDouble)));
}

TEST(AccumulateGrad, GradientSharedByTwoLeavesIsCopiedForEach) {
  // add's backward hands the same tensor to both inputs.
  at::Tensor a = leaf({3}, 0.0);
  at::Tensor b = leaf({3}, 1.0);
  (a + b).backward(at::full({3}, 4.0, at::kDouble));
  EXPECT_NE(a.grad().data_ptr(), b.grad().data_ptr());
  {
    at::NoGradGuard no_grad;
    a.mutable_grad().add_(1);
  }
  EXPECT_TRUE(at::allclose(b.grad(), at::full({3}, 4.0, at::kDouble)));
  EXPECT_TRUE(at::allclose(a.grad(), at::full({3}, 5.0, at::kDouble)));
}

}  // namespace

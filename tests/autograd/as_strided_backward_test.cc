// tests/autograd/as_strided_backward_test.cc — the derivative of as_strided
// (also the grad_fn of views made stale by an in-place op, Note [In-place
// on views] in autograd/variable.cc): overlapping outputs sum, inputs that
// are not contiguous or start at an offset map through storage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/autograd.h>
#include <torch/types.h>

#include "autograd/FunctionsManual.h"
#include "autograd/gradcheck.h"

namespace {
using torch::autograd::variable_list;

at::TensorOptions f64() { return at::TensorOptions().dtype(at::kDouble); }

at::Tensor values(std::initializer_list<double> v) { return at::tensor(v); }  // Double

TEST(AsStridedBackward, AnOverlappingOutputSumsIntoEachLocation) {
  at::Tensor x = at::ones({4}, f64()).requires_grad_();
  // Elements 1, 2, 2, 3 (the middle one read twice), times 1, 10, 100, 1000.
  at::Tensor y = x.as_strided({2, 2}, {1, 1}, 1);
  EXPECT_EQ(y.grad_fn()->name(), "AsStridedBackward0");
  (y * values({1, 10, 100, 1000}).view({2, 2})).sum().backward();
  EXPECT_TRUE(at::equal(x.grad(), values({0, 1, 110, 1000})));
}

TEST(AsStridedBackward, ANonContiguousInputAtAnOffsetMapsThroughItsStorage) {
  at::Tensor base = at::arange(0, 12, f64()).view({3, 4});
  at::Tensor grad = values({1, 2, 3});
  // Input: base.t().narrow(0, 1, 2) -> sizes {2, 3}, strides {1, 4},
  // offset 1; output: storage 2, 6, 10 (input elements (1,0), (1,1), (1,2)).
  at::Tensor g = torch::autograd::generated::details::as_strided_backward(
      grad, {2, 3}, {1, 4}, 1, {3}, {4}, 2);
  EXPECT_TRUE(at::equal(g, values({0, 0, 0, 1, 2, 3}).view({2, 3})));
  // Without a storage offset the output starts where the input does.
  g = torch::autograd::generated::details::as_strided_backward(grad, {2, 3}, {1, 4}, 1, {3},
                                                               {1}, std::nullopt);
  EXPECT_TRUE(at::equal(g, values({1, 0, 0, 2, 0, 0}).view({2, 3})));
  // An input whose elements share a location splits the gradient.
  g = torch::autograd::generated::details::as_strided_backward(values({6}), {3}, {0}, 0, {1},
                                                               {1}, 0);
  EXPECT_TRUE(at::equal(g, values({2, 2, 2})));
}

TEST(AsStridedBackward, GradcheckOfAsStridedOnViews) {
  at::Tensor x = at::rand({4, 5}, f64()).requires_grad_();
  auto f = [](const variable_list& in) {
    return variable_list{in[0].as_strided({3, 3}, {5, 1}, 2),
                         in[0].t().as_strided({2, 4}, {1, 1}, 3),  // overlapping
                         in[0].narrow(1, 1, 3).as_strided({4}, {5})};
  };
  EXPECT_TRUE(torch::autograd::gradcheck(f, {x}));
}

}  // namespace

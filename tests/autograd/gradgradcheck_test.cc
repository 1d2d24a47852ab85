// Second derivatives (gradgradcheck, float64) through the ops whose backward
// is an op or helper of its own: views (select/slice/diagonal), softmax,
// losses, convolution, pools and indexing; and first derivatives of the ops
// that gained one (var_mean, std_mean, norm with a dtype, the target of
// binary_cross_entropy, scatter.reduce). Each case runs on contiguous and on
// non-contiguous inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/autograd.h>
#include <torch/types.h>

#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;
using torch::autograd::gradcheck;
using torch::autograd::gradgradcheck;
using torch::autograd::variable_list;
using Fn = std::function<variable_list(const variable_list&)>;

// Deterministic float64 values in [lo, hi), requiring grad; non-contiguous
// (the transpose of a contiguous tensor of the reversed shape) if asked.
at::Tensor input(std::vector<int64_t> shape, double lo, double hi, int seed, bool contiguous) {
  std::vector<int64_t> phys(shape.rbegin(), shape.rend());
  at::Tensor t = at::empty(contiguous ? shape : phys, at::kDouble);
  double* p = t.data_ptr<double>();
  uint64_t s = 88172645463325252ull + static_cast<uint64_t>(seed) * 7919;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    p[i] = lo + (hi - lo) * static_cast<double>(s % 1000003) / 1000003.0;
  }
  if (!contiguous) {
    std::vector<int64_t> rev;
    for (int64_t d = t.dim() - 1; d >= 0; --d) rev.push_back(d);
    t = t.permute(rev);
  }
  return t.requires_grad_();
}

struct Case {
  const char* name;
  Fn fn;
  // Builds the inputs, contiguous or not.
  std::function<variable_list(bool)> inputs;
};

at::Tensor long_tensor(std::vector<int64_t> values, std::vector<int64_t> shape) {
  at::Tensor t = at::empty(shape, at::kLong);
  for (size_t i = 0; i < values.size(); ++i) t.data_ptr<int64_t>()[i] = values[i];
  return t;
}

// The first derivatives with create_graph: every one must itself have
// history (gradgradcheck skips gradients without any, so a backward built
// from non-differentiable writes would pass it silently).
void expect_first_derivatives_have_history(const Fn& fn, const variable_list& inputs) {
  variable_list outs = fn(inputs);
  variable_list gos;
  for (const auto& o : outs) gos.push_back(at::ones_like(o).requires_grad_());
  variable_list grads =
      torch::autograd::grad(outs, inputs, gos, true, /*create_graph=*/true, /*allow_unused=*/true);
  for (size_t i = 0; i < grads.size(); ++i) {
    SCOPED_TRACE("input " + std::to_string(i));
    ASSERT_TRUE(grads[i].defined());
    EXPECT_TRUE(grads[i].requires_grad());
  }
}

void run(const std::vector<Case>& cases, bool twice) {
  for (const Case& c : cases) {
    for (bool contiguous : {true, false}) {
      SCOPED_TRACE(std::string(c.name) + (contiguous ? " (contiguous)" : " (non-contiguous)"));
      const variable_list in = c.inputs(contiguous);
      try {
        EXPECT_TRUE(gradcheck(c.fn, in));
        if (twice) {
          expect_first_derivatives_have_history(c.fn, in);
          EXPECT_TRUE(gradgradcheck(c.fn, in));
        }
      } catch (const c10::Error& e) {
        ADD_FAILURE() << e.what_without_backtrace();
      }
    }
  }
}

auto any(std::vector<int64_t> s, int seed = 0) {
  return [s, seed](bool c) { return variable_list{input(s, -2, 2, seed, c)}; };
}

TEST(Gradgradcheck, Views) {
  run({{"select", [](const variable_list& v) { return variable_list{v[0].select(1, 2), v[0].select(0, -1)}; },
        any({4, 3})},
       {"slice/narrow", [](const variable_list& v) {
          return variable_list{v[0].slice(0, 0, 3, 2), v[0].narrow(1, 1, 2), v[0].slice(1, -2)};
        }, any({4, 3})},
       {"diagonal", [](const variable_list& v) {
          return variable_list{v[0].diagonal(1), v[0].diagonal(-1, 1, 0)};
        }, any({3, 4})}},
      true);
}

TEST(Gradgradcheck, Softmax) {
  run({{"softmax", [](const variable_list& v) { return variable_list{at::softmax(v[0], 1)}; }, any({3, 4})},
       {"log_softmax", [](const variable_list& v) { return variable_list{at::log_softmax(v[0], 0)}; },
        any({3, 4})}},
      true);
}

TEST(Gradgradcheck, Losses) {
  auto two = [](double lo, double hi) {
    return [lo, hi](bool c) { return variable_list{input({3, 4}, lo, hi, 0, c), input({3, 4}, lo, hi, 1, c)}; };
  };
  const at::Tensor target = long_tensor({0, 2, 3}, {3});
  const at::Tensor target2d = long_tensor({0, 2, 1, 1, 0, 2}, {1, 2, 3});
  const at::Tensor weight = at::full({4}, 0.5, at::kDouble);
  run({{"nll_loss", [target, weight](const variable_list& v) {
          const at::Tensor lp = at::log_softmax(v[0], 1);
          return variable_list{at::nll_loss(lp, target), at::nll_loss(lp, target, weight, at::Reduction::Sum),
                               at::nll_loss(lp, target, {}, at::Reduction::None),
                               at::cross_entropy_loss(v[0], target)};
        }, any({3, 4})},
       {"nll_loss2d", [target2d](const variable_list& v) {
          return variable_list{at::nll_loss2d(at::log_softmax(v[0], 1), target2d)};
        }, any({1, 3, 2, 3})},
       {"mse_loss", [](const variable_list& v) {
          return variable_list{at::mse_loss(v[0], v[1]), at::mse_loss(v[0], v[1], at::Reduction::Sum),
                               at::mse_loss(v[0], v[1], at::Reduction::None)};
        }, two(-2, 2)},
       {"binary_cross_entropy (self and target)", [weight](const variable_list& v) {
          return variable_list{at::binary_cross_entropy(v[0], v[1]),
                               at::binary_cross_entropy(v[0], v[1], weight, at::Reduction::Sum),
                               at::binary_cross_entropy(v[0], v[1], {}, at::Reduction::None)};
        }, two(0.1, 0.9)},
       {"binary_cross_entropy_with_logits (self and target)", [weight](const variable_list& v) {
          const at::Tensor pos_weight = at::full({4}, 1.5, at::kDouble);
          return variable_list{at::binary_cross_entropy_with_logits(v[0], v[1]),
                               at::binary_cross_entropy_with_logits(v[0], v[1], weight, pos_weight,
                                                                    at::Reduction::None)};
        }, two(0.1, 0.9)}},
      true);
}

TEST(Gradgradcheck, Convolution) {
  auto conv_inputs = [](std::vector<int64_t> x, std::vector<int64_t> w, int64_t bias) {
    return [x, w, bias](bool c) {
      return variable_list{input(x, -1, 1, 0, c), input(w, -1, 1, 1, c), input({bias}, -1, 1, 2, c)};
    };
  };
  run({{"conv2d (stride, padding)", [](const variable_list& v) {
          return variable_list{at::conv2d(v[0], v[1], v[2], 2, 1)};
        }, conv_inputs({1, 2, 4, 4}, {3, 2, 2, 2}, 3)},
       {"conv2d (groups, dilation, no bias)", [](const variable_list& v) {
          return variable_list{at::convolution(v[0], v[1], std::nullopt, {1, 1}, {0, 0}, {2, 2}, false, {0, 0}, 2) +
                               v[2].sum()};
        }, conv_inputs({2, 2, 4, 4}, {2, 1, 2, 2}, 1)},
       {"transposed convolution", [](const variable_list& v) {
          return variable_list{at::convolution(v[0], v[1], v[2], {2, 2}, {0, 0}, {1, 1}, true, {1, 1}, 1)};
        }, conv_inputs({1, 2, 2, 3}, {2, 3, 2, 2}, 3)}},
      true);
}

// convolution_double_backward is written with convolution and
// convolution_backward, so third derivatives are recorded too.
TEST(Gradgradcheck, ConvolutionThirdDerivative) {
  Fn first = [](const variable_list& v) {
    at::Tensor y = at::conv2d(v[0], v[1], {}, 1, 1);
    return torch::autograd::grad({(y * y).sum()}, {v[0], v[1]}, {}, true, /*create_graph=*/true);
  };
  try {
    EXPECT_TRUE(gradgradcheck(first, {input({1, 1, 3, 3}, -1, 1, 0, true),
                                      input({2, 1, 2, 2}, -1, 1, 1, false)}));
  } catch (const c10::Error& e) {
    ADD_FAILURE() << e.what_without_backtrace();
  }
}

TEST(Gradgradcheck, Pools) {
  run({{"max_pool2d", [](const variable_list& v) {
          return variable_list{at::max_pool2d(v[0], {2, 2}), at::max_pool2d(v[0], {3, 3}, {2, 2}, {1, 1})};
        }, any({1, 2, 4, 4})},
       {"avg_pool2d", [](const variable_list& v) {
          return variable_list{at::avg_pool2d(v[0], {2, 2}),
                               at::avg_pool2d(v[0], {3, 3}, {2, 2}, {1, 1}, true, false)};
        }, any({1, 2, 4, 5})},
       {"adaptive_avg_pool2d", [](const variable_list& v) {
          return variable_list{at::adaptive_avg_pool2d(v[0], {2, 3})};
        }, any({2, 4, 5})}},
      true);
}

TEST(Gradgradcheck, Indexing) {
  const at::Tensor idx = long_tensor({0, 1, 1, 0}, {2, 2});
  run({{"index_select/gather", [idx](const variable_list& v) {
          return variable_list{at::index_select(v[0], 0, idx.select(1, 0)), at::gather(v[0], 1, idx)};
        }, any({2, 3})},
       {"scatter/scatter_add", [idx](const variable_list& v) {
          return variable_list{at::scatter(v[0], 0, idx, v[1]), at::scatter_add(v[0], 0, idx, v[1])};
        }, [](bool c) { return variable_list{input({2, 3}, -2, 2, 0, c), input({2, 2}, -2, 2, 1, c)}; }},
       {"masked_select/index", [idx](const variable_list& v) {
          const at::Tensor mask = at::gt(v[0].detach(), 0);
          return variable_list{at::masked_select(v[0], mask),
                               v[0].index({std::optional<at::Tensor>(idx.select(0, 0))})};
        }, any({2, 3})}},
      true);
}

TEST(Gradcheck, NewlyDifferentiableOps) {
  run({{"var_mean/std_mean", [](const variable_list& v) {
          auto vm = at::var_mean(v[0], at::IntArrayRef{1}, at::Scalar(0), true);
          auto sm = at::std_mean(v[0], at::IntArrayRef{0}, at::Scalar(1), false);
          auto all = at::var_mean(v[0], true);
          return variable_list{std::get<0>(vm), std::get<1>(vm), std::get<0>(sm), std::get<1>(sm),
                               std::get<0>(all) + std::get<1>(all)};
        }, any({3, 4})},
       {"norm with a dtype", [](const variable_list& v) {
          return variable_list{at::norm(v[0], 3, at::IntArrayRef{1}, false, at::kDouble),
                               at::norm(v[0], std::optional<at::Scalar>(2), at::kDouble)};
        }, any({3, 4})},
       {"scatter.reduce add", [](const variable_list& v) {
          const at::Tensor idx = long_tensor({0, 1, 1, 0}, {2, 2});
          return variable_list{at::scatter(v[0], 0, idx, v[1], "add"),
                               at::scatter(v[0], 1, idx, 2.5, "add")};
        }, [](bool c) { return variable_list{input({2, 3}, -2, 2, 0, c), input({2, 2}, -2, 2, 1, c)}; }}},
      true);
}

TEST(Gradcheck, NormWithADtypeGivesTheInputItsOwnDtype) {
  at::Tensor x = at::full({2, 3}, 2.0, at::kFloat).requires_grad_();
  at::Tensor n = at::norm(x, 2, at::IntArrayRef{1}, false, at::kDouble);
  EXPECT_EQ(n.scalar_type(), at::kDouble);
  n.sum().backward();
  EXPECT_EQ(x.grad().scalar_type(), at::kFloat);
  // d|x|/dx = x / |x| = 2 / sqrt(12) per element.
  EXPECT_NEAR(x.grad().select(0, 0).select(0, 0).item<float>(), 2.0 / std::sqrt(12.0), 1e-6);
}

TEST(Gradcheck, ScatterMultiplyHasNoDerivative) {
  at::Tensor x = input({2, 3}, 1, 2, 0, true);
  at::Tensor src = input({2, 2}, 1, 2, 1, true);
  const at::Tensor idx = long_tensor({0, 1, 1, 0}, {2, 2});
  at::Tensor y = at::scatter(x, 0, idx, src, "multiply");
  EXPECT_THAT(errorOf([&] { y.sum().backward(); }),
              HasSubstr("the derivative for 'aten::scatter' with reduce='multiply' is not implemented"));
}

TEST(Gradcheck, ViewBackwardOpsCheckTheGradientShape) {
  at::Tensor g = at::ones({4}, at::kDouble);
  EXPECT_THAT(errorOf([&] { at::select_backward(g, {3, 5}, 0, 1); }),
              HasSubstr("select_backward: grad_output of sizes [4] does not match the forward "
                        "output's sizes [5] for an input of sizes [3, 5]"));
  EXPECT_THAT(errorOf([&] { at::slice_backward(g, {3, 5}, 1, 0, 2, 1); }),
              HasSubstr("slice_backward: grad_output of sizes [4] does not match"));
  EXPECT_THAT(errorOf([&] { at::diagonal_backward(g, {3, 5}, 0, 0, 1); }),
              HasSubstr("diagonal_backward: grad_output of sizes [4] does not match"));
  // A matching gradient lands in the view, zeros elsewhere.
  at::Tensor r = at::slice_backward(at::ones({3, 2}, at::kDouble), {3, 5}, 1, 1, 5, 2);
  EXPECT_EQ(r.sum().item<double>(), 6.0);
  EXPECT_EQ(r.select(1, 3).sum().item<double>(), 3.0);
  EXPECT_EQ(r.select(1, 2).sum().item<double>(), 0.0);
}

}  // namespace

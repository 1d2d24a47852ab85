// gradcheck/gradgradcheck themselves, and the derivative of each op of
// autograd/derivatives.txt against finite differences (first and, for ops
// used twice-differentiated, second order), on contiguous, transposed and
// broadcast inputs.
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

// Deterministic float64 values in [lo, hi), requiring grad.
at::Tensor input(std::vector<int64_t> shape, double lo = -2, double hi = 2, int seed = 0) {
  at::Tensor t = at::empty(shape, at::kDouble);
  double* p = t.data_ptr<double>();
  uint64_t s = 88172645463325252ull + static_cast<uint64_t>(seed) * 7919;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    p[i] = lo + (hi - lo) * static_cast<double>(s % 1000003) / 1000003.0;
  }
  return t.requires_grad_();
}

// A transposed (non-contiguous) leaf with the given logical shape.
at::Tensor transposed_input(int64_t rows, int64_t cols, int seed = 0) {
  at::Tensor base = input({cols, rows}, -2, 2, seed).detach();
  return base.t().requires_grad_();
}

using Fn = std::function<variable_list(const variable_list&)>;

TEST(Gradcheck, CatchesAWrongDerivative) {
  struct WrongSquare : torch::autograd::Function<WrongSquare> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::Tensor x) {
      ctx->save_for_backward({x});
      return x * x;
    }
    static variable_list backward(torch::autograd::AutogradContext* ctx, variable_list g) {
      return {g[0] * ctx->get_saved_variables()[0] * 3};  // should be 2
    }
  };
  Fn f = [](const variable_list& in) { return variable_list{WrongSquare::apply(in[0])}; };
  EXPECT_THAT(errorOf([&] { gradcheck(f, {input({3})}); }),
              HasSubstr("Jacobian mismatch for output 0 with respect to input 0"));
  torch::autograd::GradcheckOptions quiet;
  quiet.raise_exception = false;
  EXPECT_FALSE(gradcheck(f, {input({3})}, quiet));
  EXPECT_THAT(errorOf([&] { gradcheck(f, {at::ones({2}).requires_grad_()}); }),
              HasSubstr("use float64 CPU tensors"));
}

struct Case {
  const char* name;
  Fn fn;
  variable_list inputs;
  bool twice;  // also gradgradcheck
};

std::vector<Case> cases() {
  auto a = [](std::vector<int64_t> s, int seed = 0) { return input(s, -2, 2, seed); };
  auto pos = [](std::vector<int64_t> s, int seed = 0) { return input(s, 0.5, 2, seed); };
  return {
      {"add", [](const variable_list& v) { return variable_list{at::add(v[0], v[1], 2)}; },
       {a({2, 3}), a({3}, 1)}, true},
      {"sub", [](const variable_list& v) { return variable_list{at::sub(v[0], v[1], 0.5)}; },
       {transposed_input(3, 2), a({1, 2}, 1)}, true},
      {"mul", [](const variable_list& v) { return variable_list{v[0] * v[1]}; },
       {a({2, 3}), transposed_input(2, 3, 1)}, true},
      {"div", [](const variable_list& v) { return variable_list{v[0] / v[1]}; },
       {a({2, 3}), pos({3}, 1)}, true},
      {"neg", [](const variable_list& v) { return variable_list{-v[0]}; }, {a({4})}, true},
      {"abs", [](const variable_list& v) { return variable_list{at::abs(v[0])}; }, {pos({4})}, true},
      {"exp", [](const variable_list& v) { return variable_list{at::exp(v[0])}; },
       {transposed_input(2, 3)}, true},
      {"log", [](const variable_list& v) { return variable_list{at::log(v[0])}; }, {pos({4})}, true},
      {"sqrt", [](const variable_list& v) { return variable_list{at::sqrt(v[0])}; }, {pos({4})}, true},
      {"relu", [](const variable_list& v) { return variable_list{at::relu(v[0])}; }, {a({5})}, false},
      {"clone", [](const variable_list& v) { return variable_list{v[0].clone()}; }, {a({3})}, true},
      {"view/reshape", [](const variable_list& v) { return variable_list{v[0].view({6}).reshape({3, 2})}; },
       {a({2, 3})}, true},
      {"t/transpose/permute",
       [](const variable_list& v) { return variable_list{v[0].t().unsqueeze(0).permute({2, 0, 1}).transpose(0, 1)}; },
       {a({2, 3})}, true},
      {"expand", [](const variable_list& v) { return variable_list{v[0].expand({4, 3})}; }, {a({1, 3})}, true},
      {"squeeze", [](const variable_list& v) { return variable_list{v[0].squeeze(), v[0].squeeze(1)}; },
       {a({3, 1})}, true},
      {"select/slice/narrow",
       [](const variable_list& v) { return variable_list{v[0].select(1, 2), v[0].slice(0, 0, 3, 2), v[0].narrow(1, 1, 2)}; },
       {a({4, 3})}, false},
      {"diagonal", [](const variable_list& v) { return variable_list{v[0].diagonal(1)}; }, {a({3, 4})}, false},
      {"sum", [](const variable_list& v) { return variable_list{v[0].sum(), at::sum(v[0], {1}, true), at::sum(v[0], {0})}; },
       {transposed_input(3, 2)}, true},
      {"mean", [](const variable_list& v) { return variable_list{v[0].mean(), at::mean(v[0], {0}, false)}; },
       {a({3, 2})}, true},
      {"amax/amin", [](const variable_list& v) { return variable_list{at::amax(v[0], {1}), at::amin(v[0], {0}, true)}; },
       {a({3, 4})}, false},
      {"mm", [](const variable_list& v) { return variable_list{at::mm(v[0], v[1])}; },
       {a({2, 3}), transposed_input(3, 4, 1)}, true},
      {"bmm", [](const variable_list& v) { return variable_list{at::bmm(v[0], v[1])}; },
       {a({2, 2, 3}), a({2, 3, 2}, 1)}, true},
      {"addmm", [](const variable_list& v) { return variable_list{at::addmm(v[0], v[1], v[2], 0.5, 2)}; },
       {a({3}), a({2, 4}, 1), a({4, 3}, 2)}, true},
      {"matmul (batched, broadcast)",
       [](const variable_list& v) { return variable_list{at::matmul(v[0], v[1])}; },
       {a({2, 1, 2, 3}), a({3, 3, 2}, 1)}, true},
      {"linear", [](const variable_list& v) { return variable_list{at::linear(v[0], v[1], v[2])}; },
       {a({2, 3}), a({4, 3}, 1), a({4}, 2)}, true},
      {"mv/dot/outer",
       [](const variable_list& v) { return variable_list{at::mv(v[0], v[1]), at::dot(v[1], v[1]), at::outer(v[1], v[2])}; },
       {a({2, 3}), a({3}, 1), a({2}, 2)}, true},
      {"baddbmm", [](const variable_list& v) { return variable_list{at::baddbmm(v[0], v[1], v[2], 0.5, 2)}; },
       {a({2}), a({2, 2, 3}, 1), a({2, 3, 2}, 2)}, true},
      {"in-place mul_ on a non-leaf",
       [](const variable_list& v) {
         at::Tensor t = v[0] * 1;
         t.mul_(v[1]);
         return variable_list{t};
       },
       {a({3}), a({3}, 1)}, true},
      {"copy_", [](const variable_list& v) {
         at::Tensor t = v[0] * 1;
         t.copy_(v[1]);
         return variable_list{t};
       },
       {a({2, 3}), a({3}, 1)}, false},
      // ---- pointwise
      {"scalar overloads", [](const variable_list& v) {
         return variable_list{at::add(v[0], 2), at::sub(v[0], 1.5), at::mul(v[0], 3), at::div(v[0], 4),
                              at::rsub(v[0], v[1])};
       }, {a({3}), a({3}, 1)}, true},
      {"unary math", [](const variable_list& v) {
         return variable_list{at::log1p(v[0]), at::expm1(v[0]), at::rsqrt(v[0]), at::reciprocal(v[0]),
                              at::sin(v[0]), at::cos(v[0]), at::tanh(v[0]), at::sigmoid(v[0])};
       }, {pos({4})}, true},
      {"pow", [](const variable_list& v) {
         return variable_list{at::pow(v[0], 3), at::pow(v[0], v[1]), at::pow(2.0, v[1])};
       }, {pos({3}), a({3}, 1)}, true},
      {"maximum/minimum/where/clamp", [](const variable_list& v) {
         return variable_list{at::maximum(v[0], v[1]), at::minimum(v[0], v[1]),
                              at::where(at::gt(v[0], 0), v[0], v[1]), at::clamp(v[0], -1, 1)};
       }, {a({5}), a({5}, 1)}, false},
      {"addcmul/addcdiv/lerp", [](const variable_list& v) {
         return variable_list{at::addcmul(v[0], v[1], v[2], 0.5), at::addcdiv(v[0], v[1], v[2], 2),
                              at::lerp(v[0], v[1], v[2])};
       }, {a({3}), a({3}, 1), pos({3}, 2)}, true},
      {"activations", [](const variable_list& v) {
         return variable_list{at::gelu(v[0]), at::silu(v[0]), at::elu(v[0]), at::softplus(v[0]),
                              at::leaky_relu(v[0], 0.1), at::hardtanh(v[0])};
       }, {a({6})}, false},
      // ---- reductions
      {"prod/cumsum/logsumexp", [](const variable_list& v) {
         return variable_list{v[0].prod(), at::prod(v[0], 1), at::cumsum(v[0], 0),
                              at::logsumexp(v[0], {1})};
       }, {pos({2, 3})}, true},
      {"var/std/norm", [](const variable_list& v) {
         return variable_list{at::var(v[0]), at::std(v[0], at::IntArrayRef{1}), at::norm(v[0]),
                              at::norm(v[0], 3, {0})};
       }, {a({3, 4})}, true},
      {"max/min", [](const variable_list& v) {
         return variable_list{v[0].max(), std::get<0>(at::max(v[0], 1)), std::get<0>(at::min(v[0], 0))};
       }, {a({3, 4})}, false},
      // ---- nn
      {"softmax/log_softmax", [](const variable_list& v) {
         return variable_list{at::softmax(v[0], 1), at::log_softmax(v[0], 0)};
       }, {a({3, 4})}, false},
      {"losses", [](const variable_list& v) {
         at::Tensor target = at::zeros({3}, at::kLong);
         target.select(0, 1).fill_(2);
         return variable_list{at::nll_loss(at::log_softmax(v[0], 1), target),
                              at::cross_entropy_loss(v[0], target),
                              at::mse_loss(v[0], v[1]),
                              at::binary_cross_entropy(at::sigmoid(v[0]), at::full({3, 4}, 0.3, at::kDouble)),
                              at::binary_cross_entropy_with_logits(v[0], at::full({3, 4}, 0.3, at::kDouble))};
       }, {a({3, 4}), a({3, 4}, 1)}, false},
      {"batch_norm/layer_norm", [](const variable_list& v) {
         return variable_list{at::batch_norm(v[0], v[1], v[2], {}, {}, true, 0.1, 1e-5, false),
                              at::layer_norm(v[0], {4, 2}, {}, {}, 1e-5, false)};
       }, {a({3, 4, 2}), pos({4}, 1), a({4}, 2)}, false},
      {"embedding", [](const variable_list& v) {
         at::Tensor idx = at::zeros({4}, at::kLong);
         idx.select(0, 1).fill_(2);
         idx.select(0, 3).fill_(2);
         return variable_list{at::embedding(v[0], idx)};
       }, {a({3, 2})}, false},
      {"conv2d/pools", [](const variable_list& v) {
         at::Tensor c = at::conv2d(v[0], v[1], v[2], 1, 1);
         return variable_list{c, at::max_pool2d(c, {2, 2}), at::avg_pool2d(c, {2, 2}),
                              at::adaptive_avg_pool2d(c, {1, 1})};
       }, {a({1, 2, 4, 4}), a({3, 2, 3, 3}, 1), a({3}, 2)}, false},
      // ---- indexing and joining
      {"index_select/gather/scatter", [](const variable_list& v) {
         at::Tensor idx = at::zeros({2, 2}, at::kLong);
         idx.select(0, 1).fill_(1);
         return variable_list{at::index_select(v[0], 0, idx.select(1, 0)), at::gather(v[0], 1, idx),
                              at::scatter(v[0], 0, idx, v[1]), at::scatter_add(v[0], 0, idx, v[1])};
       }, {a({2, 3}), a({2, 2}, 1)}, false},
      {"masked/index/cat/stack", [](const variable_list& v) {
         at::Tensor mask = at::gt(v[0].detach(), 0);
         at::Tensor idx = at::zeros({2}, at::kLong);
         return variable_list{v[0].masked_fill(mask, 0), at::masked_select(v[0], mask),
                              v[0].index({std::optional<at::Tensor>(idx)}),
                              at::cat({v[0], v[1]}, 0), at::stack({v[0], v[1]}, 1)};
       }, {a({2, 3}), a({2, 3}, 1)}, false},
      {"sort/topk", [](const variable_list& v) {
         return variable_list{std::get<0>(at::sort(v[0], 1)), std::get<0>(at::topk(v[0], 2))};
       }, {a({2, 4})}, false},
  };
}

TEST(Gradcheck, InputsWithoutAFormulaRaiseOnBackward) {
  // nll_loss's class weights have no derivative (as in PyTorch).
  at::Tensor x = input({2, 3});
  at::Tensor w = input({3}, 0.2, 0.8, 1);
  at::Tensor target = at::zeros({2}, at::kLong);
  at::Tensor loss = at::nll_loss(at::log_softmax(x, 1), target, w);
  EXPECT_THAT(errorOf([&] { loss.backward(); }),
              HasSubstr("the derivative for 'aten::nll_loss_forward' with respect to "
                        "'weight' is not implemented"));
}

TEST(Gradcheck, EveryDifferentiableOp) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    try {
      EXPECT_TRUE(gradcheck(c.fn, c.inputs));
      if (c.twice) {
        EXPECT_TRUE(gradgradcheck(c.fn, c.inputs));
      }
    } catch (const c10::Error& e) {
      ADD_FAILURE() << e.what_without_backtrace();
    }
  }
}

}  // namespace

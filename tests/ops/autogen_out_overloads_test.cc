// The out= forms PyTorch autogenerates for _to_copy, clone, masked_fill, relu, rsub,
// isnan/isinf, native_dropout(_backward), the view backward ops, embedding,
// convolution and binary_cross_entropy_with_logits
// (backends/cpu/out_overloads_autogen.cc, Note [out= overloads that copy]):
// each equals its functional form, copied with copy_ dtype rules into an out
// that is resized as resize_output does, and refuses an undefined out.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class AutogenOutOverloads : public OutTest {};
EMBER_INSTANTIATE_CONFORMANCE(AutogenOutOverloads);

using Write = std::function<at::Tensor&(at::Tensor&)>;

// Writes into an empty out of the result's dtype, a transposed out of its
// shape (for >= 2 dims) and an empty Double out; each must be returned and
// equal `want` (converted to Double for the last).
void expect_copied(const at::Tensor& want, const Write& write, const std::string& what) {
  const auto opts = at::TensorOptions().device(want.device());
  std::vector<at::Tensor> outs{at::empty({0}, opts.dtype(want.scalar_type()))};
  if (want.dim() >= 2) {
    std::vector<int64_t> flipped(want.sizes().begin(), want.sizes().end());
    std::swap(flipped[0], flipped[1]);
    outs.push_back(at::empty(flipped, opts.dtype(want.scalar_type())).transpose(0, 1));
  }
  outs.push_back(at::empty({0}, opts.dtype(kDouble)));
  for (at::Tensor o : outs) {
    EXPECT_TRUE(write(o).is_same(o)) << what;
    EXPECT_TRUE(at::equal(o, want.to(o.scalar_type()))) << what << ": got " << o;
  }
}

TEST_P(AutogenOutOverloads, PointwiseOutFormsMatchTheFunctionalForms) {
  const at::Tensor x = rand({3, 4});
  const at::Tensor y = rand({3, 4}, kFloat, {-2, 2}, 4);
  const at::Tensor mask = at::gt(x, 0.5);
  expect_copied(at::clone(x), [&](at::Tensor& o) -> at::Tensor& { return at::clone_out(o, x); },
                "clone");
  expect_copied(x, [&](at::Tensor& o) -> at::Tensor& { return at::_to_copy_out(o, x); },
                "_to_copy");
  expect_copied(at::masked_fill(x, mask, 7.5),
                [&](at::Tensor& o) -> at::Tensor& { return at::masked_fill_out(o, x, mask, 7.5); },
                "masked_fill.Scalar_out");
  const at::Tensor v = at::full({}, -3.0, options(kFloat));
  expect_copied(at::masked_fill(x, mask, v),
                [&](at::Tensor& o) -> at::Tensor& { return at::masked_fill_outf(x, mask, v, o); },
                "masked_fill.Tensor_out");
  expect_copied(at::relu(x), [&](at::Tensor& o) -> at::Tensor& { return at::relu_out(o, x); },
                "relu");
  expect_copied(at::rsub(x, y, 2),
                [&](at::Tensor& o) -> at::Tensor& { return at::rsub_out(o, x, y, 2); },
                "rsub.Tensor_out");
  expect_copied(at::rsub(x, 1.5, 3),
                [&](at::Tensor& o) -> at::Tensor& { return at::rsub_outf(x, 1.5, 3, o); },
                "rsub.Scalar_out");
  const float inf = std::numeric_limits<float>::infinity();
  const at::Tensor z = make_tensor(Ref({2, 3}, {1, std::nan(""), -inf, 0, inf, 2}), kFloat,
                                   device());
  expect_copied(at::isnan(z), [&](at::Tensor& o) -> at::Tensor& { return at::isnan_out(o, z); },
                "isnan");
  expect_copied(at::isinf(z), [&](at::Tensor& o) -> at::Tensor& { return at::isinf_out(o, z); },
                "isinf");
}

TEST_P(AutogenOutOverloads, DropoutOutFormsMatchTheFunctionalForms) {
  const at::Tensor x = rand({4, 5}, kFloat, {1, 2}, 5);
  at::manual_seed(7);
  // Named references, not a structured binding: C++17 lambdas (clang's
  // reading) cannot capture a structured binding.
  const auto forward = at::native_dropout(x, 0.4, true);
  const at::Tensor& want = std::get<0>(forward);
  const at::Tensor& want_mask = std::get<1>(forward);
  at::manual_seed(7);
  at::Tensor o0 = empty(kDouble), o1 = empty(kBool);
  const auto r = at::native_dropout_out(o0, o1, x, 0.4, true);
  EXPECT_TRUE(std::get<0>(r).is_same(o0));
  EXPECT_TRUE(std::get<1>(r).is_same(o1));
  EXPECT_TRUE(at::equal(o0, want.to(kDouble)));
  EXPECT_TRUE(at::equal(o1, want_mask));
  const at::Tensor g = rand({4, 5}, kFloat, {-1, 1}, 6);
  expect_copied(at::native_dropout_backward(g, want_mask, 1 / 0.6),
                [&](at::Tensor& o) -> at::Tensor& {
                  return at::native_dropout_backward_out(o, g, want_mask, 1 / 0.6);
                },
                "native_dropout_backward");
  at::Tensor undefined;
  EXPECT_THAT(errorOf([&] { at::native_dropout_out(o0, undefined, x, 0.4, true); }),
              HasSubstr("native_dropout: the out= tensor `out1` is undefined"));
}

TEST_P(AutogenOutOverloads, ViewBackwardOutFormsMatchTheFunctionalForms) {
  const at::Tensor g = rand({3, 2});
  expect_copied(at::select_backward(g, {3, 4, 2}, 1, 2),
                [&](at::Tensor& o) -> at::Tensor& {
                  return at::select_backward_out(o, g, {3, 4, 2}, 1, 2);
                },
                "select_backward");
  expect_copied(at::slice_backward(g, {3, 5}, 1, 1, 5, 2),
                [&](at::Tensor& o) -> at::Tensor& {
                  return at::slice_backward_out(o, g, {3, 5}, 1, 1, 5, 2);
                },
                "slice_backward");
  const at::Tensor d = rand({2});
  expect_copied(at::diagonal_backward(d, {3, 2}, -1, 0, 1),
                [&](at::Tensor& o) -> at::Tensor& {
                  return at::diagonal_backward_out(o, d, {3, 2}, -1, 0, 1);
                },
                "diagonal_backward");
}

TEST_P(AutogenOutOverloads, NnOutFormsMatchTheFunctionalForms) {
  const at::Tensor w = rand({5, 3});
  const at::Tensor idx = make_tensor(Ref({2, 2}, {0, 4, 4, 1}), kLong, device());
  expect_copied(at::embedding(w, idx, 1),
                [&](at::Tensor& o) -> at::Tensor& { return at::embedding_out(o, w, idx, 1); },
                "embedding");
  const at::Tensor x = rand({1, 2, 4, 4});
  const at::Tensor k = rand({3, 2, 3, 3}, kFloat, {-1, 1}, 8);
  const at::Tensor b = rand({3}, kFloat, {-1, 1}, 9);
  expect_copied(at::convolution(x, k, b, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1),
                [&](at::Tensor& o) -> at::Tensor& {
                  return at::convolution_out(o, x, k, b, {1, 1}, {1, 1}, {1, 1}, false,
                                             {0, 0}, 1);
                },
                "convolution");
  const at::Tensor t = rand({3, 4}, kFloat, {0, 1}, 10);
  const at::Tensor pw = rand({4}, kFloat, {0.5, 2}, 11);
  for (const int64_t reduction : {0, 1, 2}) {
    expect_copied(at::binary_cross_entropy_with_logits(x.view({8, 4}).narrow(0, 0, 3), t,
                                                       std::nullopt, pw, reduction),
                  [&](at::Tensor& o) -> at::Tensor& {
                    return at::binary_cross_entropy_with_logits_out(
                        o, x.view({8, 4}).narrow(0, 0, 3), t, std::nullopt, pw, reduction);
                  },
                  "binary_cross_entropy_with_logits");
  }
}

TEST_P(AutogenOutOverloads, UndefinedOutsAreRefusedWithTheOpsName) {
  const at::Tensor x = rand({2, 3});
  const at::Tensor idx = make_tensor(Ref({2}, {0, 1}), kLong, device());
  at::Tensor u;
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"clone", [&] { at::clone_out(u, x); }},
      {"_to_copy", [&] { at::_to_copy_out(u, x); }},
      {"masked_fill", [&] { at::masked_fill_out(u, x, at::gt(x, 0), 1); }},
      {"relu", [&] { at::relu_out(u, x); }},
      {"rsub", [&] { at::rsub_out(u, x, x); }},
      {"isnan", [&] { at::isnan_out(u, x); }},
      {"isinf", [&] { at::isinf_out(u, x); }},
      {"native_dropout_backward",
       [&] { at::native_dropout_backward_out(u, x, at::gt(x, 0), 2.0); }},
      {"select_backward", [&] { at::select_backward_out(u, x, {2, 2, 3}, 1, 0); }},
      {"slice_backward", [&] { at::slice_backward_out(u, x, {4, 3}, 0, 0, 2, 1); }},
      {"diagonal_backward", [&] { at::diagonal_backward_out(u, x.select(0, 0), {3, 3}, 0, 0, 1); }},
      {"embedding", [&] { at::embedding_out(u, x, idx); }},
      {"convolution",
       [&] { at::convolution_out(u, x.view({1, 1, 2, 3}), x.view({1, 1, 2, 3}), std::nullopt,
                                 {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1); }},
      {"binary_cross_entropy_with_logits",
       [&] { at::binary_cross_entropy_with_logits_out(u, x, at::zeros_like(x)); }},
  };
  for (const auto& [op, call] : calls) {
    EXPECT_THAT(errorOf(call), HasSubstr(std::string(op) + ": the out= tensor `out` is "
                                         "undefined; pass a defined tensor"));
  }
  // The functional op's own errors reach the caller unchanged.
  at::Tensor o = empty(kFloat);
  EXPECT_THAT(errorOf([&] { at::select_backward_out(o, x, {2, 2, 4}, 1, 0); }),
              HasSubstr("select_backward: grad_output of sizes [2, 3] does not match the "
                        "forward output's sizes [2, 4]"));
  EXPECT_EQ(o.numel(), 0);
}

}  // namespace
}  // namespace ember_conformance

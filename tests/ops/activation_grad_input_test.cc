// The `.grad_input` out= forms of the activations' backward ops
// (backends/cpu/out_overloads_activation.cc): each equals its functional
// form, resizes an empty grad_input, writes through a transposed one, casts
// into a wider dtype and refuses a dtype the result cannot be cast to.
#include <functional>
#include <string>
#include <vector>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class ActivationGradInput : public OpTest {
 protected:
  at::Tensor rand(ScalarType dtype, uint64_t seed) const {
    return make_tensor(random_ref({3, 4}, dtype, {-3, 3}, seed), dtype, device());
  }
};
EMBER_INSTANTIATE_CONFORMANCE(ActivationGradInput);

struct Case {
  std::string name;
  // The functional backward of (grad_output, x), and its .grad_input form.
  std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> functional;
  std::function<at::Tensor&(const at::Tensor&, const at::Tensor&, at::Tensor&)> out;
};

std::vector<Case> cases() {
  using T = const at::Tensor&;
  return {
      {"threshold_backward", [](T g, T x) { return at::threshold_backward(g, x, 0.5); },
       [](T g, T x, at::Tensor& o) -> at::Tensor& {
         return at::threshold_backward_out(o, g, x, 0.5);
       }},
      {"sigmoid_backward", [](T g, T x) { return at::sigmoid_backward(g, x); },
       [](T g, T x, at::Tensor& o) -> at::Tensor& { return at::sigmoid_backward_out(o, g, x); }},
      {"tanh_backward", [](T g, T x) { return at::tanh_backward(g, x); },
       [](T g, T x, at::Tensor& o) -> at::Tensor& { return at::tanh_backward_outf(g, x, o); }},
      {"gelu_backward", [](T g, T x) { return at::gelu_backward(g, x, "tanh"); },
       [](T g, T x, at::Tensor& o) -> at::Tensor& {
         return at::gelu_backward_out(o, g, x, "tanh");
       }},
      {"silu_backward", [](T g, T x) { return at::silu_backward(g, x); },
       [](T g, T x, at::Tensor& o) -> at::Tensor& { return at::silu_backward_out(o, g, x); }},
      {"elu_backward", [](T g, T x) { return at::elu_backward(g, 1.5, 1.0, 1.0, false, x); },
       [](T g, T x, at::Tensor& o) -> at::Tensor& {
         return at::elu_backward_out(o, g, 1.5, 1.0, 1.0, false, x);
       }},
      {"softplus_backward", [](T g, T x) { return at::softplus_backward(g, x, 2, 5); },
       [](T g, T x, at::Tensor& o) -> at::Tensor& {
         return at::softplus_backward_out(o, g, x, 2, 5);
       }},
      {"leaky_relu_backward",
       [](T g, T x) { return at::leaky_relu_backward(g, x, 0.1, false); },
       [](T g, T x, at::Tensor& o) -> at::Tensor& {
         return at::leaky_relu_backward_out(o, g, x, 0.1, false);
       }},
      {"hardtanh_backward", [](T g, T x) { return at::hardtanh_backward(g, x, -1, 1); },
       [](T g, T x, at::Tensor& o) -> at::Tensor& {
         return at::hardtanh_backward_out(o, g, x, -1, 1);
       }},
  };
}

TEST_P(ActivationGradInput, EqualsTheFunctionalBackward) {
  for (const ScalarType dtype : {kFloat, kDouble}) {
    const at::Tensor g = rand(dtype, 1), x = rand(dtype, 2);
    for (const Case& c : cases()) {
      const at::Tensor want = c.functional(g, x);
      at::Tensor empty = at::empty({0}, options(dtype));
      at::Tensor transposed = at::empty({4, 3}, options(dtype)).transpose(0, 1);
      for (at::Tensor* o : {&empty, &transposed}) {
        at::Tensor& r = c.out(g, x, *o);
        EXPECT_TRUE(r.is_same(*o)) << c.name;
        EXPECT_TRUE(at::equal(*o, want)) << c.name;
      }
    }
  }
}

TEST_P(ActivationGradInput, CastsIntoWiderDtypesAndRefusesIntegral) {
  const at::Tensor g = rand(kFloat, 3), x = rand(kFloat, 4);
  for (const Case& c : cases()) {
    at::Tensor d = at::empty({0}, options(kDouble));
    c.out(g, x, d);
    EXPECT_TRUE(at::equal(d, c.functional(g, x).to(at::kDouble))) << c.name;
    at::Tensor l = at::empty({0}, options(kLong));
    EXPECT_THAT(errorOf([&] { c.out(g, x, l); }),
                HasSubstr(c.name + ": result type Float can't be cast to the desired output "
                          "type Long"));
  }
}

}  // namespace
}  // namespace ember_conformance

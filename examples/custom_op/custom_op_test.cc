// examples/custom_op: loads libember_myops.so, calls myops::mymul through
// the dispatcher (boxed and through a typed handle), checks it against
// at::mul and its derivatives with gradcheck.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>

#include <torch/torch.h>

namespace {

using ::testing::HasSubstr;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

// [doc:load]
void load_myops() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  torch::load_library(std::string(srcdir ? srcdir : ".") +
                      "/ember/examples/custom_op/libember_myops.so");
}
// [doc:end]

class CustomOp : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    load_myops();
    torch::manual_seed(0);
  }
};

TEST_F(CustomOp, TypedAndBoxedCallsAgreeWithMul) {
  at::Tensor a = at::randn({3, 4});
  at::Tensor b = at::randn({3, 4});
  // [doc:call]
  auto op = c10::Dispatcher::singleton()
                .findSchemaOrThrow("myops::mymul", "")
                .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
  at::Tensor typed = op.call(a, b);

  torch::jit::Stack stack;
  torch::jit::push(stack, a, b);
  c10::Dispatcher::singleton().findSchemaOrThrow("myops::mymul", "").callBoxed(stack);
  at::Tensor boxed = torch::jit::pop(stack).toTensor();
  // [doc:end]
  EXPECT_TRUE(at::allclose(typed, a * b));
  EXPECT_TRUE(at::equal(typed, boxed));
  EXPECT_THAT(error_of([&] { op.call(a, at::ones({2})); }),
              HasSubstr("mymul: self has sizes [3, 4] but other has [2]"));
}

TEST_F(CustomOp, BackwardPassesGradcheck) {
  auto op = c10::Dispatcher::singleton()
                .findSchemaOrThrow("myops::mymul", "")
                .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
  at::Tensor a = at::randn({2, 3}).requires_grad_();
  at::Tensor b = at::randn({2, 3}).requires_grad_();
  at::Tensor y = op.call(a, b);
  EXPECT_EQ(y.grad_fn()->name(), "CppNode<MyMulFunction>");
  y.sum().backward();
  EXPECT_TRUE(at::allclose(a.grad(), b.detach()));
  EXPECT_TRUE(at::allclose(b.grad(), a.detach()));
  // Finite differences in float64.
  at::Tensor a64 = at::randn({2, 3}, at::kDouble).requires_grad_();
  at::Tensor b64 = at::randn({2, 3}, at::kDouble).requires_grad_();
  EXPECT_TRUE(torch::autograd::gradcheck(
      [&](const torch::autograd::variable_list& in) {
        return torch::autograd::variable_list{op.call(in[0], in[1])};
      },
      {a64, b64}));
  EXPECT_TRUE(torch::autograd::gradgradcheck(
      [&](const torch::autograd::variable_list& in) {
        return torch::autograd::variable_list{op.call(in[0], in[1])};
      },
      {a64, b64}));
}

}  // namespace

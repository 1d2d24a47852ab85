// The autograd engine end to end: the worked example of the seeds, graph
// structure, retain/create graph, errors, deep graphs, final callbacks,
// threads. Reentrant backward is in reentrant_test.cc; GraphTask and
// execute_with_graph_task in graph_task_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include <torch/autograd.h>
#include <torch/library.h>
#include <torch/types.h>

#include "registration/library.h"
#include "tests/support/error_of.h"

// An op without a derivative (as every op a user registers): autograd's
// fallback gives its outputs a Node that raises when a gradient reaches it.
namespace {
at::Tensor twice_kernel(const at::Tensor& self) { return self * 2; }
}  // namespace
TORCH_LIBRARY(engine_test, m) { m.def("twice(Tensor self) -> Tensor"); }
TORCH_LIBRARY_IMPL(engine_test, CPU, m) { m.impl("twice", TORCH_FN(twice_kernel)); }

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;
using torch::autograd::variable_list;

at::Tensor twice(const at::Tensor& t) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("engine_test::twice", "")
                       .typed<at::Tensor(const at::Tensor&)>();
  return op.call(t);
}

std::vector<float> values(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

TEST(Engine, WorkedExampleOfTheSeeds) {
  at::Tensor x = at::ones({2, 2}, at::TensorOptions().requires_grad(true));
  at::Tensor y = x + 2;
  at::Tensor z = y * y * 3;
  at::Tensor out = z.mean();
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(out.is_leaf());
  EXPECT_EQ(out.grad_fn()->name(), "MeanBackward0");
  EXPECT_EQ(z.grad_fn()->name(), "MulBackward1");  // mul.Scalar, as in libtorch
  EXPECT_EQ(z.grad_fn()->next_edges()[0].function->name(), "MulBackward0");
  EXPECT_FLOAT_EQ(out.item<float>(), 27.0f);
  out.backward();
  ASSERT_TRUE(x.grad().defined());
  for (float g : values(x.grad())) EXPECT_FLOAT_EQ(g, 4.5f);
  EXPECT_FALSE(y.grad().defined());  // non-leaf without retain_grad
}

TEST(Engine, GradientsAccumulateAcrossBackwardCalls) {
  at::Tensor w = at::full({3}, 2.0).requires_grad_();
  (w * 3).sum().backward();
  (w * w).sum().backward();
  for (float g : values(w.grad())) EXPECT_FLOAT_EQ(g, 3.0f + 4.0f);
}

TEST(Engine, BroadcastGradientsAreSummedBack) {
  at::Tensor a = at::ones({2, 3}).requires_grad_();
  at::Tensor b = at::ones({3}).requires_grad_();
  (a * b).sum().backward();
  EXPECT_EQ(b.grad().sizes().vec(), (std::vector<int64_t>{3}));
  for (float g : values(b.grad())) EXPECT_FLOAT_EQ(g, 2.0f);
}

TEST(Engine, MatmulAndViewsDifferentiate) {
  at::Tensor a = at::ones({2, 3}).requires_grad_();
  at::Tensor b = at::full({3, 4}, 2.0).requires_grad_();
  at::Tensor c = at::matmul(a, b.t().t()).view({8}).sum();
  c.backward();
  for (float g : values(a.grad())) EXPECT_FLOAT_EQ(g, 8.0f);   // row sums of b
  for (float g : values(b.grad())) EXPECT_FLOAT_EQ(g, 2.0f);   // column sums of a
}

TEST(Engine, RetainGraphAllowsASecondBackward) {
  at::Tensor x = at::full({2}, 3.0).requires_grad_();
  at::Tensor y = (x * x).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  for (float g : values(x.grad())) EXPECT_FLOAT_EQ(g, 12.0f);
  EXPECT_THAT(errorOf([&] { y.backward(); }),
              HasSubstr("Trying to backward through the graph a second time"));
}

TEST(Engine, CreateGraphGivesHigherOrderGradients) {
  at::Tensor x = at::full({1}, 2.0).requires_grad_();
  at::Tensor y = x * x * x;
  variable_list g = torch::autograd::grad({y.sum()}, {x}, {}, std::nullopt, true);
  EXPECT_FLOAT_EQ(g[0].item<float>(), 12.0f);  // 3x^2
  ASSERT_TRUE(g[0].requires_grad());
  variable_list gg = torch::autograd::grad({g[0].sum()}, {x});
  EXPECT_FLOAT_EQ(gg[0].item<float>(), 12.0f);  // 6x
  EXPECT_FALSE(x.grad().defined());              // grad() leaves .grad alone
}

TEST(Engine, GradWithUnusedInputs) {
  at::Tensor x = at::ones({2}).requires_grad_();
  at::Tensor unused = at::ones({2}).requires_grad_();
  at::Tensor y = (x * 2).sum();
  EXPECT_THAT(errorOf([&] { torch::autograd::grad({y}, {x, unused}, {}, true); }),
              HasSubstr("appears to not have been used in the graph"));
  variable_list g = torch::autograd::grad({y}, {x, unused}, {}, true, false, true);
  EXPECT_FALSE(g[1].defined());
  for (float v : values(g[0])) EXPECT_FLOAT_EQ(v, 2.0f);
}

TEST(Engine, BackwardIntoChosenInputsOnly) {
  at::Tensor a = at::full({2}, 3.0).requires_grad_();
  at::Tensor b = at::ones({2}).requires_grad_();
  at::Tensor c = at::full({2}, 5.0).requires_grad_();
  (a * b * c).sum().backward({}, std::nullopt, false, at::TensorList(b));
  EXPECT_FALSE(a.grad().defined());
  EXPECT_FALSE(c.grad().defined());
  ASSERT_TRUE(b.grad().defined());
  EXPECT_EQ(values(b.grad()), (std::vector<float>{15, 15}));  // a * c
  // A second call accumulates into the chosen input only.
  (a * b).sum().backward({}, std::nullopt, false, at::TensorList(b));
  EXPECT_EQ(values(b.grad()), (std::vector<float>{18, 18}));
  EXPECT_FALSE(a.grad().defined());
}

TEST(Engine, InPlaceChangeOfASavedTensorIsRefused) {
  at::Tensor a = at::ones({2, 2}).requires_grad_();
  at::Tensor b = a * 2;
  at::Tensor c = b * b;  // saves b
  b.add_(at::ones({2, 2}));
  EXPECT_THAT(errorOf([&] { c.sum().backward(); }),
              HasSubstr("one of the variables needed for gradient computation has been "
                        "modified by an inplace operation: [CPUFloatType [2, 2]], which is "
                        "output 0 of MulBackward1, is at version 1; expected version 0 "
                        "instead."));
}

TEST(Engine, InPlaceOnALeafThatRequiresGradIsRefused) {
  at::Tensor a = at::ones({2}).requires_grad_();
  EXPECT_THAT(errorOf([&] { a.add_(at::ones({2})); }),
              HasSubstr("a leaf Variable that requires grad is being used in an in-place "
                        "operation"));
  {
    torch::NoGradGuard no_grad;
    a.add_(at::ones({2}));  // fine: an optimizer step
  }
  EXPECT_FLOAT_EQ(values(a)[0], 2.0f);
}

TEST(Engine, InPlaceOpsRecordHistory) {
  at::Tensor a = at::full({2}, 3.0).requires_grad_();
  at::Tensor b = a * 1;
  b.mul_(a);  // b = a * a
  EXPECT_EQ(b.grad_fn()->name(), "MulBackward0");
  b.sum().backward();
  for (float g : values(a.grad())) EXPECT_FLOAT_EQ(g, 6.0f);
}

TEST(Engine, OpsWithoutADerivativeRaiseOnBackward) {
  at::Tensor a = at::ones({4}).requires_grad_();
  at::Tensor b = twice(a);
  EXPECT_TRUE(b.requires_grad());
  EXPECT_THAT(errorOf([&] { b.sum().backward(); }),
              HasSubstr("the derivative for 'engine_test::twice' is not implemented"));
}

TEST(Engine, OutVariantsRefuseInputsThatRequireGrad) {
  at::Tensor a = at::ones({2}).requires_grad_();
  at::Tensor out = at::empty({2});
  EXPECT_THAT(errorOf([&] { at::add_out(out, a, a); }),
              HasSubstr("add(): functions with out=... arguments don't support automatic "
                        "differentiation"));
}

TEST(Engine, ErrorsInANodeReachTheCallerAndTheEngineStaysUsable) {
  at::Tensor a = at::ones({2}).requires_grad_();
  at::Tensor bad = twice(a) * 2;
  EXPECT_THAT(errorOf([&] { bad.sum().backward(); }), HasSubstr("not implemented"));
  (a * 2).sum().backward();
  for (float g : values(a.grad())) EXPECT_FLOAT_EQ(g, 2.0f);
}

TEST(Engine, GradientsOnlyForFloatingTensors) {
  EXPECT_THAT(errorOf([] { at::ones({2}, at::kLong).requires_grad_(); }),
              HasSubstr("Only Tensors of floating point dtype can require gradients"));
  at::Tensor x = at::ones({2}).requires_grad_();
  EXPECT_THAT(errorOf([&] { (x * 2).backward(); }),
              HasSubstr("grad can be implicitly created only for scalar outputs"));
  EXPECT_THAT(errorOf([&] { at::ones({2}).sum().backward(); }),
              HasSubstr("element 0 of tensors does not require grad and does not have a "
                        "grad_fn"));
  EXPECT_THAT(errorOf([&] { (x * 2).backward(at::ones({3})); }),
              HasSubstr("Mismatch in shape: grad_output[0] has a shape of [3] and output[0] "
                        "has a shape of [2]."));
}

TEST(Engine, DeepGraphsNeitherRecurseNorOverflow) {
  at::Tensor x = at::ones({1}).requires_grad_();
  at::Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = y * 1.0001;
  y.sum().backward();
  EXPECT_NEAR(x.grad().item<double>(), std::pow(1.0001, 100000), 1e-2 * std::pow(1.0001, 100000));
  y = at::Tensor();  // destroys the 100,000-node graph
}

TEST(Engine, GradModesStopRecording) {
  at::Tensor x = at::ones({2}).requires_grad_();
  {
    torch::NoGradGuard no_grad;
    EXPECT_FALSE((x * 2).requires_grad());
    EXPECT_FALSE(torch::GradMode::is_enabled());
  }
  EXPECT_TRUE(torch::GradMode::is_enabled());
  {
    torch::AutoGradMode enable(false);
    EXPECT_FALSE((x + 1).requires_grad());
  }
  {
    c10::InferenceMode guard;
    EXPECT_TRUE(c10::InferenceMode::is_enabled());
    at::Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_EQ(y.grad_fn(), nullptr);
  }
  EXPECT_TRUE((x * 2).requires_grad());
}

TEST(Engine, HooksSeeAndReplaceGradients) {
  at::Tensor x = at::ones({2}).requires_grad_();
  at::Tensor y = x * 2;
  float seen = 0;
  y.register_hook([&](const at::Tensor& g) { seen = values(g)[0]; });
  const unsigned h = x.register_hook([](const at::Tensor& g) { return g * 10; });
  y.retain_grad();
  (y * 3).sum().backward();
  EXPECT_FLOAT_EQ(seen, 3.0f);
  EXPECT_FLOAT_EQ(values(y.grad())[0], 3.0f);
  EXPECT_FLOAT_EQ(values(x.grad())[0], 60.0f);
  x.remove_hook(h);
  x.mutable_grad() = at::Tensor();
  (x * 2).sum().backward();
  EXPECT_FLOAT_EQ(values(x.grad())[0], 2.0f);
  EXPECT_THAT(errorOf([] { at::ones({1}).register_hook([](const at::Tensor&) {}); }),
              HasSubstr("cannot register a hook on a tensor that doesn't require gradient"));
}

TEST(Engine, FinalCallbacksRunAfterTheNodes) {
  // Probe's backward queues the callback before the leaf's AccumulateGrad
  // (whose hook records "leaf") runs; the callback, and the one it queues,
  // must come after every Node.
  static std::vector<std::string> events;
  events.clear();
  struct Probe : torch::autograd::Function<Probe> {
    static at::Tensor forward(torch::autograd::AutogradContext*, at::Tensor x) { return x * 1; }
    static variable_list backward(torch::autograd::AutogradContext*, variable_list g) {
      events.push_back("probe");
      auto& engine = torch::autograd::Engine::get_default_engine();
      engine.queue_callback([&engine] {
        events.push_back("callback");
        engine.queue_callback([] { events.push_back("queued by the callback"); });
      });
      return {g[0]};
    }
  };
  at::Tensor x = at::ones({1}).requires_grad_();
  x.register_hook([](const at::Tensor&) { events.push_back("leaf"); });
  (Probe::apply(x) * 2).sum().backward();
  EXPECT_EQ(events, (std::vector<std::string>{"probe", "leaf", "callback",
                                              "queued by the callback"}));
  EXPECT_THAT(errorOf([] { torch::autograd::Engine::get_default_engine().queue_callback([] {}); }),
              HasSubstr("Final callbacks can only be installed during backward pass."));
}

TEST(Engine, AFailingFinalCallbackIsTheBackwardsError) {
  struct Probe : torch::autograd::Function<Probe> {
    static at::Tensor forward(torch::autograd::AutogradContext*, at::Tensor x) { return x * 1; }
    static variable_list backward(torch::autograd::AutogradContext*, variable_list g) {
      torch::autograd::Engine::get_default_engine().queue_callback(
          [] { TORCH_CHECK(false, "callback: cannot finish."); });
      return {g[0]};
    }
  };
  at::Tensor x = at::ones({1}).requires_grad_();
  EXPECT_THAT(errorOf([&] { Probe::apply(x).sum().backward(); }),
              HasSubstr("callback: cannot finish."));
  (x * 2).sum().backward();
  EXPECT_FLOAT_EQ(x.grad().item<float>(), 3.0f);  // 1 from the first pass, then 2
}

namespace node_names {
struct MyMulFunction : torch::autograd::Function<MyMulFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext*, at::Tensor x) { return x * 2; }
  static variable_list backward(torch::autograd::AutogradContext*, variable_list g) {
    return {g[0] * 2};
  }
};
}  // namespace node_names

struct GlobalMulFunction : torch::autograd::Function<GlobalMulFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext*, at::Tensor x) { return x * 2; }
  static variable_list backward(torch::autograd::AutogradContext*, variable_list g) {
    return {g[0] * 2};
  }
};

// See Note [Node names] in autograd/function.cc: a custom Function's node
// keeps its template argument whole, namespaced or not.
TEST(Engine, CustomFunctionNodesAreNamedAfterTheFunction) {
  at::Tensor x = at::ones({2}).requires_grad_();
  EXPECT_EQ(node_names::MyMulFunction::apply(x).grad_fn()->name(),
            "CppNode<MyMulFunction>");
  EXPECT_EQ(GlobalMulFunction::apply(x).grad_fn()->name(), "CppNode<GlobalMulFunction>");
  EXPECT_EQ((x * 2).grad_fn()->name(), "MulBackward1");
}

TEST(Engine, ConcurrentBackwardIntoOneLeaf) {
  at::Tensor w = at::ones({16}).requires_grad_();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&w] {
      for (int i = 0; i < 25; ++i) (w * 2).sum().backward();
    });
  }
  for (auto& t : threads) t.join();
  for (float g : values(w.grad())) EXPECT_FLOAT_EQ(g, 200.0f);
}

TEST(Engine, AnomalyModeNamesTheNodeThatMadeANaN) {
  torch::autograd::DetectAnomalyGuard detect;
  at::Tensor x = at::zeros({1}).requires_grad_();
  at::Tensor y = at::zeros({1}).requires_grad_();
  at::Tensor z = x / y;
  EXPECT_THAT(errorOf([&] { z.sum().backward(); }),
              HasSubstr("Function 'DivBackward0' returned nan values in its 1th output. It "
                        "was created by the forward op aten::div.Tensor."));
}

}  // namespace

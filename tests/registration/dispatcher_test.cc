// The dispatcher's routing rules: which kernel a call reaches, and why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "c10/util/OptionalArrayRef.h"
#include "registration/library.h"
#include "tests/registration/test_tensors.h"

#include "tests/support/error_of.h"

using at::TensorBase;
using c10::DispatchKey;
using ember_test::makeTensor;
using ::testing::HasSubstr;
using ::testing::Not;
using torch::Library;

namespace {

using ember_test::errorOf;

using BinarySig = TensorBase(const TensorBase&, const TensorBase&);

// Each kernel records its name so a test can see which one ran.
thread_local std::vector<std::string> g_ran;

TensorBase kernelA(const TensorBase& a, const TensorBase&) {
  g_ran.push_back("A");
  return a;
}
TensorBase kernelB(const TensorBase& a, const TensorBase&) {
  g_ran.push_back("B");
  return a;
}

// A boxed fallback: works for every op; leaves `self` as the result.
void recordingFallback(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  g_ran.push_back("fallback");
  torch::jit::drop(*stack, 1);
}

void recordingBoxedKernel(const c10::OperatorHandle& op, c10::DispatchKeySet ks,
                          torch::jit::Stack* stack) {
  g_ran.push_back(op.operator_name().str() + " " +
                  c10::toString(ks.highestPriorityTypeId()));
  torch::jit::drop(*stack, 1);
}

c10::TypedOperatorHandle<BinarySig> binaryOp(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<BinarySig>();
}

std::string callAndReport(const char* name, const TensorBase& a) {
  g_ran.clear();
  binaryOp(name).call(a, a);
  return g_ran.empty() ? "" : g_ran.back();
}

TEST(Dispatcher, CallsTheKernelOfTheTensorsBackend) {
  Library def(Library::DEF, "d1", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  Library cpu(Library::IMPL, "d1", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("op", &kernelA);
  Library cuda(Library::IMPL, "d1", DispatchKey::CUDA, __FILE__, __LINE__);
  cuda.impl("op", &kernelB);
  EXPECT_EQ(callAndReport("d1::op", makeTensor({2})), "A");
  EXPECT_EQ(callAndReport("d1::op", makeTensor({2}, DispatchKey::CUDA)), "B");
}

TEST(Dispatcher, KernelBeatsCompositeExplicitBeatsCatchAllBeatsFallback) {
  Library def(Library::DEF, "d2", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  const TensorBase t = makeTensor({1}, DispatchKey::PrivateUse1);

  Library fallback(Library::IMPL, "_", DispatchKey::PrivateUse1, __FILE__, __LINE__);
  fallback.fallback(torch::CppFunction::makeFromBoxedFunction<&recordingFallback>());
  EXPECT_EQ(callAndReport("d2::op", t), "fallback");

  Library catch_all(Library::IMPL, "d2", DispatchKey::CompositeImplicitAutograd,
                    __FILE__, __LINE__);
  catch_all.impl("op", [](const TensorBase& a, const TensorBase&) {
    g_ran.push_back("catch-all");
    return a;
  });
  EXPECT_EQ(callAndReport("d2::op", t), "catch-all");

  Library explicit_lib(Library::IMPL, "d2", DispatchKey::CompositeExplicitAutograd,
                       __FILE__, __LINE__);
  explicit_lib.impl("op", [](const TensorBase& a, const TensorBase&) {
    g_ran.push_back("explicit");
    return a;
  });
  EXPECT_EQ(callAndReport("d2::op", t), "explicit");

  {
    Library backend(Library::IMPL, "d2", DispatchKey::PrivateUse1, __FILE__, __LINE__);
    backend.impl("op", &kernelA);
    EXPECT_EQ(callAndReport("d2::op", t), "A");
  }
  // Destroying the backend library removes exactly its kernel.
  EXPECT_EQ(callAndReport("d2::op", t), "explicit");
}

TEST(Dispatcher, MissingKernelNamesOpKeyAndRegisteredKeys) {
  Library def(Library::DEF, "d3", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  Library cuda(Library::IMPL, "d3", DispatchKey::CUDA, __FILE__, __LINE__);
  cuda.impl("op", &kernelA);
  const std::string msg =
      errorOf([] { callAndReport("d3::op", makeTensor({1}, DispatchKey::PrivateUse1)); });
  EXPECT_THAT(msg, HasSubstr("Could not run 'd3::op' with arguments from the "
                             "'PrivateUse1' backend"));
  EXPECT_THAT(msg, HasSubstr("Kernels registered for: CUDA"));
  EXPECT_THAT(msg, HasSubstr("TORCH_LIBRARY_IMPL(d3, PrivateUse1, m) { m.impl(\"op\""));
  EXPECT_THROW(callAndReport("d3::op", makeTensor({1}, DispatchKey::PrivateUse1)),
               c10::NotImplementedError);
  // An undefined tensor carries no key: the message says so.
  EXPECT_THAT(errorOf([] { callAndReport("d3::op", TensorBase()); }),
              HasSubstr("no defined tensor argument to pick a backend from"));
}

TEST(Dispatcher, FallthroughSkipsToTheNextKey) {
  Library def(Library::DEF, "d4", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  Library cpu(Library::IMPL, "d4", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("op", &kernelA);
  Library autograd(Library::IMPL, "d4", DispatchKey::AutogradCPU, __FILE__, __LINE__);
  autograd.impl("op", [](const TensorBase& a, const TensorBase&) {
    g_ran.push_back("autograd");
    return a;
  });
  EXPECT_EQ(callAndReport("d4::op", makeTensor({1})), "autograd");
  Library ft(Library::IMPL, "d4", DispatchKey::AutogradCPU, __FILE__, __LINE__);
  ft.impl("op", torch::CppFunction::makeFallthrough());  // newest wins
  EXPECT_EQ(callAndReport("d4::op", makeTensor({1})), "A");
}

TEST(Dispatcher, AutogradKernelRedispatchesBelowItself) {
  Library def(Library::DEF, "d5", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  Library cpu(Library::IMPL, "d5", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("op", &kernelA);
  Library autograd(Library::IMPL, "d5", DispatchKey::Autograd, __FILE__, __LINE__);
  autograd.impl("op", [](c10::DispatchKeySet ks, const TensorBase& a,
                         const TensorBase& b) {
    g_ran.push_back("autograd");
    static const auto op = binaryOp("d5::op");
    return op.redispatch(ks - c10::autograd_dispatch_keyset, a, b);
  });
  g_ran.clear();
  binaryOp("d5::op").call(makeTensor({1}), makeTensor({1}));
  EXPECT_EQ(g_ran, (std::vector<std::string>{"autograd", "A"}));
  // The thread-local exclude set skips autograd for a scope.
  g_ran.clear();
  {
    at::AutoDispatchBelowAutograd guard;
    binaryOp("d5::op").call(makeTensor({1}), makeTensor({1}));
  }
  EXPECT_EQ(g_ran, (std::vector<std::string>{"A"}));
}

TEST(Dispatcher, CatchAllDoesNotHideABackendKernelFromAutograd) {
  Library def(Library::DEF, "d6", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor", &kernelB);  // catch-all
  EXPECT_EQ(callAndReport("d6::op", makeTensor({1})), "B");
  Library cpu(Library::IMPL, "d6", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("op", &kernelA);
  // AutogradCPU no longer takes the catch-all: the CPU kernel is reached.
  EXPECT_EQ(callAndReport("d6::op", makeTensor({1})), "A");
  EXPECT_EQ(callAndReport("d6::op", makeTensor({1}, DispatchKey::CUDA)), "B");
  const std::string table =
      c10::Dispatcher::singleton().findSchemaOrThrow("d6::op", "").dumpComputedTable();
  EXPECT_THAT(table, HasSubstr("CPU: kernel registered at"));
  EXPECT_THAT(table, HasSubstr("CUDA: CompositeImplicitAutograd (catch-all) kernel"));
  // Autograd's fallback (not the catch-all) serves AutogradCPU.
  EXPECT_THAT(table, HasSubstr("AutogradCPU: backend fallback registered at autograd/fallback.cc"));
}

TEST(Dispatcher, BoxedCallsReachUnboxedKernelsAndBack) {
  Library def(Library::DEF, "d7", std::nullopt, __FILE__, __LINE__);
  def.def("scale(Tensor self, float factor, int[] dims, *, bool flag=False) -> (Tensor, int)");
  Library cpu(Library::IMPL, "d7", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("scale", [](const TensorBase& self, double factor, c10::IntArrayRef dims,
                       bool flag) {
    return std::make_tuple(self, static_cast<int64_t>(factor * 10) +
                                     static_cast<int64_t>(dims.size()) + (flag ? 100 : 0));
  });
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow("d7::scale", "");
  const TensorBase t = makeTensor({3});
  torch::jit::Stack stack;
  torch::jit::push(stack, t, 2.5, std::vector<int64_t>{1, 2}, true);
  op.callBoxed(stack);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_TRUE(stack[0].toTensorBase().is_same(t));
  EXPECT_EQ(stack[1].toInt(), 25 + 2 + 100);
  // The same op unboxed.
  auto typed = op.typed<std::tuple<TensorBase, int64_t>(const TensorBase&, double,
                                                        c10::IntArrayRef, bool)>();
  EXPECT_EQ(std::get<1>(typed.call(t, 1.0, std::vector<int64_t>{}, false)), 10);
}

TEST(Dispatcher, OptionalIntListsCrossTheBoxedPath) {
  Library def(Library::DEF, "d16", std::nullopt, __FILE__, __LINE__);
  def.def("count(Tensor self, int[1]? dims=None) -> int");
  Library cpu(Library::IMPL, "d16", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("count", [](const TensorBase&, c10::OptionalIntArrayRef dims) {
    return dims.has_value() ? static_cast<int64_t>(dims->size()) : int64_t{-1};
  });
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow("d16::count", "");
  const TensorBase t = makeTensor({1});
  torch::jit::Stack stack;
  torch::jit::push(stack, t, c10::IValue());
  op.callBoxed(stack);
  EXPECT_EQ(stack.back().toInt(), -1);
  stack.clear();
  torch::jit::push(stack, t, std::vector<int64_t>{0, 1, 2});
  op.callBoxed(stack);
  EXPECT_EQ(stack.back().toInt(), 3);
}

TEST(Dispatcher, UnboxedCallsReachBoxedKernels) {
  Library def(Library::DEF, "d8", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  Library cpu(Library::IMPL, "d8", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("op", torch::CppFunction::makeFromBoxedFunction<&recordingBoxedKernel>());
  const TensorBase t = makeTensor({1});
  g_ran.clear();
  TensorBase out = binaryOp("d8::op").call(t, makeTensor({2}));
  EXPECT_TRUE(out.is_same(t));
  EXPECT_EQ(g_ran, (std::vector<std::string>{"d8::op CPU"}));
}

TEST(Dispatcher, StatefulLambdaKernelsKeepTheirState) {
  Library def(Library::DEF, "d14", std::nullopt, __FILE__, __LINE__);
  def.def("count(Tensor self) -> int");
  auto counter = std::make_shared<int64_t>(0);
  {
    Library cpu(Library::IMPL, "d14", DispatchKey::CPU, __FILE__, __LINE__);
    cpu.impl("count", [counter](const TensorBase&) { return ++*counter; });
    auto op = c10::Dispatcher::singleton()
                  .findSchemaOrThrow("d14::count", "")
                  .typed<int64_t(const TensorBase&)>();
    EXPECT_EQ(op.call(makeTensor({1})), 1);
    EXPECT_EQ(op.call(makeTensor({1})), 2);
    EXPECT_EQ(counter.use_count(), 2);  // the kernel owns a copy
  }
  // Removed: calls no longer reach it. (Its state is kept alive for calls
  // that may still be running; See Note [Lock-free dispatch table].)
  auto op = c10::Dispatcher::singleton()
                .findSchemaOrThrow("d14::count", "")
                .typed<int64_t(const TensorBase&)>();
  EXPECT_THROW(op.call(makeTensor({1})), c10::NotImplementedError);
  EXPECT_EQ(*counter, 2);
}

TEST(Dispatcher, TypedChecksTheSignature) {
  Library def(Library::DEF, "d9", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  Library cpu(Library::IMPL, "d9", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("op", &kernelA);
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow("d9::op", "");
  EXPECT_THAT(errorOf([&] { op.typed<TensorBase(const TensorBase&)>(); }),
              HasSubstr("was called with C++ signature"));
}

TEST(Dispatcher, FindSchemaOrThrowSuggestsDef) {
  Library cpu(Library::IMPL, "d10", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("op", &kernelA);
  const std::string msg = errorOf(
      [] { c10::Dispatcher::singleton().findSchemaOrThrow("d10::op", ""); });
  EXPECT_THAT(msg, HasSubstr("has kernels (for CPU) but no schema"));
  EXPECT_THAT(msg, HasSubstr("m.def(\"d10::op(…) -> …\")"));
  EXPECT_THAT(errorOf([] {
                c10::Dispatcher::singleton().findSchemaOrThrow("d10::nothing", "x");
              }),
              HasSubstr("could not find operator d10::nothing.x"));
}

TEST(Dispatcher, SecondKernelForAKeyWinsWithAWarningAndRemovalRestoresTheFirst) {
  struct Capture : c10::WarningHandler {
    std::vector<std::string> seen;
    void process(const c10::Warning& w) override { seen.push_back(w.msg()); }
  } capture;
  c10::WarningUtils::WarningHandlerGuard guard(&capture);
  Library def(Library::DEF, "d11", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  Library first(Library::IMPL, "d11", DispatchKey::CPU, __FILE__, 1001);
  first.impl("op", &kernelA);
  {
    Library second(Library::IMPL, "d11", DispatchKey::CPU, __FILE__, 2002);
    second.impl("op", &kernelB);
    ASSERT_EQ(capture.seen.size(), 1u);
    EXPECT_THAT(capture.seen[0], HasSubstr("previous kernel: registered at"));
    EXPECT_THAT(capture.seen[0], HasSubstr(":1001"));
    EXPECT_THAT(capture.seen[0], HasSubstr(":2002"));
    EXPECT_EQ(callAndReport("d11::op", makeTensor({1})), "B");
  }
  EXPECT_EQ(callAndReport("d11::op", makeTensor({1})), "A");
}

TEST(Dispatcher, ListsOperatorsAndForgetsRemovedOnes) {
  {
    Library def(Library::DEF, "d12", std::nullopt, __FILE__, __LINE__);
    def.def("listed(Tensor self) -> Tensor");
    bool found = false;
    for (const auto& name : c10::Dispatcher::singleton().getAllOpNames()) {
      found = found || name.str() == "d12::listed";
    }
    EXPECT_TRUE(found);
  }
  EXPECT_FALSE(c10::Dispatcher::singleton()
                   .findSchema(c10::OperatorName{"d12::listed", ""})
                   .has_value());
}

TEST(Dispatcher, CallsWithNoTensorArgumentRunACompositeKernel) {
  Library def(Library::DEF, "d15", std::nullopt, __FILE__, __LINE__);
  def.def("make(int n) -> int", [](int64_t n) { return n + 1; });  // catch-all
  EXPECT_EQ(c10::Dispatcher::singleton()
                .findSchemaOrThrow("d15::make", "")
                .typed<int64_t(int64_t)>()
                .call(41),
            42);
}

TEST(Dispatcher, SchemaOnlyCallsWithNoTensorArgumentReachBackendSelect) {
  Library def(Library::DEF, "d13", std::nullopt, __FILE__, __LINE__);
  def.def("make(int n) -> int");
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow("d13::make", "");
  torch::jit::Stack stack{c10::IValue(int64_t{3})};
  EXPECT_THAT(errorOf([&] { op.callBoxed(stack); }),
              HasSubstr("no defined tensor argument"));
  Library bs(Library::IMPL, "d13", DispatchKey::BackendSelect, __FILE__, __LINE__);
  bs.impl("make", [](int64_t n) { return n * 2; });
  EXPECT_EQ(op.typed<int64_t(int64_t)>().call(21), 42);
}

}  // namespace

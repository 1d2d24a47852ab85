// The "npu" test backend (npu_plugin.cc): copies between devices, native
// kernels, at::native::cpu_fallback (warnings, strict mode, in-place and out=
// ops found from the schema, views refused), autograd across devices
// (_to_copy's derivative both ways) and the allocator's leak counter.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <torch/library.h>
#include <torch/torch.h>

#include "aten/CPUFallback.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;

std::string plugin_path() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir ? srcdir : ".") + "/ember/tests/backends/npu/libember_npu.so";
}

// Loads the plugin once; returns its leak counter.
int64_t npu_bytes() {
  static void* handle = [] {
    torch::load_library(plugin_path());
    return dlopen(plugin_path().c_str(), RTLD_NOW | RTLD_NOLOAD);
  }();
  static auto* fn = reinterpret_cast<int64_t (*)()>(dlsym(handle, "npu_bytes_in_use"));
  return fn();
}

struct Warnings : c10::WarningHandler {
  std::vector<std::string> messages;
  void process(const c10::Warning& w) override { messages.push_back(w.msg()); }
  size_t count(const std::string& s) const {
    size_t n = 0;
    for (const auto& m : messages) n += m.find(s) != std::string::npos;
    return n;
  }
};

class Npu : public ::testing::Test {
 protected:
  void SetUp() override {
    baseline_ = npu_bytes();
    at::native::set_cpu_fallback_mode(at::native::CpuFallbackMode::kWarnOnce);
  }
  void TearDown() override {
    at::native::set_cpu_fallback_mode(at::native::CpuFallbackMode::kWarnOnce);
    // The engine's npu device thread may drop its last references to a
    // backward pass's tensors just after backward() returns: wait for it,
    // within a bound.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (npu_bytes() != baseline_ && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(npu_bytes(), baseline_) << "npu memory leaked";
  }
  int64_t baseline_ = 0;
};

at::Tensor cpu_values() { return at::arange(6, at::kFloat).reshape({2, 3}) - 2; }

TEST_F(Npu, CopiesBetweenDevicesAndPrints) {
  const int64_t before = npu_bytes();
  at::Tensor x = cpu_values().to("npu");
  EXPECT_EQ(x.device(), c10::Device("npu:0"));
  EXPECT_EQ(x.device().str(), "npu:0");
  EXPECT_EQ(npu_bytes() - before, 6 * 4);
  EXPECT_TRUE(at::equal(x.cpu(), cpu_values()));
  EXPECT_TRUE(at::equal(x.t().contiguous().cpu(), cpu_values().t().contiguous()));
  EXPECT_TRUE(at::equal(x.to(at::kDouble).cpu(), cpu_values().to(at::kDouble)));
  std::ostringstream printed;
  printed << x;
  EXPECT_THAT(printed.str(), HasSubstr("NPUFloatType"));
  at::Tensor e = at::empty_strided({2, 2}, {1, 2}, at::TensorOptions("npu").dtype(at::kLong));
  EXPECT_EQ(e.strides(), (std::vector<int64_t>{1, 2}));
}

TEST_F(Npu, NativeKernelsAndTheFallbackAgreeWithTheCpu) {
  Warnings w;
  c10::WarningUtils::WarningHandlerGuard guard(&w);
  at::Tensor a = cpu_values();
  at::Tensor b = at::arange(3, at::kFloat) + 1;
  at::Tensor na = a.to("npu");
  at::Tensor nb = b.to("npu");
  EXPECT_TRUE(at::equal((na + nb).cpu(), a + b));
  EXPECT_TRUE(at::equal((na * nb).cpu(), a * b));
  EXPECT_TRUE(at::equal(at::relu(na).cpu(), at::relu(a)));
  EXPECT_TRUE(at::equal(na.sum().cpu(), a.sum()));
  EXPECT_TRUE(at::equal(na.mm(na.t()).cpu(), a.mm(a.t())));
  EXPECT_EQ(w.count("cpu_fallback"), 0u) << "a native kernel went through the fallback";
  // Through the fallback: the result is on the npu, one warning per op.
  at::Tensor n1 = at::neg(na);
  at::Tensor n2 = at::neg(na);
  EXPECT_EQ(n1.device().type(), c10::kPrivateUse1);
  EXPECT_TRUE(at::equal(n2.cpu(), at::neg(a)));
  EXPECT_EQ(w.count("cpu_fallback: aten::neg has no kernel for npu"), 1u);
  EXPECT_THAT(w.messages.back(), HasSubstr("Register a kernel for PrivateUse1"));
  EXPECT_TRUE(at::equal(na.amax(1).cpu(), a.amax(1)));
  const auto ops = at::native::cpu_fallback_ops();
  EXPECT_THAT(ops, ::testing::Contains("aten::neg"));
}

// In-place and out= ops through the fallback: the written argument comes
// from the schema (Tensor(a!)), is written back into the device tensor and
// is what the op returns.
TEST_F(Npu, WrittenArgumentsComeBackFromTheSchema) {
  at::Tensor a = cpu_values();
  at::Tensor na = a.to("npu");
  const auto version = na._version();
  at::Tensor& r = na.neg_();
  EXPECT_TRUE(r.is_same(na));
  EXPECT_TRUE(at::equal(na.cpu(), -a));
  EXPECT_GT(na._version(), version);
  at::Tensor out = at::empty({0}, at::TensorOptions("npu"));
  at::Tensor& o = at::neg_out(out, na);
  EXPECT_TRUE(o.is_same(out));
  EXPECT_EQ(out.sizes(), a.sizes());  // resized through the backend's resize_
  EXPECT_TRUE(at::equal(out.cpu(), a));
  // A view written in place writes the base.
  at::Tensor row = na.select(0, 1);
  row.neg_();
  EXPECT_TRUE(at::equal(na.select(0, 1).cpu(), a.select(0, 1)));
}

TEST_F(Npu, StrictModeMakesAMissingKernelAnError) {
  at::Tensor na = cpu_values().to("npu");
  at::native::set_cpu_fallback_mode(at::native::CpuFallbackMode::kError);
  const std::string error = errorOf([&] { at::exp(na); });
  EXPECT_THAT(error, HasSubstr("cpu_fallback: aten::exp has no kernel for npu "
                               "(dispatch key PrivateUse1) and the CPU fallback "
                               "is in strict mode"));
  EXPECT_THAT(error, HasSubstr("TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { m.impl(\"exp\""));
  EXPECT_TRUE(at::equal((na + na).cpu(), cpu_values() * 2));  // native: allowed
}

TORCH_LIBRARY(npu_test, m) {
  m.def("view_of(Tensor(a) self) -> Tensor(a)");
}
TORCH_LIBRARY_IMPL(npu_test, CPU, m) {
  m.impl("view_of", [](const at::Tensor& self) { return self.alias(); });
}

TEST_F(Npu, OpsReturningViewsAreRefused) {
  at::Tensor na = cpu_values().to("npu");
  auto op = c10::Dispatcher::singleton()
                .findSchemaOrThrow("npu_test::view_of", "")
                .typed<at::Tensor(const at::Tensor&)>();
  EXPECT_THAT(errorOf([&] { op.call(na); }),
              HasSubstr("cpu_fallback: npu_test::view_of returns a view of its input "
                        "(schema: npu_test::view_of(Tensor(a) self) -> Tensor(a)); a view "
                        "of a CPU copy would not alias the npu tensor"));
}

// _to_copy's derivative returns the gradient on the source's device and
// dtype, both ways (See _to_copy_backward in autograd/FunctionsManual.h).
TEST_F(Npu, GradientsFlowBackAcrossDevices) {
  at::Tensor x = cpu_values().requires_grad_();
  at::Tensor y = x.to("npu");
  EXPECT_EQ(y.grad_fn()->name(), "ToCopyBackward0");
  (y * y).sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_TRUE(x.grad().device().is_cpu());
  EXPECT_TRUE(at::equal(x.grad(), cpu_values() * 2));

  at::Tensor w = cpu_values().to("npu").requires_grad_();
  at::Tensor d = w.cpu().to(at::kDouble);
  (d * 3).sum().backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().device().type(), c10::kPrivateUse1);
  EXPECT_EQ(w.grad().scalar_type(), at::kFloat);
  EXPECT_TRUE(at::equal(w.grad().cpu(), at::full({2, 3}, 3.0f)));
}

// Autograd on the device with no code of the backend's own
// (AutogradPrivateUse1), through native kernels and the fallback.
TEST_F(Npu, AutogradOnTheDeviceMatchesTheCpu) {
  at::Tensor a = cpu_values();
  at::Tensor w = (at::arange(12, at::kFloat).reshape({3, 4}) / 10 - 0.5);
  at::Tensor wc = w.clone().requires_grad_();
  at::Tensor wn = w.to("npu").requires_grad_();
  auto loss = [&](const at::Tensor& x, const at::Tensor& weights) {
    return (at::relu(x.mm(weights)) * at::tanh(weights.sum(0))).sum();
  };
  at::Tensor lc = loss(a, wc);
  at::Tensor ln = loss(a.to("npu"), wn);
  lc.backward();
  ln.backward();
  EXPECT_TRUE(at::allclose(ln.cpu(), lc));
  EXPECT_EQ(wn.grad().device().type(), c10::kPrivateUse1);
  EXPECT_TRUE(at::allclose(wn.grad().cpu(), wc.grad()));
}

}  // namespace

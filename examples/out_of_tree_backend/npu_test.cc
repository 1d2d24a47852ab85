// The npu backend's tests, as a user of Ember writes them in a workspace of
// their own: loading the plugin (and refusing one built against another
// core), copies and printing, native kernels, the CPU fallback (one warning
// per op, strict mode, in-place and out= ops, views), autograd on the device
// and across devices, the device guard, the generator, and the allocator's
// leak counter after each test. The training run is in train_test.cc.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/native/CPUFallback.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include "c10/core/DefaultGenerators.h"
#include "c10/core/DeviceGuard.h"
#include "npu_test.h"

namespace npu_test {

std::string runfile(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return std::string(srcdir ? srcdir : ".") + "/" + (workspace ? workspace : "npu_backend") +
         "/" + name;
}

// [doc:load]
int64_t npu_bytes() {
  static void* handle = [] {
    torch::load_library(runfile("libember_npu.so"));
    return dlopen(runfile("libember_npu.so").c_str(), RTLD_NOW | RTLD_NOLOAD);
  }();
  static auto* bytes_in_use = reinterpret_cast<int64_t (*)()>(dlsym(handle, "npu_bytes_in_use"));
  return bytes_in_use();
}
// [doc:end]

void NpuTest::SetUp() {
  baseline_ = npu_bytes();
  at::native::set_cpu_fallback_mode(at::native::CpuFallbackMode::kWarnOnce);
}

void NpuTest::TearDown() {
  at::native::set_cpu_fallback_mode(at::native::CpuFallbackMode::kWarnOnce);
  // No wait: the autograd engine's npu thread lets go of a backward pass's
  // Nodes (and their tensors) before backward() returns.
  EXPECT_EQ(npu_bytes(), baseline_) << "npu memory leaked";
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace npu_test

namespace {

using ::testing::HasSubstr;
using npu_test::errorOf;
using npu_test::NpuTest;
using npu_test::npu_bytes;

struct Warnings : c10::WarningHandler {
  std::vector<std::string> messages;
  void process(const c10::Warning& w) override { messages.push_back(w.msg()); }
  size_t count(const std::string& s) const {
    size_t n = 0;
    for (const auto& m : messages) n += m.find(s) != std::string::npos;
    return n;
  }
};

at::Tensor cpu_values() { return at::arange(6, at::kFloat).reshape({2, 3}) - 2; }

TEST_F(NpuTest, LoadsAndNamesTheDevice) {
  EXPECT_EQ(c10::get_privateuse1_backend(), "npu");
  EXPECT_EQ(c10::Device("npu:0").type(), c10::kPrivateUse1);
  // Loading again is a no-op.
  EXPECT_NO_THROW(torch::load_library(npu_test::runfile("libember_npu.so")));
}

// A plugin whose descriptor records another core's SDK fingerprint is
// refused before any of its code runs (its initializer would abort).
TEST_F(NpuTest, LoaderRefusesAPluginOfAnotherCore) {
  const std::string error =
      errorOf([] { torch::load_library(npu_test::runfile("libember_stale.so")); });
  EXPECT_THAT(error, HasSubstr("libember_stale.so (\"stale\") was built against core build "
                               "fingerprint \"0000000000000000-built-against-another-core\", "
                               "but this core's fingerprint is"));
}

TEST_F(NpuTest, CopiesBetweenDevicesAndPrints) {
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
  at::Tensor cl = at::empty({2, 3, 4, 5}, at::TensorOptions("npu"), at::MemoryFormat::ChannelsLast);
  EXPECT_EQ(cl.strides(), (std::vector<int64_t>{60, 1, 15, 3}));
}

TEST_F(NpuTest, NativeKernelsAndTheFallbackAgreeWithTheCpu) {
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
  EXPECT_TRUE(at::equal(at::threshold_backward(na, na, 0).cpu(), at::threshold_backward(a, a, 0)));
  EXPECT_EQ(w.count("cpu_fallback"), 0u) << "a native kernel went through the fallback";
  // Through the fallback: the result is on the npu, one warning per op.
  at::Tensor n1 = at::neg(na);
  at::Tensor n2 = at::neg(na);
  EXPECT_EQ(n1.device().type(), c10::kPrivateUse1);
  EXPECT_TRUE(at::equal(n2.cpu(), at::neg(a)));
  EXPECT_EQ(w.count("cpu_fallback: aten::neg has no kernel for npu"), 1u);
  EXPECT_THAT(w.messages.back(), HasSubstr("Register a kernel for PrivateUse1"));
  EXPECT_TRUE(at::equal(na.amax(1).cpu(), a.amax(1)));
  EXPECT_THAT(at::native::cpu_fallback_ops(), ::testing::Contains("aten::neg"));
}

// In-place and out= ops through the fallback: the written argument comes
// from the schema (Tensor(a!)), is written back into the device tensor and
// is what the op returns.
TEST_F(NpuTest, InPlaceAndOutOpsThroughTheFallback) {
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
}

// Views are composite: they share the npu storage, and an in-place op on a
// view (through the fallback) writes the base.
TEST_F(NpuTest, ViewsShareMemoryAndInPlaceOpsOnThemWriteTheBase) {
  at::Tensor a = cpu_values();
  at::Tensor na = a.to("npu");
  at::Tensor row = na.select(0, 1);
  EXPECT_EQ(row.data_ptr(), static_cast<float*>(na.data_ptr()) + 3);
  row.mul_(10);  // mul_ has no npu kernel: the fallback
  at::Tensor col = na.t().select(0, 2);
  col.add_(at::ones({2}, at::TensorOptions("npu")));
  at::Tensor want = a.clone();
  want.select(0, 1).mul_(10);
  want.t().select(0, 2).add_(1);
  EXPECT_TRUE(at::equal(na.cpu(), want));
  EXPECT_TRUE(at::equal(na.view({3, 2}).cpu(), want.view({3, 2})));
}

TEST_F(NpuTest, StrictModeMakesAMissingKernelAnError) {
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

TEST_F(NpuTest, OpsReturningViewsAreRefusedByTheFallback) {
  at::Tensor na = cpu_values().to("npu");
  auto op = c10::Dispatcher::singleton()
                .findSchemaOrThrow("npu_test::view_of", "")
                .typed<at::Tensor(const at::Tensor&)>();
  EXPECT_THAT(errorOf([&] { op.call(na); }),
              HasSubstr("cpu_fallback: npu_test::view_of returns a view of its input "
                        "(schema: npu_test::view_of(Tensor(a) self) -> Tensor(a)); a view "
                        "of a CPU copy would not alias the npu tensor"));
}

// Gradients come back on the source's device and dtype, both ways.
TEST_F(NpuTest, GradientsFlowBackAcrossDevices) {
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
TEST_F(NpuTest, AutogradOnTheDeviceMatchesTheCpu) {
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

TEST_F(NpuTest, DeviceGuard) {
  {
    c10::DeviceGuard guard(c10::Device("npu:0"));
    EXPECT_EQ(guard.current_device(), c10::Device("npu:0"));
    EXPECT_EQ(at::empty({1}, at::TensorOptions("npu")).device(), c10::Device("npu:0"));
  }
  EXPECT_THAT(errorOf([] { c10::DeviceGuard guard(c10::Device("npu:1")); }),
              HasSubstr("npu: there is no device npu:1; this backend has one device, npu:0."));
}

// The npu's own generator: seeded by at::manual_seed, a stream of its own
// (drawing on the CPU does not move it), the CPU's numbers for a seed, and
// explicit generators (cloned state) work.
TEST_F(NpuTest, RandomOpsDrawFromTheNpuGeneratorAndAreSeeded) {
  const at::TensorOptions npu = at::TensorOptions("npu");
  at::manual_seed(7);
  at::Tensor a = at::randn({64}, npu);
  at::Tensor u = at::rand({64}, npu);
  EXPECT_EQ(a.device().type(), c10::kPrivateUse1);
  at::manual_seed(7);
  at::randn({1000});  // the CPU's stream moves; the npu's must not
  EXPECT_TRUE(at::equal(at::randn({64}, npu).cpu(), a.cpu()));
  EXPECT_TRUE(at::equal(at::rand({64}, npu).cpu(), u.cpu()));
  at::manual_seed(7);
  EXPECT_TRUE(at::equal(at::randn({64}), a.cpu())) << "a seed gives the CPU's numbers";
  at::manual_seed(8);
  EXPECT_FALSE(at::equal(at::randn({64}, npu).cpu(), a.cpu()));
  EXPECT_GT(u.min().item<float>(), -1e-6f);
  EXPECT_LT(u.max().item<float>(), 1.0f);

  const at::Generator& dflt = at::detail::getDefaultGenerator(c10::Device("npu:0"));
  EXPECT_EQ(dflt.device(), c10::Device("npu:0"));
  at::Generator g;
  {
    std::lock_guard<std::mutex> lock(dflt.mutex());
    g = dflt.clone();
  }
  at::Tensor from_g = at::randn({16}, g, npu);
  EXPECT_TRUE(at::equal(at::randn({16}, npu).cpu(), from_g.cpu()));
  at::Tensor coin = at::empty({256}, npu).bernoulli_(0.5);
  const float heads = coin.sum().item<float>();
  EXPECT_GT(heads, 64.0f);
  EXPECT_LT(heads, 192.0f);
  at::Generator cpu_gen = at::detail::createCPUGenerator(1);
  EXPECT_THAT(errorOf([&] { at::randn({2}, cpu_gen, npu); }), HasSubstr("NpuGeneratorImpl"));
}

}  // namespace

// The CUDA plugin on a machine without a usable device (no driver or no GPU,
// as on CI): it loads, answers is_available() false and device_count() 0,
// and every request that needs a device fails with "no CUDA device:
// <cudart's reason>". Also: the plugin carries its descriptor and no core
// code, and C10_CUDA_CHECK's message. On a machine with a GPU the no-device
// cases skip with a reason (the gpu-tagged suites cover that machine).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CachingHostAllocator.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include "backends/cuda/stream_ids.h"
#include "registration/plugin_loader.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The message every device request must start with: "no CUDA device: " and
// the reason the plugin got from cudart.
std::string expectedPrefix() {
  return "no CUDA device: " + c10::cuda::impl::cudaRuntime().unavailableReason();
}

class NoDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (torch::cuda::device_count() > 0) {
      GTEST_SKIP() << "this machine has " << torch::cuda::device_count()
                   << " CUDA device(s); the no-device path cannot be tested "
                      "here (the gpu-tagged suites run instead)";
    }
  }
};

TEST_F(NoDevice, PluginLoadsAndReportsNoDevice) {
  EXPECT_FALSE(torch::cuda::is_available());
  EXPECT_EQ(torch::cuda::device_count(), 0u);
  EXPECT_EQ(c10::cuda::device_count(), 0);
  // Loaded from the runfiles by the first question, and registered.
  ASSERT_TRUE(c10::impl::hasDeviceGuardImpl(c10::kCUDA));
  bool loaded = false;
  for (const c10::PluginInfo& p : c10::loaded_plugins()) {
    if (p.name == "cuda") {
      loaded = true;
      EXPECT_EQ(p.fingerprint, c10::core_build_fingerprint());
    }
  }
  EXPECT_TRUE(loaded) << "libember_cuda.so was not loaded by device_count()";
  // cudart said why; the reason is its words, not empty.
  EXPECT_FALSE(c10::cuda::impl::cudaRuntime().unavailableReason().empty());
}

TEST_F(NoDevice, EveryRequestFailsWithTheReason) {
  const std::string prefix = expectedPrefix();
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::getCurrentCUDAStream(); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::getStreamFromPool(); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::getDefaultCUDAStream(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::getStreamFromPool(true, 0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::CUDAGuard guard(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::OptionalCUDAGuard guard(
                                           c10::Device(c10::kCUDA, 0)); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::current_device(); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::set_device(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { torch::cuda::synchronize(); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { torch::cuda::synchronize(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] {
                at::cuda::CUDAEvent event;
                event.record(c10::cuda::CUDAStream(c10::Stream(
                    c10::Stream::DEFAULT, c10::Device(c10::kCUDA, 0))));
              }),
              StartsWith(prefix));
  // A stream made by hand still cannot reach a native handle.
  EXPECT_THAT(ember_test::errorOf([] {
                c10::cuda::CUDAStream s(c10::Stream(c10::Stream::DEFAULT,
                                                    c10::Device(c10::kCUDA, 0)));
                (void)s.stream();
              }),
              StartsWith(prefix));
  namespace alloc = c10::cuda::CUDACachingAllocator;
  EXPECT_THAT(ember_test::errorOf([] { alloc::memory_stats(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { alloc::memory_summary(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] {
                c10::GetAllocator(c10::kCUDA)->allocate(16);
              }),
              StartsWith(prefix));
  // The kernels are registered; what fails is the device.
  EXPECT_THAT(ember_test::errorOf([] {
                at::empty({2}, at::TensorOptions().device(c10::kCUDA));
              }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { at::ones({2}).to(c10::Device(c10::kCUDA, 0)); }),
              StartsWith(prefix));
  // Pinned memory: the plugin registers its host allocator, which needs a
  // device; nothing is pinned.
  ASSERT_NE(c10::GetPinnedMemoryAllocator(c10::kCUDA), nullptr);
  EXPECT_THAT(ember_test::errorOf([] { at::ones({2}).pin_memory(); }), StartsWith(prefix));
  EXPECT_FALSE(at::ones({2}).is_pinned());
  // Its cache needs no device: empty, all zeros.
  EXPECT_NO_THROW(at::cuda::CachingHostAllocator_emptyCache());
  const auto host = at::cuda::CachingHostAllocator_memoryStats();
  EXPECT_EQ(host.at("reserved_bytes.current"), 0);
  EXPECT_EQ(host.at("allocation.peak"), 0);
  EXPECT_EQ(host.at("num_host_alloc"), 0);
  EXPECT_EQ(host.size(), 20u);
}

// A CUDA tensor made by hand (no device memory behind it: the kernels must
// stop at the device check before touching it), to show that each kernel is
// registered for the CUDA key and reaches that check in CI.
at::Tensor handMadeCudaTensor(std::vector<int64_t> sizes,
                              c10::ScalarType dtype = c10::kFloat) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(),
      static_cast<size_t>(numel) * c10::elementSize(dtype),
      c10::DataPtr(nullptr, c10::Device(c10::kCUDA, 0)), nullptr, false));
  at::Tensor t(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CUDA), dtype));
  t.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  return t;
}

TEST_F(NoDevice, EveryKernelIsRegisteredAndStopsAtTheDeviceCheck) {
  const std::string prefix = expectedPrefix();
  const at::Tensor x = handMadeCudaTensor({2, 2});
  ASSERT_TRUE(x.is_cuda());
  at::Tensor cpu = at::ones({2, 2});
  at::Tensor y = x;
  EXPECT_THAT(ember_test::errorOf([&] { cpu.copy_(x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { y.copy_(cpu); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { y.copy_(x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { y.fill_(1); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::add(x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::sub(x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::mul(x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::div(x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { y.mul_(x); }), StartsWith(prefix));
  for (auto op : {&at::relu, &at::neg, &at::abs, &at::exp, &at::log, &at::sqrt,
                  &at::tanh, &at::sigmoid}) {
    EXPECT_THAT(ember_test::errorOf([&] { op(x); }), StartsWith(prefix));
  }
  EXPECT_THAT(ember_test::errorOf([&] { at::sum(x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::sum(x, {1}); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::mm(x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::addmm(x, x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { handMadeCudaTensor({1}).item(); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_log_softmax(x, 1, false); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_softmax(x, 0, false); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_log_softmax_backward_data(x, x, 1, c10::kFloat); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_softmax_backward_data(x, x, 1, c10::kFloat); }),
              StartsWith(prefix));
  const at::Tensor target = handMadeCudaTensor({2}, c10::kLong);
  EXPECT_THAT(ember_test::errorOf([&] { at::nll_loss_forward(x, target, {}, 1, -100); }),
              StartsWith(prefix));
  const at::Tensor scalar = handMadeCudaTensor({});
  EXPECT_THAT(ember_test::errorOf([&] {
                at::nll_loss_backward(scalar, x, target, {}, 1, -100, scalar);
              }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::threshold_backward(x, x, 0); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::mean(x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::mean(x, {1}); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] {
                at::nll_loss_forward(x, handMadeCudaTensor({2}, c10::kInt), {}, 1, -100);
              }),
              HasSubstr("expected a target of dtype Long (class indices), but got Int"));
  EXPECT_THAT(ember_test::errorOf([&] { at::mean(target); }),
              HasSubstr("mean(): could not infer output dtype"));
  EXPECT_THAT(ember_test::errorOf([&] { at::_softmax(x, 0, true); }),
              HasSubstr("half_to_float is not supported on CUDA"));
  // Argument checks come before the device: the user learns what is wrong.
  EXPECT_THAT(ember_test::errorOf([&] { at::mm(x, handMadeCudaTensor({3, 2})); }),
              HasSubstr("mm: shapes [2, 2] and [3, 2] cannot be multiplied"));
}

TEST_F(NoDevice, EmptyCacheWithoutADeviceDoesNothing) {
  EXPECT_EQ(ember_test::errorOf([] {
              c10::cuda::CUDACachingAllocator::emptyCache();
            }),
            "<no error>");
}

TEST_F(NoDevice, SeedingWithoutADeviceDoesNothing) {
  // As libtorch: manual_seed(_all) are no-ops where CUDA is unavailable.
  EXPECT_EQ(ember_test::errorOf([] { torch::cuda::manual_seed(1); }), "<no error>");
  EXPECT_EQ(ember_test::errorOf([] { torch::cuda::manual_seed_all(1); }),
            "<no error>");
}

TEST(CudaApi, StreamOfAnotherDeviceTypeIsRefused) {
  EXPECT_THAT(ember_test::errorOf([] {
                c10::cuda::CUDAStream s(
                    c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::kCPU)));
              }),
              HasSubstr("CUDAStream: expected a stream of a CUDA device, got one of cpu"));
  EXPECT_THAT(ember_test::errorOf([] { at::cuda::CUDAEvent e(cudaEventBlockingSync); }),
              HasSubstr("CUDAEvent: flags 1 are not supported"));
}

TEST(CudaApi, CheckMacrosNameTheErrorAndTheCall) {
  const std::string msg = ember_test::errorOf(
      [] { C10_CUDA_CHECK(cudaErrorInvalidValue); });
  EXPECT_THAT(msg, StartsWith("CUDA error: invalid argument (cudaErrorInvalidValue) "
                              "from cudaErrorInvalidValue at "));
  EXPECT_THAT(msg, HasSubstr("runtime_no_device_test.cc:"));
  EXPECT_EQ(ember_test::errorOf([] { C10_CUDA_CHECK(cudaSuccess); }), "<no error>");
}

TEST(CudaApi, StreamIdsRoundTrip) {
  using ember::cuda::StreamKind;
  for (int slot = 0; slot < ember::cuda::kStreamsPerPool; ++slot) {
    for (bool high : {false, true}) {
      const c10::StreamId id = ember::cuda::poolStreamId(high, slot);
      EXPECT_EQ(ember::cuda::streamKind(id),
                high ? StreamKind::kHighPriority : StreamKind::kLowPriority);
      EXPECT_EQ(ember::cuda::streamSlot(id), slot);
    }
  }
  EXPECT_EQ(ember::cuda::streamKind(0), StreamKind::kDefault);
  EXPECT_EQ(ember::cuda::streamKind(-1), StreamKind::kInvalid);
  EXPECT_EQ(ember::cuda::streamKind(2 * ember::cuda::kStreamsPerPool + 1),
            StreamKind::kInvalid);
}

// The plugin defines none of the core's functions or data (it links only
// headers): strong c10::/at::/torch:: definitions would be a second core.
TEST(CudaPlugin, DefinesNoCoreSymbolsAndNoCudart) {
  const std::string path = std::string(std::getenv("TEST_SRCDIR")) +
                           "/ember/backends/cuda/libember_cuda.so";
  const std::string cmd = "nm -D --defined-only -C '" + path + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), &pclose);
  ASSERT_TRUE(pipe);
  std::string strong_core, cudart;
  int lines = 0;
  char buf[4096];
  while (fgets(buf, sizeof(buf), pipe.get()) != nullptr) {
    ++lines;
    const std::string line(buf);
    if (line.size() < 19) continue;
    const char type = line[17];
    const std::string name = line.substr(19);
    const bool strong = type == 'T' || type == 'D' || type == 'B' || type == 'R';
    if (strong && (name.rfind("c10::", 0) == 0 || name.rfind("at::", 0) == 0 ||
                   name.rfind("torch::", 0) == 0)) {
      strong_core += line;
    }
    // cudart is linked statically with its symbols kept local, so a
    // program's own cudart does not bind to the plugin's copy.
    if (name.rfind("cuda", 0) == 0) cudart += line;
  }
  EXPECT_GT(lines, 0) << "nm printed nothing for " << path;
  EXPECT_EQ(strong_core, "") << path << " carries core code";
  EXPECT_EQ(cudart, "") << path << " exports cudart's symbols";
}

}  // namespace

// Registration may run while other threads dispatch (plugins load lazily):
// run both at once, many times. Meant for --config=tsan.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "registration/library.h"
#include "tests/registration/test_tensors.h"

using at::TensorBase;
using c10::DispatchKey;
using torch::Library;

namespace {

std::atomic<int64_t> g_calls{0};

TensorBase countingKernel(const TensorBase& a, const TensorBase&) {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  return a;
}

TEST(DispatcherStress, CallsWhileRegisteringAndDeregistering) {
  Library def(Library::DEF, "stress", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  Library cpu(Library::IMPL, "stress", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("op", &countingKernel);
  const auto op = c10::Dispatcher::singleton()
                      .findSchemaOrThrow("stress::op", "")
                      .typed<TensorBase(const TensorBase&, const TensorBase&)>();

  std::atomic<bool> stop{false};
  std::vector<std::thread> callers;
  constexpr int kCallers = 3;
  std::atomic<int64_t> per_thread_calls[kCallers] = {};
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&, i] {
      const TensorBase t = ember_test::makeTensor({1});
      while (!stop.load(std::memory_order_acquire)) {
        TensorBase out = op.call(t, t);
        ASSERT_TRUE(out.is_same(t));
        per_thread_calls[i].fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  // Meanwhile: add and remove kernels for other keys of this op, a second
  // CPU kernel (which takes over, then is removed), fallbacks and other ops.
  for (int round = 0; round < 200; ++round) {
    Library cuda(Library::IMPL, "stress", DispatchKey::CUDA, __FILE__, __LINE__);
    cuda.impl("op", &countingKernel);
    Library other(Library::FRAGMENT, "stress", std::nullopt, __FILE__, __LINE__);
    other.def("other" + std::to_string(round) + "(Tensor self) -> Tensor");
    Library fb(Library::IMPL, "_", DispatchKey::PrivateUse1, __FILE__, __LINE__);
    fb.fallback(torch::CppFunction::makeFallthrough());
    {
      struct Drop : c10::WarningHandler {
        void process(const c10::Warning&) override {}
      } drop;
      c10::WarningUtils::WarningHandlerGuard g(&drop);
      Library cpu2(Library::IMPL, "stress", DispatchKey::CPU, __FILE__, __LINE__);
      cpu2.impl("op", &countingKernel);
    }
  }
  stop.store(true, std::memory_order_release);
  for (auto& t : callers) t.join();
  int64_t total = 0;
  for (auto& c : per_thread_calls) total += c.load();
  EXPECT_EQ(g_calls.load(), total);
  EXPECT_GT(total, 0);
}

}  // namespace

// EMBER_DISPATCH_TRACE=1 (set for this test in BUILD) prints one line per
// dispatch: op, key set and chosen key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "registration/library.h"
#include "tests/registration/test_tensors.h"

using ::testing::HasSubstr;

namespace {

at::TensorBase identity(const at::TensorBase& a) { return a; }

TEST(DispatchTrace, PrintsOpKeySetAndChosenKey) {
  ASSERT_TRUE(c10::detail::dispatch_trace_enabled);
  torch::Library def(torch::Library::DEF, "trace", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self) -> Tensor");
  torch::Library cpu(torch::Library::IMPL, "trace", c10::DispatchKey::CPU, __FILE__,
                     __LINE__);
  cpu.impl("op", &identity);
  auto op = c10::Dispatcher::singleton()
                .findSchemaOrThrow("trace::op", "")
                .typed<at::TensorBase(const at::TensorBase&)>();
  testing::internal::CaptureStderr();
  op.call(ember_test::makeTensor({1}));
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_THAT(out, HasSubstr("[dispatch] trace::op keys=DispatchKeySet("));
  EXPECT_THAT(out, HasSubstr("-> CPU"));
}

}  // namespace

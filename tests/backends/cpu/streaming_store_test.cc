// The CPU plugin's streaming-store path (Note [Streaming stores] in
// backends/cpu/pointwise_loops.h). BUILD.bazel runs this binary with
// EMBER_STREAMING_STORE_BYTES=1, so every elementwise output streams: runs
// of every length around the 2 KiB block, heads misaligned by views, inputs
// broadcast, several dtypes and two threads are checked element by element
// against plain loops; in-place forms (which must not stream) too. A second
// target runs the StreamingStoreEnv cases with a malformed value. Float and
// double add/mul of up to 4096 elements take the small fast path (Note
// [Small binary fast path]), so the short runs use sub and div.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;

// 0, 1, ..., n-1 scaled into a small range, as `dtype`.
at::Tensor ramp(int64_t n, c10::ScalarType dtype, double scale = 0.25) {
  return (at::arange(n, at::TensorOptions().dtype(at::kDouble)) * scale - 7.0).to(dtype);
}

// Lengths around the block (512 floats, 256 doubles) and the 64-byte line.
const std::vector<int64_t>& lengths() {
  static const std::vector<int64_t> n = {0, 1, 15, 16, 17, 255, 256, 257, 511, 512,
                                         513, 1023, 1024, 1500, 4099, 100003};
  return n;
}

template <typename T>
void expect_equal_to(const at::Tensor& got, const std::vector<double>& want,
                     const std::string& what) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size())) << what;
  const at::Tensor c = got.contiguous();
  const T* p = c.data_ptr<T>();
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(static_cast<double>(p[i]), want[i]) << what << " at " << i;
  }
}

TEST(StreamingStore, BinaryOfEveryLengthAndHeadMatchesAPlainLoop) {
  for (int64_t n : lengths()) {
    for (int64_t skip : {0, 1, 3, 15}) {  // views start 0..15 floats into a line
      const at::Tensor a = ramp(n + skip, at::kFloat).slice(0, skip);
      const at::Tensor b = ramp(n + skip, at::kFloat, 0.3).slice(0, skip);  // no zero
      at::Tensor out_base = at::empty({n + skip}, at::kFloat);
      at::Tensor out = out_base.slice(0, skip);
      at::sub_out(out, a, b);
      const at::Tensor functional = at::div(a, b);
      std::vector<double> difference(n), quotient(n);
      const float* pa = a.data_ptr<float>();
      const float* pb = b.data_ptr<float>();
      for (int64_t i = 0; i < n; ++i) {
        difference[i] = static_cast<double>(pa[i] - pb[i]);
        quotient[i] = static_cast<double>(pa[i] / pb[i]);
      }
      const std::string what = "n=" + std::to_string(n) + " skip=" + std::to_string(skip);
      expect_equal_to<float>(out, difference, "sub_out " + what);
      expect_equal_to<float>(functional, quotient, "div " + what);
    }
  }
}

TEST(StreamingStore, OtherDtypesAndOutputTypes) {
  for (int64_t n : lengths()) {
    const at::Tensor a = ramp(n, at::kDouble), b = ramp(n, at::kDouble, -0.5);
    std::vector<double> diff(n), less(n), neg(n);
    for (int64_t i = 0; i < n; ++i) {
      const double x = a.data_ptr<double>()[i], y = b.data_ptr<double>()[i];
      diff[i] = x - y;
      less[i] = x < y ? 1 : 0;
      neg[i] = -x;
    }
    expect_equal_to<double>(at::sub(a, b), diff, "double sub n=" + std::to_string(n));
    expect_equal_to<bool>(at::lt(a, b), less, "bool lt n=" + std::to_string(n));
    expect_equal_to<double>(at::neg(a), neg, "double neg n=" + std::to_string(n));
    const at::Tensor i8 = at::arange(n, at::TensorOptions().dtype(at::kChar));
    std::vector<double> twice(n);
    for (int64_t i = 0; i < n; ++i) twice[i] = static_cast<int8_t>(static_cast<int8_t>(i) * 2);
    expect_equal_to<int8_t>(at::add(i8, i8), twice, "int8 add n=" + std::to_string(n));
  }
}

TEST(StreamingStore, BroadcastScalarsAndTernaryOps) {
  for (int64_t n : lengths()) {
    const at::Tensor a = ramp(n, at::kFloat), b = ramp(n, at::kFloat, 0.125);
    const at::Tensor c = ramp(n, at::kFloat, -0.375);
    const at::Tensor scalar = at::full({}, 3.0f, at::TensorOptions().dtype(at::kFloat));
    std::vector<double> plus3(n), three_minus(n), fused(n), picked(n);
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    const float* pc = c.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i) {
      plus3[i] = static_cast<double>(pa[i] + 3.0f);
      three_minus[i] = static_cast<double>(3.0f - pa[i]);
      fused[i] = static_cast<double>(pa[i] + 0.5f * pb[i] * pc[i]);
      picked[i] = static_cast<double>(pa[i] > pb[i] ? pa[i] : pc[i]);
    }
    const std::string what = " n=" + std::to_string(n);
    expect_equal_to<float>(at::add(a, scalar), plus3, "tensor + 0-dim" + what);
    expect_equal_to<float>(at::sub(scalar, a), three_minus, "0-dim - tensor" + what);
    expect_equal_to<float>(at::addcmul(a, b, c, 0.5), fused, "addcmul" + what);
    expect_equal_to<float>(at::where(at::gt(a, b), a, c), picked, "where" + what);
  }
}

TEST(StreamingStore, InPlaceFormsAreRight) {
  for (int64_t n : lengths()) {
    at::Tensor a = ramp(n, at::kFloat);
    const at::Tensor b = ramp(n, at::kFloat, 0.5);
    std::vector<double> want(n);
    for (int64_t i = 0; i < n; ++i) {
      want[i] = static_cast<double>(a.data_ptr<float>()[i] - b.data_ptr<float>()[i]);
    }
    a.sub_(b);
    expect_equal_to<float>(a, want, "sub_ n=" + std::to_string(n));
    at::Tensor self = ramp(n, at::kFloat);
    for (int64_t i = 0; i < n; ++i) want[i] = static_cast<double>(std::abs(self.data_ptr<float>()[i]));
    at::abs_out(self, self);
    expect_equal_to<float>(self, want, "abs_out into its input n=" + std::to_string(n));
  }
}

TEST(StreamingStore, TwoThreadsSplitRunsAnywhere) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "libgomp is not TSan-instrumented, so a two-thread OpenMP team reports "
                  "false races; the default (uninstrumented) run covers this test.";
#endif
  const int before = at::get_num_threads();
  at::set_num_threads(2);
  // Over the parallel grain; odd lengths put the threads' boundary
  // mid-line and mid-block.
  for (int64_t n : {int64_t{65537}, int64_t{100003}, int64_t{1} << 20}) {
    const at::Tensor a = ramp(n, at::kFloat, 1e-3), b = ramp(n, at::kFloat, 2e-3);
    const at::Tensor out = at::add(a, b, 2.0);
    std::vector<double> want(n);
    for (int64_t i = 0; i < n; ++i) {
      want[i] = static_cast<double>(a.data_ptr<float>()[i] + 2.0f * b.data_ptr<float>()[i]);
    }
    expect_equal_to<float>(out, want, "two threads n=" + std::to_string(n));
  }
  at::set_num_threads(before);
}

TEST(StreamingStoreEnv, AMalformedThresholdIsRefusedWithItsValue) {
  const char* env = std::getenv("EMBER_STREAMING_STORE_BYTES");
  ASSERT_NE(env, nullptr);
  ASSERT_EQ(std::string(env), "12x");
  const at::Tensor a = at::ones({4});
  const std::string message = errorOf([&] { at::sub(a, a); });
  EXPECT_NE(message.find("EMBER_STREAMING_STORE_BYTES must be a positive number of bytes, "
                         "got \"12x\""),
            std::string::npos)
      << message;
}

}  // namespace

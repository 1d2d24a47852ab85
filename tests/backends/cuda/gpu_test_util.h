// tests/backends/cuda/gpu_test_util.h — the fixture and comparisons of the
// GPU suite (cuda_gpu_test*.cc, one binary): a test skips with the reason
// where there is no CUDA device; results are compared with the CPU plugin's.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <c10/cuda/CUDAFunctions.h>
#include <torch/autograd.h>
#include <torch/cuda.h>
#include <torch/types.h>

namespace ember_gpu_test {

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!torch::cuda::is_available()) {
      std::string reason = "no CUDA plugin";
      if (c10::impl::hasDeviceGuardImpl(c10::kCUDA)) {
        reason = c10::cuda::impl::cudaRuntime().unavailableReason();
      }
      GTEST_SKIP() << "no CUDA device: " << reason;
    }
    at::manual_seed(0);
  }
  const c10::Device cuda{c10::kCUDA, 0};
};

inline at::Tensor randn(std::vector<int64_t> sizes, c10::ScalarType dtype = c10::kFloat) {
  return at::randn(sizes, at::TensorOptions().dtype(dtype));
}

inline void expect_close(const at::Tensor& gpu, const at::Tensor& cpu, double rtol = 1e-5,
                         double atol = 1e-6) {
  ASSERT_TRUE(gpu.is_cuda());
  const at::Tensor back = gpu.to(c10::kCPU);
  EXPECT_EQ(back.sizes(), cpu.sizes());
  EXPECT_EQ(back.scalar_type(), cpu.scalar_type());
  EXPECT_TRUE(at::allclose(back, cpu, rtol, atol)) << "gpu:\n" << back << "\ncpu:\n" << cpu;
}

inline void expect_equal(const at::Tensor& gpu, const at::Tensor& cpu) {
  const at::Tensor back = gpu.to(c10::kCPU);
  EXPECT_TRUE(back.equal(cpu)) << "gpu:\n" << back << "\ncpu:\n" << cpu;
}

}  // namespace ember_gpu_test

// Large float32 products take oneDNN's sgemm path (Note [Large products
// through sgemm] in backends/cpu/matmul.cc): every layout of the operands,
// alpha and a bias give the product's values, checked entry by entry in
// double precision on a sample of entries.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include <torch/autograd.h>
#include <torch/types.h>

namespace {

constexpr int64_t M = 1024, K = 512, N = 1024;  // M * N * K = 2^29 multiply-adds

// Checks out[i][j] == beta_term(j) + alpha * sum_k a[i][k] * w[k][j] on a
// spread of entries, reading a and w through their strides.
void expect_product(const at::Tensor& out, const at::Tensor& a, const at::Tensor& w,
                    double alpha, const at::Tensor& bias) {
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{M, N}));
  auto pa = a.accessor<float, 2>();
  auto pw = w.accessor<float, 2>();
  auto po = out.accessor<float, 2>();
  for (int64_t s = 0; s < 97; ++s) {
    const int64_t i = (s * 389) % M, j = (s * 631 + 7) % N;
    double acc = 0;
    for (int64_t k = 0; k < K; ++k) acc += static_cast<double>(pa[i][k]) * pw[k][j];
    double expected = alpha * acc;
    if (bias.defined()) expected += bias.dim() == 1 ? bias[j].item<double>()
                                                    : bias[i][j].item<double>();
    EXPECT_NEAR(po[i][j], expected, 1e-4 * (1 + std::fabs(expected))) << "entry " << i << ", " << j;
  }
}

class LargeMm : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(LargeMm, EveryOperandLayoutGivesTheProduct) {
  const auto [a_transposed, w_transposed] = GetParam();
  at::manual_seed(3);
  const at::Tensor a = a_transposed ? at::randn({K, M}).t() : at::randn({M, K});
  const at::Tensor w = w_transposed ? at::randn({N, K}).t() : at::randn({K, N});
  expect_product(at::mm(a, w), a, w, 1.0, at::Tensor());
  at::Tensor out = at::empty({M, N});
  at::mm_out(out, a, w);
  expect_product(out, a, w, 1.0, at::Tensor());
}

INSTANTIATE_TEST_SUITE_P(Layouts, LargeMm,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()));

TEST(LargeMm, AddmmWithBiasAndAlpha) {
  at::manual_seed(4);
  const at::Tensor a = at::randn({M, K});
  const at::Tensor w = at::randn({N, K}).t();
  const at::Tensor row_bias = at::randn({N});
  expect_product(at::addmm(row_bias, a, w), a, w, 1.0, row_bias);
  expect_product(at::addmm(row_bias, a, w, /*beta=*/1, /*alpha=*/0.5), a, w, 0.5, row_bias);
  const at::Tensor full_bias = at::randn({M, N});
  expect_product(at::addmm(full_bias, a, w), a, w, 1.0, full_bias);
}

TEST(LargeMm, NonMatrixStridesStillWork) {
  // Every other column of a wider matrix: neither row- nor column-major, so
  // the operand is made contiguous first.
  at::manual_seed(5);
  const at::Tensor wide = at::randn({M, 2 * K});
  const at::Tensor a = wide.slice(1, 0, 2 * K, 2);
  const at::Tensor w = at::randn({K, N});
  expect_product(at::mm(a, w), a, w, 1.0, at::Tensor());
}

}  // namespace

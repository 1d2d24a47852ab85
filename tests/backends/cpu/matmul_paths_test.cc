// Which implementation the CPU matrix products run (backends/cpu/matmul.cc):
// oneDNN's matmul primitive for float32 (and float16/bfloat16, computed in
// float32), oneDNN's sgemm for large float32 products, the plain loop for
// float64 and the integer dtypes. Read from ember::cpu::matmul_runs(); the
// kernels are linked into this binary (not loaded as the plugin) so that the
// test can read it. Values are checked against a reference written here.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>

#include <torch/autograd.h>
#include <torch/types.h>

#include "backends/cpu/matmul.h"

namespace {

using ember::cpu::MatmulPath;

// Products per path that f() ran: {oneDNN matmul, sgemm, plain loop}.
std::array<int64_t, 3> runs(const std::function<void()>& f) {
  const MatmulPath paths[] = {MatmulPath::kOneDnnMatmul, MatmulPath::kOneDnnSgemm,
                              MatmulPath::kPlainLoop};
  std::array<int64_t, 3> before{};
  for (int i = 0; i < 3; ++i) before[i] = ember::cpu::matmul_runs(paths[i]);
  f();
  std::array<int64_t, 3> d{};
  for (int i = 0; i < 3; ++i) d[i] = ember::cpu::matmul_runs(paths[i]) - before[i];
  return d;
}

constexpr std::array<int64_t, 3> kOneDnn{1, 0, 0};
constexpr std::array<int64_t, 3> kSgemm{0, 1, 0};
constexpr std::array<int64_t, 3> kPlain{0, 0, 1};
constexpr std::array<int64_t, 3> kNone{0, 0, 0};

// Small integers in [0, 3], so every dtype holds them and the products
// exactly.
at::Tensor small_ints(std::vector<int64_t> sizes, c10::ScalarType dtype, int64_t seed) {
  at::Tensor t = at::empty(sizes, at::kDouble);
  double* p = t.data_ptr<double>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<double>((i * 5 + seed) % 11 % 4);
  return t.to(dtype);
}

// a @ b for [m, k] and [k, n], in double.
std::vector<double> reference(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor ad = a.to(at::kDouble).contiguous(), bd = b.to(at::kDouble).contiguous();
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  std::vector<double> out(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t x = 0; x < k; ++x)
      for (int64_t j = 0; j < n; ++j)
        out[i * n + j] += ad.data_ptr<double>()[i * k + x] * bd.data_ptr<double>()[x * n + j];
  return out;
}

void expect_values(const std::string& what, const at::Tensor& c, const std::vector<double>& e) {
  const at::Tensor cd = c.to(at::kDouble).contiguous();
  ASSERT_EQ(cd.numel(), static_cast<int64_t>(e.size())) << what;
  for (size_t i = 0; i < e.size(); ++i) {
    ASSERT_EQ(cd.data_ptr<double>()[i], e[i]) << what << " at " << i;
  }
}

TEST(MatmulPaths, EachDtypeTakesItsPath) {
  struct Case {
    c10::ScalarType dtype;
    std::array<int64_t, 3> path;
  };
  const Case cases[] = {
      {at::kFloat, kOneDnn}, {at::kHalf, kOneDnn}, {at::kBFloat16, kOneDnn},
      {at::kDouble, kPlain}, {at::kLong, kPlain},  {at::kInt, kPlain},
      {at::kShort, kPlain},  {at::kChar, kPlain},  {at::kByte, kPlain},
  };
  for (const Case& c : cases) {
    const std::string what = c10::toString(c.dtype);
    const at::Tensor a = small_ints({3, 4}, c.dtype, 1), b = small_ints({4, 5}, c.dtype, 2);
    at::Tensor out;
    EXPECT_EQ(runs([&] { out = at::mm(a, b); }), c.path) << what;
    EXPECT_EQ(out.scalar_type(), c.dtype) << what;
    expect_values(what, out, reference(a, b));
    // bmm takes the same path, once for the batch.
    const at::Tensor a3 = small_ints({2, 3, 4}, c.dtype, 3);
    const at::Tensor b3 = small_ints({2, 4, 5}, c.dtype, 1);
    EXPECT_EQ(runs([&] { out = at::bmm(a3, b3); }), c.path) << what << " bmm";
    for (int64_t i = 0; i < 2; ++i) {
      expect_values(what + " bmm[" + std::to_string(i) + "]", out.select(0, i),
                    reference(a3.select(0, i), b3.select(0, i)));
    }
  }
}

TEST(MatmulPaths, LargeFloatProductsTakeSgemm) {
  // M * N * K = 2^29 multiply-adds: Note [Large products through sgemm].
  const at::Tensor a = at::ones({1024, 512}), b = at::ones({512, 1024});
  at::Tensor out;
  EXPECT_EQ(runs([&] { out = at::mm(a, b); }), kSgemm);
  EXPECT_EQ(out.select(0, 1000).select(0, 3).item<float>(), 512.0f);
  // One multiply-add fewer per entry stays on the primitive.
  const at::Tensor a1 = at::ones({1024, 511}), b1 = at::ones({511, 1024});
  EXPECT_EQ(runs([&] { out = at::mm(a1, b1); }), kOneDnn);
  EXPECT_EQ(out.select(0, 1000).select(0, 3).item<float>(), 511.0f);
}

TEST(MatmulPaths, EmptyProductsRunNoPath) {
  at::Tensor out;
  EXPECT_EQ(runs([&] { out = at::mm(at::empty({0, 3}), at::ones({3, 2})); }), kNone);
  EXPECT_EQ(runs([&] { out = at::mm(at::empty({2, 0}), at::empty({0, 2})); }), kNone);
  EXPECT_EQ(out.sum().item<float>(), 0.0f);
}

}  // namespace

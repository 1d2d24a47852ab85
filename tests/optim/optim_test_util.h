// Helpers for the nn/optim suites: tensors from plain vectors and back, and
// deterministic gradients, so that each optimizer can be checked against an
// update computed by hand with double loops.
#pragma once

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace optim_test {

// A float64 tensor of `shape` holding `v` (row-major).
inline at::Tensor tensor_of(const std::vector<double>& v, std::vector<int64_t> shape,
                            at::ScalarType dtype = at::kDouble) {
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(at::kDouble));
  double* p = t.data_ptr<double>();
  for (size_t i = 0; i < v.size(); ++i) p[i] = v[i];
  return dtype == at::kDouble ? t : t.to(dtype);
}

// A leaf parameter holding `v`.
inline at::Tensor param_of(const std::vector<double>& v, std::vector<int64_t> shape,
                           at::ScalarType dtype = at::kDouble) {
  return tensor_of(v, shape, dtype).requires_grad_();
}

inline std::vector<double> values(const at::Tensor& t) {
  const at::Tensor c = t.detach().to(at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

// The gradient of element i at step k: varied signs and magnitudes.
inline double grad_value(size_t i, int k, int salt = 0) {
  return std::sin(1.3 * static_cast<double>(i) + 0.7 * k + salt) * (1.0 + 0.25 * k);
}

inline std::vector<double> grads_for(size_t n, int k, int salt = 0) {
  std::vector<double> g(n);
  for (size_t i = 0; i < n; ++i) g[i] = grad_value(i, k, salt);
  return g;
}

// Sets p's gradient as backward would.
inline void set_grad(const at::Tensor& p, const std::vector<double>& g) {
  p.mutable_grad() = tensor_of(g, p.sizes().vec(), p.scalar_type());
}

}  // namespace optim_test

// Element-wise closeness of a tensor to a reference vector.
#define EXPECT_VALUES_NEAR(tensor, expected, tol)                                               \
  do {                                                                                          \
    const std::vector<double> got_ = optim_test::values(tensor);                                \
    const std::vector<double> want_ = (expected);                                               \
    ASSERT_EQ(got_.size(), want_.size());                                                       \
    for (size_t i_ = 0; i_ < got_.size(); ++i_) {                                               \
      EXPECT_NEAR(got_[i_], want_[i_], (tol) * (1 + std::fabs(want_[i_]))) << "element " << i_; \
    }                                                                                           \
  } while (0)

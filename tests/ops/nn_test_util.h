// tests/ops/nn_test_util.h — helpers shared by the nn_*_test.cc suites:
// random tensors of a dtype and layout, reductions of references, and a
// finite-difference check of backward ops in float64.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace nn_test {

// A tensor of `shape` drawn in `domain`: contiguous, or non-contiguous
// (column-major strides for >= 2 dims, else every other element of a
// buffer) when `strided`. `ref` receives its values.
inline at::Tensor random_tensor(const std::vector<int64_t>& shape, ScalarType dtype,
                                Domain domain, uint64_t seed, bool strided, Ref* ref) {
  const auto cases = layouts(shape, dtype, c10::Device("cpu"), domain, seed);
  const Case* pick = &cases[0];
  if (strided && cases.size() > 1 && cases[1].name.find("expanded") == std::string::npos) {
    pick = &cases[1];
  }
  if (ref) *ref = pick->ref;
  return pick->tensor;
}

// A Long tensor holding `values` with `shape`.
inline at::Tensor long_tensor(const std::vector<int64_t>& shape,
                              const std::vector<double>& values) {
  return make_tensor(Ref(shape, values), kLong, c10::Device("cpu"));
}

inline double sum_of(const Ref& r) {
  double s = 0;
  for (double v : r.v) s += v;
  return s;
}

inline double dot_of(const Ref& a, const Ref& b) {
  double s = 0;
  for (size_t i = 0; i < a.v.size(); ++i) s += a.v[i] * b.v[i];
  return s;
}

// ember_conformance::nn_test::check_finite_differences
//
// `analytic` is the gradient of L(x) = sum(grad_output * f(x)) that a
// backward op computed for the float64 input x (contiguous). Each element
// is compared with the central difference of L with step h.
inline ::testing::AssertionResult check_finite_differences(
    const std::function<at::Tensor(const at::Tensor&)>& f, const at::Tensor& x,
    const at::Tensor& grad_output, const at::Tensor& analytic, double h = 1e-6,
    double tol = 1e-6) {
  const Ref g = to_ref(grad_output);
  const Ref a = to_ref(analytic);
  const Ref xr = to_ref(x);
  if (a.numel() != xr.numel()) {
    return ::testing::AssertionFailure() << "gradient has " << a.numel()
                                         << " elements, input " << xr.numel();
  }
  for (int64_t i = 0; i < xr.numel(); ++i) {
    Ref plus = xr, minus = xr;
    plus.v[static_cast<size_t>(i)] += h;
    minus.v[static_cast<size_t>(i)] -= h;
    const double lp = dot_of(g, to_ref(f(make_tensor(plus, kDouble, c10::Device("cpu")))));
    const double lm = dot_of(g, to_ref(f(make_tensor(minus, kDouble, c10::Device("cpu")))));
    const double numeric = (lp - lm) / (2 * h);
    const double got = a.v[static_cast<size_t>(i)];
    if (!(std::fabs(numeric - got) <= tol * (1 + std::fabs(numeric)))) {
      return ::testing::AssertionFailure() << "element " << i << ": backward gives " << got
                                           << ", finite differences " << numeric;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace nn_test
}  // namespace ember_conformance

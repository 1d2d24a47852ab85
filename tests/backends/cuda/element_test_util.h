// tests/backends/cuda/element_test_util.h — what the host tests of the CUDA
// kernels' element functions share (element_ops_test, sort_scatter_ops_test):
// each dtype's values, tensors of them, the C++ type of a kernel dtype, and
// the comparison with the CPU plugin's results.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "backends/cuda/kernels/element_ops.cuh"

namespace ember_element_test {

namespace k = ember::cuda::kernels;
using c10::ScalarType;

inline const double kNan = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();

// The values each dtype is checked on (floating ones include the specials).
inline std::vector<double> values_of(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::Half:
    case ScalarType::BFloat16:
      return {-3.5, -2.5, -1, -0.75, -0.0, 0, 0.3, 0.5, 1, 1.5, 2.5, 7, 30, kInf, -kInf, kNan};
    case ScalarType::Bool:
      return {0, 1};
    case ScalarType::Byte:
      return {0, 1, 2, 3, 5, 7, 100, 128, 200, 255};
    case ScalarType::Char:
      return {-128, -7, -3, -2, -1, 0, 1, 2, 3, 5, 100, 127};
    case ScalarType::Short:
      return {-32768, -7, -3, -2, -1, 0, 1, 2, 3, 5, 300, 32767};
    default:
      return {-7, -3, -2, -1, 0, 1, 2, 3, 5, 100, 2147483647, -2147483647};
  }
}

inline at::Tensor tensor_of(const std::vector<double>& v, ScalarType t) {
  return at::tensor(v, at::TensorOptions().dtype(at::kDouble)).to(t);
}

// The element values a tensor holds, as doubles (after its dtype rounded them).
inline std::vector<double> doubles(const at::Tensor& t) {
  const at::Tensor d = t.to(at::kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

// f(T{}) for the C++ type of a kernel dtype.
template <typename F>
void with_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: f(float{}); return;
    case ScalarType::Double: f(double{}); return;
    case ScalarType::Long: f(int64_t{}); return;
    case ScalarType::Int: f(int32_t{}); return;
    case ScalarType::Bool: f(bool{}); return;
    case ScalarType::Short: f(int16_t{}); return;
    case ScalarType::Char: f(int8_t{}); return;
    case ScalarType::Byte: f(uint8_t{}); return;
    case ScalarType::Half: f(k::Half{}); return;
    case ScalarType::BFloat16: f(k::BFloat16{}); return;
    default: FAIL() << "no kernel dtype " << t;
  }
}

// Equal for integers and Bool; within a rounding or two for floating types
// (the CPU's vectorized exp/tanh are not libm's); NaN matches NaN.
inline bool same(double expected, double actual, ScalarType t) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return expected == actual;
  if (!c10::isFloatingType(t)) return expected == actual;
  // Half and BFloat16: within one rounding of the float result (the CPU's
  // float functions are not libm's).
  const double tol = t == ScalarType::Float      ? 4e-6
                     : t == ScalarType::Half     ? 2e-3
                     : t == ScalarType::BFloat16 ? 1.6e-2
                                                 : 1e-13;
  return std::abs(expected - actual) <= tol * (1 + std::abs(expected));
}

inline std::string show(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// A stored element from a double (which the dtype holds exactly) and back.
template <typename T>
T elem(double v) {
  return k::convert<T>(v);
}
template <typename T>
double num(T v) {
  return k::convert<double>(v);
}

inline const std::vector<ScalarType> kFloating = {ScalarType::Float, ScalarType::Double,
                                           ScalarType::Half, ScalarType::BFloat16};
inline const std::vector<ScalarType> kIntegral = {ScalarType::Long, ScalarType::Int, ScalarType::Short,
                                           ScalarType::Char, ScalarType::Byte};
inline const std::vector<ScalarType> kNumeric = {
    ScalarType::Float, ScalarType::Double, ScalarType::Half, ScalarType::BFloat16,
    ScalarType::Long,  ScalarType::Int,    ScalarType::Short, ScalarType::Char,
    ScalarType::Byte};
inline const std::vector<ScalarType> kAll = {
    ScalarType::Float, ScalarType::Double, ScalarType::Half, ScalarType::BFloat16,
    ScalarType::Long,  ScalarType::Int,    ScalarType::Short, ScalarType::Char,
    ScalarType::Byte,  ScalarType::Bool};

}  // namespace ember_element_test

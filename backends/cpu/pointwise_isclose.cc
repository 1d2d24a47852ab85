// The CPU plugin's comparison kernels: isclose and equal (See pointwise_isclose.h).
#include "backends/cpu/pointwise_isclose.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "aten/CompareDecompositions.h"  // the shared checks
#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/pointwise.h"
#include "c10/util/Exception.h"

namespace ember::cpu {

at::Tensor isclose(const at::Tensor& self, const at::Tensor& other, double rtol,
                   double atol, bool equal_nan) {
  at::native::check_isclose_args(self, other, rtol, atol);
  at::Tensor out;
  TensorIterator iter(TensorIteratorConfig("isclose")
                          .add_output(out)
                          .add_input(self)
                          .add_input(other)
                          .declare_static_dtype(c10::ScalarType::Bool));
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "isclose", [&] {
    iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const scalar_t x = *reinterpret_cast<const scalar_t*>(data[1] + i * strides[1]);
        const scalar_t y = *reinterpret_cast<const scalar_t*>(data[2] + i * strides[2]);
        bool close;
        if constexpr (std::is_same_v<scalar_t, bool>) {
          close = x == y;
        } else if constexpr (std::is_integral_v<scalar_t>) {
          const double a = static_cast<double>(x);
          const double b = static_cast<double>(y);
          close = x == y || std::fabs(a - b) <= atol + rtol * std::fabs(b);
        } else {
          using acc_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
          const acc_t a = static_cast<acc_t>(x);
          const acc_t b = static_cast<acc_t>(y);
          const acc_t diff = std::fabs(a - b);
          close = a == b || (equal_nan && std::isnan(a) && std::isnan(b)) ||
                  (std::isfinite(diff) &&
                   diff <= static_cast<acc_t>(atol + rtol * std::fabs(b)));
        }
        *reinterpret_cast<bool*>(data[0] + i * strides[0]) = close;
      }
    });
  });
  return iter.output();
}

bool equal(const at::Tensor& self, const at::Tensor& other) {
  at::native::check_equal_args(self, other);
  if (self.sizes() != other.sizes()) return false;
  if (self.numel() == 0) return true;
  // eq allocates its result: contiguous, so a plain scan reads it.
  const at::Tensor same = eq(self, other);
  const bool* p = same.data_ptr<bool>();
  bool all = true;
  for (int64_t i = 0; i < same.numel(); ++i) all = all && p[i];
  return all;
}

}  // namespace ember::cpu

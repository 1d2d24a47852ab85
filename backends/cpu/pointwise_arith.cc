// The CPU plugin's arithmetic kernels: add, sub, mul, div (functional, out=
// and in-place; div also with rounding_mode). Each builds a TensorIterator
// (broadcasting, type promotion, output allocation) and runs a loop over one
// dtype. Other pointwise ops are in pointwise_*.cc.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "aten/PointwiseChecks.h"
#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/pointwise.h"
#include "backends/cpu/pointwise_loops.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// ---- element operations -----------------------------------------------------------
//
// Integers wrap on overflow (computed in wrap_t), bools are logical, Half
// and BFloat16 compute in float (opmath_t).

template <typename T>
inline T add_values(T a, T b, opmath_t<T> alpha) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || (alpha && b);
  } else if constexpr (std::is_integral_v<T>) {
    using U = wrap_t<T>;
    return static_cast<T>(static_cast<U>(a) +
                          static_cast<U>(alpha) * static_cast<U>(b));
  } else {
    return static_cast<T>(static_cast<opmath_t<T>>(a) +
                          alpha * static_cast<opmath_t<T>>(b));
  }
}

template <typename T>
inline T mul_values(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else if constexpr (std::is_integral_v<T>) {
    using U = wrap_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return static_cast<T>(static_cast<opmath_t<T>>(a) * static_cast<opmath_t<T>>(b));
  }
}

// ---- argument checks ----------------------------------------------------------------



// ---- shared bodies ----------------------------------------------------------------------

TensorIteratorConfig binary_config(const char* op, const at::Tensor& out,
                                   const at::Tensor& self, const at::Tensor& other) {
  TensorIteratorConfig config(op);
  config.add_output(out).add_input(self).add_input(other);
  return config;
}

void run_add(TensorIterator& iter, const c10::Scalar& alpha, const char* op) {
  at::native::check_alpha(iter.common_dtype(), alpha, op);
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), op, [&] {
    const auto a = alpha.to<opmath_t<scalar_t>>();
    binary_loop<scalar_t, scalar_t>(
        iter, [a](scalar_t x, scalar_t y) { return add_values(x, y, a); });
  });
}

// sub is add with -alpha (for unsigned types -1 wraps to the maximum, see
// Note [Scalar conversion rules]).
void run_sub(TensorIterator& iter, const c10::Scalar& alpha, const char* op) {
  at::native::check_alpha(iter.common_dtype(), alpha, op);
  run_add(iter, -alpha, op);
}

void run_mul(TensorIterator& iter, const char* op) {
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), op, [&] {
    binary_loop<scalar_t, scalar_t>(
        iter, [](scalar_t x, scalar_t y) { return mul_values(x, y); });
  });
}

void run_div(TensorIterator& iter, const char* op) {
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    binary_loop<scalar_t, scalar_t>(iter, [](scalar_t x, scalar_t y) {
      return static_cast<scalar_t>(static_cast<acc_t>(x) / static_cast<acc_t>(y));
    });
  });
}

// ---- div with rounding_mode ---------------------------------------------------

using RoundingMode = at::native::DivMode;

// Python's floor division of floats: the quotient of the exact remainder
// decomposition, so that a == b * q + remainder(a, b) as closely as the
// type allows (plain floor(a / b) is off by one when a / b rounds up to an
// integer). Division by zero gives a / b (inf or nan), as in PyTorch.
template <typename T>
inline T floor_divide_floating(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += 1;
  return floordiv;
}

// Integer quotients; b == -1 negates with wrapping (INT_MIN / -1 overflows).
template <typename T>
inline T integer_divide(T a, T b, bool floor, const ZeroDivisionFlag& zero) {
  if (b == 0) {
    zero.raise();
    return T(0);
  }
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return static_cast<T>(wrap_t<T>(0) - static_cast<wrap_t<T>>(a));
  }
  T q = static_cast<T>(a / b);
  if constexpr (std::is_signed_v<T>) {
    const T r = static_cast<T>(a % b);
    if (floor && r != 0 && ((r < 0) != (b < 0))) q = static_cast<T>(q - 1);
  }
  return q;
}

void run_div_rounding(TensorIterator& iter, RoundingMode mode, const char* op) {
  const bool floor = mode == RoundingMode::kFloor;
  EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(iter.common_dtype(), op, [&] {
    if constexpr (std::is_integral_v<scalar_t>) {
      ZeroDivisionFlag zero;
      binary_loop<scalar_t, scalar_t>(iter, [floor, &zero](scalar_t x, scalar_t y) {
        return integer_divide(x, y, floor, zero);
      });
      zero.throw_if_raised(op);
    } else {
      using acc_t = opmath_t<scalar_t>;
      if (floor) {
        binary_loop<scalar_t, scalar_t>(iter, [](scalar_t x, scalar_t y) {
          return static_cast<scalar_t>(
              floor_divide_floating(static_cast<acc_t>(x), static_cast<acc_t>(y)));
        });
      } else {
        binary_loop<scalar_t, scalar_t>(iter, [](scalar_t x, scalar_t y) {
          return static_cast<scalar_t>(
              std::trunc(static_cast<acc_t>(x) / static_cast<acc_t>(y)));
        });
      }
    }
  });
}

at::Tensor div_mode_into(const char* op, const at::Tensor& out, const at::Tensor& self,
                         const at::Tensor& other,
                         const std::optional<c10::string_view>& rounding_mode) {
  const RoundingMode mode = at::native::div_rounding_mode(rounding_mode, op);
  if (mode == RoundingMode::kTrue) {
    TensorIterator iter(
        binary_config(op, out, self, other).promote_integer_inputs_to_float(true));
    run_div(iter, op);
    return iter.output();
  }
  TensorIterator iter(binary_config(op, out, self, other));
  run_div_rounding(iter, mode, op);
  return iter.output();
}

at::Tensor div_into(const char* op, const at::Tensor& out, const at::Tensor& self,
                    const at::Tensor& other) {
  TensorIterator iter(
      binary_config(op, out, self, other).promote_integer_inputs_to_float(true));
  run_div(iter, op);
  return iter.output();
}

// ---- small same-shape fast path -------------------------------------------------------
//
// Note [Small binary fast path]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// For a few elements, building a TensorIterator (shapes, types, strides,
// coalescing) costs several times the arithmetic: it is most of a scalar
// autograd step (`y * 1.0001` forward and its backward). The functional
// add/mul skip it in the two commonest small cases, where broadcasting and
// type promotion are trivial (so do add_out/mul_out and add_/mul_, when the
// out tensor already has the result's dtype and sizes, is contiguous and
// does not partly overlap an input):
//   - `self` and `other` contiguous float/double tensors of one dtype and
//     the same sizes;
//   - `self` a contiguous float/double tensor and `other` a wrapped number
//     (a Scalar argument): the result has self's dtype (a Python number never
//     raises a floating tensor's dtype) and the number is first converted to
//     that dtype, exactly as the iterator's path does.
// Anything else (other dtypes, broadcasting, strides, more than
// kFastPathMaxNumel elements, where the iterator's parallel loop pays off)
// takes the general path. Results are bit-identical to it (same element
// operation, same conversion order).
constexpr int64_t kFastPathMaxNumel = 4096;

// Whether writing `out` element by element while reading `in` is safe: the
// same elements (in place) or disjoint memory. Both are contiguous.
bool same_or_disjoint(const c10::TensorImpl* out, const c10::TensorImpl* in) {
  const auto* o = static_cast<const char*>(out->data());
  const auto* i = static_cast<const char*>(in->data());
  const auto o_bytes = static_cast<size_t>(out->numel()) * out->itemsize();
  const auto i_bytes = static_cast<size_t>(in->numel()) * in->itemsize();
  return (o == i && o_bytes == i_bytes) || o + o_bytes <= i || i + i_bytes <= o;
}

// T is float or double: the caller dispatches on self's dtype. A defined
// `result` is an out= tensor: used only if it already has self's dtype and
// sizes, is contiguous and does not partly overlap an input (otherwise the
// iterator resizes it, or reports the overlap).
template <typename T, typename Op>
bool small_binary_fast(const at::Tensor& self, const at::Tensor& other, const char* op,
                       Op element_op, at::Tensor& result) {
  const c10::TensorImpl* a = self.unsafeGetTensorImpl();
  const c10::TensorImpl* b = other.unsafeGetTensorImpl();
  if (!other.defined() || !a->is_contiguous() || a->is_wrapped_number() ||
      a->numel() > kFastPathMaxNumel || !b->is_cpu()) {
    return false;
  }
  const bool scalar_other = b->is_wrapped_number();
  if (scalar_other) {
    const c10::ScalarType st = b->scalar_type();
    if (st != c10::kDouble && st != c10::kLong && st != c10::kBool) return false;
  } else if (b->scalar_type() != a->scalar_type() || !b->is_contiguous() ||
             b->sizes() != a->sizes()) {
    return false;
  }
  if (result.defined()) {
    const c10::TensorImpl* r = result.unsafeGetTensorImpl();
    if (!r->is_cpu() || r->scalar_type() != a->scalar_type() || !r->is_contiguous() ||
        r->sizes() != a->sizes() || !same_or_disjoint(r, a) ||
        (!scalar_other && !same_or_disjoint(r, b))) {
      return false;
    }
  } else {
    result = empty_cpu(a->sizes(), a->scalar_type(), op);
  }
  const int64_t n = a->numel();
  const T* x = static_cast<const T*>(a->data());
  T* out = static_cast<T*>(result.unsafeGetTensorImpl()->data());
  if (scalar_other) {
    T value;
    switch (b->scalar_type()) {
      case c10::kDouble: value = static_cast<T>(*static_cast<const double*>(b->data())); break;
      case c10::kLong: value = static_cast<T>(*static_cast<const int64_t*>(b->data())); break;
      default: value = static_cast<T>(*static_cast<const bool*>(b->data())); break;
    }
    for (int64_t i = 0; i < n; ++i) out[i] = element_op(x[i], value);
  } else {
    const T* y = static_cast<const T*>(b->data());
    for (int64_t i = 0; i < n; ++i) out[i] = element_op(x[i], y[i]);
  }
  return true;
}

// add/mul through small_binary_fast when self is float or double; false
// when the general path must run. See Note [Small binary fast path].
bool add_fast(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha,
              at::Tensor& out) {
  // See Note [Small binary fast path]. alpha converts as in run_add (a
  // Boolean alpha takes the general path, which rejects it).
  if (self.defined() && !alpha.isBoolean()) {
    if (self.scalar_type() == c10::kFloat) {
      const float a = alpha.to<float>();
      if (small_binary_fast<float>(self, other, "add",
                                   [a](float x, float y) { return add_values(x, y, a); }, out)) {
        return true;
      }
    } else if (self.scalar_type() == c10::kDouble) {
      const double a = alpha.to<double>();
      if (small_binary_fast<double>(self, other, "add",
                                    [a](double x, double y) { return add_values(x, y, a); }, out)) {
        return true;
      }
    }
  }
  return false;
}

bool mul_fast(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  // See Note [Small binary fast path].
  if (self.defined() && self.scalar_type() == c10::kFloat) {
    if (small_binary_fast<float>(self, other, "mul",
                                 [](float x, float y) { return mul_values(x, y); }, out)) {
      return true;
    }
  } else if (self.defined() && self.scalar_type() == c10::kDouble) {
    if (small_binary_fast<double>(self, other, "mul",
                                  [](double x, double y) { return mul_values(x, y); }, out)) {
      return true;
    }
  }
  return false;
}

}  // namespace

// ---- add / sub / mul / div ----------------------------------------------------------------

at::Tensor add(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  at::Tensor out;
  if (add_fast(self, other, alpha, out)) return out;
  TensorIterator iter(binary_config("add", out, self, other));
  run_add(iter, alpha, "add");
  return iter.output();
}

at::Tensor& add_out(const at::Tensor& self, const at::Tensor& other,
                    const c10::Scalar& alpha, at::Tensor& out) {
  check_out(out, "add");
  if (add_fast(self, other, alpha, out)) return out;
  TensorIterator iter(binary_config("add", out, self, other));
  run_add(iter, alpha, "add");
  return out;
}

at::Tensor& add_(at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  if (add_fast(self, other, alpha, self)) return self;
  TensorIterator iter(binary_config("add_", self, self, other));
  run_add(iter, alpha, "add_");
  return self;
}

at::Tensor sub(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  at::native::check_sub_operands(self, other, "sub");
  at::Tensor out;
  TensorIterator iter(binary_config("sub", out, self, other));
  run_sub(iter, alpha, "sub");
  return iter.output();
}

at::Tensor& sub_out(const at::Tensor& self, const at::Tensor& other,
                    const c10::Scalar& alpha, at::Tensor& out) {
  check_out(out, "sub");
  at::native::check_sub_operands(self, other, "sub");
  TensorIterator iter(binary_config("sub", out, self, other));
  run_sub(iter, alpha, "sub");
  return out;
}

at::Tensor& sub_(at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  at::native::check_sub_operands(self, other, "sub_");
  TensorIterator iter(binary_config("sub_", self, self, other));
  run_sub(iter, alpha, "sub_");
  return self;
}

at::Tensor mul(const at::Tensor& self, const at::Tensor& other) {
  at::Tensor out;
  if (mul_fast(self, other, out)) return out;
  TensorIterator iter(binary_config("mul", out, self, other));
  run_mul(iter, "mul");
  return iter.output();
}

at::Tensor& mul_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  check_out(out, "mul");
  if (mul_fast(self, other, out)) return out;
  TensorIterator iter(binary_config("mul", out, self, other));
  run_mul(iter, "mul");
  return out;
}

at::Tensor& mul_(at::Tensor& self, const at::Tensor& other) {
  if (mul_fast(self, other, self)) return self;
  TensorIterator iter(binary_config("mul_", self, self, other));
  run_mul(iter, "mul_");
  return self;
}

at::Tensor div(const at::Tensor& self, const at::Tensor& other) {
  return div_into("div", at::Tensor(), self, other);
}

at::Tensor& div_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  check_out(out, "div");
  div_into("div", out, self, other);
  return out;
}

at::Tensor& div_(at::Tensor& self, const at::Tensor& other) {
  div_into("div_", self, self, other);
  return self;
}

at::Tensor div_tensor_mode(const at::Tensor& self, const at::Tensor& other,
                           std::optional<c10::string_view> rounding_mode) {
  return div_mode_into("div", at::Tensor(), self, other, rounding_mode);
}

at::Tensor& div_out_mode(const at::Tensor& self, const at::Tensor& other,
                         std::optional<c10::string_view> rounding_mode, at::Tensor& out) {
  check_out(out, "div");
  div_mode_into("div", out, self, other, rounding_mode);
  return out;
}

at::Tensor& div_tensor_mode_(at::Tensor& self, const at::Tensor& other,
                             std::optional<c10::string_view> rounding_mode) {
  div_mode_into("div_", self, self, other, rounding_mode);
  return self;
}

}  // namespace ember::cpu

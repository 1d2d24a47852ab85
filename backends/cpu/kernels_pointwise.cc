// The CPU plugin's elementwise kernels: add, sub, mul, div (functional, out=
// and in-place), neg, abs, relu, exp, log, sqrt, and the comparisons eq, lt,
// gt. Each builds a TensorIterator (broadcasting, type promotion, output
// allocation) and runs a loop over one dtype.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/kernels.h"
#include "c10/util/Exception.h"
#include "registration/library.h"
#include "registration/plugin_descriptor.h"

// The CPU plugin's descriptor (See Note [Plugin descriptor]); once per .so.
EMBER_PLUGIN(cpu)

namespace ember::cpu {
namespace {

// ---- loops ----------------------------------------------------------------------
//
// Note [Vectorizable loops]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// When a run's strides equal the element sizes, the loops below are plain
// indexed loops over __restrict pointers, which GCC vectorizes at -O3 (and
// at -O2 from GCC 12). __restrict promises that no other pointer writes what
// one reads, so an in-place run (output == input, which the iterator allows
// only for exactly the same elements) gets its own loop that reads and
// writes through the one output pointer. Broadcast scalars (stride 0) are
// read once and captured.

template <typename out_t, typename in_t, typename F>
inline void contiguous_unary(char* o, const char* a, int64_t n, const F& f) {
  if constexpr (std::is_same_v<out_t, in_t>) {
    if (o == a) {
      out_t* __restrict po = reinterpret_cast<out_t*>(o);
      for (int64_t i = 0; i < n; ++i) po[i] = f(po[i]);
      return;
    }
  }
  out_t* __restrict po = reinterpret_cast<out_t*>(o);
  const in_t* __restrict pa = reinterpret_cast<const in_t*>(a);
  for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i]);
}

template <typename out_t, typename in_t, typename F>
inline void contiguous_binary(char* o, const char* a, const char* b, int64_t n,
                              const F& f) {
  if constexpr (std::is_same_v<out_t, in_t>) {
    if (o == a || o == b) {
      out_t* __restrict po = reinterpret_cast<out_t*>(o);
      if (a == b) {
        for (int64_t i = 0; i < n; ++i) po[i] = f(po[i], po[i]);
      } else if (o == a) {
        const in_t* __restrict pb = reinterpret_cast<const in_t*>(b);
        for (int64_t i = 0; i < n; ++i) po[i] = f(po[i], pb[i]);
      } else {
        const in_t* __restrict pa = reinterpret_cast<const in_t*>(a);
        for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], po[i]);
      }
      return;
    }
  }
  out_t* __restrict po = reinterpret_cast<out_t*>(o);
  const in_t* __restrict pa = reinterpret_cast<const in_t*>(a);
  const in_t* __restrict pb = reinterpret_cast<const in_t*>(b);
  for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
}

template <typename out_t, typename in_t, typename F>
void unary_loop(TensorIterator& iter, const F& f) {
  iter.for_each([&f](char** data, const int64_t* strides, int64_t n) {
    if (strides[0] == sizeof(out_t) && strides[1] == sizeof(in_t)) {
      contiguous_unary<out_t, in_t>(data[0], data[1], n, f);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<out_t*>(data[0] + i * strides[0]) =
          f(*reinterpret_cast<const in_t*>(data[1] + i * strides[1]));
    }
  });
}

template <typename out_t, typename in_t, typename F>
void binary_loop(TensorIterator& iter, const F& f) {
  iter.for_each([&f](char** data, const int64_t* strides, int64_t n) {
    constexpr int64_t kOut = sizeof(out_t);
    constexpr int64_t kIn = sizeof(in_t);
    if (strides[0] == kOut && strides[1] == kIn && strides[2] == kIn) {
      contiguous_binary<out_t, in_t>(data[0], data[1], data[2], n, f);
    } else if (strides[0] == kOut && strides[1] == kIn && strides[2] == 0) {
      const in_t b = *reinterpret_cast<const in_t*>(data[2]);
      contiguous_unary<out_t, in_t>(data[0], data[1], n,
                                    [&f, b](in_t x) { return f(x, b); });
    } else if (strides[0] == kOut && strides[1] == 0 && strides[2] == kIn) {
      const in_t a = *reinterpret_cast<const in_t*>(data[1]);
      contiguous_unary<out_t, in_t>(data[0], data[2], n,
                                    [&f, a](in_t y) { return f(a, y); });
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<out_t*>(data[0] + i * strides[0]) =
            f(*reinterpret_cast<const in_t*>(data[1] + i * strides[1]),
              *reinterpret_cast<const in_t*>(data[2] + i * strides[2]));
      }
    }
  });
}

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

void alpha_check(c10::ScalarType dtype, const c10::Scalar& alpha, const char* op) {
  TORCH_CHECK(!alpha.isBoolean() || dtype == c10::kBool, op,
              ": Boolean alpha only supported for Boolean results, but the "
              "result is ", dtype, ". Pass a number as alpha.");
  TORCH_CHECK(c10::isFloatingType(dtype) || alpha.isIntegral(/*includeBool=*/true),
              op, ": For integral input tensors, argument alpha must not be a "
              "floating point number, but got the floating-point alpha ", alpha,
              " for ", dtype, " tensors. Pass an integer alpha, or convert the tensors to a "
              "floating dtype.");
}

void sub_check(const at::Tensor& self, const at::Tensor& other, const char* op) {
  if (!self.defined() || !other.defined()) return;  // the iterator reports it
  const bool a = self.scalar_type() == c10::kBool;
  const bool b = other.scalar_type() == c10::kBool;
  TORCH_CHECK(!(a && b), op, ": Subtraction, the `-` operator, with two bool "
              "tensors is not supported. Use the `^` or `logical_xor()` "
              "operator instead.");
  TORCH_CHECK(!(a || b), op, ": Subtraction, the `-` operator, with a bool "
              "tensor is not supported. If you are trying to invert a mask, "
              "use the `~` or `logical_not()` operator instead.");
}

// An out= argument is resized as needed but must exist, as in PyTorch.
void check_out(const at::Tensor& out, const char* op) {
  TORCH_CHECK(out.defined(), op, ": the out tensor is undefined; pass a "
              "defined tensor (of any shape: it is resized), or call the "
              "functional ", op, ".");
}

// ---- shared bodies ----------------------------------------------------------------------

TensorIteratorConfig binary_config(const char* op, const at::Tensor& out,
                                   const at::Tensor& self, const at::Tensor& other) {
  TensorIteratorConfig config(op);
  config.add_output(out).add_input(self).add_input(other);
  return config;
}

void run_add(TensorIterator& iter, const c10::Scalar& alpha, const char* op) {
  alpha_check(iter.common_dtype(), alpha, op);
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), op, [&] {
    const auto a = alpha.to<opmath_t<scalar_t>>();
    binary_loop<scalar_t, scalar_t>(
        iter, [a](scalar_t x, scalar_t y) { return add_values(x, y, a); });
  });
}

// sub is add with -alpha (for unsigned types -1 wraps to the maximum, see
// Note [Scalar conversion rules]).
void run_sub(TensorIterator& iter, const c10::Scalar& alpha, const char* op) {
  alpha_check(iter.common_dtype(), alpha, op);
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

at::Tensor div_into(const char* op, const at::Tensor& out, const at::Tensor& self,
                    const at::Tensor& other) {
  TensorIterator iter(
      binary_config(op, out, self, other).promote_integer_inputs_to_float(true));
  run_div(iter, op);
  return iter.output();
}

// A unary op over every numeric dtype, keeping the dtype.
template <typename Op>
at::Tensor unary_same_dtype(const char* op, const at::Tensor& self, Op element_op) {
  at::Tensor out;
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self));
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), op, [&] {
    unary_loop<scalar_t, scalar_t>(iter, [&element_op](scalar_t x) {
      return element_op(x);
    });
  });
  return iter.output();
}

// A floating-point function: integral and bool inputs give Float; Half and
// BFloat16 compute in float.
template <typename Op>
at::Tensor unary_float(const char* op, const at::Tensor& self, Op element_op) {
  at::Tensor out;
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self)
                          .promote_integer_inputs_to_float(true));
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    unary_loop<scalar_t, scalar_t>(iter, [&element_op](scalar_t x) {
      return static_cast<scalar_t>(element_op(static_cast<acc_t>(x)));
    });
  });
  return iter.output();
}

// A comparison: inputs promoted to their common dtype, Bool result.
template <typename Op>
at::Tensor compare(const char* op, const at::Tensor& self, const at::Tensor& other,
                   Op element_op) {
  at::Tensor out;
  TensorIterator iter(
      binary_config(op, out, self, other).declare_static_dtype(c10::kBool));
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    binary_loop<bool, scalar_t>(iter, [&element_op](scalar_t x, scalar_t y) {
      return element_op(static_cast<acc_t>(x), static_cast<acc_t>(y));
    });
  });
  return iter.output();
}

}  // namespace

// ---- add / sub / mul / div ----------------------------------------------------------------

at::Tensor add(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  at::Tensor out;
  TensorIterator iter(binary_config("add", out, self, other));
  run_add(iter, alpha, "add");
  return iter.output();
}

at::Tensor& add_out(const at::Tensor& self, const at::Tensor& other,
                    const c10::Scalar& alpha, at::Tensor& out) {
  check_out(out, "add");
  TensorIterator iter(binary_config("add", out, self, other));
  run_add(iter, alpha, "add");
  return out;
}

at::Tensor& add_(at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  TensorIterator iter(binary_config("add_", self, self, other));
  run_add(iter, alpha, "add_");
  return self;
}

at::Tensor sub(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  sub_check(self, other, "sub");
  at::Tensor out;
  TensorIterator iter(binary_config("sub", out, self, other));
  run_sub(iter, alpha, "sub");
  return iter.output();
}

at::Tensor& sub_out(const at::Tensor& self, const at::Tensor& other,
                    const c10::Scalar& alpha, at::Tensor& out) {
  check_out(out, "sub");
  sub_check(self, other, "sub");
  TensorIterator iter(binary_config("sub", out, self, other));
  run_sub(iter, alpha, "sub");
  return out;
}

at::Tensor& sub_(at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  sub_check(self, other, "sub_");
  TensorIterator iter(binary_config("sub_", self, self, other));
  run_sub(iter, alpha, "sub_");
  return self;
}

at::Tensor mul(const at::Tensor& self, const at::Tensor& other) {
  at::Tensor out;
  TensorIterator iter(binary_config("mul", out, self, other));
  run_mul(iter, "mul");
  return iter.output();
}

at::Tensor& mul_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  check_out(out, "mul");
  TensorIterator iter(binary_config("mul", out, self, other));
  run_mul(iter, "mul");
  return out;
}

at::Tensor& mul_(at::Tensor& self, const at::Tensor& other) {
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

// ---- unary --------------------------------------------------------------------------------

at::Tensor neg(const at::Tensor& self) {
  TORCH_CHECK(!self.defined() || self.scalar_type() != c10::kBool,
              "neg: Negation, the `-` operator, on a bool tensor is not "
              "supported. If you are trying to invert a mask, use the `~` or "
              "`logical_not()` operator instead.");
  return unary_same_dtype("neg", self, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) {
      return x;  // refused above
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(wrap_t<T>(0) - static_cast<wrap_t<T>>(x));
    } else {
      return static_cast<T>(-static_cast<opmath_t<T>>(x));
    }
  });
}

at::Tensor abs(const at::Tensor& self) {
  return unary_same_dtype("abs", self, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
      return x;
    } else if constexpr (std::is_integral_v<T>) {
      return x < 0 ? static_cast<T>(wrap_t<T>(0) - static_cast<wrap_t<T>>(x)) : x;
    } else {
      return static_cast<T>(std::abs(static_cast<opmath_t<T>>(x)));
    }
  });
}

at::Tensor relu(const at::Tensor& self) {
  TORCH_CHECK(!self.defined() || self.scalar_type() != c10::kBool,
              "relu: bool tensors are not supported (relu is max(x, 0), which "
              "is not defined for bool). Convert the tensor to an integer or "
              "floating dtype first.");
  return unary_same_dtype("relu", self, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
      return x;
    } else {
      // `x < 0` is false for NaN, which therefore passes through.
      return static_cast<opmath_t<T>>(x) < 0 ? T(0) : x;
    }
  });
}

at::Tensor exp(const at::Tensor& self) {
  return unary_float("exp", self, [](auto x) { return std::exp(x); });
}

at::Tensor log(const at::Tensor& self) {
  return unary_float("log", self, [](auto x) { return std::log(x); });
}

at::Tensor sqrt(const at::Tensor& self) {
  return unary_float("sqrt", self, [](auto x) { return std::sqrt(x); });
}

// ---- comparisons ----------------------------------------------------------------------------

at::Tensor eq(const at::Tensor& self, const at::Tensor& other) {
  return compare("eq", self, other, [](auto x, auto y) { return x == y; });
}

at::Tensor lt(const at::Tensor& self, const at::Tensor& other) {
  return compare("lt", self, other, [](auto x, auto y) { return x < y; });
}

at::Tensor gt(const at::Tensor& self, const at::Tensor& other) {
  return compare("gt", self, other, [](auto x, auto y) { return x > y; });
}

}  // namespace ember::cpu

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("add.Tensor", TORCH_FN(ember::cpu::add));
  m.impl("add.out", TORCH_FN(ember::cpu::add_out));
  m.impl("add_.Tensor", TORCH_FN(ember::cpu::add_));
  m.impl("sub.Tensor", TORCH_FN(ember::cpu::sub));
  m.impl("sub.out", TORCH_FN(ember::cpu::sub_out));
  m.impl("sub_.Tensor", TORCH_FN(ember::cpu::sub_));
  m.impl("mul.Tensor", TORCH_FN(ember::cpu::mul));
  m.impl("mul.out", TORCH_FN(ember::cpu::mul_out));
  m.impl("mul_.Tensor", TORCH_FN(ember::cpu::mul_));
  m.impl("div.Tensor", TORCH_FN(ember::cpu::div));
  m.impl("div.out", TORCH_FN(ember::cpu::div_out));
  m.impl("div_.Tensor", TORCH_FN(ember::cpu::div_));
  m.impl("neg", TORCH_FN(ember::cpu::neg));
  m.impl("abs", TORCH_FN(ember::cpu::abs));
  m.impl("relu", TORCH_FN(ember::cpu::relu));
  m.impl("exp", TORCH_FN(ember::cpu::exp));
  m.impl("log", TORCH_FN(ember::cpu::log));
  m.impl("sqrt", TORCH_FN(ember::cpu::sqrt));
  m.impl("eq.Tensor", TORCH_FN(ember::cpu::eq));
  m.impl("lt.Tensor", TORCH_FN(ember::cpu::lt));
  m.impl("gt.Tensor", TORCH_FN(ember::cpu::gt));
}

// The CPU plugin's activation kernels (leaky_relu, gelu, silu, elu,
// softplus, hardtanh, with their in-place and out= forms) and the backward
// ops autograd formulas call (threshold_backward, sigmoid_backward,
// tanh_backward, gelu_backward, silu_backward, elu_backward,
// softplus_backward, leaky_relu_backward, hardtanh_backward).
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "aten/PointwiseChecks.h"
#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/eltwise_onednn.h"
#include "backends/cpu/pointwise.h"
#include "backends/cpu/pointwise_loops.h"
#include "backends/cpu/pointwise_math.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

constexpr double kSqrt1_2 = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kGeluCubic = 0.044715;

// ---- drivers ---------------------------------------------------------------------------

// A floating unary op: `f` gets and returns opmath_t. `make` builds f for
// the opmath type (so that Scalar parameters are converted once).
template <typename Make>
at::Tensor activation(const char* op, const at::Tensor& out, const at::Tensor& self,
                      const Make& make) {
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self));
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const auto f = make(TypeTag<acc_t>{});
    unary_loop<scalar_t, scalar_t>(iter, [&f](scalar_t x) {
      return static_cast<scalar_t>(f(static_cast<acc_t>(x)));
    });
  });
  return iter.output();
}

// A backward op: f(grad, input) over the promoted dtype of both, which must
// be floating unless Set allows more.
template <TypeSet Set = TypeSet::kFloating, typename Make>
at::Tensor backward_op(const char* op, const at::Tensor& grad, const at::Tensor& self,
                       const Make& make) {
  at::Tensor out;
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(grad)
                          .add_input(self));
  dispatch_type_set<Set>(iter.common_dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using acc_t = opmath_t<T>;
    const auto f = make(TypeTag<acc_t>{});
    binary_loop<T, T>(iter, [&f](T g, T x) {
      return static_cast<T>(f(static_cast<acc_t>(g), static_cast<acc_t>(x)));
    });
  });
  return iter.output();
}


// ---- forward --------------------------------------------------------------------------

at::Tensor run_leaky_relu(const char* op, const at::Tensor& out, const at::Tensor& self,
                          const c10::Scalar& negative_slope) {
  return activation(op, out, self, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto slope = static_cast<T>(negative_slope.toDouble());
    return [slope](T x) { return x > T(0) ? x : x * slope; };
  });
}

// The two forms are separate loops: a branch on the form inside the
// element function would keep GCC from vectorizing.
at::Tensor run_gelu(const char* op, const at::Tensor& out, const at::Tensor& self,
                    c10::string_view approximate) {
  const bool tanh_form = at::native::gelu_is_tanh(approximate, op);
  // See Note [oneDNN eltwise].
  at::Tensor r = onednn_unary(tanh_form ? dnnl::algorithm::eltwise_gelu_tanh
                                        : dnnl::algorithm::eltwise_gelu_erf,
                              0.f, 0.f, out, self);
  if (r.defined()) return r;
  if (tanh_form) {
    return activation(op, out, self, [](auto tag) {
      using T = typename decltype(tag)::type;
      return [](T x) {
        const T inner = T(kSqrt2OverPi) * (x + T(kGeluCubic) * x * x * x);
        return T(0.5) * x * (T(1) + math::tanh(inner));
      };
    });
  }
  return activation(op, out, self, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x) { return T(0.5) * x * math::erfc(-x * T(kSqrt1_2)); };
  });
}

at::Tensor run_silu(const char* op, const at::Tensor& out, const at::Tensor& self) {
  // swish with alpha 1 is x * sigmoid(x); See Note [oneDNN eltwise].
  at::Tensor r = onednn_unary(dnnl::algorithm::eltwise_swish, 1.f, 0.f, out, self);
  if (r.defined()) return r;
  return activation(op, out, self, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x) { return x * math::sigmoid(x); };
  });
}

// elu: scale * x for x > 0, scale * alpha * (exp(input_scale * x) - 1) else.
at::Tensor run_elu(const char* op, const at::Tensor& out, const at::Tensor& self,
                   const c10::Scalar& alpha, const c10::Scalar& scale,
                   const c10::Scalar& input_scale) {
  return activation(op, out, self, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto pos = static_cast<T>(scale.toDouble());
    const auto neg = static_cast<T>(alpha.toDouble() * scale.toDouble());
    const auto in = static_cast<T>(input_scale.toDouble());
    return [pos, neg, in](T x) {
      return x > T(0) ? x * pos : neg * std::expm1(x * in);
    };
  });
}

// softplus: log(1 + exp(beta x)) / beta, or x where beta x > threshold.
at::Tensor run_softplus(const char* op, const at::Tensor& out, const at::Tensor& self,
                        const c10::Scalar& beta, const c10::Scalar& threshold) {
  return activation(op, out, self, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto b = static_cast<T>(beta.toDouble());
    const auto t = static_cast<T>(threshold.toDouble());
    return [b, t](T x) {
      return x * b > t ? x : std::log1p(std::exp(x * b)) / b;
    };
  });
}

// hardtanh: clamp(x, min_val, max_val); every numeric dtype.
at::Tensor run_hardtanh(const char* op, const at::Tensor& out, const at::Tensor& self,
                        const c10::Scalar& min_val, const c10::Scalar& max_val) {
  TORCH_CHECK(!self.defined() || self.scalar_type() != c10::kBool, op,
              ": bool tensors are not supported. Convert the tensor to a "
              "floating dtype first.");
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self));
  // Integral bounds: values the dtype holds, converted as PyTorch converts
  // them (Note [Scalar conversion rules]; a cast of a double out of range
  // would be undefined).
  at::native::check_hardtanh_bounds(iter.common_dtype(), min_val, max_val, op);
  EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    acc_t lo, hi;
    if constexpr (std::is_integral_v<scalar_t>) {
      lo = static_cast<acc_t>(min_val.to<scalar_t>());
      hi = static_cast<acc_t>(max_val.to<scalar_t>());
    } else {
      lo = static_cast<acc_t>(min_val.toDouble());
      hi = static_cast<acc_t>(max_val.toDouble());
    }
    unary_loop<scalar_t, scalar_t>(iter, [lo, hi](scalar_t x) {
      const auto v = static_cast<acc_t>(x);
      if constexpr (std::is_floating_point_v<acc_t>) {
        if (v != v) return x;  // NaN
      }
      return static_cast<scalar_t>(v < lo ? lo : (v > hi ? hi : v));
    });
  });
  return iter.output();
}

}  // namespace

// ---- the registered kernels ------------------------------------------------------------

at::Tensor leaky_relu(const at::Tensor& self, const c10::Scalar& negative_slope) {
  return run_leaky_relu("leaky_relu", at::Tensor(), self, negative_slope);
}
at::Tensor& leaky_relu_(at::Tensor& self, const c10::Scalar& negative_slope) {
  run_leaky_relu("leaky_relu_", self, self, negative_slope);
  return self;
}
at::Tensor& leaky_relu_out(const at::Tensor& self, const c10::Scalar& negative_slope,
                           at::Tensor& out) {
  check_out(out, "leaky_relu");
  run_leaky_relu("leaky_relu", out, self, negative_slope);
  return out;
}

at::Tensor gelu(const at::Tensor& self, c10::string_view approximate) {
  return run_gelu("gelu", at::Tensor(), self, approximate);
}
at::Tensor& gelu_(at::Tensor& self, c10::string_view approximate) {
  run_gelu("gelu_", self, self, approximate);
  return self;
}
at::Tensor& gelu_out(const at::Tensor& self, c10::string_view approximate, at::Tensor& out) {
  check_out(out, "gelu");
  run_gelu("gelu", out, self, approximate);
  return out;
}

at::Tensor silu(const at::Tensor& self) { return run_silu("silu", at::Tensor(), self); }
at::Tensor& silu_(at::Tensor& self) {
  run_silu("silu_", self, self);
  return self;
}
at::Tensor& silu_out(const at::Tensor& self, at::Tensor& out) {
  check_out(out, "silu");
  run_silu("silu", out, self);
  return out;
}

at::Tensor elu(const at::Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale,
               const c10::Scalar& input_scale) {
  return run_elu("elu", at::Tensor(), self, alpha, scale, input_scale);
}
at::Tensor& elu_(at::Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale,
                 const c10::Scalar& input_scale) {
  run_elu("elu_", self, self, alpha, scale, input_scale);
  return self;
}
at::Tensor& elu_out(const at::Tensor& self, const c10::Scalar& alpha,
                    const c10::Scalar& scale, const c10::Scalar& input_scale,
                    at::Tensor& out) {
  check_out(out, "elu");
  run_elu("elu", out, self, alpha, scale, input_scale);
  return out;
}

at::Tensor softplus(const at::Tensor& self, const c10::Scalar& beta,
                    const c10::Scalar& threshold) {
  return run_softplus("softplus", at::Tensor(), self, beta, threshold);
}
at::Tensor& softplus_out(const at::Tensor& self, const c10::Scalar& beta,
                         const c10::Scalar& threshold, at::Tensor& out) {
  check_out(out, "softplus");
  run_softplus("softplus", out, self, beta, threshold);
  return out;
}

at::Tensor hardtanh(const at::Tensor& self, const c10::Scalar& min_val,
                    const c10::Scalar& max_val) {
  return run_hardtanh("hardtanh", at::Tensor(), self, min_val, max_val);
}
at::Tensor& hardtanh_(at::Tensor& self, const c10::Scalar& min_val,
                      const c10::Scalar& max_val) {
  run_hardtanh("hardtanh_", self, self, min_val, max_val);
  return self;
}
at::Tensor& hardtanh_out(const at::Tensor& self, const c10::Scalar& min_val,
                         const c10::Scalar& max_val, at::Tensor& out) {
  check_out(out, "hardtanh");
  run_hardtanh("hardtanh", out, self, min_val, max_val);
  return out;
}

// ---- backward ----------------------------------------------------------------------------

at::Tensor threshold_backward(const at::Tensor& grad_output, const at::Tensor& self,
                              const c10::Scalar& threshold) {
  const double t = threshold.toDouble();
  return backward_op<TypeSet::kAllButBool>(
      "threshold_backward", grad_output, self, [t](auto tag) {
        using T = typename decltype(tag)::type;
        return [t](T g, T x) { return static_cast<double>(x) <= t ? T(0) : g; };
      });
}

at::Tensor sigmoid_backward(const at::Tensor& grad_output, const at::Tensor& output) {
  return backward_op("sigmoid_backward", grad_output, output, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T g, T y) { return g * (T(1) - y) * y; };
  });
}

at::Tensor tanh_backward(const at::Tensor& grad_output, const at::Tensor& output) {
  return backward_op("tanh_backward", grad_output, output, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T g, T y) { return g * (T(1) - y * y); };
  });
}

at::Tensor gelu_backward(const at::Tensor& grad_output, const at::Tensor& self,
                         c10::string_view approximate) {
  if (at::native::gelu_is_tanh(approximate, "gelu_backward")) {
    return backward_op("gelu_backward", grad_output, self, [](auto tag) {
      using T = typename decltype(tag)::type;
      return [](T g, T x) {
        const T inner = T(kSqrt2OverPi) * (x + T(kGeluCubic) * x * x * x);
        const T t = math::tanh(inner);
        const T d_inner = T(kSqrt2OverPi) * (T(1) + T(3 * kGeluCubic) * x * x);
        return g * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * d_inner);
      };
    });
  }
  return backward_op("gelu_backward", grad_output, self, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T g, T x) {
      const T cdf = T(0.5) * math::erfc(-x * T(kSqrt1_2));
      const T pdf = T(kInvSqrt2Pi) * math::exp(T(-0.5) * x * x);
      return g * (cdf + x * pdf);
    };
  });
}

at::Tensor silu_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  return backward_op("silu_backward", grad_output, self, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T g, T x) {
      const T s = math::sigmoid(x);
      return g * s * (T(1) + x * (T(1) - s));
    };
  });
}

// With is_result, self_or_result is elu's output y (the in-place forward
// kept no input): for y <= 0 the derivative is input_scale * (y + scale *
// alpha), which needs alpha >= 0 to tell the two branches apart.
at::Tensor elu_backward(const at::Tensor& grad_output, const c10::Scalar& alpha,
                        const c10::Scalar& scale, const c10::Scalar& input_scale,
                        bool is_result, const at::Tensor& self_or_result) {
  at::native::check_elu_backward(is_result, alpha);
  const double pos = scale.toDouble();
  const double neg = alpha.toDouble() * scale.toDouble();
  const double in = input_scale.toDouble();
  return backward_op("elu_backward", grad_output, self_or_result, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return [is_result, p = T(pos), n = T(neg), s = T(in)](T g, T v) {
      if (is_result) return v <= T(0) ? g * s * (v + n) : g * p;
      return v <= T(0) ? g * s * n * std::exp(v * s) : g * p;
    };
  });
}

at::Tensor softplus_backward(const at::Tensor& grad_output, const at::Tensor& self,
                             const c10::Scalar& beta, const c10::Scalar& threshold) {
  const double b = beta.toDouble();
  const double t = threshold.toDouble();
  return backward_op("softplus_backward", grad_output, self, [b, t](auto tag) {
    using T = typename decltype(tag)::type;
    return [b = T(b), t = T(t)](T g, T x) {
      const T z = std::exp(x * b);
      return x * b > t ? g : g * z / (z + T(1));
    };
  });
}

at::Tensor leaky_relu_backward(const at::Tensor& grad_output, const at::Tensor& self,
                               const c10::Scalar& negative_slope, bool self_is_result) {
  const double slope = negative_slope.toDouble();
  at::native::check_leaky_relu_backward(self_is_result, slope);
  return backward_op("leaky_relu_backward", grad_output, self, [slope](auto tag) {
    using T = typename decltype(tag)::type;
    return [s = T(slope)](T g, T x) { return x > T(0) ? g : g * s; };
  });
}

at::Tensor hardtanh_backward(const at::Tensor& grad_output, const at::Tensor& self,
                             const c10::Scalar& min_val, const c10::Scalar& max_val) {
  const double lo = min_val.toDouble();
  const double hi = max_val.toDouble();
  return backward_op<TypeSet::kAllButBool>(
      "hardtanh_backward", grad_output, self, [lo, hi](auto tag) {
        using T = typename decltype(tag)::type;
        return [lo, hi](T g, T x) {
          const auto v = static_cast<double>(x);
          return v <= lo || v >= hi ? T(0) : g;
        };
      });
}

}  // namespace ember::cpu

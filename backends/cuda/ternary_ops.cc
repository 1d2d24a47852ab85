// backends/cuda/ternary_ops.cc — the CUDA pointwise ops with up to three
// inputs: where, clamp (Scalar and Tensor bounds), clamp_min, clamp_max,
// addcmul, addcdiv and lerp, with their in-place and out= forms. As
// pointwise_ops.cc: the GPU TensorIterator, the core's argument checks.
#include <functional>
#include <optional>

#include "aten/PointwiseChecks.h"
#include "backends/cuda/PointwiseSupport.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace {

using namespace pointwise;  // NOLINT: the shared pointwise helpers
using kernels::TernaryOp;

// ---- three inputs ----------------------------------------------------------------------

at::Tensor ternary(const char* op, TernaryOp kind, const at::TensorIteratorConfig& config,
                   const std::function<OpParams(c10::ScalarType)>& check, bool bool_ok) {
  CUDAIterator iter(config);
  const OpParams p = check(iter.common_dtype());
  const kernels::Dtype dtype = compute_dtype(iter, op, bool_ok);
  iter.run(op, [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_ternary(it, kind, dtype, p, stream);
  });
  return iter.output();
}
OpParams no_params(c10::ScalarType) { return OpParams{}; }

at::Tensor run_where(const char* op, const at::Tensor& out, const at::Tensor& condition,
                     const at::Tensor& self, const at::Tensor& other) {
  at::native::check_where_condition(condition, op);
  return ternary(op, TernaryOp::kWhere,
                 at::TensorIteratorConfig(op).add_output(out).add_input(condition)
                     .add_input(self).add_input(other).keep_input_dtype(0),
                 no_params, true);
}
at::Tensor where_self(const at::Tensor& condition, const at::Tensor& self,
                      const at::Tensor& other) {
  return run_where("where", at::Tensor(), condition, self, other);
}
at::Tensor& where_self_out(const at::Tensor& condition, const at::Tensor& self,
                           const at::Tensor& other, at::Tensor& out) {
  run_where("where", out, condition, self, other);
  return out;
}

// clamp with tensor bounds (either may be missing; scalars are wrapped).
at::Tensor run_clamp(const char* op, const at::Tensor& out, const at::Tensor& self,
                     const at::Tensor* min, const at::Tensor* max) {
  at::native::check_clamp_args(min != nullptr, max != nullptr, self, op);
  if (min != nullptr && max != nullptr) {
    return ternary(op, TernaryOp::kClamp,
                   at::TensorIteratorConfig(op).add_output(out).add_input(self)
                       .add_input(*min).add_input(*max),
                   no_params, false);
  }
  return binary(op, min != nullptr ? BinaryOp::kClampMin : BinaryOp::kClampMax, out, self,
                min != nullptr ? *min : *max);
}

struct Bounds {
  Bounds(const std::optional<c10::Scalar>& min, const std::optional<c10::Scalar>& max) {
    if (min.has_value()) lo = wrap(*min);
    if (max.has_value()) hi = wrap(*max);
  }
  Bounds(const std::optional<at::Tensor>& min, const std::optional<at::Tensor>& max) {
    if (min.has_value() && min->defined()) lo = *min;
    if (max.has_value() && max->defined()) hi = *max;
  }
  const at::Tensor* min() const { return lo.defined() ? &lo : nullptr; }
  const at::Tensor* max() const { return hi.defined() ? &hi : nullptr; }
  at::Tensor lo, hi;
};

at::Tensor clamp(const at::Tensor& self, const std::optional<c10::Scalar>& min,
                 const std::optional<c10::Scalar>& max) {
  const Bounds b(min, max);
  return run_clamp("clamp", at::Tensor(), self, b.min(), b.max());
}
at::Tensor clamp_tensor(const at::Tensor& self, const std::optional<at::Tensor>& min,
                        const std::optional<at::Tensor>& max) {
  const Bounds b(min, max);
  return run_clamp("clamp", at::Tensor(), self, b.min(), b.max());
}
at::Tensor& clamp_(at::Tensor& self, const std::optional<c10::Scalar>& min,
                   const std::optional<c10::Scalar>& max) {
  const Bounds b(min, max);
  run_clamp("clamp_", self, self, b.min(), b.max());
  return self;
}
at::Tensor& clamp_tensor_(at::Tensor& self, const std::optional<at::Tensor>& min,
                          const std::optional<at::Tensor>& max) {
  const Bounds b(min, max);
  run_clamp("clamp_", self, self, b.min(), b.max());
  return self;
}
at::Tensor& clamp_out(const at::Tensor& self, const std::optional<c10::Scalar>& min,
                      const std::optional<c10::Scalar>& max, at::Tensor& out) {
  const Bounds b(min, max);
  run_clamp("clamp", out, self, b.min(), b.max());
  return out;
}
at::Tensor& clamp_tensor_out(const at::Tensor& self, const std::optional<at::Tensor>& min,
                             const std::optional<at::Tensor>& max, at::Tensor& out) {
  const Bounds b(min, max);
  run_clamp("clamp", out, self, b.min(), b.max());
  return out;
}

// clamp_min / clamp_max: the Scalar and Tensor forms, in place and out=.
#define EMBER_CUDA_CLAMP_SIDE(name, lo_or_hi)                                           \
  const at::Tensor* name##_bound(const at::Tensor& t, bool lo) {                        \
    return lo == lo_or_hi ? &t : nullptr;                                               \
  }                                                                                     \
  at::Tensor name(const at::Tensor& self, const c10::Scalar& bound) {                   \
    const at::Tensor b = wrap(bound);                                                   \
    return run_clamp(#name, at::Tensor(), self, name##_bound(b, true),                  \
                     name##_bound(b, false));                                           \
  }                                                                                     \
  at::Tensor name##_tensor(const at::Tensor& self, const at::Tensor& b) {               \
    return run_clamp(#name, at::Tensor(), self, name##_bound(b, true),                  \
                     name##_bound(b, false));                                           \
  }                                                                                     \
  at::Tensor& name##_(at::Tensor& self, const c10::Scalar& bound) {                     \
    const at::Tensor b = wrap(bound);                                                   \
    run_clamp(#name "_", self, self, name##_bound(b, true), name##_bound(b, false));    \
    return self;                                                                        \
  }                                                                                     \
  at::Tensor& name##_tensor_(at::Tensor& self, const at::Tensor& b) {                   \
    run_clamp(#name "_", self, self, name##_bound(b, true), name##_bound(b, false));    \
    return self;                                                                        \
  }                                                                                     \
  at::Tensor& name##_out(const at::Tensor& self, const c10::Scalar& bound,              \
                         at::Tensor& out) {                                             \
    const at::Tensor b = wrap(bound);                                                   \
    run_clamp(#name, out, self, name##_bound(b, true), name##_bound(b, false));         \
    return out;                                                                         \
  }                                                                                     \
  at::Tensor& name##_tensor_out(const at::Tensor& self, const at::Tensor& b,            \
                                at::Tensor& out) {                                      \
    run_clamp(#name, out, self, name##_bound(b, true), name##_bound(b, false));         \
    return out;                                                                         \
  }
EMBER_CUDA_CLAMP_SIDE(clamp_min, true)
EMBER_CUDA_CLAMP_SIDE(clamp_max, false)
#undef EMBER_CUDA_CLAMP_SIDE

at::Tensor run_addc(const char* op, TernaryOp kind, const at::Tensor& out,
                    const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,
                    const c10::Scalar& value) {
  if (kind == TernaryOp::kAddcdiv) at::native::check_addcdiv_operands(t1, t2, op);
  const bool floating_only = kind == TernaryOp::kAddcdiv;
  return ternary(op, kind,
                 at::TensorIteratorConfig(op).add_output(out).add_input(self).add_input(t1)
                     .add_input(t2),
                 [&](c10::ScalarType t) {
                   at::native::check_addc_value(t, value, op);
                   TORCH_CHECK_NOT_IMPLEMENTED(!floating_only || c10::isFloatingType(t), op,
                                               ": not implemented for '", t, "'.");
                   return number_param(value, t);
                 },
                 false);
}
#define EMBER_CUDA_ADDC_OP(name, kind)                                                  \
  at::Tensor name(const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,   \
                  const c10::Scalar& value) {                                           \
    return run_addc(#name, kind, at::Tensor(), self, t1, t2, value);                    \
  }                                                                                     \
  at::Tensor& name##_(at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,     \
                      const c10::Scalar& value) {                                       \
    run_addc(#name "_", kind, self, self, t1, t2, value);                               \
    return self;                                                                        \
  }                                                                                     \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& t1,                  \
                         const at::Tensor& t2, const c10::Scalar& value,                \
                         at::Tensor& out) {                                             \
    run_addc(#name, kind, out, self, t1, t2, value);                                    \
    return out;                                                                         \
  }
EMBER_CUDA_ADDC_OP(addcmul, TernaryOp::kAddcmul)
EMBER_CUDA_ADDC_OP(addcdiv, TernaryOp::kAddcdiv)
#undef EMBER_CUDA_ADDC_OP

at::Tensor run_lerp(const char* op, const at::Tensor& out, const at::Tensor& self,
                    const at::Tensor& end, const at::Tensor& weight, bool weight_is_tensor) {
  at::native::check_lerp_dtype(self, end, "end", op);
  if (weight_is_tensor) at::native::check_lerp_dtype(self, weight, "weight", op);
  return ternary(op, TernaryOp::kLerp,
                 at::TensorIteratorConfig(op).add_output(out).add_input(self).add_input(end)
                     .add_input(weight),
                 [&](c10::ScalarType t) {
                   TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(t), op,
                                               ": not implemented for '", t,
                                               "'; lerp takes floating tensors.");
                   return OpParams{};
                 },
                 false);
}
// A Scalar weight is taken in self's dtype, so it does not promote.
at::Tensor weight_tensor(const at::Tensor& self, const c10::Scalar& weight) {
  return at::scalar_tensor(weight, at::TensorOptions().dtype(self.scalar_type()));
}
at::Tensor lerp_scalar(const at::Tensor& self, const at::Tensor& end, const c10::Scalar& w) {
  return run_lerp("lerp", at::Tensor(), self, end, weight_tensor(self, w), false);
}
at::Tensor lerp_tensor(const at::Tensor& self, const at::Tensor& end, const at::Tensor& w) {
  return run_lerp("lerp", at::Tensor(), self, end, w, true);
}
at::Tensor& lerp_scalar_(at::Tensor& self, const at::Tensor& end, const c10::Scalar& w) {
  run_lerp("lerp_", self, self, end, weight_tensor(self, w), false);
  return self;
}
at::Tensor& lerp_tensor_(at::Tensor& self, const at::Tensor& end, const at::Tensor& w) {
  run_lerp("lerp_", self, self, end, w, true);
  return self;
}
at::Tensor& lerp_scalar_out(const at::Tensor& self, const at::Tensor& end,
                            const c10::Scalar& w, at::Tensor& out) {
  run_lerp("lerp", out, self, end, weight_tensor(self, w), false);
  return out;
}
at::Tensor& lerp_tensor_out(const at::Tensor& self, const at::Tensor& end,
                            const at::Tensor& w, at::Tensor& out) {
  run_lerp("lerp", out, self, end, w, true);
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("where.self", TORCH_FN(where_self));
  m.impl("where.self_out", TORCH_FN(where_self_out));
  m.impl("clamp", TORCH_FN(clamp));
  m.impl("clamp.Tensor", TORCH_FN(clamp_tensor));
  m.impl("clamp_", TORCH_FN(clamp_));
  m.impl("clamp_.Tensor", TORCH_FN(clamp_tensor_));
  m.impl("clamp.out", TORCH_FN(clamp_out));
  m.impl("clamp.Tensor_out", TORCH_FN(clamp_tensor_out));
#define EMBER_CUDA_REGISTER_CLAMP_SIDE(name)                   \
  m.impl(#name, TORCH_FN(name));                               \
  m.impl(#name ".Tensor", TORCH_FN(name##_tensor));            \
  m.impl(#name "_", TORCH_FN(name##_));                        \
  m.impl(#name "_.Tensor", TORCH_FN(name##_tensor_));          \
  m.impl(#name ".out", TORCH_FN(name##_out));                  \
  m.impl(#name ".Tensor_out", TORCH_FN(name##_tensor_out));
  EMBER_CUDA_REGISTER_CLAMP_SIDE(clamp_min)
  EMBER_CUDA_REGISTER_CLAMP_SIDE(clamp_max)
#undef EMBER_CUDA_REGISTER_CLAMP_SIDE
  m.impl("addcmul", TORCH_FN(addcmul));
  m.impl("addcmul_", TORCH_FN(addcmul_));
  m.impl("addcmul.out", TORCH_FN(addcmul_out));
  m.impl("addcdiv", TORCH_FN(addcdiv));
  m.impl("addcdiv_", TORCH_FN(addcdiv_));
  m.impl("addcdiv.out", TORCH_FN(addcdiv_out));
  m.impl("lerp.Scalar", TORCH_FN(lerp_scalar));
  m.impl("lerp.Tensor", TORCH_FN(lerp_tensor));
  m.impl("lerp_.Scalar", TORCH_FN(lerp_scalar_));
  m.impl("lerp_.Tensor", TORCH_FN(lerp_tensor_));
  m.impl("lerp.Scalar_out", TORCH_FN(lerp_scalar_out));
  m.impl("lerp.Tensor_out", TORCH_FN(lerp_tensor_out));
}

}  // namespace cuda
}  // namespace ember

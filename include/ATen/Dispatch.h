// <ATen/Dispatch.h> — the AT_DISPATCH_* macros of libtorch: run a lambda
// with `scalar_t` bound to the C++ type of a dtype, for the dtypes a kernel
// supports.
//
//   AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "my_relu", [&] {
//     const scalar_t* in = x.data_ptr<scalar_t>();
//     scalar_t* out = y.data_ptr<scalar_t>();
//     for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] > 0 ? in[i] : scalar_t(0);
//   });
//
// The lambda runs once, for the dtype given; the macro returns what it
// returns. A dtype outside the set throws c10::Error
// `"my_relu" not implemented for 'Int'`, as libtorch. The sets:
//   FLOATING_TYPES   Double, Float
//   INTEGRAL_TYPES   Byte, Char, Short, Int, Long
//   ALL_TYPES        the two above (no Bool, Half, BFloat16)
// and the _AND(T, …), _AND2(T1, T2, …), _AND3(T1, T2, T3, …) forms that add
// dtypes (e.g. at::kHalf, at::kBFloat16, at::kBool). Ember has no complex
// dtypes, so the COMPLEX forms are missing. Custom sets:
// AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE(at::kFloat, __VA_ARGS__) …).
#pragma once

#include "c10/core/ScalarType.h"
#include "c10/util/Exception.h"

namespace at {
namespace detail {
[[noreturn]] inline void dispatch_not_implemented(const char* name, c10::ScalarType t) {
  C10_THROW_ERROR(Error, '"', name, "\" not implemented for '", c10::toString(t),
                  "'; this kernel supports other dtypes only. Convert the tensor with "
                  ".to(dtype) to one it supports.");
}
}  // namespace detail
}  // namespace at

// One case of a switch on a dtype: binds scalar_t and runs the lambda.
#define AT_DISPATCH_CASE(enum_type, ...)                                  \
  case enum_type: {                                                       \
    using scalar_t = ::c10::impl::ScalarTypeToCPPTypeT<enum_type>;        \
    (void)sizeof(scalar_t); /* a lambda need not use it */                \
    return __VA_ARGS__();                                                 \
  }

#define AT_DISPATCH_SWITCH(TYPE, NAME, ...)                                 \
  [&] {                                                                     \
    const ::c10::ScalarType at_dispatch_type_ = (TYPE);                     \
    const char* at_dispatch_name_ = (NAME);                                 \
    switch (at_dispatch_type_) {                                            \
      __VA_ARGS__                                                           \
      default:                                                              \
        ::at::detail::dispatch_not_implemented(at_dispatch_name_, at_dispatch_type_); \
    }                                                                       \
  }()

#define AT_DISPATCH_CASE_FLOATING_TYPES(...)              \
  AT_DISPATCH_CASE(::c10::ScalarType::Double, __VA_ARGS__) \
  AT_DISPATCH_CASE(::c10::ScalarType::Float, __VA_ARGS__)
#define AT_DISPATCH_CASE_INTEGRAL_TYPES(...)             \
  AT_DISPATCH_CASE(::c10::ScalarType::Byte, __VA_ARGS__)  \
  AT_DISPATCH_CASE(::c10::ScalarType::Char, __VA_ARGS__)  \
  AT_DISPATCH_CASE(::c10::ScalarType::Short, __VA_ARGS__) \
  AT_DISPATCH_CASE(::c10::ScalarType::Int, __VA_ARGS__)   \
  AT_DISPATCH_CASE(::c10::ScalarType::Long, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES(...)        \
  AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)

#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND(T1, TYPE, NAME, ...)                   \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) \
                                     AT_DISPATCH_CASE(T1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...)              \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) \
                                     AT_DISPATCH_CASE(T1, __VA_ARGS__)        \
                                         AT_DISPATCH_CASE(T2, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  AT_DISPATCH_FLOATING_TYPES_AND(::c10::ScalarType::Half, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES_AND(T1, TYPE, NAME, ...)                   \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) \
                                     AT_DISPATCH_CASE(T1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND(T1, TYPE, NAME, ...)                   \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) \
                                     AT_DISPATCH_CASE(T1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND2(T1, T2, TYPE, NAME, ...)              \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) \
                                     AT_DISPATCH_CASE(T1, __VA_ARGS__)   \
                                         AT_DISPATCH_CASE(T2, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND3(T1, T2, T3, TYPE, NAME, ...)          \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) \
                                     AT_DISPATCH_CASE(T1, __VA_ARGS__)   \
                                         AT_DISPATCH_CASE(T2, __VA_ARGS__) \
                                             AT_DISPATCH_CASE(T3, __VA_ARGS__))

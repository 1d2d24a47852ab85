// registration/boxing.h — converting between C++ arguments and IValue stacks.
//
// Internal to the registry: KernelFunction uses these templates to give every
// unboxed kernel a boxed wrapper (Stack in, Stack out) and to call a boxed
// kernel from an unboxed call site. The supported C++ types and their schema
// types are:
//
//   at::TensorBase and subclasses (at::Tensor)  Tensor
//   std::optional<Tensor>                      Tensor?
//   c10::ArrayRef<Tensor>, std::vector<Tensor> Tensor[]
//   int64_t / double / bool                    int / float / bool
//   std::string, std::string_view              str
//   c10::Scalar / c10::ScalarType / c10::Device / at::Generator
//   c10::IntArrayRef, std::vector<int64_t>     int[]
//   c10::OptionalIntArrayRef,                  int[]?  (view the IValue's list)
//   std::optional<c10::IntArrayRef>
//   std::vector<double>, std::vector<bool>     float[], bool[]
//   std::optional<any of the above>            T?
//   returns: void, any of the above by value or reference, std::tuple<…>
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "c10/core/Layout.h"
#include "c10/core/MemoryFormat.h"
#include "c10/util/OptionalArrayRef.h"
#include "registration/IValue.h"
#include "registration/Stack.h"

namespace c10 {
namespace impl {

// is_tensor_like_v and is_optional: ivalue_holders.h (Note [Tensor-like
// types]).

template <class T>
struct is_tuple : std::false_type {};
template <class... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};

// ---------------------------------------------------------------------------
// IValue -> argument. Each argument is first converted to a holder (which
// owns anything a view needs), then the parameter is taken from the holder.

template <class T, class Enable = void>
struct ArgFromIValue {
  using holder = T;
  static holder make(IValue& v) { return std::move(v).template to<T>(); }
  static T get(holder& h) { return std::move(h); }
};

template <class T>
struct ArgFromIValue<T, std::enable_if_t<is_tensor_like_v<T>>> {
  using holder = T;
  static holder make(IValue& v) { return T(std::move(v).toTensorBase()); }
  // Non-const: in-place and out= kernels take `Tensor&`.
  static T& get(holder& h) { return h; }
};

template <>
struct ArgFromIValue<c10::IntArrayRef> {
  using holder = c10::IntArrayRef;  // views the IValue, which outlives the call
  static holder make(IValue& v) { return v.toIntList(); }
  static c10::IntArrayRef get(holder& h) { return h; }
};

template <>
struct ArgFromIValue<std::optional<c10::IntArrayRef>> {
  // Views the IValue's list, as for IntArrayRef; None gives nullopt.
  using holder = std::optional<c10::IntArrayRef>;
  static holder make(IValue& v) {
    if (v.isNone()) return std::nullopt;
    return v.toIntList();
  }
  static holder get(holder& h) { return h; }
};

template <>
struct ArgFromIValue<c10::OptionalIntArrayRef> {
  using holder = c10::OptionalIntArrayRef;  // views the IValue, as above
  static holder make(IValue& v) {
    if (v.isNone()) return std::nullopt;
    return v.toIntList();
  }
  static holder get(holder& h) { return h; }
};

template <>
struct ArgFromIValue<std::string_view> {
  using holder = std::string_view;  // views the IValue, which outlives the call
  static holder make(IValue& v) { return v.toStringView(); }
  static std::string_view get(holder& h) { return h; }
};

template <>
struct ArgFromIValue<std::optional<std::string_view>> {
  // Views the IValue's string, as above; None gives nullopt (div's
  // rounding_mode).
  using holder = std::optional<std::string_view>;
  static holder make(IValue& v) {
    if (v.isNone()) return std::nullopt;
    return v.toStringView();
  }
  static holder get(holder& h) { return h; }
};

template <class T>
struct ArgFromIValue<c10::ArrayRef<T>, std::enable_if_t<is_tensor_like_v<T>>> {
  using holder = std::vector<T>;
  static holder make(IValue& v) {
    std::vector<at::TensorBase> bases = std::move(v).toTensorBaseVector();
    holder out;
    out.reserve(bases.size());
    for (auto& b : bases) out.emplace_back(std::move(b));
    return out;
  }
  static c10::ArrayRef<T> get(holder& h) { return c10::ArrayRef<T>(h); }
};

template <class T>
struct ArgFromIValue<std::vector<T>, std::enable_if_t<is_tensor_like_v<T>>> {
  using holder = std::vector<T>;
  static holder make(IValue& v) {
    return ArgFromIValue<c10::ArrayRef<T>>::make(v);
  }
  static holder get(holder& h) { return std::move(h); }
};

template <class T>
struct ArgFromIValue<std::optional<T>, std::enable_if_t<is_tensor_like_v<T>>> {
  using holder = std::optional<T>;
  static holder make(IValue& v) {
    if (v.isNone()) return std::nullopt;
    return T(std::move(v).toTensorBase());
  }
  static const holder& get(holder& h) { return h; }
};

template <class T>
struct ArgFromIValue<std::vector<std::optional<T>>,
                     std::enable_if_t<is_tensor_like_v<T>>> {
  using holder = std::vector<std::optional<T>>;
  static holder make(IValue& v) {
    holder out;
    for (auto& b : std::move(v).toOptionalTensorVector()) {
      if (b.has_value()) {
        out.emplace_back(T(std::move(*b)));
      } else {
        out.emplace_back(std::nullopt);
      }
    }
    return out;
  }
  static holder get(holder& h) { return std::move(h); }
};

// Layout and MemoryFormat travel as ints, as in PyTorch.
template <class T>
constexpr bool is_int_enum_v =
    std::is_same_v<T, c10::Layout> || std::is_same_v<T, c10::MemoryFormat>;

template <class T>
struct ArgFromIValue<T, std::enable_if_t<is_int_enum_v<T>>> {
  using holder = T;
  static holder make(IValue& v) { return static_cast<T>(v.toInt()); }
  static T get(holder& h) { return h; }
};

template <class T>
struct ArgFromIValue<std::optional<T>, std::enable_if_t<is_int_enum_v<T>>> {
  using holder = std::optional<T>;
  static holder make(IValue& v) {
    if (v.isNone()) return std::nullopt;
    return static_cast<T>(v.toInt());
  }
  static holder get(holder& h) { return h; }
};

template <class T>
using arg_traits = ArgFromIValue<std::decay_t<T>>;

// ---------------------------------------------------------------------------
// argument -> IValue (for calling a boxed kernel from an unboxed call).

template <class T>
IValue toIValue(const T& value) {
  if constexpr (is_int_enum_v<T>) {
    return IValue(static_cast<int64_t>(value));
  } else if constexpr (is_tensor_like_v<T>) {
    return IValue(static_cast<const at::TensorBase&>(value));
  } else {
    return IValue(value);
  }
}

template <class T>
IValue toIValue(const std::optional<T>& value) {
  if (!value.has_value()) return IValue();
  return toIValue(*value);
}

template <class T>
IValue toIValue(const c10::OptionalArrayRef<T>& value) {
  if (!value.has_value()) return IValue();
  return toIValue(*value);
}

template <class T>
IValue toIValue(const c10::ArrayRef<T>& values) {
  if constexpr (is_tensor_like_v<T>) {
    return IValue(std::vector<at::TensorBase>(values.begin(), values.end()));
  } else {
    return IValue(values.vec());
  }
}

template <class T>
IValue toIValue(const std::vector<T>& values) {
  if constexpr (is_tensor_like_v<T>) {
    return IValue(std::vector<at::TensorBase>(values.begin(), values.end()));
  } else {
    return IValue(values);
  }
}

template <class T>
IValue toIValue(const std::vector<std::optional<T>>& values) {
  std::vector<std::optional<at::TensorBase>> bases;
  bases.reserve(values.size());
  for (const auto& v : values) {
    if (v.has_value()) {
      bases.emplace_back(static_cast<const at::TensorBase&>(*v));
    } else {
      bases.emplace_back(std::nullopt);
    }
  }
  return IValue(std::move(bases));
}

// ---------------------------------------------------------------------------
// Returns: push onto / pop from a stack.

template <class R>
void pushReturn(Stack* stack, R&& value) {
  using D = std::decay_t<R>;
  if constexpr (is_tuple<D>::value) {
    std::apply(
        [stack](auto&&... elems) {
          (pushReturn(stack, std::forward<decltype(elems)>(elems)), ...);
        },
        std::forward<R>(value));
  } else {
    stack->push_back(toIValue(value));
  }
}

template <class R, class Enable = void>
struct ReturnFromIValue {
  static R pop(IValue&& v) { return std::move(v).template to<R>(); }
};

template <class R>
struct ReturnFromIValue<R, std::enable_if_t<is_tensor_like_v<R>>> {
  static R pop(IValue&& v) { return R(std::move(v).toTensorBase()); }
};

template <class R>
struct ReturnFromIValue<std::vector<R>, std::enable_if_t<is_tensor_like_v<R>>> {
  static std::vector<R> pop(IValue&& v) {
    std::vector<R> out;
    for (auto& b : std::move(v).toTensorBaseVector()) out.emplace_back(std::move(b));
    return out;
  }
};

template <class R>
struct ReturnFromStack {
  static constexpr size_t size = 1;
  static R pop(Stack& stack) {
    return ReturnFromIValue<std::decay_t<R>>::pop(std::move(stack[0]));
  }
};

template <class... R>
struct ReturnFromStack<std::tuple<R...>> {
  static constexpr size_t size = sizeof...(R);
  static std::tuple<R...> pop(Stack& stack) {
    return popAll(stack, std::index_sequence_for<R...>());
  }
  template <size_t... I>
  static std::tuple<R...> popAll(Stack& stack, std::index_sequence<I...>) {
    return std::tuple<R...>(
        ReturnFromIValue<std::decay_t<R>>::pop(std::move(stack[I]))...);
  }
};

template <>
struct ReturnFromStack<void> {
  static constexpr size_t size = 0;
  static void pop(Stack&) {}
};

}  // namespace impl
}  // namespace c10

// registration/KernelFunction.h — one kernel, callable boxed and unboxed.
//
// A KernelFunction holds a boxed entry point (IValues on a Stack) and, when
// the kernel was written as a C++ function or lambda, an unboxed entry point
// (a direct function pointer). Unboxed kernels get their boxed entry point
// generated (registration/boxing.h); boxed-only kernels are still callable
// from unboxed call sites, through a Stack. Users build them through
// torch::CppFunction (registration/library.h), rarely directly.
//
// Thread safety: immutable after construction; calling is thread-safe if the
// kernel is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>

#include "c10/core/DispatchKeySet.h"
#include "c10/util/intrusive_ptr.h"
#include "registration/boxing.h"

namespace c10 {

class OperatorHandle;

// c10::OperatorKernel
//
// Base of every kernel functor. Stateful kernels (lambdas with captures)
// live in one, owned by the KernelFunction.
struct OperatorKernel : intrusive_ptr_target {
  ~OperatorKernel() override = default;
};

// c10::CompileTimeFunctionPointer / TORCH_FN
//
// `TORCH_FN(my_kernel)` passes a function whose address is known at compile
// time, so the unboxed call inlines it into the trampoline.
template <class FuncType, FuncType* kFunc>
struct CompileTimeFunctionPointer {
  using FuncT = FuncType;
  static constexpr FuncType* func_ptr() { return kFunc; }
};
#define TORCH_FN(func) \
  (::c10::CompileTimeFunctionPointer<std::remove_pointer_t<std::remove_reference_t<decltype(func)>>, func>())

// c10::CppSignature
//
// The exact C++ function type of an unboxed kernel (leading DispatchKeySet
// removed), used to check that typed<Sig>() and all unboxed kernels of an
// op agree; calling through a mismatched type would be undefined behaviour.
class CppSignature {
 public:
  template <class Sig>
  static CppSignature make() {
    return CppSignature(std::type_index(typeid(Sig)));
  }
  bool operator==(const CppSignature& o) const { return index_ == o.index_; }
  bool operator!=(const CppSignature& o) const { return index_ != o.index_; }
  // Demangled, e.g. "at::Tensor (at::Tensor const&, at::Tensor const&)".
  std::string name() const;

 private:
  explicit CppSignature(std::type_index index) : index_(index) {}
  std::type_index index_;
};

namespace impl {

template <class T>
struct function_traits;
template <class R, class... Args>
struct function_traits<R(Args...)> {
  using return_type = R;
  using args = std::tuple<Args...>;
  using signature = R(Args...);
};
template <class R, class... Args>
struct function_traits<R (*)(Args...)> : function_traits<R(Args...)> {};
template <class C, class R, class... Args>
struct function_traits<R (C::*)(Args...)> : function_traits<R(Args...)> {};
template <class C, class R, class... Args>
struct function_traits<R (C::*)(Args...) const> : function_traits<R(Args...)> {};
template <class F>
struct functor_traits : function_traits<decltype(&F::operator())> {};

// A signature with its leading DispatchKeySet parameter, if any, removed.
template <class Sig>
struct strip_keyset {
  using type = Sig;
  static constexpr bool has_keyset = false;
};
template <class R, class... Args>
struct strip_keyset<R(DispatchKeySet, Args...)> {
  using type = R(Args...);
  static constexpr bool has_keyset = true;
};

// Wraps a runtime function pointer or a lambda.
template <class Func, class Sig>
struct WrapRuntimeFunctor;
template <class Func, class R, class... Args>
struct WrapRuntimeFunctor<Func, R(Args...)> final : OperatorKernel {
  explicit WrapRuntimeFunctor(Func f) : f_(std::move(f)) {}
  R operator()(Args... args) { return f_(std::forward<Args>(args)...); }
  Func f_;
};

// Wraps a compile-time function pointer: no state.
template <class FuncPtr, class Sig>
struct WrapFunctionIntoFunctor;
template <class FuncPtr, class R, class... Args>
struct WrapFunctionIntoFunctor<FuncPtr, R(Args...)> final : OperatorKernel {
  R operator()(Args... args) {
    return (*FuncPtr::func_ptr())(std::forward<Args>(args)...);
  }
};

}  // namespace impl

// c10::KernelFunction
class KernelFunction final {
 public:
  // (functor, op, key set, stack): consumes the op's arguments from the end
  // of the stack and pushes its returns.
  using BoxedKernelFunction = void(OperatorKernel* functor,
                                   const OperatorHandle& op,
                                   DispatchKeySet ks, Stack* stack);

  KernelFunction() = default;

  bool isValid() const { return boxed_ != nullptr; }
  bool isFallthrough() const { return boxed_ == &fallthroughKernel; }
  bool hasUnboxed() const { return unboxed_ != nullptr; }
  bool hasCppSignature() const { return signature_.has_value(); }
  // Precondition: hasCppSignature().
  const CppSignature& cppSignature() const { return *signature_; }

  // Calls the kernel through its boxed entry point.
  void callBoxed(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) const {
    (*boxed_)(functor_.get(), op, ks, stack);
  }

  // Calls the kernel with C++ arguments: directly when it has an unboxed
  // entry point, otherwise through a Stack. `Sig` must be the kernel's
  // signature (the dispatcher checks it; See CppSignature).
  template <class R, class... Args>
  R call(const OperatorHandle& op, DispatchKeySet ks, Args... args) const {
    if (C10_LIKELY(unboxed_ != nullptr)) {
      using Fn = R(OperatorKernel*, DispatchKeySet, Args...);
      return (*reinterpret_cast<Fn*>(unboxed_))(functor_.get(), ks,
                                                std::forward<Args>(args)...);
    }
    return callBoxedFromUnboxed<R, Args...>(op, ks, std::forward<Args>(args)...);
  }

  // ---- factories ----

  // c10::KernelFunction::makeFromBoxedFunction<&fn>
  // `fn(const OperatorHandle&, Stack*)` or
  // `fn(const OperatorHandle&, DispatchKeySet, Stack*)`.
  template <auto* fn>
  static KernelFunction makeFromBoxedFunction() {
    KernelFunction k;
    k.boxed_ = &boxedFunctionTrampoline<fn>;
    return k;
  }

  // A boxed kernel with state.
  static KernelFunction makeFromBoxedFunctor(
      intrusive_ptr<OperatorKernel> functor, BoxedKernelFunction* boxed) {
    KernelFunction k;
    k.functor_ = std::move(functor);
    k.boxed_ = boxed;
    return k;
  }

  // Makes dispatch skip the key this kernel is registered for.
  static KernelFunction makeFallthrough() {
    KernelFunction k;
    k.boxed_ = &fallthroughKernel;
    return k;
  }

  // An unboxed functor (derived from OperatorKernel), owned by the kernel.
  template <class Functor>
  static KernelFunction makeFromUnboxedFunctor(intrusive_ptr<Functor> functor) {
    using Traits = impl::functor_traits<Functor>;
    using Full = typename Traits::signature;
    using Strip = impl::strip_keyset<Full>;
    KernelFunction k;
    k.functor_ = std::move(functor);
    k.setUnboxed<Functor>(static_cast<typename Strip::type*>(nullptr));
    return k;
  }

  // A lambda or any callable object, stateless or not.
  template <class Lambda>
  static KernelFunction makeFromUnboxedLambda(Lambda&& lambda) {
    using F = std::decay_t<Lambda>;
    using Sig = typename impl::functor_traits<F>::signature;
    return makeFromUnboxedFunctor(make_intrusive<impl::WrapRuntimeFunctor<F, Sig>>(
        std::forward<Lambda>(lambda)));
  }

  // A function pointer known only at run time.
  template <class FuncType>
  static KernelFunction makeFromUnboxedRuntimeFunction(FuncType* func) {
    TORCH_CHECK(func != nullptr, "makeFromUnboxedRuntimeFunction: the kernel "
                "function pointer is null; pass a function.");
    return makeFromUnboxedFunctor(
        make_intrusive<impl::WrapRuntimeFunctor<FuncType*, FuncType>>(func));
  }

  // A function pointer known at compile time (TORCH_FN).
  template <class FuncPtr>
  static KernelFunction makeFromUnboxedFunction(FuncPtr) {
    using Sig = typename FuncPtr::FuncT;
    return makeFromUnboxedFunctor(
        make_intrusive<impl::WrapFunctionIntoFunctor<FuncPtr, Sig>>());
  }

  // The boxed entry point of fallthrough kernels; it must never run.
  static void fallthroughKernel(OperatorKernel*, const OperatorHandle& op,
                                DispatchKeySet ks, Stack*);

 private:
  template <auto* fn>
  static void boxedFunctionTrampoline(OperatorKernel*, const OperatorHandle& op,
                                      DispatchKeySet ks, Stack* stack) {
    using F = std::remove_pointer_t<decltype(fn)>;
    if constexpr (std::is_invocable_v<F, const OperatorHandle&, DispatchKeySet, Stack*>) {
      (*fn)(op, ks, stack);
    } else {
      (*fn)(op, stack);
    }
  }

  template <class Functor, bool takes_keyset, class R, class... Args>
  static R unboxedTrampoline(OperatorKernel* kernel, DispatchKeySet ks, Args... args) {
    auto* f = static_cast<Functor*>(kernel);
    if constexpr (takes_keyset) {
      return (*f)(ks, std::forward<Args>(args)...);
    } else {
      (void)ks;
      return (*f)(std::forward<Args>(args)...);
    }
  }

  template <class Functor, bool takes_keyset, class R, class... Args, size_t... I>
  static void boxedFromUnboxedImpl(Functor* f, DispatchKeySet ks, Stack* stack,
                                   std::index_sequence<I...>) {
    constexpr size_t n = sizeof...(Args);
    TORCH_INTERNAL_ASSERT(stack->size() >= n, "boxed kernel: the stack holds ",
                          stack->size(), " values but the kernel takes ", n,
                          " arguments");
    const size_t base = stack->size() - n;
    // Braces: with parentheses clang reads this as a function declaration.
    std::tuple<typename impl::arg_traits<Args>::holder...> holders{
        impl::arg_traits<Args>::make((*stack)[base + I])...};
    (void)holders;
    auto invoke = [&]() -> decltype(auto) {
      if constexpr (takes_keyset) {
        return (*f)(ks, impl::arg_traits<Args>::get(std::get<I>(holders))...);
      } else {
        (void)ks;
        return (*f)(impl::arg_traits<Args>::get(std::get<I>(holders))...);
      }
    };
    if constexpr (std::is_void_v<R>) {
      invoke();
      stack->resize(base);
    } else {
      decltype(auto) result = invoke();
      stack->resize(base);
      impl::pushReturn(stack, result);
    }
  }

  template <class Functor, bool takes_keyset, class R, class... Args>
  static void boxedFromUnboxed(OperatorKernel* kernel, const OperatorHandle&,
                               DispatchKeySet ks, Stack* stack) {
    boxedFromUnboxedImpl<Functor, takes_keyset, R, Args...>(
        static_cast<Functor*>(kernel), ks, stack, std::index_sequence_for<Args...>());
  }

  template <class Functor, class R, class... Args>
  void setUnboxed(R (*)(Args...)) {
    using Full = typename impl::functor_traits<Functor>::signature;
    constexpr bool takes_keyset = impl::strip_keyset<Full>::has_keyset;
    unboxed_ = reinterpret_cast<void*>(
        &unboxedTrampoline<Functor, takes_keyset, R, Args...>);
    boxed_ = &boxedFromUnboxed<Functor, takes_keyset, R, Args...>;
    signature_ = CppSignature::make<R(Args...)>();
  }

  template <class R, class... Args>
  R callBoxedFromUnboxed(const OperatorHandle& op, DispatchKeySet ks,
                         Args... args) const;

  intrusive_ptr<OperatorKernel> functor_;
  BoxedKernelFunction* boxed_ = nullptr;
  void* unboxed_ = nullptr;
  std::optional<CppSignature> signature_;
};

namespace impl {
// The tensor a `Tensor&` return refers to when the kernel is boxed: the
// first argument if it is a mutable tensor (in-place ops), else the last
// (out= ops), as in PyTorch.
template <class R, class... Args>
R& referenceReturn(Args&... args) {
  auto refs = std::forward_as_tuple(args...);
  using First = std::tuple_element_t<0, std::tuple<Args...>>;
  if constexpr (std::is_same_v<First, R&>) {
    return std::get<0>(refs);
  } else {
    return std::get<sizeof...(Args) - 1>(refs);
  }
}

// Whether R is a std::tuple of lvalue references (the returns of an out=
// op with several outputs, e.g. sort.values).
template <class R>
struct is_reference_tuple : std::false_type {};
template <class... T>
struct is_reference_tuple<std::tuple<T...>>
    : std::bool_constant<(sizeof...(T) > 0) && (std::is_lvalue_reference_v<T> && ...)> {};

// The tensors a tuple of references refers to when the kernel is boxed:
// the last arguments (the out= tensors, in order), as in PyTorch.
template <class Tup, class... Args, size_t... I>
Tup referenceTupleReturn(std::index_sequence<I...>, Args&... args) {
  auto refs = std::forward_as_tuple(args...);
  constexpr size_t base = sizeof...(Args) - std::tuple_size_v<Tup>;
  return Tup(std::get<base + I>(refs)...);
}
}  // namespace impl

template <class R, class... Args>
R KernelFunction::callBoxedFromUnboxed(const OperatorHandle& op,
                                       DispatchKeySet ks, Args... args) const {
  Stack stack;
  stack.reserve(sizeof...(Args));
  (stack.push_back(impl::toIValue(args)), ...);
  callBoxed(op, ks, &stack);
  if constexpr (std::is_lvalue_reference_v<R>) {
    static_assert(sizeof...(Args) > 0, "a reference return needs an argument");
    return impl::referenceReturn<std::remove_reference_t<R>, Args...>(args...);
  } else if constexpr (impl::is_reference_tuple<R>::value) {
    return impl::referenceTupleReturn<R, Args...>(
        std::make_index_sequence<std::tuple_size_v<R>>(), args...);
  } else {
    TORCH_CHECK(stack.size() == impl::ReturnFromStack<R>::size,
                "boxed kernel: expected ", impl::ReturnFromStack<R>::size,
                " return values on the stack but found ", stack.size(),
                "; a boxed kernel must pop its arguments and push exactly the "
                "schema's returns.");
    return impl::ReturnFromStack<R>::pop(stack);
  }
}

}  // namespace c10

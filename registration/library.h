// registration/library.h — TORCH_LIBRARY and friends: how operators and
// kernels are registered. Users include <torch/library.h>.
//
//   TORCH_LIBRARY(myops, m) {
//     m.def("myadd(Tensor self, Tensor other) -> Tensor");
//   }
//   TORCH_LIBRARY_IMPL(myops, CPU, m) {
//     m.impl("myadd", myadd_cpu);
//   }
//   TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
//     m.fallback(torch::CppFunction::makeFromBoxedFunction<&my_fallback>());
//   }
//
// Every registration is undone when its Library is destroyed (for the
// macros: at exit, or when the plugin holding them is unloaded). Errors name
// the file:line of each registration involved.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "registration/Dispatcher.h"
#include "registration/infer_schema.h"
#include "registration/schema_parser.h"

namespace torch {

using c10::DispatchKey;

// torch::CppFunction
//
// A kernel being registered: a function pointer, TORCH_FN(fn), a lambda, a
// boxed function (makeFromBoxedFunction) or a fallthrough. Unboxed kernels
// carry the schema inferred from their C++ signature.
class CppFunction final {
 public:
  // A function pointer.
  template <class Func, std::enable_if_t<std::is_function_v<Func>, int> = 0>
  explicit CppFunction(Func* f)
      : func_(c10::KernelFunction::makeFromUnboxedRuntimeFunction(f)),
        schema_(inferSchema<Func>()) {}

  // A function known at compile time: TORCH_FN(fn).
  template <class FuncType, FuncType* fn>
  explicit CppFunction(c10::CompileTimeFunctionPointer<FuncType, fn> f)
      : func_(c10::KernelFunction::makeFromUnboxedFunction(f)),
        schema_(inferSchema<FuncType>()) {}

  // A lambda or other callable object.
  template <class Lambda,
            std::enable_if_t<std::is_class_v<std::decay_t<Lambda>> &&
                                 !std::is_same_v<std::decay_t<Lambda>, CppFunction>,
                             int> = 0>
  explicit CppFunction(Lambda&& f)
      : func_(c10::KernelFunction::makeFromUnboxedLambda(std::forward<Lambda>(f))),
        schema_(inferSchema<typename c10::impl::functor_traits<
                    std::decay_t<Lambda>>::signature>()) {}

  // torch::CppFunction::makeFallthrough: dispatch skips the key.
  static CppFunction makeFallthrough() {
    return CppFunction(c10::KernelFunction::makeFallthrough());
  }

  // torch::CppFunction::makeFromBoxedFunction<&fn>: `fn(const
  // c10::OperatorHandle&, torch::jit::Stack*)`, optionally with a
  // c10::DispatchKeySet second parameter. Works for every operator.
  template <auto* fn>
  static CppFunction makeFromBoxedFunction() {
    return CppFunction(c10::KernelFunction::makeFromBoxedFunction<fn>());
  }

  CppFunction(CppFunction&&) = default;
  CppFunction& operator=(CppFunction&&) = default;

 private:
  friend class Library;
  template <class Func>
  friend CppFunction dispatch(c10::DispatchKey k, Func&& raw_f);

  explicit CppFunction(c10::KernelFunction f) : func_(std::move(f)) {}

  template <class Sig>
  static c10::FunctionSchema inferSchema() {
    return c10::impl::inferFunctionSchema<
        typename c10::impl::strip_keyset<Sig>::type>();
  }

  std::optional<c10::DispatchKey> dispatch_key_;
  c10::KernelFunction func_;
  std::optional<c10::FunctionSchema> schema_;
};

// torch::dispatch
//
// Registers `raw_f` for one key, e.g. m.impl("op", torch::dispatch(
// c10::DispatchKey::CPU, fn)), or for a device type's backend key.
template <class Func>
CppFunction dispatch(c10::DispatchKey k, Func&& raw_f) {
  CppFunction f(std::forward<Func>(raw_f));
  f.dispatch_key_ = k;
  return f;
}
template <class Func>
CppFunction dispatch(c10::DeviceType type, Func&& raw_f) {
  return dispatch(c10::computeDispatchKey(type), std::forward<Func>(raw_f));
}

// torch::Library
class Library final {
 public:
  enum Kind {
    DEF,       // TORCH_LIBRARY: owns the namespace; one per namespace
    IMPL,      // TORCH_LIBRARY_IMPL: kernels (or fallbacks) for one key
    FRAGMENT,  // TORCH_LIBRARY_FRAGMENT: more defs for an existing namespace
  };

  // `ns` "_" with kind IMPL is a fallback-only library.
  Library(Kind kind, std::string ns, std::optional<c10::DispatchKey> k,
          const char* file, uint32_t line);
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  Library(Library&&) = default;
  Library& operator=(Library&&) = default;

  // Defines an operator from its schema.
  Library& def(const std::string& schema) & {
    return defSchema(c10::parseSchema(schema));
  }
  Library& def(const char* schema) & { return def(std::string(schema)); }
  Library& def(c10::FunctionSchema schema) & { return defSchema(std::move(schema)); }

  // Defines an operator and registers `f` as its catch-all
  // (CompositeImplicitAutograd) kernel, or for the key given with
  // torch::dispatch. A bare name ("myop") takes the schema inferred from f.
  template <class Func>
  Library& def(const std::string& name_or_schema, Func&& raw_f) & {
    return defWithKernel(c10::parseSchemaOrName(name_or_schema),
                         toCppFunction(std::forward<Func>(raw_f)));
  }

  // Registers a kernel for an operator ("add.Tensor" or "aten::add.Tensor")
  // under the library's key, the torch::dispatch key, or as catch-all.
  template <class Func>
  Library& impl(const std::string& name, Func&& raw_f) & {
    return implKernel(name, toCppFunction(std::forward<Func>(raw_f)));
  }

  // Registers a boxed kernel for every operator, for this IMPL library's
  // key. Only in TORCH_LIBRARY_IMPL(_, Key, m).
  Library& fallback(CppFunction&& f) &;

  // "registered at file:line"
  std::string debug() const;

 private:
  template <class Func>
  static CppFunction toCppFunction(Func&& f) {
    if constexpr (std::is_same_v<std::decay_t<Func>, CppFunction>) {
      return std::move(f);
    } else {
      return CppFunction(std::forward<Func>(f));
    }
  }
  Library& defSchema(c10::FunctionSchema&& schema);
  Library& defWithKernel(std::variant<c10::OperatorName, c10::FunctionSchema>&& name_or_schema,
                         CppFunction&& f);
  Library& implKernel(const std::string& name, CppFunction&& f);
  void checkNamespace(c10::OperatorName& name, const char* what) const;
  std::string where() const;

  Kind kind_;
  std::string ns_;
  std::optional<c10::DispatchKey> dispatch_key_;
  const char* file_;
  uint32_t line_;
  std::vector<c10::RegistrationHandleRAII> registrars_;
};

namespace detail {

// Runs a TORCH_LIBRARY* block at static-initialization time. A failure
// inside a plugin being loaded is reported to the loader (which throws it
// from torch::load_library); anywhere else it propagates (and, at static
// initialization, ends the program with its message).
class TorchLibraryInit final {
 public:
  using InitFn = void(Library&);
  TorchLibraryInit(Library::Kind kind, InitFn* fn, const char* ns,
                   const char* key_name, const char* file, uint32_t line);

 private:
  std::optional<Library> lib_;
};

}  // namespace detail
}  // namespace torch

#define C10_CONCATENATE_IMPL(a, b) a##b
#define C10_CONCATENATE(a, b) C10_CONCATENATE_IMPL(a, b)
#define C10_UID __COUNTER__

// TORCH_LIBRARY(ns, m) { m.def(…); }
#define TORCH_LIBRARY(ns, m)                                                \
  static void TORCH_LIBRARY_init_##ns(torch::Library&);                     \
  static const torch::detail::TorchLibraryInit TORCH_LIBRARY_static_init_##ns( \
      torch::Library::DEF, &TORCH_LIBRARY_init_##ns, #ns, nullptr, __FILE__, \
      __LINE__);                                                            \
  void TORCH_LIBRARY_init_##ns(torch::Library& m)

// TORCH_LIBRARY_FRAGMENT(ns, m) { m.def(…); }
#define TORCH_LIBRARY_FRAGMENT(ns, m) EMBER_LIBRARY_FRAGMENT_(ns, m, C10_UID)
#define EMBER_LIBRARY_FRAGMENT_(ns, m, uid)                                   \
  static void C10_CONCATENATE(TORCH_LIBRARY_FRAGMENT_init_##ns##_, uid)(      \
      torch::Library&);                                                       \
  static const torch::detail::TorchLibraryInit C10_CONCATENATE(              \
      TORCH_LIBRARY_FRAGMENT_static_init_##ns##_, uid)(                      \
      torch::Library::FRAGMENT,                                               \
      &C10_CONCATENATE(TORCH_LIBRARY_FRAGMENT_init_##ns##_, uid), #ns,        \
      nullptr, __FILE__, __LINE__);                                           \
  void C10_CONCATENATE(TORCH_LIBRARY_FRAGMENT_init_##ns##_, uid)(torch::Library & m)

// TORCH_LIBRARY_IMPL(ns, Key, m) { m.impl(…); } — Key is a DispatchKey name
// (CPU, CUDA, AutogradCPU, CompositeExplicitAutograd, …); `_` as ns for
// fallbacks. An unknown key name is reported with this block's file:line.
#define TORCH_LIBRARY_IMPL(ns, k, m) EMBER_LIBRARY_IMPL_(ns, k, m, C10_UID)
#define EMBER_LIBRARY_IMPL_(ns, k, m, uid)                                    \
  static void C10_CONCATENATE(TORCH_LIBRARY_IMPL_init_##ns##_##k##_, uid)(    \
      torch::Library&);                                                       \
  static const torch::detail::TorchLibraryInit C10_CONCATENATE(              \
      TORCH_LIBRARY_IMPL_static_init_##ns##_##k##_, uid)(                    \
      torch::Library::IMPL,                                                   \
      &C10_CONCATENATE(TORCH_LIBRARY_IMPL_init_##ns##_##k##_, uid), #ns, #k,  \
      __FILE__, __LINE__);                                                    \
  void C10_CONCATENATE(TORCH_LIBRARY_IMPL_init_##ns##_##k##_, uid)(torch::Library & m)

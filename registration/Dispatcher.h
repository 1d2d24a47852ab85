// registration/Dispatcher.h — finds operators and routes calls to kernels.
//
//   static auto op = c10::Dispatcher::singleton()
//       .findSchemaOrThrow("aten::add", "Tensor")
//       .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const c10::Scalar&)>();
//   at::Tensor out = op.call(a, b, 1);
//
// The key set of a call is the union of its tensor arguments' key sets, plus
// the thread-local included set and the default BackendSelect key, minus the
// thread-local excluded set; its highest-priority key picks the slot of the
// operator's dispatch table (See Note [Lock-free dispatch table]).
//
// Thread safety: registration is serialized by one mutex and may run while
// other threads call operators; calls take no lock. One Dispatcher per
// process, in the core shared object.
#pragma once

#include <cstdlib>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "c10/core/impl/LocalDispatchKeySet.h"
#include "registration/OperatorEntry.h"
#include "registration/RegistrationHandleRAII.h"
#include "registration/record_function.h"

namespace c10 {

template <class Signature>
class TypedOperatorHandle;

// c10::OperatorHandle
//
// A cheap, copyable reference to an operator; valid for the life of the
// process (operators are never destroyed).
class OperatorHandle {
 public:
  const OperatorName& operator_name() const { return entry_->operator_name(); }
  bool hasSchema() const { return entry_->hasSchema(); }
  const FunctionSchema& schema() const { return entry_->schema(); }
  // Where the schema was defined ("registered at file:line").
  const std::string& debug() const { return entry_->schemaDebug(); }

  // Calls the operator with its arguments on the stack; leaves the returns.
  void callBoxed(Stack* stack) const;
  void callBoxed(Stack& stack) const { callBoxed(&stack); }
  void redispatchBoxed(DispatchKeySet ks, Stack* stack) const;

  // A handle whose call() is unboxed; throws if `Signature` is not the
  // kernels' C++ signature.
  template <class Signature>
  TypedOperatorHandle<Signature> typed() const {
    entry_->assertSignatureIs(CppSignature::make<Signature>(),
                              CppSignature::make<Signature>().name());
    return TypedOperatorHandle<Signature>(entry_);
  }

  bool hasKernelForDispatchKey(DispatchKey k) const {
    return entry_->hasKernelForDispatchKey(k);
  }
  std::string dumpComputedTable() const;
  std::string dumpState() const { return entry_->dumpState(); }

  const impl::OperatorEntry& entry() const { return *entry_; }
  bool operator==(const OperatorHandle& o) const { return entry_ == o.entry_; }
  bool operator!=(const OperatorHandle& o) const { return entry_ != o.entry_; }

 protected:
  friend class Dispatcher;
  explicit OperatorHandle(impl::OperatorEntry* entry) : entry_(entry) {}
  impl::OperatorEntry* entry_;
};

namespace detail {

template <class T>
struct is_tensor_list : std::false_type {};
template <class T>
struct is_tensor_list<c10::ArrayRef<T>>
    : std::bool_constant<impl::is_tensor_like_v<T>> {};
template <class T>
struct is_tensor_list<std::vector<T>>
    : std::bool_constant<impl::is_tensor_like_v<T>> {};
template <class T>
struct is_tensor_list<std::vector<std::optional<T>>>
    : std::bool_constant<impl::is_tensor_like_v<T>> {};

// Collects the key sets of the tensor arguments of an unboxed call; other
// arguments (scalars, strings, devices…) have no keys.
struct KeySetCollector {
  uint64_t bits = 0;
  void add(const at::TensorBase& t) {
    if (c10::TensorImpl* i = t.unsafeGetTensorImpl()) bits |= i->key_set().raw_repr();
  }
  template <class T>
  void operator()(const T& arg) {
    if constexpr (impl::is_tensor_like_v<T>) {
      add(arg);
    } else if constexpr (impl::is_optional<T>::value) {
      if (arg.has_value()) (*this)(*arg);
    } else if constexpr (is_tensor_list<T>::value) {
      for (const auto& e : arg) (*this)(e);
    }
  }
};

// Keys every call includes: BackendSelect, whose fallback is a fallthrough,
// lets factory ops without tensor arguments reach a BackendSelect kernel.
constexpr DispatchKeySet kDefaultIncluded = DispatchKeySet(DispatchKey::BackendSelect);

// Whether EMBER_DISPATCH_TRACE is set; read once at load time. Calls test
// it through dispatch_hooks (See Note [Dispatch hooks]).
extern const bool dispatch_trace_enabled;
void traceDispatch(const OperatorHandle& op, DispatchKeySet ks, bool redispatch);

// Records one argument of a profiled call (record_shapes).
struct RecordInputs {
  at::RecordFunction& guard;
  template <class T>
  void operator()(const T& arg) {
    if constexpr (impl::is_tensor_like_v<T>) {
      guard.recordInput(arg);
    } else if constexpr (impl::is_optional<T>::value) {
      if (arg.has_value()) {
        (*this)(*arg);
      } else {
        guard.recordNonTensorInput();
      }
    } else {
      guard.recordNonTensorInput();
    }
  }
};

}  // namespace detail

// c10::Dispatcher
class Dispatcher final {
 public:
  static Dispatcher& singleton();

  // The operator with this name if it has a schema.
  std::optional<OperatorHandle> findSchema(const OperatorName& name);
  // Throws if absent; suggests def() when the op has kernels but no schema.
  OperatorHandle findSchemaOrThrow(const char* name, const char* overload_name);
  // The operator with this name, with or without a schema.
  std::optional<OperatorHandle> findOp(const OperatorName& name);
  // Every operator name known, with or without a schema, sorted.
  std::vector<OperatorName> getAllOpNames();

  // ---- registration (used by torch::Library) ----
  RegistrationHandleRAII registerLibrary(const std::string& ns, std::string debug);
  RegistrationHandleRAII registerDef(FunctionSchema schema, std::string debug);
  // `key` is a runtime or alias key; catch-all kernels use
  // CompositeImplicitAutograd.
  RegistrationHandleRAII registerImpl(OperatorName name, DispatchKey key,
                                      KernelFunction kernel,
                                      std::optional<FunctionSchema> inferred_schema,
                                      std::string debug);
  // `key` is a runtime key or the Autograd alias (one fallback per key).
  RegistrationHandleRAII registerFallback(DispatchKey key, KernelFunction kernel,
                                          std::string debug);

  // The backend fallback of a table slot, or null.
  const impl::AnnotatedKernel* backendFallback(int slot) const;
  // One line per key with a fallback.
  std::string dumpFallbacks() const;

  // ---- calling ----
  template <class R, class... Args>
  static R call(const TypedOperatorHandle<R(Args...)>& op, Args... args);
  template <class R, class... Args>
  static R redispatch(const TypedOperatorHandle<R(Args...)>& op,
                      DispatchKeySet ks, Args... args);
  void callBoxed(const OperatorHandle& op, Stack* stack) const;
  void redispatchBoxed(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) const;

  // call() with a dispatch hook on (the trace, the profiler).
  template <class R, class... Args>
  C10_NOINLINE static R callWithHooks(const TypedOperatorHandle<R(Args...)>& op,
                                      DispatchKeySet ks, const KernelFunction& kernel,
                                      Args... args);

  // The key set a call with these tensor keys dispatches on.
  static DispatchKeySet computeCallKeySet(DispatchKeySet tensor_keys,
                                          const impl::OperatorEntry& op) {
    const auto local = impl::tls_local_dispatch_key_set();
    return ((tensor_keys | local.included_ | detail::kDefaultIncluded) -
            local.excluded_) &
           op.nonFallthroughKeys();
  }

 private:
  Dispatcher() = default;
  impl::OperatorEntry& findOrCreateOp(const OperatorName& name);
  // Throws if `name`'s namespace has a TORCH_LIBRARY block but no such op
  // (See Note [Kernels for operators that do not exist]). Holds mutex_.
  void checkOperatorExists(const OperatorName& name, const std::string& debug) const;

  mutable std::mutex mutex_;
  std::list<impl::OperatorEntry> operators_;
  std::unordered_map<std::string, impl::OperatorEntry*> by_name_;
  std::map<std::string, std::string> libraries_;  // namespace -> debug
  // Per table slot, the active fallback first; removed ones are spliced to
  // the graveyard (See Note [Lock-free dispatch table]).
  std::list<impl::AnnotatedKernel> fallbacks_[DispatchKeySet::kDispatchTableSize];
  std::list<impl::AnnotatedKernel> fallback_graveyard_;
};

// c10::TypedOperatorHandle
template <class R, class... Args>
class TypedOperatorHandle<R(Args...)> final : public OperatorHandle {
 public:
  R call(Args... args) const {
    return Dispatcher::call<R, Args...>(*this, std::forward<Args>(args)...);
  }
  R redispatch(DispatchKeySet ks, Args... args) const {
    return Dispatcher::redispatch<R, Args...>(*this, ks, std::forward<Args>(args)...);
  }

 private:
  friend class OperatorHandle;
  explicit TypedOperatorHandle(impl::OperatorEntry* entry) : OperatorHandle(entry) {}
};

template <class R, class... Args>
R Dispatcher::call(const TypedOperatorHandle<R(Args...)>& op, Args... args) {
  detail::KeySetCollector keys;
  (keys(static_cast<const std::decay_t<Args>&>(args)), ...);
  DispatchKeySet ks = computeCallKeySet(
      DispatchKeySet(DispatchKeySet::RAW, keys.bits), op.entry());
  const KernelFunction& kernel = op.entry().lookup(ks);
  // The one load the hooks cost when off: See Note [Dispatch hooks].
  if (C10_UNLIKELY(detail::dispatch_hooks.load(std::memory_order_relaxed) != 0)) {
    return callWithHooks<R, Args...>(op, ks, kernel, std::forward<Args>(args)...);
  }
  return kernel.template call<R, Args...>(op, ks, std::forward<Args>(args)...);
}

template <class R, class... Args>
R Dispatcher::callWithHooks(const TypedOperatorHandle<R(Args...)>& op, DispatchKeySet ks,
                            const KernelFunction& kernel, Args... args) {
  if (detail::dispatch_trace_enabled) detail::traceDispatch(op, ks, /*redispatch=*/false);
  at::RecordFunction guard(at::RecordScope::FUNCTION);
  if (guard.isActive()) {
    if (guard.needsInputs()) {
      detail::RecordInputs record{guard};
      (void)record;  // no arguments
      (record(static_cast<const std::decay_t<Args>&>(args)), ...);
    }
    guard.beforeOp(op.operator_name().name);
  }
  return kernel.template call<R, Args...>(op, ks, std::forward<Args>(args)...);
}

template <class R, class... Args>
R Dispatcher::redispatch(const TypedOperatorHandle<R(Args...)>& op,
                         DispatchKeySet ks, Args... args) {
  ks = ks & op.entry().nonFallthroughKeys();
  const KernelFunction& kernel = op.entry().lookup(ks);
  if (C10_UNLIKELY(detail::dispatch_trace_enabled)) {
    detail::traceDispatch(op, ks, /*redispatch=*/true);
  }
  return kernel.template call<R, Args...>(op, ks, std::forward<Args>(args)...);
}

}  // namespace c10

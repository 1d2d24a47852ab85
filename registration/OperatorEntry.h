// registration/OperatorEntry.h — one operator: its schema, its kernels, and
// the dispatch table computed from them.
//
// Internal to the registry; users meet it through c10::OperatorHandle.
// Registration methods run under the Dispatcher's lock. lookup() runs on
// every call, on any thread, without a lock: See Note [Lock-free dispatch
// table].
#pragma once

#include <atomic>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "c10/core/DispatchKeySet.h"
#include "registration/FunctionSchema.h"
#include "registration/KernelFunction.h"

namespace c10 {

class Dispatcher;

namespace impl {

// A kernel with where it was registered ("registered at file:line").
struct AnnotatedKernel {
  KernelFunction kernel;
  std::optional<FunctionSchema> inferred_schema;
  std::string debug;
};

// How a table slot was resolved, for dumps and error messages.
struct ResolvedKernel {
  const AnnotatedKernel* kernel = nullptr;  // null: missing
  const char* source = "missing";
};

// Note [Lock-free dispatch table]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each slot is an atomic pointer to an immutable KernelFunction. A
// registration recomputes the affected slots under the dispatcher's lock and
// publishes each with a release store; a call reads its slot with an acquire
// load (a plain load on x86), so it sees a fully built kernel. Kernels that
// are deregistered are moved (std::list::splice keeps their address) to a
// graveyard that lives as long as the operator, so a call that loaded the
// old pointer just before the removal still runs a valid kernel. Operators
// themselves are never destroyed.
class OperatorEntry final {
 public:
  explicit OperatorEntry(OperatorName name);
  OperatorEntry(const OperatorEntry&) = delete;
  OperatorEntry& operator=(const OperatorEntry&) = delete;

  const OperatorName& operator_name() const { return name_; }
  bool hasSchema() const { return schema_.has_value(); }
  // Throws if the op has kernels but no def() yet.
  const FunctionSchema& schema() const;
  const std::string& schemaDebug() const;

  // The kernel for a call's key set, skipping fallthrough kernels; `ks` is
  // updated to the key set the kernel runs with.
  const KernelFunction& lookup(DispatchKeySet& ks) const {
    const KernelFunction* k =
        table_[ks.getDispatchTableIndexForDispatchKeySet()].load(std::memory_order_acquire);
    if (C10_UNLIKELY(k->isFallthrough())) return lookupSkippingFallthrough(ks);
    return *k;
  }
  // Functionality bits (plus all backend bits) whose slots are not all
  // fallthrough: calls mask their key set with it so that fallthrough keys
  // cost nothing. Relaxed: a stale mask only means one extra loop in lookup.
  DispatchKeySet nonFallthroughKeys() const {
    return DispatchKeySet(DispatchKeySet::RAW,
                          non_fallthrough_.load(std::memory_order_relaxed));
  }

  // ---- registration (dispatcher lock held) ----
  void registerSchema(FunctionSchema&& schema, std::string debug);
  void deregisterSchema();
  std::list<AnnotatedKernel>::iterator registerKernel(
      const Dispatcher& dispatcher, DispatchKey key, KernelFunction kernel,
      std::optional<FunctionSchema> inferred_schema, std::string debug);
  void deregisterKernel(const Dispatcher& dispatcher, DispatchKey key,
                        std::list<AnnotatedKernel>::iterator kernel);
  // Recomputes one slot (after a backend fallback changed) or all of them.
  void updateSlot(const Dispatcher& dispatcher, int slot);
  void updateAllSlots(const Dispatcher& dispatcher);

  bool isEmpty() const { return !schema_.has_value() && kernels_.empty(); }

  // Checks that an unboxed call with signature `sig` matches the kernels.
  void assertSignatureIs(const CppSignature& sig, const std::string& sig_name) const;

  // ---- introspection ----
  ResolvedKernel resolve(const Dispatcher& dispatcher, DispatchKey key) const;
  bool hasKernelForDispatchKey(DispatchKey key) const;
  // Keys (including alias keys) with at least one kernel, in key order.
  std::vector<DispatchKey> registeredKeys() const;
  // One line per runtime key: which kernel it resolves to and from where.
  std::string dumpComputedTable(const Dispatcher& dispatcher) const;
  // Every registration, newest first per key.
  std::string dumpState() const;

 private:
  const KernelFunction& lookupSkippingFallthrough(DispatchKeySet& ks) const;
  void checkSchemaMatches(const FunctionSchema& inferred,
                          const std::string& kernel_debug) const;
  void publish(int slot, const KernelFunction* kernel);
  void refreshFallthroughMask();
  void recomputeCppSignature();

  OperatorName name_;
  std::optional<FunctionSchema> schema_;
  std::string schema_debug_;
  // Per key (runtime or alias), the active kernel first.
  std::map<DispatchKey, std::list<AnnotatedKernel>> kernels_;
  std::list<AnnotatedKernel> graveyard_;
  std::optional<CppSignature> cpp_signature_;
  std::string cpp_signature_debug_;

  std::atomic<const KernelFunction*> table_[DispatchKeySet::kDispatchTableSize];
  std::atomic<uint64_t> non_fallthrough_;
};

// The kernel every unresolved slot points to: raises the "missing kernel"
// error (or loads the backend's plugin and retries once).
const KernelFunction& missingKernel();

}  // namespace impl
}  // namespace c10

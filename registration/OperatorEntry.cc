#include "registration/OperatorEntry.h"

#include <sstream>

#include "registration/Dispatcher.h"
#include "registration/infer_schema.h"
#include "registration/plugin_loader.h"

namespace c10 {
namespace impl {
namespace {

std::string describeKernels(const OperatorEntry& op) {
  std::string out;
  for (DispatchKey k : op.registeredKeys()) {
    if (!out.empty()) out += ", ";
    out += toString(k);
  }
  return out.empty() ? "none" : out;
}

// "add.Tensor" for "aten::add.Tensor": what m.impl() takes inside a block
// for the op's namespace.
std::string unqualifiedName(const OperatorName& name) {
  const auto colons = name.name.find("::");
  std::string base =
      colons == std::string::npos ? name.name : name.name.substr(colons + 2);
  return name.overload_name.empty() ? base : base + "." + name.overload_name;
}

void reportMissingKernel(OperatorKernel*, const OperatorHandle& op,
                         DispatchKeySet ks, Stack* stack) {
  const DispatchKey key = ks.highestPriorityTypeId();
  const bool is_backend = toFunctionalityKey(key) == DispatchKey::Dense &&
                          isRuntimePerBackendKey(key);
  if (is_backend) {
    const DeviceType device = backendComponentToDeviceType(toBackendComponent(key));
    // A backend with no kernel at all may just not be loaded yet.
    if (autoload_backend_plugin(device)) {
      Dispatcher::singleton().redispatchBoxed(op, ks, stack);
      return;
    }
  }
  const OperatorEntry& entry = op.entry();
  if (key == DispatchKey::Undefined) {
    C10_THROW_ERROR(NotImplementedError,
                    "Could not run '", op.operator_name(),
                    "': the call has no defined tensor argument to pick a "
                    "backend from, and the operator has no BackendSelect "
                    "kernel. Pass defined tensors, or register a BackendSelect "
                    "kernel (or a CompositeImplicitAutograd kernel) for it. "
                    "Kernels registered for: ", describeKernels(entry), ".");
  }
  C10_THROW_ERROR(NotImplementedError,
                  "Could not run '", op.operator_name(),
                  "' with arguments from the '", key,
                  "' backend: no kernel is registered for ", key,
                  ", and no CompositeExplicitAutograd, CompositeImplicitAutograd "
                  "(catch-all) kernel or backend fallback covers it. Kernels "
                  "registered for: ", describeKernels(entry),
                  ". Register one with TORCH_LIBRARY_IMPL(",
                  op.operator_name().getNamespace().value_or("<ns>"), ", ", key,
                  ", m) { m.impl(\"", unqualifiedName(op.operator_name()), "\", …); }",
                  is_backend ? ", or load the backend's plugin." : ".");
}

}  // namespace

const KernelFunction& missingKernel() {
  static const KernelFunction* const kernel = new KernelFunction(
      KernelFunction::makeFromBoxedFunctor(nullptr, &reportMissingKernel));
  return *kernel;
}

OperatorEntry::OperatorEntry(OperatorName name)
    : name_(std::move(name)), non_fallthrough_(DispatchKeySet::kAllBits) {
  for (auto& slot : table_) {
    slot.store(&missingKernel(), std::memory_order_relaxed);
  }
}

const FunctionSchema& OperatorEntry::schema() const {
  TORCH_CHECK(schema_.has_value(), "schema: operator ", name_,
              " has kernels but no schema; define it with m.def(\"",
              name_.str(), "(…) -> …\") in a TORCH_LIBRARY block.");
  return *schema_;
}

const std::string& OperatorEntry::schemaDebug() const { return schema_debug_; }

const KernelFunction& OperatorEntry::lookupSkippingFallthrough(
    DispatchKeySet& ks) const {
  const KernelFunction* k;
  do {
    ks = ks.remove(ks.highestFunctionalityKey());
    k = table_[ks.getDispatchTableIndexForDispatchKeySet()].load(
        std::memory_order_acquire);
  } while (k->isFallthrough());
  return *k;
}

void OperatorEntry::checkSchemaMatches(const FunctionSchema& inferred,
                                       const std::string& kernel_debug) const {
  const std::string diff = findSchemaDifference(inferred, *schema_);
  TORCH_CHECK(diff.empty(), "impl: the kernel for ", name_, " ", kernel_debug,
              " does not match the operator's schema: ", diff,
              ".\n  schema: ", schema_->str(), " (", schema_debug_,
              ")\n  kernel: ", inferred.str(),
              "\nChange the kernel's C++ signature or the schema so that they "
              "agree.");
}

void OperatorEntry::registerSchema(FunctionSchema&& schema, std::string debug) {
  TORCH_INTERNAL_ASSERT(!schema_.has_value(), "schema registered twice for ", name_);
  // Check kernels registered before the def, then commit.
  schema_ = std::move(schema);
  schema_debug_ = std::move(debug);
  try {
    for (const auto& [key, list] : kernels_) {
      for (const auto& k : list) {
        if (k.inferred_schema) checkSchemaMatches(*k.inferred_schema, k.debug);
      }
    }
  } catch (...) {
    schema_.reset();
    schema_debug_.clear();
    throw;
  }
}

void OperatorEntry::deregisterSchema() {
  schema_.reset();
  schema_debug_.clear();
}

std::list<AnnotatedKernel>::iterator OperatorEntry::registerKernel(
    const Dispatcher& dispatcher, DispatchKey key, KernelFunction kernel,
    std::optional<FunctionSchema> inferred_schema, std::string debug) {
  if (inferred_schema && schema_) checkSchemaMatches(*inferred_schema, debug);
  if (kernel.hasCppSignature() && cpp_signature_) {
    TORCH_CHECK(*cpp_signature_ == kernel.cppSignature(),
                "impl: the kernel for ", name_, " (", key, ") ", debug,
                " has C++ signature ", kernel.cppSignature().name(),
                " but the kernel ", cpp_signature_debug_, " has ",
                cpp_signature_->name(),
                ". All unboxed kernels of one operator must have the same "
                "signature.");
  }
  auto& list = kernels_[key];
  if (!list.empty()) {
    TORCH_WARN("Overriding a previously registered kernel for the same "
               "operator and the same dispatch key\n  operator: ", name_,
               "\n  dispatch key: ", key, "\n  previous kernel: ",
               list.front().debug, "\n       new kernel: ", debug,
               "\nThe new kernel is used; removing it restores the previous one.");
  }
  list.push_front(AnnotatedKernel{std::move(kernel), std::move(inferred_schema),
                                  std::move(debug)});
  recomputeCppSignature();
  updateAllSlots(dispatcher);
  return list.begin();
}

void OperatorEntry::deregisterKernel(const Dispatcher& dispatcher, DispatchKey key,
                                     std::list<AnnotatedKernel>::iterator kernel) {
  auto found = kernels_.find(key);
  TORCH_INTERNAL_ASSERT(found != kernels_.end(), "no kernels for ", key, " on ", name_);
  graveyard_.splice(graveyard_.end(), found->second, kernel);
  if (found->second.empty()) kernels_.erase(found);
  recomputeCppSignature();
  updateAllSlots(dispatcher);
}

void OperatorEntry::recomputeCppSignature() {
  cpp_signature_.reset();
  cpp_signature_debug_.clear();
  for (const auto& [key, list] : kernels_) {
    for (const auto& k : list) {
      if (k.kernel.hasCppSignature()) {
        cpp_signature_ = k.kernel.cppSignature();
        cpp_signature_debug_ = k.debug;
        return;
      }
    }
  }
}

ResolvedKernel OperatorEntry::resolve(const Dispatcher& dispatcher,
                                      DispatchKey key) const {
  auto first = [this](DispatchKey k) -> const AnnotatedKernel* {
    auto it = kernels_.find(k);
    return it == kernels_.end() || it->second.empty() ? nullptr : &it->second.front();
  };
  if (key == DispatchKey::Undefined) {
    // A call with no key (a factory without a tensor argument or a
    // BackendSelect kernel) can still run a composite kernel, which
    // dispatches again on what it creates. As in PyTorch.
    if (const auto* k = first(DispatchKey::CompositeExplicitAutograd)) {
      return {k, "CompositeExplicitAutograd kernel"};
    }
    if (const auto* k = first(DispatchKey::CompositeImplicitAutograd)) {
      return {k, "CompositeImplicitAutograd (catch-all) kernel"};
    }
    return {};
  }
  if (const auto* k = first(key)) return {k, "kernel"};
  const bool is_autograd =
      toFunctionalityKey(key) == DispatchKey::AutogradFunctionality;
  if (is_autograd) {
    if (const auto* k = first(DispatchKey::Autograd)) return {k, "Autograd kernel"};
  }
  if (runtimeDispatchKeySetHas(DispatchKey::CompositeExplicitAutograd, key)) {
    if (const auto* k = first(DispatchKey::CompositeExplicitAutograd)) {
      return {k, "CompositeExplicitAutograd kernel"};
    }
  }
  if (runtimeDispatchKeySetHas(DispatchKey::CompositeImplicitAutograd, key)) {
    // An Autograd key takes the catch-all only if the backend has no kernel
    // of its own: otherwise autograd must wrap that backend kernel.
    bool backend_has_kernel = false;
    if (is_autograd) {
      const DispatchKey backend = toRuntimePerBackendFunctionalityKey(
          DispatchKey::Dense, toBackendComponent(key));
      backend_has_kernel =
          first(backend) != nullptr || first(DispatchKey::CompositeExplicitAutograd) != nullptr;
    }
    if (!backend_has_kernel) {
      if (const auto* k = first(DispatchKey::CompositeImplicitAutograd)) {
        return {k, "CompositeImplicitAutograd (catch-all) kernel"};
      }
    }
  }
  if (const auto* fb =
          dispatcher.backendFallback(getDispatchTableIndexForDispatchKey(key))) {
    return {fb, "backend fallback"};
  }
  return {};
}

void OperatorEntry::publish(int slot, const KernelFunction* kernel) {
  // Release: See Note [Lock-free dispatch table].
  table_[slot].store(kernel, std::memory_order_release);
}

void OperatorEntry::updateSlot(const Dispatcher& dispatcher, int slot) {
  const ResolvedKernel r = resolve(dispatcher, dispatchKeyForTableIndex(slot));
  publish(slot, r.kernel ? &r.kernel->kernel : &missingKernel());
  refreshFallthroughMask();
}

void OperatorEntry::updateAllSlots(const Dispatcher& dispatcher) {
  for (int slot = 0; slot < DispatchKeySet::kDispatchTableSize; ++slot) {
    const ResolvedKernel r = resolve(dispatcher, dispatchKeyForTableIndex(slot));
    publish(slot, r.kernel ? &r.kernel->kernel : &missingKernel());
  }
  refreshFallthroughMask();
}

void OperatorEntry::refreshFallthroughMask() {
  uint64_t bits = DispatchKeySet::kBackendMask;
  for (int slot = 1; slot < DispatchKeySet::kDispatchTableSize; ++slot) {
    const KernelFunction* k = table_[slot].load(std::memory_order_relaxed);
    if (!k->isFallthrough()) {
      const DispatchKey f = toFunctionalityKey(dispatchKeyForTableIndex(slot));
      bits |= DispatchKeySet(f).raw_repr();
    }
  }
  non_fallthrough_.store(bits, std::memory_order_relaxed);
}

void OperatorEntry::assertSignatureIs(const CppSignature& sig,
                                      const std::string& sig_name) const {
  if (!cpp_signature_) return;  // boxed kernels only: any signature is boxed
  TORCH_CHECK(*cpp_signature_ == sig, "typed: operator ", name_,
              " was called with C++ signature ", sig_name,
              " but its kernels have signature ", cpp_signature_->name(),
              " (kernel ", cpp_signature_debug_,
              "). Call it with the kernels' exact signature.");
}

bool OperatorEntry::hasKernelForDispatchKey(DispatchKey key) const {
  auto it = kernels_.find(key);
  return it != kernels_.end() && !it->second.empty();
}

std::vector<DispatchKey> OperatorEntry::registeredKeys() const {
  std::vector<DispatchKey> keys;
  for (const auto& [key, list] : kernels_) {
    if (!list.empty()) keys.push_back(key);
  }
  return keys;
}

std::string OperatorEntry::dumpComputedTable(const Dispatcher& dispatcher) const {
  std::ostringstream out;
  for (int slot = 1; slot < DispatchKeySet::kDispatchTableSize; ++slot) {
    const DispatchKey key = dispatchKeyForTableIndex(slot);
    const ResolvedKernel r = resolve(dispatcher, key);
    out << toString(key) << ": ";
    if (r.kernel == nullptr) {
      out << "missing\n";
      continue;
    }
    out << (r.kernel->kernel.isFallthrough() ? "fallthrough" : r.source);
    if (r.kernel->kernel.isFallthrough()) out << " (" << r.source << ")";
    out << " " << r.kernel->debug << "\n";
  }
  return out.str();
}

std::string OperatorEntry::dumpState() const {
  std::ostringstream out;
  out << "name: " << name_ << "\n";
  out << "schema: " << (schema_ ? schema_->str() : std::string("(none)"));
  if (schema_) out << " " << schema_debug_;
  out << "\n";
  for (const auto& [key, list] : kernels_) {
    for (const auto& k : list) {
      out << toString(key) << ": "
          << (k.kernel.isFallthrough() ? "fallthrough " : "")
          << (k.kernel.hasUnboxed() ? "unboxed kernel " : "boxed kernel ")
          << k.debug << "\n";
    }
  }
  return out.str();
}

}  // namespace impl
}  // namespace c10

#include "registration/Dispatcher.h"

#include <algorithm>
#include <utility>
#include <vector>
#include <iostream>

namespace c10 {

namespace detail {

const bool dispatch_trace_enabled = [] {
  const char* env = std::getenv("EMBER_DISPATCH_TRACE");
  const bool on = env != nullptr && env[0] != '\0' && std::string(env) != "0";
  if (on) dispatch_hooks.fetch_or(kDispatchTraceHook, std::memory_order_relaxed);
  return on;
}();

void traceDispatch(const OperatorHandle& op, DispatchKeySet ks, bool redispatch) {
  std::cerr << "[dispatch] " << (redispatch ? "redispatch " : "")
            << op.operator_name() << " keys=" << ks << " -> "
            << ks.highestPriorityTypeId() << "\n";
}

}  // namespace detail

Dispatcher& Dispatcher::singleton() {
  // Leaked on purpose: libraries deregister from static destructors, which
  // may run after a function-local static would have been destroyed.
  static Dispatcher* const instance = new Dispatcher();
  return *instance;
}

void OperatorHandle::callBoxed(Stack* stack) const {
  Dispatcher::singleton().callBoxed(*this, stack);
}

void OperatorHandle::redispatchBoxed(DispatchKeySet ks, Stack* stack) const {
  Dispatcher::singleton().redispatchBoxed(*this, ks, stack);
}

std::string OperatorHandle::dumpComputedTable() const {
  return entry_->dumpComputedTable(Dispatcher::singleton());
}

impl::OperatorEntry& Dispatcher::findOrCreateOp(const OperatorName& name) {
  const std::string key = name.str();
  auto it = by_name_.find(key);
  if (it != by_name_.end()) return *it->second;
  operators_.emplace_back(name);
  impl::OperatorEntry* entry = &operators_.back();
  by_name_.emplace(key, entry);
  entry->updateAllSlots(*this);
  return *entry;
}

std::optional<OperatorHandle> Dispatcher::findOp(const OperatorName& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = by_name_.find(name.str());
  if (it == by_name_.end() || it->second->isEmpty()) return std::nullopt;
  return OperatorHandle(it->second);
}

std::optional<OperatorHandle> Dispatcher::findSchema(const OperatorName& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = by_name_.find(name.str());
  if (it == by_name_.end() || !it->second->hasSchema()) return std::nullopt;
  return OperatorHandle(it->second);
}

OperatorHandle Dispatcher::findSchemaOrThrow(const char* name,
                                             const char* overload_name) {
  const OperatorName op_name{name, overload_name};
  if (auto handle = findSchema(op_name)) return *handle;
  if (auto op = findOp(op_name)) {
    C10_THROW_ERROR(Error, "findSchemaOrThrow: operator ", op_name,
                    " has kernels (for ", [&] {
                      std::string keys;
                      for (DispatchKey k : op->entry().registeredKeys()) {
                        keys += (keys.empty() ? "" : ", ") + std::string(toString(k));
                      }
                      return keys;
                    }(),
                    ") but no schema. Define it with m.def(\"",
                    op_name.str(), "(…) -> …\") in a TORCH_LIBRARY block, or "
                    "load the library that defines it.");
  }
  C10_THROW_ERROR(Error, "findSchemaOrThrow: could not find operator ", op_name,
                  ". Check the name and overload (e.g. \"aten::add\", "
                  "\"Tensor\"), and that the library defining it is loaded.");
}

std::vector<OperatorName> Dispatcher::getAllOpNames() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<OperatorName> names;
  for (const auto& op : operators_) {
    if (!op.isEmpty()) names.push_back(op.operator_name());
  }
  std::sort(names.begin(), names.end(),
            [](const OperatorName& a, const OperatorName& b) { return a.str() < b.str(); });
  return names;
}

RegistrationHandleRAII Dispatcher::registerLibrary(const std::string& ns,
                                                   std::string debug) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = libraries_.find(ns);
  TORCH_CHECK(found == libraries_.end(), "TORCH_LIBRARY: namespace '", ns,
              "' is defined twice: first ", found->second, ", then ", debug,
              ". Only one TORCH_LIBRARY block may define a namespace; use "
              "TORCH_LIBRARY_FRAGMENT for the others.");
  libraries_.emplace(ns, std::move(debug));
  return RegistrationHandleRAII([this, ns] {
    std::lock_guard<std::mutex> lock(mutex_);
    libraries_.erase(ns);
  });
}

RegistrationHandleRAII Dispatcher::registerDef(FunctionSchema schema,
                                               std::string debug) {
  std::lock_guard<std::mutex> lock(mutex_);
  const OperatorName name = schema.operator_name();
  impl::OperatorEntry& op = findOrCreateOp(name);
  TORCH_CHECK(!op.hasSchema(), "def: operator ", name,
              " is defined twice: first ", op.schemaDebug(), " as ",
              op.schema(), ", then ", debug, " as ", schema,
              ". Remove one def(), or give the second an overload name "
              "(\"name.overload(…)\").");
  op.registerSchema(std::move(schema), std::move(debug));
  return RegistrationHandleRAII([this, &op] {
    std::lock_guard<std::mutex> lock(mutex_);
    op.deregisterSchema();
  });
}

namespace {

// Levenshtein distance, for "did you mean" suggestions.
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

// Note [Kernels for operators that do not exist]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A kernel may be registered before its operator's def() (a plugin of
// kernels can load before the library that defines them), so an impl() for
// an unknown name cannot always be an error. But once the namespace's
// TORCH_LIBRARY block has run, every def of that block exists: an impl()
// for a name it lacks (e.g. libtorch's aten::_copy_from, which Ember does
// not have) is a misspelling or an op Ember does not define, and would
// otherwise sit unused forever. It is refused with the file:line of the
// impl() and the nearest names. A def() in a TORCH_LIBRARY_FRAGMENT of that
// namespace must therefore run before impl()s of its ops.
void Dispatcher::checkOperatorExists(const OperatorName& name,
                                     const std::string& debug) const {
  const auto ns = name.getNamespace();
  if (!ns.has_value()) return;
  const auto library = libraries_.find(std::string(*ns));
  if (library == libraries_.end()) return;
  const auto it = by_name_.find(name.str());
  if (it != by_name_.end() && it->second->hasSchema()) return;
  const std::string wanted = name.str();
  std::vector<std::pair<size_t, std::string>> near;
  const std::string prefix = std::string(*ns) + "::";
  for (const auto& op : operators_) {
    if (!op.hasSchema()) continue;
    const std::string candidate = op.operator_name().str();
    if (candidate.compare(0, prefix.size(), prefix) != 0) continue;
    const size_t d = editDistance(wanted, candidate);
    const bool same_base = op.operator_name().name == name.name;
    if (same_base || d <= 3) near.emplace_back(same_base ? 0 : d, candidate);
  }
  std::sort(near.begin(), near.end());
  if (near.size() > 5) near.resize(5);
  std::string hint;
  for (const auto& n : near) hint += (hint.empty() ? "" : ", ") + n.second;
  C10_THROW_ERROR(Error, "impl: a kernel for ", wanted, " is ", debug,
                  ", but no operator ", wanted, " exists: namespace '", *ns,
                  "' is defined (", library->second, ") without it.",
                  hint.empty() ? std::string(" Check the name and overload with "
                                             "`ops list`")
                               : " Did you mean " + hint + "?",
                  " If the op is yours, def() its schema before registering "
                  "kernels for it.");
}

RegistrationHandleRAII Dispatcher::registerImpl(
    OperatorName name, DispatchKey key, KernelFunction kernel,
    std::optional<FunctionSchema> inferred_schema, std::string debug) {
  std::lock_guard<std::mutex> lock(mutex_);
  checkOperatorExists(name, debug);
  impl::OperatorEntry& op = findOrCreateOp(name);
  auto it = op.registerKernel(*this, key, std::move(kernel),
                              std::move(inferred_schema), std::move(debug));
  return RegistrationHandleRAII([this, &op, key, it] {
    std::lock_guard<std::mutex> lock(mutex_);
    op.deregisterKernel(*this, key, it);
  });
}

RegistrationHandleRAII Dispatcher::registerFallback(DispatchKey key,
                                                    KernelFunction kernel,
                                                    std::string debug) {
  std::vector<int> slots;
  if (isAliasDispatchKey(key)) {
    TORCH_CHECK(key == DispatchKey::Autograd, "fallback: ", key,
                " is an alias key; a backend fallback can be registered for a "
                "runtime key (e.g. CPU, AutogradCPU) or for Autograd.");
    for (DispatchKey k : getRuntimeDispatchKeySet(key)) {
      slots.push_back(getDispatchTableIndexForDispatchKey(k));
    }
  } else {
    TORCH_CHECK(key != DispatchKey::Undefined && !isPerBackendFunctionalityKey(key),
                "fallback: ", key, " is not a runtime key; register the "
                "fallback for a backend's key, e.g. CPU or AutogradCPU.");
    slots.push_back(getDispatchTableIndexForDispatchKey(key));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (int slot : slots) {
    TORCH_CHECK(fallbacks_[slot].empty(), "fallback: a second backend fallback "
                "for ", dispatchKeyForTableIndex(slot), " ", debug,
                "; the first was ", fallbacks_[slot].front().debug,
                ". Only one fallback per key is allowed; remove one of them.");
  }
  std::vector<std::list<impl::AnnotatedKernel>::iterator> added;
  for (int slot : slots) {
    fallbacks_[slot].push_front(impl::AnnotatedKernel{kernel, std::nullopt, debug});
    added.push_back(fallbacks_[slot].begin());
    for (auto& op : operators_) op.updateSlot(*this, slot);
  }
  return RegistrationHandleRAII([this, slots, added] {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < slots.size(); ++i) {
      fallback_graveyard_.splice(fallback_graveyard_.end(), fallbacks_[slots[i]],
                                 added[i]);
      for (auto& op : operators_) op.updateSlot(*this, slots[i]);
    }
  });
}

namespace {
// Note [Default fallthrough keys]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Keys that only some operators care about fall through by default, as in
// PyTorch: BackendSelect (factories pick their backend there),
// ADInplaceOrView, and the Autograd keys until the autograd package
// registers its own fallback. A registered fallback replaces the default.
bool isDefaultFallthroughKey(DispatchKey key) {
  return key == DispatchKey::BackendSelect || key == DispatchKey::ADInplaceOrView ||
         toFunctionalityKey(key) == DispatchKey::AutogradFunctionality;
}

const impl::AnnotatedKernel& defaultFallthrough() {
  static const impl::AnnotatedKernel* const k = new impl::AnnotatedKernel{
      KernelFunction::makeFallthrough(), std::nullopt,
      "(built in: See Note [Default fallthrough keys])"};
  return *k;
}
}  // namespace

const impl::AnnotatedKernel* Dispatcher::backendFallback(int slot) const {
  if (!fallbacks_[slot].empty()) return &fallbacks_[slot].front();
  if (isDefaultFallthroughKey(dispatchKeyForTableIndex(slot))) {
    return &defaultFallthrough();
  }
  return nullptr;
}

std::string Dispatcher::dumpFallbacks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (int slot = 1; slot < DispatchKeySet::kDispatchTableSize; ++slot) {
    const impl::AnnotatedKernel* fb = backendFallback(slot);
    if (fb == nullptr) continue;
    out += c10::str(dispatchKeyForTableIndex(slot), ": ",
                    fb->kernel.isFallthrough() ? "fallthrough " : "", fb->debug, "\n");
  }
  return out;
}

void Dispatcher::callBoxed(const OperatorHandle& op, Stack* stack) const {
  const impl::OperatorEntry& entry = op.entry();
  const size_t n = entry.schema().arguments().size();
  TORCH_CHECK(stack->size() >= n, "callBoxed: ", op.operator_name(), " takes ",
              n, " arguments but the stack holds only ", stack->size(),
              "; push every argument, defaults included, before calling.");
  uint64_t bits = 0;
  for (size_t i = stack->size() - n; i < stack->size(); ++i) {
    const IValue& v = (*stack)[i];
    if (v.isTensor()) {
      if (auto* impl = v.toTensorBase().unsafeGetTensorImpl()) {
        bits |= impl->key_set().raw_repr();
      }
    } else if (v.isTensorList()) {
      for (const auto& t : v.toTensorBaseVector()) {
        if (t.defined()) bits |= t.key_set().raw_repr();
      }
    } else if (v.isOptionalTensorList()) {
      for (const auto& t : v.toOptionalTensorVector()) {
        if (t.has_value() && t->defined()) bits |= t->key_set().raw_repr();
      }
    }
  }
  DispatchKeySet ks =
      computeCallKeySet(DispatchKeySet(DispatchKeySet::RAW, bits), entry);
  const KernelFunction& kernel = entry.lookup(ks);
  // See Note [Dispatch hooks].
  if (C10_UNLIKELY(detail::dispatch_hooks.load(std::memory_order_relaxed) != 0)) {
    if (detail::dispatch_trace_enabled) detail::traceDispatch(op, ks, /*redispatch=*/false);
    at::RecordFunction guard(at::RecordScope::FUNCTION);
    if (guard.isActive()) {
      if (guard.needsInputs()) {
        for (size_t i = stack->size() - n; i < stack->size(); ++i) guard.recordInput((*stack)[i]);
      }
      guard.beforeOp(op.operator_name().name);
    }
    kernel.callBoxed(op, ks, stack);
    return;
  }
  kernel.callBoxed(op, ks, stack);
}

void Dispatcher::redispatchBoxed(const OperatorHandle& op, DispatchKeySet ks,
                                 Stack* stack) const {
  ks = ks & op.entry().nonFallthroughKeys();
  const KernelFunction& kernel = op.entry().lookup(ks);
  if (C10_UNLIKELY(detail::dispatch_trace_enabled)) {
    detail::traceDispatch(op, ks, /*redispatch=*/true);
  }
  kernel.callBoxed(op, ks, stack);
}

}  // namespace c10

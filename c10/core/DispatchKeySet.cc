#include "c10/core/DispatchKeySet.h"

#include "c10/util/Exception.h"

namespace c10 {

namespace {
constexpr int kEndFunctionality = kNumFunctionalityKeys + 1;

bool hasFunctionality(uint64_t repr, int f) {
  return (repr >> (kNumBackends + f - 1)) & 1;
}
bool hasBackend(uint64_t repr, int b) { return (repr >> b) & 1; }
}  // namespace

DispatchKey DispatchKeySet::iterator::operator*() const {
  const auto f = static_cast<DispatchKey>(functionality_);
  if (!isPerBackendFunctionalityKey(f)) return f;
  return toRuntimePerBackendFunctionalityKey(
      f, static_cast<BackendComponent>(backend_ + 1));
}

void DispatchKeySet::iterator::settle() {
  while (functionality_ < kEndFunctionality) {
    if (hasFunctionality(repr_, functionality_)) {
      if (!kIsPerBackend[functionality_]) {
        if (backend_ == 0) return;
      } else {
        while (backend_ < kNumBackends && !hasBackend(repr_, backend_)) {
          ++backend_;
        }
        if (backend_ < kNumBackends) return;
      }
    }
    ++functionality_;
    backend_ = 0;
  }
  backend_ = 0;
}

DispatchKeySet::iterator& DispatchKeySet::iterator::operator++() {
  if (kIsPerBackend[functionality_]) {
    ++backend_;
  } else {
    ++functionality_;
    backend_ = 0;
  }
  settle();
  return *this;
}

DispatchKeySet::iterator DispatchKeySet::begin() const {
  iterator it(repr_, 1, 0);
  it.settle();
  return it;
}

DispatchKeySet::iterator DispatchKeySet::end() const {
  return iterator(repr_, kEndFunctionality, 0);
}

int DispatchKeySet::size() const {
  int n = 0;
  for (auto it = begin(); it != end(); ++it) ++n;
  return n;
}

int getDispatchTableIndexForDispatchKey(DispatchKey k) {
  TORCH_CHECK(!isAliasDispatchKey(k), "getDispatchTableIndexForDispatchKey: ",
              k, " is an alias key and has no table slot; use "
              "getRuntimeDispatchKeySet() to expand it to runtime keys.");
  return DispatchKeySet(k).getDispatchTableIndexForDispatchKeySet();
}

DispatchKey dispatchKeyForTableIndex(int index) {
  TORCH_CHECK(index >= 0 && index < DispatchKeySet::kDispatchTableSize,
              "dispatchKeyForTableIndex: index ", index,
              " is out of range; a dispatch table has ",
              DispatchKeySet::kDispatchTableSize, " slots.");
  if (index == 0) return DispatchKey::Undefined;
  for (int f = kNumFunctionalityKeys; f >= 1; --f) {
    const int base = DispatchKeySet::kFunctionalityOffset[f];
    if (index >= base) {
      const auto key = static_cast<DispatchKey>(f);
      if (!DispatchKeySet::kIsPerBackend[f]) return key;
      return toRuntimePerBackendFunctionalityKey(
          key, static_cast<BackendComponent>(index - base + 1));
    }
  }
  C10_THROW_ERROR(Error, "INTERNAL ASSERT FAILED: dispatch table index ", index, " matched no key.");
}

std::string toString(DispatchKeySet ks) {
  std::string out = "DispatchKeySet(";
  bool first = true;
  for (DispatchKey k : ks) {
    if (!first) out += ", ";
    out += toString(k);
    first = false;
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& out, DispatchKeySet ks) {
  return out << toString(ks);
}

DispatchKeySet getRuntimeDispatchKeySet(DispatchKey k) {
  switch (k) {
    case DispatchKey::Autograd:
      return autograd_dispatch_keyset;
    case DispatchKey::CompositeExplicitAutograd:
      return backend_dispatch_keyset;
    case DispatchKey::CompositeImplicitAutograd:
      return autograd_dispatch_keyset | backend_dispatch_keyset;
    default:
      return DispatchKeySet(k);
  }
}

bool runtimeDispatchKeySetHas(DispatchKey alias, DispatchKey k) {
  if (k == DispatchKey::Undefined) return false;
  return getRuntimeDispatchKeySet(alias).has(k);
}

DispatchKey getAutogradKeyFromBackend(BackendComponent b) {
  TORCH_CHECK(b != BackendComponent::InvalidBit,
              "getAutogradKeyFromBackend: InvalidBit names no backend; pass "
              "CPUBit, CUDABit or PrivateUse1Bit.");
  return toRuntimePerBackendFunctionalityKey(DispatchKey::AutogradFunctionality, b);
}

}  // namespace c10

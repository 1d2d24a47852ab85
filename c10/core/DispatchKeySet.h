// c10/core/DispatchKeySet.h — a set of dispatch keys in one 64-bit word.
//
//   DispatchKeySet ks = DispatchKeySet(DispatchKey::CPU) |
//                       DispatchKeySet(DispatchKey::AutogradCPU);
//   ks.highestPriorityTypeId();   // AutogradCPU
//   for (DispatchKey k : ks) …    // CPU, AutogradCPU (lowest priority first)
//
// A value type: copy it freely. All operations are constexpr or a few
// instructions; none allocates.
#pragma once

#include <cstdint>
#include <iterator>
#include <ostream>
#include <string>

#include "c10/core/DispatchKey.h"

namespace c10 {

// Note [DispatchKeySet layout]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Bits [0, kNumBackends) are backend components (bit i is component i + 1).
// Bits [kNumBackends, kNumBackends + kNumFunctionalityKeys) are functionality
// keys (bit kNumBackends + i is functionality key i + 1). A runtime
// per-backend key such as AutogradCUDA sets two bits: its functionality and
// its backend. A set is therefore a cross product: {CPU, AutogradCUDA} also
// contains CUDA and AutogradCPU. That is harmless because a call's key set
// comes from tensors, and a tensor lives on one backend.
//
// The highest-priority key of a set is its highest functionality bit, made
// per-backend with its highest backend bit when that functionality is
// per-backend. Dispatch tables have one slot per runtime key, indexed by
// getDispatchTableIndexForDispatchKeySet().
static_assert(kNumBackends + kNumFunctionalityKeys <= 64,
              "a DispatchKeySet must fit in 64 bits");

namespace detail {
// Where each functionality's slots start in a dispatch table.
struct TableOffsets {
  int offset[kNumFunctionalityKeys + 1];
  bool per_backend[kNumFunctionalityKeys + 1];
  int size;
};
constexpr TableOffsets computeTableOffsets() {
  TableOffsets o{};
  int next = 1;  // slot 0 is Undefined
  for (int f = 1; f <= kNumFunctionalityKeys; ++f) {
    o.per_backend[f] = isPerBackendFunctionalityKey(static_cast<DispatchKey>(f));
    o.offset[f] = next;
    next += o.per_backend[f] ? kNumBackends : 1;
  }
  o.size = next;
  return o;
}
inline constexpr TableOffsets kTableOffsets = computeTableOffsets();
}  // namespace detail

// c10::DispatchKeySet
class DispatchKeySet final {
 public:
  enum Full { FULL };
  enum Raw { RAW };

  constexpr DispatchKeySet() = default;
  constexpr DispatchKeySet(Full) : repr_(kAllBits) {}
  constexpr DispatchKeySet(Raw, uint64_t bits) : repr_(bits & kAllBits) {}
  // Precondition: `k` is not an alias key; use getRuntimeDispatchKeySet()
  // for those. Undefined gives the empty set.
  constexpr explicit DispatchKeySet(DispatchKey k) : repr_(bitsOf(k)) {}
  constexpr explicit DispatchKeySet(BackendComponent b)
      : repr_(b == BackendComponent::InvalidBit
                  ? 0
                  : uint64_t{1} << (static_cast<int>(b) - 1)) {}

  constexpr uint64_t raw_repr() const { return repr_; }
  constexpr bool empty() const { return repr_ == 0; }

  // True if `k` is in the set: for a runtime per-backend key, both its
  // functionality and its backend bits must be present.
  constexpr bool has(DispatchKey k) const {
    const uint64_t bits = bitsOf(k);
    return bits != 0 && (repr_ & bits) == bits;
  }
  constexpr bool has_backend(BackendComponent b) const {
    return has_all(DispatchKeySet(b));
  }
  constexpr bool has_all(DispatchKeySet ks) const {
    return (repr_ & ks.repr_) == ks.repr_;
  }
  // True if any functionality of `ks` is present and, when `ks` has backend
  // bits, any of those too.
  constexpr bool has_any(DispatchKeySet ks) const {
    const uint64_t f = ks.repr_ & kFunctionalityMask;
    const uint64_t b = ks.repr_ & kBackendMask;
    const bool f_ok = f == 0 || (repr_ & f) != 0;
    const bool b_ok = b == 0 || (repr_ & b) != 0;
    return (f != 0 || b != 0) && f_ok && b_ok;
  }
  constexpr bool isSupersetOf(DispatchKeySet ks) const { return has_all(ks); }

  constexpr DispatchKeySet operator|(DispatchKeySet other) const {
    return DispatchKeySet(RAW, repr_ | other.repr_);
  }
  constexpr DispatchKeySet operator&(DispatchKeySet other) const {
    return DispatchKeySet(RAW, repr_ & other.repr_);
  }
  constexpr DispatchKeySet operator^(DispatchKeySet other) const {
    return DispatchKeySet(RAW, repr_ ^ other.repr_);
  }
  // Removes the functionality bits of `other`; backend bits stay, since
  // other functionalities in this set may still need them. This is how the
  // thread-local exclude set applies.
  constexpr DispatchKeySet operator-(DispatchKeySet other) const {
    return DispatchKeySet(RAW, repr_ & (kBackendMask | ~other.repr_));
  }
  constexpr bool operator==(DispatchKeySet other) const {
    return repr_ == other.repr_;
  }
  constexpr bool operator!=(DispatchKeySet other) const {
    return repr_ != other.repr_;
  }

  constexpr DispatchKeySet add(DispatchKey k) const {
    return *this | DispatchKeySet(k);
  }
  constexpr DispatchKeySet add(DispatchKeySet ks) const { return *this | ks; }
  // Removes the functionality of `k` (see operator-).
  constexpr DispatchKeySet remove(DispatchKey k) const {
    return *this - DispatchKeySet(k);
  }
  constexpr DispatchKeySet remove_backend(BackendComponent b) const {
    return DispatchKeySet(RAW, repr_ & ~DispatchKeySet(b).repr_);
  }

  // The highest functionality key present (Undefined if none).
  DispatchKey highestFunctionalityKey() const {
    const uint64_t f = repr_ >> kNumBackends;
    if (f == 0) return DispatchKey::Undefined;
    return static_cast<DispatchKey>(64 - __builtin_clzll(f));
  }
  // The highest backend component present (InvalidBit if none).
  BackendComponent highestBackendKey() const {
    const uint64_t b = repr_ & kBackendMask;
    if (b == 0) return BackendComponent::InvalidBit;
    return static_cast<BackendComponent>(64 - __builtin_clzll(b));
  }
  // The key that picks the kernel. See Note [DispatchKeySet layout].
  DispatchKey highestPriorityTypeId() const {
    const DispatchKey f = highestFunctionalityKey();
    if (!isPerBackendFunctionalityKey(f)) return f;
    return toRuntimePerBackendFunctionalityKey(f, highestBackendKey());
  }

  // Index of highestPriorityTypeId() in a dispatch table of
  // kDispatchTableSize slots; 0 is the slot of Undefined, also used for a
  // per-backend functionality with no backend bit (nothing can run it).
  int getDispatchTableIndexForDispatchKeySet() const {
    const uint64_t f = repr_ >> kNumBackends;
    if (f == 0) return 0;
    const int functionality = 64 - __builtin_clzll(f);
    const int base = kFunctionalityOffset[functionality];
    if (!kIsPerBackend[functionality]) return base;
    const uint64_t b = repr_ & kBackendMask;
    if (b == 0) return 0;
    return base + (63 - __builtin_clzll(b));
  }

  // Number of runtime keys the set iterates over.
  int size() const;

  // c10::DispatchKeySet::iterator
  //
  // Visits each runtime key in the set, lowest priority first: functionality
  // keys in order; for a per-backend functionality, one key per backend
  // present.
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = DispatchKey;
    using difference_type = std::ptrdiff_t;
    using pointer = const DispatchKey*;
    using reference = DispatchKey;

    iterator(uint64_t repr, int functionality, int backend)
        : repr_(repr), functionality_(functionality), backend_(backend) {}
    DispatchKey operator*() const;
    iterator& operator++();
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const iterator& o) const {
      return functionality_ == o.functionality_ && backend_ == o.backend_;
    }
    bool operator!=(const iterator& o) const { return !(*this == o); }

   private:
    friend class DispatchKeySet;
    void settle();  // moves to the first valid position at or after this one

    uint64_t repr_;
    int functionality_;  // 1-based functionality key; kEnd when done
    int backend_;        // 0-based backend index within a per-backend key
  };

  iterator begin() const;
  iterator end() const;

  static constexpr uint64_t kBackendMask = (uint64_t{1} << kNumBackends) - 1;
  static constexpr uint64_t kFunctionalityMask =
      ((uint64_t{1} << kNumFunctionalityKeys) - 1) << kNumBackends;
  static constexpr uint64_t kAllBits = kBackendMask | kFunctionalityMask;

 private:
  static constexpr uint64_t bitsOf(DispatchKey k) {
    if (k == DispatchKey::Undefined) return 0;
    if (isFunctionalityKey(k)) {
      return uint64_t{1} << (kNumBackends + static_cast<int>(k) - 1);
    }
    if (isRuntimePerBackendKey(k)) {
      return bitsOf(toFunctionalityKey(k)) |
             (uint64_t{1} << (static_cast<int>(toBackendComponent(k)) - 1));
    }
    // Alias keys have no bits; DispatchKeySet(alias) is the empty set and
    // has(alias) is false. See getRuntimeDispatchKeySet().
    return 0;
  }


 public:
  static constexpr const int* kFunctionalityOffset = detail::kTableOffsets.offset;
  static constexpr const bool* kIsPerBackend = detail::kTableOffsets.per_backend;
  // Number of slots in a per-operator dispatch table.
  static constexpr int kDispatchTableSize = detail::kTableOffsets.size;

 private:
  uint64_t repr_ = 0;
};

// c10::getDispatchTableIndexForDispatchKey
//
// The table slot of a runtime key (or functionality key); 0 for Undefined.
// Inverse: dispatchKeyForTableIndex.
int getDispatchTableIndexForDispatchKey(DispatchKey k);
DispatchKey dispatchKeyForTableIndex(int index);

std::string toString(DispatchKeySet ks);
std::ostream& operator<<(std::ostream& out, DispatchKeySet ks);

// Key sets used by the dispatcher and autograd.
//
// c10::autograd_dispatch_keyset: the Autograd functionality on every backend.
constexpr DispatchKeySet autograd_dispatch_keyset =
    DispatchKeySet(DispatchKey::AutogradFunctionality) |
    DispatchKeySet(DispatchKeySet::RAW, DispatchKeySet::kBackendMask);
// c10::backend_dispatch_keyset: the Dense functionality on every backend.
constexpr DispatchKeySet backend_dispatch_keyset =
    DispatchKeySet(DispatchKey::Dense) |
    DispatchKeySet(DispatchKeySet::RAW, DispatchKeySet::kBackendMask);
// c10::autograd_dispatch_keyset_with_ADInplaceOrView
constexpr DispatchKeySet autograd_dispatch_keyset_with_ADInplaceOrView =
    autograd_dispatch_keyset | DispatchKeySet(DispatchKey::ADInplaceOrView);

// c10::getRuntimeDispatchKeySet
//
// The runtime keys an alias key stands for (a runtime key stands for itself):
//   Autograd                  → every AutogradX
//   CompositeExplicitAutograd → every backend (Dense) key
//   CompositeImplicitAutograd → both of the above
DispatchKeySet getRuntimeDispatchKeySet(DispatchKey k);

// c10::runtimeDispatchKeySetHas
//
// True if registering for `alias` covers runtime key `k`.
bool runtimeDispatchKeySetHas(DispatchKey alias, DispatchKey k);

// c10::getAutogradKeyFromBackend (CPUBit → AutogradCPU)
//
// Throws c10::Error for InvalidBit.
DispatchKey getAutogradKeyFromBackend(BackendComponent b);

// c10::getAutogradRelatedKeySetFromBackend
//
// The keys every tensor of backend `b` carries besides its backend key:
// {AutogradX, ADInplaceOrView}; empty for InvalidBit. Inline: every new
// tensor computes it.
constexpr DispatchKeySet getAutogradRelatedKeySetFromBackend(BackendComponent b) {
  return b == BackendComponent::InvalidBit
             ? DispatchKeySet()
             : DispatchKeySet(toRuntimePerBackendFunctionalityKey(
                   DispatchKey::AutogradFunctionality, b)) |
                   DispatchKeySet(DispatchKey::ADInplaceOrView);
}

}  // namespace c10

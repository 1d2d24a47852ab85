// c10/core/impl/LocalDispatchKeySet.h — per-thread included/excluded keys.
//
// The key set of a call is the union of its tensor arguments' key sets, plus
// the thread's included set, minus its excluded set. The guards below change
// those sets for a scope:
//
//   {
//     at::AutoDispatchBelowAutograd guard;  // skip Autograd kernels here
//     return at::redispatch::add(…);
//   }
//
// Reading the sets is one thread-local load of two words.
#pragma once

#include <cstdint>

#include "c10/core/DispatchKeySet.h"

namespace c10 {
namespace impl {

// c10::impl::PODLocalDispatchKeySet
//
// The raw thread-local state: zero-initialised means "nothing included,
// nothing excluded", so a new thread needs no set-up.
struct PODLocalDispatchKeySet {
  uint64_t included_;
  uint64_t excluded_;

  DispatchKeySet included() const {
    return DispatchKeySet(DispatchKeySet::RAW, included_);
  }
  DispatchKeySet excluded() const {
    return DispatchKeySet(DispatchKeySet::RAW, excluded_);
  }
  void set_included(DispatchKeySet ks) { included_ = ks.raw_repr(); }
  void set_excluded(DispatchKeySet ks) { excluded_ = ks.raw_repr(); }
};
static_assert(sizeof(PODLocalDispatchKeySet) == 16,
              "the thread-local state is two words");

// c10::impl::LocalDispatchKeySet
//
// A snapshot of the calling thread's sets.
struct LocalDispatchKeySet {
  /* implicit */ LocalDispatchKeySet(PODLocalDispatchKeySet x)
      : included_(x.included()), excluded_(x.excluded()) {}
  DispatchKeySet included_;
  DispatchKeySet excluded_;
};

// c10::impl::tls_local_dispatch_key_set
//
// The calling thread's sets. Cheap: see Note [TLS model of the key sets].
LocalDispatchKeySet tls_local_dispatch_key_set();

// c10::impl::raw_local_dispatch_key_set
//
// The calling thread's state itself, for the dispatcher's hot path and for
// the guards.
PODLocalDispatchKeySet& raw_local_dispatch_key_set();

// c10::impl::_force_tls_local_dispatch_key_set
//
// Replaces the calling thread's sets, e.g. to carry them to a worker thread.
void _force_tls_local_dispatch_key_set(LocalDispatchKeySet key_set);

// c10::impl::IncludeDispatchKeyGuard
//
// Adds keys to the thread's included set for the guard's lifetime, then
// removes exactly the ones it added. Not copyable; use on one thread.
class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet include);
  explicit IncludeDispatchKeyGuard(DispatchKey k)
      : IncludeDispatchKeyGuard(DispatchKeySet(k)) {}
  ~IncludeDispatchKeyGuard();
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  PODLocalDispatchKeySet* tls_;
  uint64_t added_;  // the bits this guard set that were not set before
};

// c10::impl::ExcludeDispatchKeyGuard
//
// Adds keys to the thread's excluded set for the guard's lifetime, then
// removes exactly the ones it added.
class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet exclude);
  explicit ExcludeDispatchKeyGuard(DispatchKey k)
      : ExcludeDispatchKeyGuard(DispatchKeySet(k)) {}
  ~ExcludeDispatchKeyGuard();
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  PODLocalDispatchKeySet* tls_;
  uint64_t added_;
};

// c10::impl::tls_is_dispatch_key_excluded / included
bool tls_is_dispatch_key_excluded(DispatchKey k);
bool tls_is_dispatch_key_included(DispatchKey k);

}  // namespace impl
}  // namespace c10

namespace at {

// at::AutoDispatchBelowAutograd
//
// Excludes every Autograd key for the scope, so calls go straight to the
// kernels below autograd (ADInplaceOrView, then the backend). What an
// Autograd kernel uses before redispatching.
class AutoDispatchBelowAutograd {
 public:
  AutoDispatchBelowAutograd() : guard_(c10::autograd_dispatch_keyset) {}

 private:
  c10::impl::ExcludeDispatchKeyGuard guard_;
};

// at::AutoDispatchBelowADInplaceOrView
//
// Excludes Autograd and ADInplaceOrView: calls go straight to the backend.
class AutoDispatchBelowADInplaceOrView {
 public:
  AutoDispatchBelowADInplaceOrView()
      : guard_(c10::autograd_dispatch_keyset_with_ADInplaceOrView) {}

 private:
  c10::impl::ExcludeDispatchKeyGuard guard_;
};

}  // namespace at

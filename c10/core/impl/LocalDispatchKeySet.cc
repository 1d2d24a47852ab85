#include "c10/core/impl/LocalDispatchKeySet.h"

namespace c10 {
namespace impl {
namespace {

// Note [TLS model of the key sets]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The state is plain data, zero-initialised, so no TLS wrapper or guard
// variable is needed. The core's thread_locals keep the default (dynamic)
// TLS model, accessed through TLS descriptors (-mtls-dialect=gnu2, set for
// every core library in bazel/defs.bzl): since the core is loaded at
// program start, a descriptor resolves to a constant offset and an access
// costs a call to a two-instruction resolver. The initial-exec model would
// save that call, but GNU ld 2.40 (Debian 12) emits wrong TPOFF64
// relocations for local initial-exec variables of a shared object once
// several objects contribute TLS (each such variable then aliases offset 0
// of the core's TLS block), so it is not used.
thread_local PODLocalDispatchKeySet tls_key_sets{0, 0};

}  // namespace

LocalDispatchKeySet tls_local_dispatch_key_set() { return tls_key_sets; }

PODLocalDispatchKeySet& raw_local_dispatch_key_set() { return tls_key_sets; }

void _force_tls_local_dispatch_key_set(LocalDispatchKeySet key_set) {
  tls_key_sets.set_included(key_set.included_);
  tls_key_sets.set_excluded(key_set.excluded_);
}

IncludeDispatchKeyGuard::IncludeDispatchKeyGuard(DispatchKeySet include)
    : tls_(&tls_key_sets),
      added_(include.raw_repr() & ~tls_key_sets.included_) {
  tls_->included_ |= added_;
}

IncludeDispatchKeyGuard::~IncludeDispatchKeyGuard() {
  tls_->included_ &= ~added_;
}

ExcludeDispatchKeyGuard::ExcludeDispatchKeyGuard(DispatchKeySet exclude)
    : tls_(&tls_key_sets),
      added_(exclude.raw_repr() & ~tls_key_sets.excluded_) {
  tls_->excluded_ |= added_;
}

ExcludeDispatchKeyGuard::~ExcludeDispatchKeyGuard() {
  tls_->excluded_ &= ~added_;
}

bool tls_is_dispatch_key_excluded(DispatchKey k) {
  return tls_key_sets.excluded().has(k);
}

bool tls_is_dispatch_key_included(DispatchKey k) {
  return tls_key_sets.included().has(k);
}

}  // namespace impl
}  // namespace c10

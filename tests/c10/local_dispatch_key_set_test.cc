#include <gtest/gtest.h>

#include <thread>

#include "c10/core/impl/LocalDispatchKeySet.h"

using c10::DispatchKey;
using c10::DispatchKeySet;
using c10::impl::tls_local_dispatch_key_set;

namespace {

TEST(LocalDispatchKeySet, StartsEmptyOnEveryThread) {
  EXPECT_TRUE(tls_local_dispatch_key_set().included_.empty());
  EXPECT_TRUE(tls_local_dispatch_key_set().excluded_.empty());
  std::thread([] {
    EXPECT_TRUE(tls_local_dispatch_key_set().included_.empty());
    EXPECT_TRUE(tls_local_dispatch_key_set().excluded_.empty());
  }).join();
}

TEST(LocalDispatchKeySet, IncludeGuardAddsAndRestores) {
  {
    c10::impl::IncludeDispatchKeyGuard g(DispatchKey::BackendSelect);
    EXPECT_TRUE(c10::impl::tls_is_dispatch_key_included(DispatchKey::BackendSelect));
    {
      // Nested guard for a key already included: leaving it must not remove
      // the outer guard's key.
      c10::impl::IncludeDispatchKeyGuard inner(DispatchKey::BackendSelect);
    }
    EXPECT_TRUE(c10::impl::tls_is_dispatch_key_included(DispatchKey::BackendSelect));
  }
  EXPECT_FALSE(c10::impl::tls_is_dispatch_key_included(DispatchKey::BackendSelect));
}

TEST(LocalDispatchKeySet, ExcludeGuardAddsAndRestores) {
  {
    at::AutoDispatchBelowAutograd below;
    EXPECT_TRUE(c10::impl::tls_is_dispatch_key_excluded(DispatchKey::AutogradCPU));
    EXPECT_TRUE(c10::impl::tls_is_dispatch_key_excluded(DispatchKey::AutogradCUDA));
    EXPECT_FALSE(c10::impl::tls_is_dispatch_key_excluded(DispatchKey::CPU));
    EXPECT_FALSE(c10::impl::tls_is_dispatch_key_excluded(DispatchKey::ADInplaceOrView));
    {
      at::AutoDispatchBelowADInplaceOrView below_view;
      EXPECT_TRUE(c10::impl::tls_is_dispatch_key_excluded(DispatchKey::ADInplaceOrView));
    }
    EXPECT_FALSE(c10::impl::tls_is_dispatch_key_excluded(DispatchKey::ADInplaceOrView));
    EXPECT_TRUE(c10::impl::tls_is_dispatch_key_excluded(DispatchKey::AutogradCPU));
  }
  EXPECT_TRUE(tls_local_dispatch_key_set().excluded_.empty());
}

TEST(LocalDispatchKeySet, ComputesTheKeySetOfACall) {
  // The rule the dispatcher applies: tensor keys | included - excluded.
  const DispatchKeySet tensor =
      DispatchKeySet(DispatchKey::CPU) |
      c10::getAutogradRelatedKeySetFromBackend(c10::BackendComponent::CPUBit);
  auto call_keys = [&] {
    const auto local = tls_local_dispatch_key_set();
    return ((tensor | local.included_) - local.excluded_).highestPriorityTypeId();
  };
  EXPECT_EQ(call_keys(), DispatchKey::AutogradCPU);
  {
    at::AutoDispatchBelowADInplaceOrView g;
    EXPECT_EQ(call_keys(), DispatchKey::CPU);
  }
  {
    c10::impl::IncludeDispatchKeyGuard g(DispatchKey::BackendSelect);
    EXPECT_EQ(call_keys(), DispatchKey::AutogradCPU);
    at::AutoDispatchBelowADInplaceOrView below;
    EXPECT_EQ(call_keys(), DispatchKey::BackendSelect);
  }
}

TEST(LocalDispatchKeySet, GuardsOnOneThreadDoNotLeakToAnother) {
  at::AutoDispatchBelowAutograd below;
  std::thread([] {
    EXPECT_FALSE(c10::impl::tls_is_dispatch_key_excluded(DispatchKey::AutogradCPU));
  }).join();
}

TEST(LocalDispatchKeySet, ForceReplacesTheThreadState) {
  const auto saved = tls_local_dispatch_key_set();
  c10::impl::PODLocalDispatchKeySet pod{};
  pod.set_included(DispatchKeySet(DispatchKey::BackendSelect));
  pod.set_excluded(DispatchKeySet(DispatchKey::ADInplaceOrView));
  c10::impl::_force_tls_local_dispatch_key_set(pod);
  EXPECT_TRUE(c10::impl::tls_is_dispatch_key_included(DispatchKey::BackendSelect));
  EXPECT_TRUE(c10::impl::tls_is_dispatch_key_excluded(DispatchKey::ADInplaceOrView));
  c10::impl::_force_tls_local_dispatch_key_set(saved);
  EXPECT_TRUE(tls_local_dispatch_key_set().included_.empty());
}

}  // namespace

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <vector>

#include "c10/core/DispatchKeySet.h"
#include "c10/util/Exception.h"

using c10::BackendComponent;
using c10::DispatchKey;
using c10::DispatchKeySet;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

std::vector<DispatchKey> keysOf(DispatchKeySet ks) {
  return std::vector<DispatchKey>(ks.begin(), ks.end());
}

TEST(DispatchKey, NamesRoundTripThroughParse) {
  for (int i = 0; i < c10::kNumDispatchKeys; ++i) {
    const auto k = static_cast<DispatchKey>(i);
    EXPECT_EQ(c10::parseDispatchKey(c10::toString(k)), k) << c10::toString(k);
  }
  std::ostringstream os;
  os << DispatchKey::AutogradCUDA << " " << BackendComponent::CPUBit;
  EXPECT_EQ(os.str(), "AutogradCUDA CPUBit");
}

TEST(DispatchKey, UnknownNameListsValidOnes) {
  try {
    c10::parseDispatchKey("Cpu");
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(),
                HasSubstr("unknown dispatch key \"Cpu\"; expected one of: "
                          "Undefined, Dense"));
    EXPECT_THAT(e.what_without_backtrace(), HasSubstr("CompositeImplicitAutograd"));
  }
}

TEST(DispatchKey, RuntimeKeysSplitIntoFunctionalityAndBackend) {
  EXPECT_EQ(c10::toFunctionalityKey(DispatchKey::CUDA), DispatchKey::Dense);
  EXPECT_EQ(c10::toFunctionalityKey(DispatchKey::AutogradPrivateUse1),
            DispatchKey::AutogradFunctionality);
  EXPECT_EQ(c10::toFunctionalityKey(DispatchKey::BackendSelect),
            DispatchKey::BackendSelect);
  EXPECT_EQ(c10::toFunctionalityKey(DispatchKey::Autograd), DispatchKey::Undefined);
  EXPECT_EQ(c10::toBackendComponent(DispatchKey::AutogradCUDA), BackendComponent::CUDABit);
  EXPECT_EQ(c10::toBackendComponent(DispatchKey::PrivateUse1),
            BackendComponent::PrivateUse1Bit);
  EXPECT_EQ(c10::toBackendComponent(DispatchKey::Dense), BackendComponent::InvalidBit);
  EXPECT_EQ(c10::toRuntimePerBackendFunctionalityKey(DispatchKey::Dense,
                                                     BackendComponent::CUDABit),
            DispatchKey::CUDA);
  EXPECT_EQ(c10::toRuntimePerBackendFunctionalityKey(
                DispatchKey::AutogradFunctionality, BackendComponent::CPUBit),
            DispatchKey::AutogradCPU);
  EXPECT_EQ(c10::computeDispatchKey(c10::kPrivateUse1), DispatchKey::PrivateUse1);
  EXPECT_EQ(c10::backendComponentToDeviceType(BackendComponent::CUDABit), c10::kCUDA);
  EXPECT_TRUE(c10::isAliasDispatchKey(DispatchKey::CompositeExplicitAutograd));
  EXPECT_FALSE(c10::isAliasDispatchKey(DispatchKey::AutogradCPU));
}

TEST(DispatchKeySet, AddRemoveHas) {
  DispatchKeySet ks;
  EXPECT_TRUE(ks.empty());
  ks = ks.add(DispatchKey::CPU);
  EXPECT_TRUE(ks.has(DispatchKey::CPU));
  EXPECT_FALSE(ks.has(DispatchKey::CUDA));
  EXPECT_FALSE(ks.has(DispatchKey::AutogradCPU));
  EXPECT_TRUE(ks.has_backend(BackendComponent::CPUBit));
  ks = ks.add(DispatchKey::AutogradCPU).add(DispatchKey::ADInplaceOrView);
  EXPECT_TRUE(ks.has(DispatchKey::AutogradCPU));
  EXPECT_TRUE(ks.has(DispatchKey::ADInplaceOrView));
  // Removing a per-backend key drops its functionality and keeps the backend
  // bit that CPU still needs.
  ks = ks.remove(DispatchKey::AutogradCPU);
  EXPECT_FALSE(ks.has(DispatchKey::AutogradCPU));
  EXPECT_TRUE(ks.has(DispatchKey::CPU));
  EXPECT_FALSE(ks.has(DispatchKey::Undefined));
  EXPECT_FALSE(ks.has(DispatchKey::Autograd));  // alias keys are never members
  EXPECT_TRUE(DispatchKeySet(DispatchKey::Autograd).empty());
}

TEST(DispatchKeySet, SetOperations) {
  const DispatchKeySet cpu(DispatchKey::CPU);
  const DispatchKeySet acpu(DispatchKey::AutogradCPU);
  const DispatchKeySet both = cpu | acpu;
  EXPECT_EQ(both & cpu, cpu);
  EXPECT_TRUE(both.has_all(cpu));
  EXPECT_TRUE(both.isSupersetOf(acpu));
  EXPECT_FALSE(cpu.isSupersetOf(both));
  EXPECT_TRUE(both.has_any(DispatchKeySet(DispatchKey::AutogradCUDA) |
                           DispatchKeySet(DispatchKey::AutogradCPU)));
  EXPECT_FALSE(cpu.has_any(DispatchKeySet(DispatchKey::BackendSelect)));
  EXPECT_FALSE(cpu.has_any(DispatchKeySet()));
  EXPECT_EQ((both - acpu), cpu);
  EXPECT_EQ((both ^ acpu).raw_repr(), (both.raw_repr() ^ acpu.raw_repr()));
  EXPECT_EQ(DispatchKeySet(DispatchKeySet::FULL).raw_repr(), DispatchKeySet::kAllBits);
  EXPECT_EQ(DispatchKeySet(DispatchKeySet::RAW, ~uint64_t{0}).raw_repr(),
            DispatchKeySet::kAllBits);
}

TEST(DispatchKeySet, HighestPriorityIsHighestFunctionalityOnHighestBackend) {
  EXPECT_EQ(DispatchKeySet().highestPriorityTypeId(), DispatchKey::Undefined);
  const DispatchKeySet tensor = DispatchKeySet(DispatchKey::CPU) |
                                c10::getAutogradRelatedKeySetFromBackend(
                                    BackendComponent::CPUBit);
  EXPECT_EQ(tensor.highestPriorityTypeId(), DispatchKey::AutogradCPU);
  EXPECT_EQ((tensor - c10::autograd_dispatch_keyset).highestPriorityTypeId(),
            DispatchKey::ADInplaceOrView);
  EXPECT_EQ((tensor - c10::autograd_dispatch_keyset_with_ADInplaceOrView)
                .highestPriorityTypeId(),
            DispatchKey::CPU);
  const DispatchKeySet mixed =
      DispatchKeySet(DispatchKey::CPU) | DispatchKeySet(DispatchKey::CUDA);
  EXPECT_EQ(mixed.highestPriorityTypeId(), DispatchKey::CUDA);
  EXPECT_EQ((mixed | DispatchKeySet(DispatchKey::BackendSelect)).highestPriorityTypeId(),
            DispatchKey::BackendSelect);
  EXPECT_EQ(DispatchKeySet(DispatchKey::Dense).highestPriorityTypeId(),
            DispatchKey::Undefined);  // a functionality with no backend
}

TEST(DispatchKeySet, IteratesRuntimeKeysLowestPriorityFirst) {
  const DispatchKeySet ks = DispatchKeySet(DispatchKey::CPU) |
                            DispatchKeySet(DispatchKey::CUDA) |
                            DispatchKeySet(DispatchKey::BackendSelect) |
                            DispatchKeySet(DispatchKey::AutogradCUDA);
  // A key set is a cross product of functionalities and backends.
  EXPECT_THAT(keysOf(ks),
              ElementsAre(DispatchKey::CPU, DispatchKey::CUDA,
                          DispatchKey::BackendSelect, DispatchKey::AutogradCPU,
                          DispatchKey::AutogradCUDA));
  EXPECT_EQ(ks.size(), 5);
  EXPECT_TRUE(keysOf(DispatchKeySet()).empty());
  EXPECT_TRUE(keysOf(DispatchKeySet(BackendComponent::CPUBit)).empty());
  EXPECT_THAT(keysOf(DispatchKeySet(DispatchKey::ADInplaceOrView)),
              ElementsAre(DispatchKey::ADInplaceOrView));
}

TEST(DispatchKeySet, PrintsItsKeys) {
  std::ostringstream os;
  os << (DispatchKeySet(DispatchKey::CPU) | DispatchKeySet(DispatchKey::AutogradCPU));
  EXPECT_EQ(os.str(), "DispatchKeySet(CPU, AutogradCPU)");
  EXPECT_EQ(c10::toString(DispatchKeySet()), "DispatchKeySet()");
}

TEST(DispatchKeySet, TableIndicesAreDenseAndInvertible) {
  std::set<int> seen;
  for (int i = 1; i < c10::kNumDispatchKeys; ++i) {
    const auto k = static_cast<DispatchKey>(i);
    if (c10::isAliasDispatchKey(k) || c10::isPerBackendFunctionalityKey(k)) continue;
    const int index = c10::getDispatchTableIndexForDispatchKey(k);
    EXPECT_GT(index, 0) << k;
    EXPECT_LT(index, DispatchKeySet::kDispatchTableSize) << k;
    EXPECT_TRUE(seen.insert(index).second) << "slot reused by " << k;
    EXPECT_EQ(c10::dispatchKeyForTableIndex(index), k);
  }
  EXPECT_EQ(static_cast<int>(seen.size()), DispatchKeySet::kDispatchTableSize - 1);
  // The index of a set is that of its highest-priority key.
  const DispatchKeySet ks = DispatchKeySet(DispatchKey::CUDA) |
                            DispatchKeySet(DispatchKey::AutogradCUDA);
  EXPECT_EQ(ks.getDispatchTableIndexForDispatchKeySet(),
            c10::getDispatchTableIndexForDispatchKey(DispatchKey::AutogradCUDA));
  EXPECT_EQ(DispatchKeySet().getDispatchTableIndexForDispatchKeySet(), 0);
}

TEST(DispatchKeySet, AliasKeysHaveNoTableSlot) {
  try {
    c10::getDispatchTableIndexForDispatchKey(DispatchKey::Autograd);
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(),
                HasSubstr("Autograd is an alias key and has no table slot"));
  }
  EXPECT_THROW(c10::dispatchKeyForTableIndex(DispatchKeySet::kDispatchTableSize),
               c10::Error);
}

TEST(DispatchKeySet, AliasKeysExpandToRuntimeKeys) {
  using c10::runtimeDispatchKeySetHas;
  EXPECT_TRUE(runtimeDispatchKeySetHas(DispatchKey::Autograd, DispatchKey::AutogradCUDA));
  EXPECT_FALSE(runtimeDispatchKeySetHas(DispatchKey::Autograd, DispatchKey::CPU));
  EXPECT_TRUE(runtimeDispatchKeySetHas(DispatchKey::CompositeExplicitAutograd,
                                       DispatchKey::PrivateUse1));
  EXPECT_FALSE(runtimeDispatchKeySetHas(DispatchKey::CompositeExplicitAutograd,
                                        DispatchKey::AutogradCPU));
  for (DispatchKey k : {DispatchKey::CPU, DispatchKey::CUDA, DispatchKey::AutogradCPU,
                        DispatchKey::AutogradPrivateUse1}) {
    EXPECT_TRUE(runtimeDispatchKeySetHas(DispatchKey::CompositeImplicitAutograd, k)) << k;
  }
  EXPECT_FALSE(runtimeDispatchKeySetHas(DispatchKey::CompositeImplicitAutograd,
                                        DispatchKey::BackendSelect));
  EXPECT_TRUE(runtimeDispatchKeySetHas(DispatchKey::CPU, DispatchKey::CPU));
  EXPECT_FALSE(runtimeDispatchKeySetHas(DispatchKey::CPU, DispatchKey::Undefined));
  EXPECT_EQ(c10::getAutogradKeyFromBackend(BackendComponent::PrivateUse1Bit),
            DispatchKey::AutogradPrivateUse1);
  EXPECT_THROW(c10::getAutogradKeyFromBackend(BackendComponent::InvalidBit), c10::Error);
}

static_assert(DispatchKeySet(DispatchKey::CPU).has(DispatchKey::CPU),
              "key set operations are usable in constant expressions");

}  // namespace

// Costs that bound every tiny op: making a tensor, copying a handle, reading
// the thread-local dispatch state.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>

#include "c10/core/CPUAllocator.h"
#include "c10/core/TensorImpl.h"
#include "c10/core/impl/LocalDispatchKeySet.h"

namespace {

// Goal (DESIGN.md, issue 2): <= 60 ns for a 1-element float tensor with its
// storage, created and destroyed.
void BM_TensorImplCreateDestroy1Element(benchmark::State& state) {
  c10::Allocator* alloc = c10::GetCPUAllocator();
  const c10::DispatchKeySet keys(c10::DispatchKey::CPU);
  for (auto _ : state) {
    auto t = c10::make_intrusive<c10::TensorImpl>(
        c10::Storage(c10::make_intrusive<c10::StorageImpl>(
            c10::StorageImpl::use_byte_size_t(), sizeof(float), alloc,
            /*resizable=*/true)),
        keys, c10::kFloat);
    t->set_sizes_contiguous({1});
    benchmark::DoNotOptimize(t.get());
  }
}
BENCHMARK(BM_TensorImplCreateDestroy1Element);

void BM_CPUAllocateFree4Bytes(benchmark::State& state) {
  c10::Allocator* alloc = c10::GetCPUAllocator();
  for (auto _ : state) {
    c10::DataPtr p = alloc->allocate(4);
    benchmark::DoNotOptimize(p.get());
  }
}
BENCHMARK(BM_CPUAllocateFree4Bytes);

void BM_IntrusivePtrCopy(benchmark::State& state) {
  auto storage = c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), 4, c10::GetCPUAllocator(), true);
  for (auto _ : state) {
    c10::intrusive_ptr<c10::StorageImpl> copy = storage;
    benchmark::DoNotOptimize(copy.get());
  }
}
BENCHMARK(BM_IntrusivePtrCopy);

void BM_ReadLocalDispatchKeySet(benchmark::State& state) {
  for (auto _ : state) {
    auto local = c10::impl::tls_local_dispatch_key_set();
    benchmark::DoNotOptimize(local.included_);
    benchmark::DoNotOptimize(local.excluded_);
  }
}
BENCHMARK(BM_ReadLocalDispatchKeySet);

void BM_ExcludeGuardEnterExit(benchmark::State& state) {
  for (auto _ : state) {
    at::AutoDispatchBelowAutograd guard;
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_ExcludeGuardEnterExit);

void BM_HighestPriorityKey(benchmark::State& state) {
  c10::DispatchKeySet ks = c10::DispatchKeySet(c10::DispatchKey::CPU) |
                           c10::getAutogradRelatedKeySetFromBackend(
                               c10::BackendComponent::CPUBit);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ks);
    auto local = c10::impl::tls_local_dispatch_key_set();
    int index = ((ks | local.included_) - local.excluded_)
                    .getDispatchTableIndexForDispatchKeySet();
    benchmark::DoNotOptimize(index);
  }
}
BENCHMARK(BM_HighestPriorityKey);

// Anchors, measured in the same run so that figures can be reported as
// ratios on a noisy shared machine: the floor any heap object pays.
void BM_AnchorMallocFree64(benchmark::State& state) {
  for (auto _ : state) {
    void* p = std::malloc(64);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}
BENCHMARK(BM_AnchorMallocFree64);

void BM_AnchorSharedPtrCreateDestroy(benchmark::State& state) {
  for (auto _ : state) {
    auto p = std::make_shared<int64_t>(1);
    benchmark::DoNotOptimize(p.get());
  }
}
BENCHMARK(BM_AnchorSharedPtrCreateDestroy);

}  // namespace

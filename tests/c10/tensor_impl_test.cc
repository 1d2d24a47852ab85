#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "c10/core/CPUAllocator.h"
#include "c10/core/TensorImpl.h"

#include "tests/support/error_of.h"

using c10::DispatchKey;
using c10::DispatchKeySet;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

using ember_test::errorOf;

c10::Storage cpuStorage(size_t nbytes) {
  return c10::Storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), nbytes, c10::GetCPUAllocator(),
      /*resizable=*/true));
}

c10::intrusive_ptr<c10::TensorImpl> cpuTensor(std::vector<int64_t> sizes,
                                              c10::ScalarType dtype = c10::kFloat) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  auto t = c10::make_intrusive<c10::TensorImpl>(
      cpuStorage(static_cast<size_t>(numel) * c10::elementSize(dtype)),
      DispatchKeySet(DispatchKey::CPU), dtype);
  t->set_sizes_contiguous(sizes);
  return t;
}

TEST(TensorImpl, NewTensorIsZeroDimWithOneElement) {
  auto t = c10::make_intrusive<c10::TensorImpl>(
      cpuStorage(4), DispatchKeySet(DispatchKey::CPU), c10::kFloat);
  EXPECT_EQ(t->dim(), 0);
  EXPECT_EQ(t->numel(), 1);
  EXPECT_TRUE(t->is_contiguous());
  EXPECT_TRUE(t->sizes().empty());
  EXPECT_EQ(t->device(), c10::Device(c10::kCPU));
  EXPECT_EQ(t->itemsize(), 4u);
  EXPECT_EQ(t->data(), t->storage().data());
}

TEST(TensorImpl, CarriesAutogradKeysOfItsBackend) {
  auto t = cpuTensor({2});
  EXPECT_TRUE(t->key_set().has(DispatchKey::CPU));
  EXPECT_TRUE(t->key_set().has(DispatchKey::AutogradCPU));
  EXPECT_TRUE(t->key_set().has(DispatchKey::ADInplaceOrView));
  EXPECT_FALSE(t->key_set().has(DispatchKey::CUDA));
  EXPECT_EQ(t->key_set().highestPriorityTypeId(), DispatchKey::AutogradCPU);
}

TEST(TensorImpl, ContiguousSizesGetRowMajorStrides) {
  auto t = cpuTensor({2, 3, 4});
  EXPECT_THAT(t->sizes().vec(), ElementsAre(2, 3, 4));
  EXPECT_THAT(t->strides().vec(), ElementsAre(12, 4, 1));
  EXPECT_EQ(t->numel(), 24);
  EXPECT_EQ(t->size(-1), 4);
  EXPECT_EQ(t->stride(0), 12);
  EXPECT_TRUE(t->is_contiguous());
  t->set_sizes_contiguous({3, 0, 2});
  EXPECT_THAT(t->strides().vec(), ElementsAre(2, 2, 1));
  EXPECT_EQ(t->numel(), 0);
}

TEST(TensorImpl, ContiguityIsRecomputedWhenStridesChange) {
  auto t = cpuTensor({2, 3});
  t->set_sizes_and_strides({3, 2}, {1, 3});  // a transpose
  EXPECT_FALSE(t->is_contiguous());
  EXPECT_EQ(t->numel(), 6);
  t->set_sizes_and_strides({2, 3}, {3, 1});
  EXPECT_TRUE(t->is_contiguous());
  // Strides of size-1 dimensions do not matter.
  t->set_sizes_and_strides({1, 3}, {99, 1});
  EXPECT_TRUE(t->is_contiguous());
  // Broadcast (stride 0) is not contiguous.
  t->set_sizes_and_strides({4, 3}, {0, 1});
  EXPECT_FALSE(t->is_contiguous());
  // No elements: contiguous whatever the strides.
  t->set_sizes_and_strides({0, 3}, {1, 7});
  EXPECT_TRUE(t->is_contiguous());
}

TEST(TensorImpl, ManyDimensionsSpillToTheHeapAndBack) {
  auto t = cpuTensor({2});
  std::vector<int64_t> sizes{1, 2, 1, 2, 1, 2, 1, 2};
  t->set_sizes_contiguous(sizes);
  EXPECT_EQ(t->dim(), 8);
  EXPECT_EQ(t->numel(), 16);
  EXPECT_THAT(t->strides().vec(), ElementsAre(16, 8, 8, 4, 4, 2, 2, 1));
  t->set_sizes_and_strides({2, 2, 2, 2, 2, 2}, {32, 16, 8, 4, 2, 1});
  EXPECT_EQ(t->numel(), 64);
  t->set_sizes_contiguous({5, 3});
  EXPECT_THAT(t->sizes().vec(), ElementsAre(5, 3));
  EXPECT_THAT(t->strides().vec(), ElementsAre(3, 1));
  c10::impl::SizesAndStrides a;
  a.resize(7);
  for (size_t i = 0; i < 7; ++i) {
    a.sizes_data()[i] = static_cast<int64_t>(i);
    a.strides_data()[i] = static_cast<int64_t>(10 * i);
  }
  c10::impl::SizesAndStrides b(a);
  a.resize(3);  // keeps the leading dims
  EXPECT_EQ(a.sizes_data()[2], 2);
  EXPECT_EQ(a.strides_data()[2], 20);
  EXPECT_EQ(b.size(), 7u);
  EXPECT_EQ(b.strides_data()[6], 60);
  b = a;
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.strides_data()[1], 10);
}

TEST(TensorImpl, DataAccountsForStorageOffset) {
  auto t = cpuTensor({4}, c10::kDouble);
  t->set_storage_offset(2);
  EXPECT_EQ(static_cast<char*>(t->data()),
            static_cast<char*>(t->storage().data()) + 2 * sizeof(double));
  t->set_sizes_and_strides({1}, {1}, 3);
  EXPECT_EQ(t->storage_offset(), 3);
}

TEST(TensorImpl, BadShapesAreRejectedWithClearMessages) {
  auto t = cpuTensor({2, 3});
  EXPECT_THAT(errorOf([&] { t->set_sizes_contiguous({2, -1}); }),
              HasSubstr("sizes must be non-negative, but got [2, -1]"));
  EXPECT_THAT(errorOf([&] { t->set_sizes_and_strides({2, 3}, {1}); }),
              HasSubstr("got 2 sizes [2, 3] but 1 strides [1]"));
  EXPECT_THAT(errorOf([&] { t->set_sizes_and_strides({2}, {-1}); }),
              HasSubstr("strides must be non-negative, but got [-1]"));
  EXPECT_THAT(errorOf([&] { t->set_storage_offset(-1); }),
              HasSubstr("offset must be non-negative, but got -1"));
  EXPECT_THAT(errorOf([&] { t->size(2); }),
              HasSubstr("dimension 2 is out of range for a 2-d tensor; expected a "
                        "dimension in [-2, 1]"));
  EXPECT_THROW(t->stride(-3), c10::IndexError);
  EXPECT_THAT(errorOf([&] { t->set_wrapped_number(true); }),
              HasSubstr("only a 0-dim tensor can be a wrapped number"));
}

TEST(TensorImpl, KeySetMustMatchTheStorageDevice) {
  EXPECT_THAT(errorOf([] {
                c10::TensorImpl(cpuStorage(4), DispatchKeySet(DispatchKey::CUDA),
                                c10::kFloat);
              }),
              HasSubstr("is for device type cuda but the storage is on cpu; pass "
                        "DispatchKeySet(DispatchKey::CPU)"));
  EXPECT_THAT(errorOf([] {
                c10::TensorImpl(cpuStorage(4), DispatchKeySet(DispatchKey::BackendSelect),
                                c10::kFloat);
              }),
              HasSubstr("names no backend"));
  EXPECT_THAT(errorOf([] {
                c10::TensorImpl(c10::Storage(), DispatchKeySet(DispatchKey::CPU),
                                c10::kFloat);
              }),
              HasSubstr("the storage is undefined"));
}

TEST(TensorImpl, VersionCounterIsSharedByViewsAndBumped) {
  auto base = cpuTensor({4});
  EXPECT_EQ(base->version(), 0u);
  base->bump_version();
  EXPECT_EQ(base->version(), 1u);

  auto view = c10::make_intrusive<c10::TensorImpl>(
      c10::Storage(base->storage()), DispatchKeySet(DispatchKey::CPU), c10::kFloat);
  view->set_version_counter(base->version_counter());
  EXPECT_EQ(view->version(), 1u);
  view->bump_version();
  EXPECT_EQ(base->version(), 2u);
  EXPECT_TRUE(view->version_counter().is_same(base->version_counter()));

  // A tensor that is never bumped or viewed reads version 0 and allocates no
  // counter until asked for one.
  auto fresh = cpuTensor({1});
  EXPECT_EQ(fresh->version(), 0u);
  c10::VariableVersion vv = fresh->version_counter();
  EXPECT_EQ(vv.current_version(), 0u);
  EXPECT_FALSE(vv.unique());  // shared by `fresh` and `vv`
}

TEST(TensorImpl, ConcurrentFirstUseCreatesOneVersionCounter) {
  for (int round = 0; round < 50; ++round) {
    auto t = cpuTensor({1});
    std::vector<std::thread> threads;
    std::vector<c10::VariableVersion> seen(4);
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&, i] {
        t->bump_version();
        seen[i] = t->version_counter();
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(t->version(), 4u);
    for (int i = 1; i < 4; ++i) EXPECT_TRUE(seen[i].is_same(seen[0]));
  }
}

TEST(TensorImpl, RequiresGradGoesThroughTheInstalledAutogradFactory) {
  // The core library includes autograd, which installs its factory when
  // the library loads.
  auto t = cpuTensor({1});
  EXPECT_FALSE(t->requires_grad());
  t->set_requires_grad(false);  // no metadata needed
  EXPECT_EQ(t->autograd_meta(), nullptr);
  t->set_requires_grad(true);
  EXPECT_TRUE(t->requires_grad());
  ASSERT_NE(t->autograd_meta(), nullptr);
}

struct FakeMeta : c10::AutogradMetaInterface {
  bool requires_grad_ = false;
  void set_requires_grad(bool r, c10::TensorImpl*) override { requires_grad_ = r; }
  bool requires_grad() const override { return requires_grad_; }
  at::Tensor& mutable_grad() override { throw std::logic_error("unused"); }
  const at::Tensor& grad() const override { throw std::logic_error("unused"); }
};

TEST(TensorImpl, RequiresGradUsesTheInstalledFactory) {
  struct Factory : c10::impl::AutogradMetaFactory {
    std::unique_ptr<c10::AutogradMetaInterface> make() const override {
      made.fetch_add(1);
      return std::make_unique<FakeMeta>();
    }
    mutable std::atomic<int> made{0};
  };
  static Factory factory;
  c10::impl::SetAutogradMetaFactory(&factory);
  auto t = cpuTensor({1});
  t->set_requires_grad(true);
  EXPECT_TRUE(t->requires_grad());
  EXPECT_NE(t->autograd_meta(), nullptr);
  t->set_requires_grad(false);
  EXPECT_FALSE(t->requires_grad());
  EXPECT_EQ(factory.made.load(), 1);
  c10::impl::SetAutogradMetaFactory(nullptr);
}

TEST(TensorImpl, TensorKeepsItsStorageAlive) {
  const auto before = c10::cpu_allocator_stats().bytes_in_use;
  {
    auto t = cpuTensor({16});
    EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use, before + 64);
    c10::Storage s = t->storage();
    t.reset();
    EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use, before + 64);
    EXPECT_EQ(s.nbytes(), 64u);
  }
  EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use, before);
}

TEST(UndefinedTensorImpl, IsOneStorageLessSingleton) {
  c10::TensorImpl* u = c10::UndefinedTensorImpl::singleton();
  EXPECT_EQ(u, c10::UndefinedTensorImpl::singleton());
  EXPECT_FALSE(u->has_storage());
  EXPECT_TRUE(u->key_set().empty());
  EXPECT_EQ(u->scalar_type(), c10::ScalarType::Undefined);
  EXPECT_EQ(u->numel(), 0);
  EXPECT_EQ(u->dim(), 0);
  EXPECT_EQ(u->data(), nullptr);
}

}  // namespace

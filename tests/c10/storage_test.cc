// tests/c10/storage_test.cc — StorageImpl construction, memory ownership and
// the Storage handle.
#include "c10/core/Storage.h"
#include "c10/core/StorageImpl.h"

#include <cstdint>
#include <cstring>

#include "c10/core/CPUAllocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using c10::DataPtr;
using c10::Storage;
using c10::StorageImpl;
using testing::HasSubstr;

int64_t cpu_bytes_in_use() { return c10::cpu_allocator_stats().bytes_in_use; }

TEST(StorageImpl, AllocatingConstructorOwnsAlignedCpuMemory) {
  const int64_t before = cpu_bytes_in_use();
  {
    auto impl = c10::make_intrusive<StorageImpl>(
        StorageImpl::use_byte_size_t(), 24, c10::GetCPUAllocator(),
        /*resizable=*/true);
    EXPECT_EQ(impl->nbytes(), 24u);
    EXPECT_TRUE(impl->resizable());
    EXPECT_EQ(impl->allocator(), c10::GetCPUAllocator());
    EXPECT_EQ(impl->device_type(), c10::kCPU);
    EXPECT_TRUE(impl->device().is_cpu());
    ASSERT_NE(impl->data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(impl->data()) % 64, 0u);
    float* values = impl->data<float>();
    for (int i = 0; i < 6; ++i) values[i] = static_cast<float>(i);
    EXPECT_EQ(impl->unsafe_data<float>()[5], 5.0f);
    EXPECT_EQ(impl->mutable_data(), impl->data());
    EXPECT_EQ(cpu_bytes_in_use(), before + 24);
  }
  EXPECT_EQ(cpu_bytes_in_use(), before);
}

TEST(StorageImpl, ZeroByteStorageHasNullData) {
  StorageImpl impl(StorageImpl::use_byte_size_t(), 0, c10::GetCPUAllocator(),
                   /*resizable=*/false);
  EXPECT_EQ(impl.nbytes(), 0u);
  EXPECT_EQ(impl.data(), nullptr);
  EXPECT_TRUE(impl.device().is_cpu());
}

TEST(StorageImpl, WrapsExternalMemoryAndFreesItOnce) {
  static int deletions = 0;
  deletions = 0;
  alignas(64) static float buffer[4] = {1, 2, 3, 4};
  {
    DataPtr external(buffer, buffer, [](void*) { ++deletions; },
                     c10::Device(c10::kCPU));
    auto impl = c10::make_intrusive<StorageImpl>(
        StorageImpl::use_byte_size_t(), sizeof(buffer), std::move(external),
        /*allocator=*/nullptr, /*resizable=*/false);
    EXPECT_EQ(impl->data<float>()[2], 3.0f);
    EXPECT_EQ(impl->allocator(), nullptr);
  }
  EXPECT_EQ(deletions, 1);
}

TEST(StorageImpl, ResizableWithoutAllocatorIsRejected) {
  try {
    StorageImpl impl(StorageImpl::use_byte_size_t(), 0, DataPtr(),
                     /*allocator=*/nullptr, /*resizable=*/true);
    FAIL() << "a resizable storage without an allocator was accepted";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), HasSubstr("StorageImpl: a resizable storage needs an "
                                   "allocator"));
  }
  StorageImpl fixed(StorageImpl::use_byte_size_t(), 0, DataPtr(), nullptr,
                    /*resizable=*/false);
  EXPECT_THROW(fixed.set_resizable(true), c10::Error);
  EXPECT_FALSE(fixed.resizable());
}

TEST(StorageImpl, AllocatingWithoutAllocatorIsRejected) {
  try {
    StorageImpl impl(StorageImpl::use_byte_size_t(), 16, nullptr, false);
    FAIL() << "allocation without an allocator was accepted";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), HasSubstr("StorageImpl: cannot allocate 16 bytes "
                                   "without an allocator"));
  }
}

TEST(StorageImpl, SetDataPtrReturnsTheOldMemory) {
  StorageImpl impl(StorageImpl::use_byte_size_t(), 8, c10::GetCPUAllocator(),
                   true);
  void* old_data = impl.data();
  DataPtr replacement = c10::GetCPUAllocator()->allocate(32);
  void* new_data = replacement.get();
  DataPtr old = impl.set_data_ptr(std::move(replacement));
  EXPECT_EQ(old.get(), old_data);
  EXPECT_EQ(impl.data(), new_data);
  impl.set_nbytes(32);
  EXPECT_EQ(impl.nbytes(), 32u);

  const int64_t before = cpu_bytes_in_use();
  impl.set_data_ptr_noswap(c10::GetCPUAllocator()->allocate(4));
  EXPECT_EQ(cpu_bytes_in_use(), before - 32 + 4);  // old memory freed at once
  impl.reset();
  EXPECT_EQ(impl.nbytes(), 0u);
  EXPECT_EQ(impl.data(), nullptr);
  EXPECT_EQ(cpu_bytes_in_use(), before - 32);
}

TEST(StorageImpl, MemoryIsFreedWhenLastStrongReferenceGoesDespiteWeakOnes) {
  const int64_t before = cpu_bytes_in_use();
  auto impl = c10::make_intrusive<StorageImpl>(
      StorageImpl::use_byte_size_t(), 1000, c10::GetCPUAllocator(), false);
  c10::weak_intrusive_ptr<StorageImpl> weak(impl);
  EXPECT_EQ(cpu_bytes_in_use(), before + 1000);
  impl.reset();  // release_resources() frees the data now
  EXPECT_EQ(cpu_bytes_in_use(), before);
  EXPECT_TRUE(weak.expired());
}

TEST(Storage, ByteSizeConstructorAllocatesWithTheGivenAllocator) {
  Storage s(Storage::use_byte_size_t(), 64, c10::GetCPUAllocator(), true);
  ASSERT_TRUE(s);
  EXPECT_EQ(s.nbytes(), 64u);
  EXPECT_TRUE(s.resizable());
  EXPECT_EQ(s.device_type(), c10::kCPU);
  EXPECT_TRUE(s.device().is_cpu());
  EXPECT_EQ(s.allocator(), c10::GetCPUAllocator());
  EXPECT_EQ(s.data(), s.unsafeGetStorageImpl()->data());
  EXPECT_EQ(s.data_ptr().get(), s.data());
  std::memset(s.data(), 0, s.nbytes());
  s.data<int32_t>()[15] = 9;
  EXPECT_EQ(s.unsafe_data<int32_t>()[15], 9);
  EXPECT_EQ(s.use_count(), 1u);
  EXPECT_TRUE(s.unique());
}

TEST(Storage, CopiesAliasTheSameImpl) {
  Storage a(Storage::use_byte_size_t(), 16, c10::GetCPUAllocator());
  Storage b = a;
  Storage other(Storage::use_byte_size_t(), 16, c10::GetCPUAllocator());
  EXPECT_TRUE(a.is_alias_of(b));
  EXPECT_FALSE(a.is_alias_of(other));
  EXPECT_EQ(a.use_count(), 2u);
  EXPECT_FALSE(a.unique());
  b.data<char>()[0] = 'x';
  EXPECT_EQ(a.data<char>()[0], 'x');
  EXPECT_EQ(a.getIntrusivePtr().get(), b.unsafeGetStorageImpl());
  auto weak = a.getWeakStorageImpl();
  EXPECT_EQ(weak.lock().get(), a.unsafeGetStorageImpl());
}

TEST(Storage, WrapsADataPtrAndReleasesTheImpl) {
  DataPtr memory = c10::GetCPUAllocator()->allocate(8);
  void* raw = memory.get();
  Storage s(Storage::use_byte_size_t(), 8, std::move(memory));
  EXPECT_EQ(s.data(), raw);
  EXPECT_FALSE(s.resizable());
  StorageImpl* impl = s.unsafeReleaseStorageImpl();
  EXPECT_FALSE(s);
  Storage back(c10::intrusive_ptr<StorageImpl>::reclaim(impl));
  EXPECT_EQ(back.data(), raw);
  EXPECT_EQ(back.use_count(), 1u);
}

TEST(Storage, DefaultConstructedIsUndefined) {
  Storage s;
  EXPECT_FALSE(s);
  EXPECT_EQ(s.unsafeGetStorageImpl(), nullptr);
  EXPECT_EQ(s.use_count(), 0u);
}

}  // namespace

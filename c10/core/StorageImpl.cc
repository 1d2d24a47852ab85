// c10/core/StorageImpl.cc — construction checks of StorageImpl.
#include "c10/core/StorageImpl.h"

#include "c10/core/impl/BlockCache.h"

namespace c10 {

void* StorageImpl::operator new(size_t size) {
  return impl::cached_block_new(impl::BlockKind::StorageImpl, size, sizeof(StorageImpl));
}

void StorageImpl::operator delete(void* block, size_t size) noexcept {
  impl::cached_block_delete(impl::BlockKind::StorageImpl, block, size, sizeof(StorageImpl));
}
namespace {

DataPtr allocate_for_storage(size_t size_bytes, Allocator* allocator) {
  TORCH_CHECK(allocator != nullptr, "StorageImpl: cannot allocate ",
              size_bytes, " bytes without an allocator (got nullptr). Pass "
              "an allocator, e.g. c10::GetAllocator(device_type), or wrap "
              "existing memory with the DataPtr constructor.");
  return allocator->allocate(size_bytes);
}

void check_resizable(bool resizable, const Allocator* allocator,
                     const char* where) {
  TORCH_CHECK(!resizable || allocator != nullptr, where,
              ": a resizable storage needs an allocator to reallocate with, "
              "but the allocator is nullptr. Pass an allocator or make the "
              "storage non-resizable.");
}

}  // namespace

StorageImpl::StorageImpl(use_byte_size_t, size_t size_bytes,
                         DataPtr data_ptr, Allocator* allocator,
                         bool resizable)
    : data_ptr_(std::move(data_ptr)),
      size_bytes_(size_bytes),
      allocator_(allocator),
      resizable_(resizable) {
  check_resizable(resizable, allocator, "StorageImpl");
}

StorageImpl::StorageImpl(use_byte_size_t, size_t size_bytes,
                         Allocator* allocator, bool resizable)
    : StorageImpl(use_byte_size_t(), size_bytes,
                  allocate_for_storage(size_bytes, allocator), allocator,
                  resizable) {}

void StorageImpl::set_resizable(bool resizable) {
  check_resizable(resizable, allocator_, "StorageImpl::set_resizable");
  resizable_ = resizable;
}

}  // namespace c10

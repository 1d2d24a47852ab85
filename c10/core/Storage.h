// c10/core/Storage.h — the shared handle to a StorageImpl.
//
// `c10::Storage` is what a TensorImpl holds: a cheap-to-copy, reference-
// counted handle to one StorageImpl. Copies alias the same memory; the
// memory is freed when the last Storage (or other strong reference) goes.
//
//   c10::Storage s(c10::Storage::use_byte_size_t(), 64,
//                  c10::GetCPUAllocator());
//   c10::Storage view = s;           // same memory: view.is_alias_of(s)
//   s.data<float>()[0] = 1.0f;       // visible through `view`
#pragma once

#include <cstddef>
#include <utility>

#include "c10/core/StorageImpl.h"
#include "c10/util/intrusive_ptr.h"

namespace c10 {

// c10::Storage
//
// A possibly-null handle; copying it copies the reference, not the memory.
// Thread safety is that of intrusive_ptr for the handle and of StorageImpl
// for the buffer.
struct Storage {
 public:
  // Tag selecting the byte-size constructors, as in StorageImpl.
  struct use_byte_size_t {};

  Storage() = default;
  Storage(intrusive_ptr<StorageImpl> ptr) : storage_impl_(std::move(ptr)) {}

  // Allocates `size_bytes` with `allocator` (which must not be null).
  Storage(use_byte_size_t, size_t size_bytes, Allocator* allocator = nullptr,
          bool resizable = false)
      : storage_impl_(make_intrusive<StorageImpl>(
            StorageImpl::use_byte_size_t(), size_bytes, allocator,
            resizable)) {}

  // Wraps existing memory; see the matching StorageImpl constructor.
  Storage(use_byte_size_t, size_t size_bytes, DataPtr data_ptr,
          Allocator* allocator = nullptr, bool resizable = false)
      : storage_impl_(make_intrusive<StorageImpl>(
            StorageImpl::use_byte_size_t(), size_bytes, std::move(data_ptr),
            allocator, resizable)) {}

  // The accessors below require a defined storage (operator bool).
  size_t nbytes() const { return storage_impl_->nbytes(); }
  void set_nbytes(size_t size_bytes) const {
    storage_impl_->set_nbytes(size_bytes);
  }
  bool resizable() const { return storage_impl_->resizable(); }

  void* data() const { return storage_impl_->data(); }
  void* mutable_data() const { return storage_impl_->mutable_data(); }
  template <typename T>
  T* data() const {
    return storage_impl_->data<T>();
  }
  template <typename T>
  T* unsafe_data() const {
    return storage_impl_->unsafe_data<T>();
  }

  DataPtr& data_ptr() { return storage_impl_->data_ptr(); }
  const DataPtr& data_ptr() const { return storage_impl_->data_ptr(); }
  DataPtr& mutable_data_ptr() const {
    return storage_impl_->mutable_data_ptr();
  }
  // Installs new memory and returns the old.
  DataPtr set_data_ptr(DataPtr&& data_ptr) const {
    return storage_impl_->set_data_ptr(std::move(data_ptr));
  }
  void set_data_ptr_noswap(DataPtr&& data_ptr) const {
    storage_impl_->set_data_ptr_noswap(std::move(data_ptr));
  }

  DeviceType device_type() const { return storage_impl_->device_type(); }
  Device device() const { return storage_impl_->device(); }
  Allocator* allocator() const { return storage_impl_->allocator(); }

  StorageImpl* unsafeGetStorageImpl() const noexcept {
    return storage_impl_.get();
  }
  // Gives up this handle's reference; pair with intrusive_ptr::reclaim.
  StorageImpl* unsafeReleaseStorageImpl() { return storage_impl_.release(); }
  const intrusive_ptr<StorageImpl>& getIntrusivePtr() const {
    return storage_impl_;
  }
  weak_intrusive_ptr<StorageImpl> getWeakStorageImpl() const {
    return weak_intrusive_ptr<StorageImpl>(storage_impl_);
  }

  explicit operator bool() const { return static_cast<bool>(storage_impl_); }
  size_t use_count() const { return storage_impl_.use_count(); }
  bool unique() const { return storage_impl_.unique(); }

  // True if both handles refer to the same StorageImpl. Two StorageImpls
  // that separately wrap the same external buffer are not detected.
  bool is_alias_of(const Storage& other) const {
    return storage_impl_ == other.storage_impl_;
  }

  void UniqueStorageShareExternalPointer(DataPtr&& data_ptr,
                                         size_t size_bytes) const {
    storage_impl_->UniqueStorageShareExternalPointer(std::move(data_ptr),
                                                     size_bytes);
  }

 protected:
  intrusive_ptr<StorageImpl> storage_impl_;
};

}  // namespace c10

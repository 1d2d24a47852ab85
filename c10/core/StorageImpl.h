// c10/core/StorageImpl.h — the reference-counted buffer behind tensors.
//
// A StorageImpl is an untyped block of memory (a DataPtr) plus its size in
// bytes and the allocator that can reallocate it. Tensors and all their
// views share one StorageImpl through c10::Storage; sizes, strides and dtype
// live in TensorImpl, not here.
//
//   auto impl = c10::make_intrusive<c10::StorageImpl>(
//       c10::StorageImpl::use_byte_size_t(), 16 * sizeof(float),
//       c10::GetCPUAllocator(), /*resizable=*/true);
//   float* values = impl->data<float>();
//
// Most code should hold a c10::Storage (c10/core/Storage.h) instead.
#pragma once

#include <cstddef>
#include <utility>

#include "c10/core/Allocator.h"
#include "c10/util/intrusive_ptr.h"

namespace c10 {

// c10::StorageImpl
//
// Owns its DataPtr. Held by intrusive_ptr; when the last strong reference
// goes while weak ones remain, release_resources() frees the memory at once.
// Not thread-safe for mutation (set_data_ptr, set_nbytes, ...): callers that
// share a storage across threads must synchronize writers; concurrent
// readers are fine.
struct StorageImpl : public intrusive_ptr_target {
 public:
  // Blocks come from a per-thread cache, as TensorImpl's do.
  static void* operator new(size_t size);
  static void operator delete(void* block, size_t size) noexcept;

  // Tag selecting the constructors that take a size in bytes (PyTorch's
  // spelling; there are no element-count constructors).
  struct use_byte_size_t {};

  // Wraps existing memory. `allocator` (may be null) is used only to
  // reallocate; a resizable storage needs one.
  StorageImpl(use_byte_size_t, size_t size_bytes, DataPtr data_ptr,
              Allocator* allocator, bool resizable);
  // Allocates `size_bytes` with `allocator`, which must not be null.
  StorageImpl(use_byte_size_t, size_t size_bytes, Allocator* allocator,
              bool resizable);

  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;
  StorageImpl(StorageImpl&&) = delete;
  StorageImpl& operator=(StorageImpl&&) = delete;
  ~StorageImpl() override = default;

  // Frees the memory (the StorageImpl stays, with 0 bytes and null data).
  void reset() {
    data_ptr_.clear();
    size_bytes_ = 0;
  }

  // Frees the memory as soon as no tensor refers to the storage any more,
  // even while weak references keep the object itself.
  void release_resources() override { data_ptr_.clear(); }

  size_t nbytes() const { return size_bytes_; }
  // Records a new size without touching the memory; the caller guarantees
  // that data_ptr() holds at least `size_bytes`.
  void set_nbytes(size_t size_bytes) { size_bytes_ = size_bytes; }

  bool resizable() const { return resizable_; }
  // Throws c10::Error when making a storage without an allocator resizable.
  void set_resizable(bool resizable);

  const DataPtr& data_ptr() const { return data_ptr_; }
  DataPtr& data_ptr() { return data_ptr_; }
  DataPtr& mutable_data_ptr() { return data_ptr_; }

  // Installs new memory and returns the old, which the caller now owns.
  DataPtr set_data_ptr(DataPtr&& data_ptr) {
    std::swap(data_ptr_, data_ptr);
    return std::move(data_ptr);
  }
  // Installs new memory and frees the old at once.
  void set_data_ptr_noswap(DataPtr&& data_ptr) {
    data_ptr_ = std::move(data_ptr);
  }

  void* data() const { return data_ptr_.get(); }
  void* mutable_data() { return data_ptr_.mutable_get(); }
  // The data as T*. No type checking: storages are untyped.
  template <typename T>
  T* data() const {
    return unsafe_data<T>();
  }
  template <typename T>
  T* unsafe_data() const {
    return static_cast<T*>(data_ptr_.get());
  }

  Allocator* allocator() { return allocator_; }
  const Allocator* allocator() const { return allocator_; }
  // The allocator is borrowed; it must outlive the storage.
  void set_allocator(Allocator* allocator) { allocator_ = allocator; }

  Device device() const { return data_ptr_.device(); }
  DeviceType device_type() const { return data_ptr_.device().type(); }

  // c10::StorageImpl::UniqueStorageShareExternalPointer
  //
  // Replaces the memory with caller-provided memory of `size_bytes` bytes
  // and frees the old. The allocator and resizable flag are left unchanged.
  void UniqueStorageShareExternalPointer(DataPtr&& data_ptr,
                                         size_t size_bytes) {
    data_ptr_ = std::move(data_ptr);
    size_bytes_ = size_bytes;
  }

 private:
  DataPtr data_ptr_;
  size_t size_bytes_;
  Allocator* allocator_;
  bool resizable_;
};

}  // namespace c10

// c10/core/TensorImpl.h — the object behind every tensor handle.
//
// A TensorImpl is a strided view of a Storage: sizes, strides, a storage
// offset (in elements), a dtype, a device and the dispatch keys that route
// calls on it. It also carries the version counter shared by all views of the
// same data and a slot for autograd metadata. Users meet it through
// at::Tensor; kernels and backends read it directly.
//
//   auto storage = c10::make_intrusive<c10::StorageImpl>(
//       c10::StorageImpl::use_byte_size_t(), 6 * sizeof(float),
//       c10::GetCPUAllocator(), /*resizable=*/true);
//   auto t = c10::make_intrusive<c10::TensorImpl>(
//       c10::Storage(std::move(storage)), c10::DispatchKeySet(c10::DispatchKey::CPU),
//       c10::kFloat);
//   t->set_sizes_contiguous({2, 3});
//
// Thread safety: reading a TensorImpl from many threads is safe; changing
// its metadata (sizes, storage) while another thread reads it is not. The
// version counter is atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "c10/core/Device.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/core/ScalarType.h"
#include "c10/core/Storage.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"
#include "c10/util/intrusive_ptr.h"

namespace at {
class Tensor;
}  // namespace at

namespace c10 {

class TensorImpl;

// c10::VersionCounter / c10::VariableVersion
//
// Note [Version counter]
// ~~~~~~~~~~~~~~~~~~~~~~
// Every in-place change of a tensor's data bumps a counter shared by all
// tensors that view the same data; autograd records the value when it saves
// a tensor and refuses to use it if the value has moved. The counter is
// created lazily: most tensors are never modified in place nor viewed, so a
// fresh TensorImpl allocates none (this keeps tiny ops cheap). It is created
// the first time it is bumped or shared, and from then on it is stable.
struct VersionCounter : intrusive_ptr_target {
  explicit VersionCounter(uint32_t version) : version_(version) {}
  // Relaxed is enough: the counter orders nothing else; readers only compare
  // values that the same thread (or a joined one) wrote.
  std::atomic<uint32_t> version_;
};

// A shareable handle on a version counter.
class VariableVersion {
 public:
  explicit VariableVersion(uint32_t version = 0)
      : counter_(make_intrusive<VersionCounter>(version)) {}
  explicit VariableVersion(intrusive_ptr<VersionCounter> counter)
      : counter_(std::move(counter)) {}

  uint32_t current_version() const {
    return counter_->version_.load(std::memory_order_relaxed);
  }
  void bump() { counter_->version_.fetch_add(1, std::memory_order_relaxed); }
  // True if no other tensor shares this counter.
  bool unique() const { return counter_.use_count() == 1; }
  bool is_same(const VariableVersion& other) const {
    return counter_ == other.counter_;
  }
  const intrusive_ptr<VersionCounter>& counter() const { return counter_; }

 private:
  intrusive_ptr<VersionCounter> counter_;
};

// c10::AutogradMetaInterface
//
// What c10 needs to know of autograd's per-tensor data; the autograd package
// implements it. Owned by the TensorImpl.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual void set_requires_grad(bool requires_grad, TensorImpl* self_impl) = 0;
  virtual bool requires_grad() const = 0;
  virtual at::Tensor& mutable_grad() = 0;
  virtual const at::Tensor& grad() const = 0;
};

namespace impl {

// c10::impl::AutogradMetaFactory
//
// Makes AutogradMeta for TensorImpl::set_requires_grad. c10 cannot depend on
// autograd, so the autograd package installs its factory at load time.
struct AutogradMetaFactory {
  virtual ~AutogradMetaFactory() = default;
  virtual std::unique_ptr<AutogradMetaInterface> make() const = 0;
};

// Installs the factory (once per process; the pointer must stay valid).
void SetAutogradMetaFactory(AutogradMetaFactory* factory);
// The installed factory; throws c10::Error if autograd is not linked.
AutogradMetaFactory* GetAutogradMetaFactory();

// c10::impl::SizesAndStrides
//
// Sizes and strides stored inline for up to kInlineDims dimensions, on the
// heap beyond that.
class SizesAndStrides {
 public:
  static constexpr size_t kInlineDims = 5;

  SizesAndStrides() = default;
  ~SizesAndStrides() {
    if (!is_inline()) delete[] heap_;
  }
  SizesAndStrides(const SizesAndStrides& other);
  SizesAndStrides& operator=(const SizesAndStrides& other);

  size_t size() const { return size_; }
  const int64_t* sizes_data() const { return is_inline() ? inline_ : heap_; }
  const int64_t* strides_data() const {
    return is_inline() ? inline_ + kInlineDims : heap_ + size_;
  }
  int64_t* sizes_data() { return is_inline() ? inline_ : heap_; }
  int64_t* strides_data() {
    return is_inline() ? inline_ + kInlineDims : heap_ + size_;
  }
  // Changes the number of dimensions, keeping the leading ones.
  void resize(size_t new_size) {
    if (C10_LIKELY(is_inline() && new_size <= kInlineDims)) {
      size_ = new_size;  // strides live at a fixed offset: nothing moves
      return;
    }
    if (new_size != size_) resize_slow(new_size);
  }

 private:
  bool is_inline() const { return size_ <= kInlineDims; }
  void resize_slow(size_t new_size);

  size_t size_ = 0;
  union {
    int64_t inline_[2 * kInlineDims];
    int64_t* heap_;  // sizes then strides, 2 * size_ elements
  };
};

}  // namespace impl

// c10::TensorImpl
class TensorImpl : public intrusive_ptr_target {
 public:
  // TensorImpl blocks come from a per-thread cache of freed ones (sized
  // delete: subclasses of another size bypass it). See
  // c10/core/impl/BlockCache.h.
  static void* operator new(size_t size);
  static void operator delete(void* block, size_t size) noexcept;

  // A 0-dim tensor (sizes [], strides []) of `dtype` over `storage`, whose
  // device it takes. `key_set` holds the backend key (e.g. CPU); the
  // autograd-related keys of that backend are added (See Note [Autograd keys
  // on every tensor]). Throws if the key set's backend does not match the
  // storage's device.
  TensorImpl(Storage&& storage, DispatchKeySet key_set, ScalarType dtype);
  ~TensorImpl() override;

  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  // ---- shape ----
  int64_t dim() const { return static_cast<int64_t>(sizes_and_strides_.size()); }
  IntArrayRef sizes() const {
    return IntArrayRef(sizes_and_strides_.sizes_data(), sizes_and_strides_.size());
  }
  IntArrayRef strides() const {
    return IntArrayRef(sizes_and_strides_.strides_data(), sizes_and_strides_.size());
  }
  // Negative `d` counts from the end; out of range throws IndexError.
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t numel() const { return numel_; }
  bool is_contiguous() const { return is_contiguous_; }
  int64_t storage_offset() const { return storage_offset_; }

  // Sets sizes with contiguous (row-major) strides. Sizes must be >= 0.
  void set_sizes_contiguous(IntArrayRef new_size);
  // Sets sizes and strides (and the offset if given). Lengths must match,
  // sizes >= 0, strides >= 0.
  void set_sizes_and_strides(IntArrayRef new_size, IntArrayRef new_stride,
                             int64_t storage_offset = -1);
  void set_storage_offset(int64_t storage_offset);

  // ---- data ----
  ScalarType scalar_type() const { return dtype_; }
  ScalarType dtype() const { return dtype_; }
  size_t itemsize() const { return itemsize_; }
  const Storage& storage() const { return storage_; }
  Storage& unsafe_storage() { return storage_; }
  bool has_storage() const { return static_cast<bool>(storage_); }
  // Replaces the storage, keeping dtype, sizes and strides.
  void set_storage_keep_dtype(Storage storage);
  // Makes this tensor a shallow copy of `src`: its storage, sizes, strides,
  // offset, dtype, device and keys. Keeps this tensor's autograd metadata
  // and version counter, so handles on it stay valid (at::Tensor::set_data).
  void shallow_copy_from(const TensorImpl& src);
  // Address of the first element: storage data + offset * itemsize. Null
  // when there is no storage or it holds no bytes.
  void* data() const {
    if (!storage_) return nullptr;  // the undefined tensor
    auto* base = static_cast<char*>(storage_.data());
    return base == nullptr ? nullptr : base + storage_offset_ * static_cast<int64_t>(itemsize_);
  }
  template <typename T>
  T* data_ptr_unchecked() const {
    return static_cast<T*>(data());
  }

  // ---- device and dispatch ----
  Device device() const { return device_; }
  DeviceType device_type() const { return device_.type(); }
  bool is_cpu() const { return device_.is_cpu(); }
  bool is_cuda() const { return device_.is_cuda(); }
  DispatchKeySet key_set() const { return key_set_; }

  // A Python-number-like 0-dim tensor made from a Scalar; such tensors take
  // part in type promotion like scalars.
  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool value);

  // ---- version counter (See Note [Version counter]) ----
  uint32_t version() const;
  void bump_version();
  // The counter, created if needed; share it with views of this tensor.
  VariableVersion version_counter() const;
  void set_version_counter(const VariableVersion& version_counter);

  // ---- autograd ----
  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> meta);
  // Creates autograd metadata through the installed factory when needed.
  void set_requires_grad(bool requires_grad);
  bool requires_grad() const {
    return autograd_meta_ != nullptr && autograd_meta_->requires_grad();
  }

  // Frees the storage and autograd metadata when the last strong reference
  // goes while weak references remain.
  void release_resources() override;

 protected:
  // For UndefinedTensorImpl: no storage, no keys.
  struct UndefinedTag {};
  explicit TensorImpl(UndefinedTag);

 private:
  void refresh_numel();
  void refresh_contiguous();
  VersionCounter* ensure_version_counter() const;

  Storage storage_;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  // Owns one reference when non-null; set once, then only replaced by
  // set_version_counter. See Note [Version counter].
  mutable std::atomic<VersionCounter*> version_counter_{nullptr};
  impl::SizesAndStrides sizes_and_strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  Device device_;
  DispatchKeySet key_set_;
  ScalarType dtype_;
  uint8_t itemsize_;
  bool is_contiguous_ = true;
  bool is_wrapped_number_ = false;
};

// c10::UndefinedTensorImpl
//
// The singleton behind an undefined tensor handle: no storage, no keys,
// dtype Undefined. Never deallocated.
class UndefinedTensorImpl final : public TensorImpl {
 public:
  static TensorImpl* singleton();

 private:
  UndefinedTensorImpl();
};

}  // namespace c10

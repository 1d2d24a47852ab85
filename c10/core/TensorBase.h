// c10/core/TensorBase.h — the tensor handle without op methods.
//
// at::TensorBase is a reference-counted handle on a c10::TensorImpl plus its
// accessors. It sits below the operator registry so that IValue and boxed
// kernels can hold tensors; at::Tensor (in aten/) derives from it and adds
// the methods that call the dispatcher. Copying a handle shares the tensor
// (one atomic increment); it never copies data.
//
//   at::TensorBase t = …;
//   if (t.defined()) std::cout << t.sizes() << " " << t.scalar_type();
//
// An undefined handle (default-constructed) holds no TensorImpl; every
// accessor except defined(), use_count() and is_same() throws on it.
#pragma once

#include <cstdint>
#include <utility>

#include "c10/core/TensorImpl.h"

namespace at {

// at::TensorBase
class TensorBase {
 public:
  TensorBase() = default;
  explicit TensorBase(c10::intrusive_ptr<c10::TensorImpl> impl)
      : impl_(std::move(impl)) {}

  // Wraps a raw pointer this handle does not yet own a reference to.
  static TensorBase wrap_borrowed(c10::TensorImpl* impl) {
    return TensorBase(
        c10::intrusive_ptr<c10::TensorImpl>::unsafe_reclaim_from_nonowning(impl));
  }

  bool defined() const { return static_cast<bool>(impl_); }
  void reset() { impl_.reset(); }
  size_t use_count() const { return impl_ ? impl_.use_count() : 0; }
  bool is_same(const TensorBase& other) const { return impl_ == other.impl_; }

  c10::TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const c10::intrusive_ptr<c10::TensorImpl>& getIntrusivePtr() const {
    return impl_;
  }
  c10::intrusive_ptr<c10::TensorImpl> unsafeReleaseIntrusivePtr() {
    return std::move(impl_);
  }

  int64_t dim() const { return impl()->dim(); }
  int64_t ndimension() const { return dim(); }
  c10::IntArrayRef sizes() const { return impl()->sizes(); }
  c10::IntArrayRef strides() const { return impl()->strides(); }
  int64_t size(int64_t d) const { return impl()->size(d); }
  int64_t stride(int64_t d) const { return impl()->stride(d); }
  int64_t numel() const { return impl()->numel(); }
  int64_t storage_offset() const { return impl()->storage_offset(); }
  bool is_contiguous() const { return impl()->is_contiguous(); }
  size_t itemsize() const { return impl()->itemsize(); }
  size_t element_size() const { return itemsize(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * itemsize(); }

  c10::ScalarType scalar_type() const { return impl()->scalar_type(); }
  c10::ScalarType dtype() const { return impl()->scalar_type(); }
  c10::Device device() const { return impl()->device(); }
  bool is_cpu() const { return impl()->is_cpu(); }
  bool is_cuda() const { return impl()->is_cuda(); }
  c10::DispatchKeySet key_set() const { return impl()->key_set(); }
  const c10::Storage& storage() const { return impl()->storage(); }
  bool has_storage() const { return defined() && impl_->has_storage(); }
  void* data_ptr() const { return impl()->data(); }

  bool requires_grad() const { return impl()->requires_grad(); }
  uint32_t _version() const { return impl()->version(); }

 protected:
  c10::TensorImpl* impl() const {
    TORCH_CHECK(impl_, "Tensor: this tensor is undefined (it holds no data); "
                "check tensor.defined() before using it, or create it with a "
                "factory such as at::empty.");
    return impl_.get();
  }

  c10::intrusive_ptr<c10::TensorImpl> impl_;
};

}  // namespace at

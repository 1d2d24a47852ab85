// aten/Tensor.h — at::Tensor: the tensor handle with PyTorch's methods.
//
//   at::Tensor a = at::ones({2, 3});
//   at::Tensor b = a.add(a, /*alpha=*/2).t();         // [3, 2], a view
//   float first = b.contiguous().data_ptr<float>()[0];
//
// at::Tensor adds methods to at::TensorBase (c10/core/TensorBase.h) and no
// data: copying shares the tensor. Methods are generated from
// aten/native_functions.txt (TensorMethods.inc) and call the dispatcher.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>

#include "aten/TensorOptions.h"
#include "aten/VariableHooks.h"
#include "c10/core/GeneratorImpl.h"  // at::Generator, in random ops' methods
#include "c10/core/Scalar.h"
#include "c10/core/TensorBase.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/OptionalArrayRef.h"
#include "c10/util/StringUtil.h"

namespace at {

using c10::IntArrayRef;
using c10::Scalar;

class Tensor;
using TensorList = c10::ArrayRef<Tensor>;
namespace indexing {
class TensorIndex;  // aten/TensorIndexing.h
}  // namespace indexing

// at::TensorAccessor: element access with sizes and strides, for loops in
// tests and reference code (not a fast path).
template <typename T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(data_ + i * strides_[0], sizes_ + 1, strides_ + 1);
  }
  int64_t size(size_t d) const { return sizes_[d]; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
template <typename T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  T& operator[](int64_t i) const { return data_[i * strides_[0]]; }
  int64_t size(size_t d) const { return sizes_[d]; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

// at::Tensor
class Tensor : public TensorBase {
 public:
  Tensor() = default;
  explicit Tensor(TensorBase base) : TensorBase(std::move(base)) {}
  explicit Tensor(c10::intrusive_ptr<c10::TensorImpl> impl)
      : TensorBase(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  ~Tensor() = default;

  // Assigning to a named tensor rebinds the handle; assigning to a
  // temporary — a view such as t[0] or t.index({Slice(), 1}) — writes into
  // the memory it views, as libtorch: `t[0] = other` is t[0].copy_(other)
  // (broadcast, converted to t's dtype) and `t[0] = 5` is t[0].fill_(5).
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  Tensor& operator=(const Tensor& src) && {
    copy_(src);
    return *this;
  }
  Tensor& operator=(Tensor&& src) && {
    copy_(src);
    return *this;
  }
  Tensor& operator=(const Scalar& value) && {
    fill_(value);
    return *this;
  }

  TensorOptions options() const {
    return TensorOptions().dtype(scalar_type()).device(device());
  }

  // The address of the first element as T*; throws if T is not the dtype.
  template <typename T>
  T* data_ptr() const {
    check_dtype_for<T>("data_ptr");
    return static_cast<T*>(impl()->data());
  }
  using TensorBase::data_ptr;

  // The value of a one-element tensor, converted to T.
  template <typename T>
  T item() const {
    return item().to<T>();
  }
  Scalar item() const;

  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is for tensors with at least one dimension");
    TORCH_CHECK(static_cast<size_t>(dim()) == N, "accessor: expected a ", N,
                "-d tensor but this one has ", dim(), " dimensions.");
    return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
  }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  // ---- autograd (implemented by the autograd package; see
  // aten/VariableHooks.h and docs/autograd.md) ----
  // Sets requires_grad on a leaf; only floating tensors can require grad.
  const Tensor& requires_grad_(bool requires_grad = true) const {
    impl::GetVariableHooks()->set_requires_grad(*this, requires_grad);
    return *this;
  }
  const Tensor& set_requires_grad(bool requires_grad) const {
    return requires_grad_(requires_grad);
  }
  // The accumulated gradient (undefined until a backward reaches this leaf,
  // or a non-leaf with retain_grad()).
  const Tensor& grad() const { return impl::GetVariableHooks()->grad(*this); }
  Tensor& mutable_grad() const { return impl::GetVariableHooks()->mutable_grad(*this); }
  // The Node that created this tensor; null for leaves.
  const std::shared_ptr<torch::autograd::Node>& grad_fn() const {
    return impl::GetVariableHooks()->grad_fn(*this);
  }
  bool is_leaf() const { return impl::GetVariableHooks()->is_leaf(*this); }
  int64_t output_nr() const { return impl::GetVariableHooks()->output_nr(*this); }
  void retain_grad() const { impl::GetVariableHooks()->retain_grad(*this); }
  bool retains_grad() const { return impl::GetVariableHooks()->retains_grad(*this); }
  // Computes the gradient of this tensor with respect to the graph leaves
  // (or `inputs`). `gradient` may be omitted for a one-element tensor.
  // retain_graph defaults to create_graph.
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false,
                std::optional<TensorList> inputs = std::nullopt) const {
    impl::GetVariableHooks()->backward(*this, gradient, retain_graph, create_graph, inputs);
  }
  // Registers a hook called with this tensor's gradient during backward; a
  // hook returning a Tensor replaces the gradient. Returns a handle for
  // remove_hook.
  template <typename F>
  unsigned register_hook(F&& hook) const {
    if constexpr (std::is_void_v<std::invoke_result_t<F, const Tensor&>>) {
      return impl::GetVariableHooks()->register_hook(
          *this, [f = std::forward<F>(hook)](const Tensor& grad) {
            f(grad);
            return Tensor();
          });
    } else {
      return impl::GetVariableHooks()->register_hook(*this, std::forward<F>(hook));
    }
  }
  void remove_hook(unsigned pos) const { impl::GetVariableHooks()->remove_hook(*this, pos); }
  // Makes this tensor share `new_data`'s storage, shape, dtype and device
  // while keeping its identity: its autograd state (requires_grad, grad,
  // hooks) and every handle on it stay (nn::Module::to uses this).
  void set_data(const Tensor& new_data) const {
    impl::GetVariableHooks()->set_data(*this, new_data);
  }
  // The version counter's value (bumped by in-place ops).
  int64_t _version() const { return static_cast<int64_t>(impl()->version()); }

  // t[i] is t.select(0, i): a view of the i-th slice along dim 0 (negative
  // i counts from the end), as in libtorch.
  Tensor operator[](int64_t index) const;
  // t[s] is t[s.toLong()]; t[i] for a tensor i is t.index({i}).
  Tensor operator[](const Scalar& index) const;
  Tensor operator[](const Tensor& index) const;

  // libtorch's C++ indexing (aten/TensorIndexing.h): t.index({Slice(), 0})
  // is Python's t[:, 0]; t.index_put_({mask}, v) is t[mask] = v. A list of
  // only integers, slices, None and Ellipsis gives a view; with tensors or
  // bools in it, a copy. index_put_ writes into this tensor and returns it.
  Tensor index(c10::ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor& index_put_(c10::ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) const;
  Tensor& index_put_(c10::ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                     const Tensor& rhs) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                     const Scalar& v) const;

  // Compound assignment, in place as PyTorch's: `a += b` is `a.add_(b)`,
  // `mask &= other` is `mask.bitwise_and_(other)`. The result keeps this
  // tensor's dtype (an in-place op refuses a promotion it cannot store).
#define EMBER_COMPOUND_ASSIGNMENT_(op, fn)                                      \
  Tensor& operator op(const Tensor& other) const { return fn(other); }          \
  Tensor& operator op(const Scalar& other) const { return fn(other); }
  EMBER_COMPOUND_ASSIGNMENT_(+=, add_)
  EMBER_COMPOUND_ASSIGNMENT_(-=, sub_)
  EMBER_COMPOUND_ASSIGNMENT_(*=, mul_)
  EMBER_COMPOUND_ASSIGNMENT_(/=, div_)
  EMBER_COMPOUND_ASSIGNMENT_(&=, bitwise_and_)
  EMBER_COMPOUND_ASSIGNMENT_(|=, bitwise_or_)
  EMBER_COMPOUND_ASSIGNMENT_(^=, bitwise_xor_)
#undef EMBER_COMPOUND_ASSIGNMENT_

  // Device moves by name, as libtorch: t.to("cpu"), t.to("cuda:1"),
  // t.cpu(), t.cuda(). The string is parsed by c10::Device ("cpu", "cuda",
  // "cuda:1", a registered PrivateUse1 name). cuda() throws a c10::Error
  // that says so when no CUDA runtime is registered and no CUDA plugin can
  // be loaded (torch::cuda::is_available() is false).
  Tensor to(const char* device, bool non_blocking = false, bool copy = false) const {
    return to(TensorOptions(Device(device)), non_blocking, copy);
  }
  Tensor to(const std::string& device, bool non_blocking = false, bool copy = false) const {
    return to(TensorOptions(Device(device)), non_blocking, copy);
  }
  Tensor cpu() const { return to(TensorOptions(Device(c10::kCPU))); }
  Tensor cuda() const;

  // PyTorch's printing: values, then "[ CPUFloatType{2,3} ]".
  std::string toString() const;
  void print() const;

  // The generated op methods (add, t, view, …).
#include "aten/TensorMethods.inc"

 private:
  template <typename T>
  void check_dtype_for(const char* where) const {
    TORCH_CHECK(scalar_type() == c10::CppTypeToScalarType<T>::value, where,
                ": expected a tensor of dtype ", c10::CppTypeToScalarType<T>::value,
                " for this element type, but the tensor is ", scalar_type(),
                ". Use the matching type (or .to(dtype)).");
  }
};

std::ostream& operator<<(std::ostream& out, const Tensor& t);

}  // namespace at

#include "aten/IValueTensor.h"  // IWYU pragma: export
#include "aten/TensorIndexing.h"  // IWYU pragma: export
